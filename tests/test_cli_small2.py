"""Two small CLI defects left by earlier audits: a misspelt `--judge local:KEY` passed without
a word when no metric asked needed the judge, and `compare` on a narrow terminal cut the
metric column (or dropped it). Each test marked "before" failed before its fix."""

from __future__ import annotations

import dataclasses
import io
import os
import pty
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from tests.conftest import EXAMPLES, make_row
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app
from ragmeter.cli import compare as cli_compare
from ragmeter.cli import evaluate as cli_evaluate
from ragmeter.compare import compare
from ragmeter.compare_render import to_rich

runner = CliRunner()
TURNS = EXAMPLES / "rag_turns.jsonl"
WIDE = {"COLUMNS": "300"}


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Scoring (or a dry run's estimate) raises: a refusal must come before it."""

    def refuse(*_: Any, **__: Any) -> None:
        raise AssertionError("work started before --judge was checked")

    monkeypatch.setattr(cli_evaluate, "run_evaluate", refuse)
    monkeypatch.setattr(cli_evaluate, "run_dry", refuse)


def _evaluate(*args: str) -> Any:
    return runner.invoke(
        app, ["evaluate", str(TURNS), "-m", "mrr", "--cache", "off", *args], env=WIDE
    )


@pytest.mark.parametrize("extra", [[], ["--dry-run"]])
def test_an_unknown_local_model_is_refused_without_a_judged_metric(
    no_work: None, extra: list[str]
) -> None:
    """Before: `--judge local:7b -m mrr` exited 0 without a word (the model was looked up only
    when a judged metric was asked); now exit 2, as with -m faithfulness, naming the value
    and the forms that exist."""
    res = _evaluate("--judge", "local:7b", *extra)
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert "the judge 'local:7b' was asked for" in text
    assert "unknown embedded model '7b'; known: 1.5b, 0.5b" in text
    assert "give --judge local or local:1.5b or local:0.5b" in text


def test_an_unknown_local_model_in_a_config_file_is_refused(no_work: None, tmp_path: Path) -> None:
    """Before: exit 0 as well; the file's judge is the user's too."""
    config = tmp_path / "ragmeter.toml"
    config.write_text('judge = "local:7b"\n')
    res = _evaluate("--config", str(config))
    assert res.exit_code == 2, res.output
    assert "the judge 'local:7b' was asked for" in " ".join(res.output.split())


def test_the_message_is_the_one_a_judged_metric_gets(no_work: None) -> None:
    """Guard: one wording whether or not a judged metric is asked."""
    judged = runner.invoke(
        app,
        ["evaluate", str(TURNS), "-m", "faithfulness", "--judge", "local:7b", "--cache", "off"],
        env=WIDE,
    )
    plain = _evaluate("--judge", "local:7b")
    assert judged.exit_code == plain.exit_code == 2
    assert judged.output == plain.output


@pytest.mark.parametrize("judge", ["lcoal", "openai:", "local:", "litellm:", "gguf:", "x:y"])
def test_other_misspelt_judges_are_refused_without_a_judged_metric(
    no_work: None, judge: str
) -> None:
    """Guard (refused before too, by Settings' pattern): exit 2 naming the value and the forms."""
    res = _evaluate("--judge", judge)
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert (
        f"judge must be local, openai:MODEL, litellm:MODEL, gguf:PATH or none, not {judge!r}"
        in (text)
    )


@pytest.mark.parametrize(
    "judge",
    [
        "local",
        "local:1.5b",
        "local:0.5b",
        "local:small",
        "gguf:GOOD",  # a file with a GGUF header (made below): only its first bytes are read
        "openai:gpt-4o-mini",
        "litellm:gpt-4o-mini",
        "none",
        "off",
    ],
)
def test_valid_judges_still_run_the_metrics_that_need_none(judge: str, tmp_path: Path) -> None:
    """Guard: every form the README and docs/cli.md give runs `-m mrr` (no model loaded, no
    server asked). A missing gguf:PATH is refused whatever the metrics
    (tests/test_gguf_judge_form.py)."""
    if judge == "gguf:GOOD":
        good = tmp_path / "model.gguf"
        good.write_bytes(b"GGUF" + (3).to_bytes(4, sys.byteorder) + bytes(16))
        judge = f"gguf:{good}"
    res = _evaluate("--judge", judge, "-q")
    assert res.exit_code == 0, res.output
    assert "mrr" in res.output


def test_no_judge_given_is_unchanged() -> None:
    res = _evaluate("-q")
    assert res.exit_code == 0, res.output
    assert "mrr" in res.output


# -- compare on a narrow terminal --------------------------------------------------------

LONG_NAMES = "k_precision_union,refusal_accuracy,token_precision,refusal_rate,k_precision"
HEADERS = ["metric", "n", "mean A", "mean B", "delta", "95% CI", "p", "Holm p", "W/T/L", "B vs A"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A and B over the longest built-in metric names that need no judge; B refuses on 8 of
    12, so every column has a value."""
    root = tmp_path_factory.mktemp("narrow")
    rows = [make_row(i, kind="lone" if i == 1 else "many") for i in range(1, 13)]
    refusing = [dict(r, answer="I don't know.") if i < 8 else r for i, r in enumerate(rows)]
    ragmeter.evaluate(rows, LONG_NAMES, n_resamples=100).write(root / "a")
    ragmeter.evaluate(refusing, LONG_NAMES, n_resamples=100).write(root / "b")
    return root / "a", root / "b"


def _on_a_terminal(args: list[str], columns: int) -> str:
    """The command's stdout as a terminal of ``columns`` columns shows it (a pty), escape
    codes removed."""
    master, slave = pty.openpty()
    src = str(Path(ragmeter.__file__).resolve().parents[1])
    path = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path, "COLUMNS": str(columns), "TERM": "xterm"}
    cmd = [sys.executable, "-m", "ragmeter", *args]
    proc = subprocess.Popen(cmd, stdout=slave, stderr=subprocess.DEVNULL, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the command closed its end
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    assert proc.wait(timeout=120) == 0
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", b"".join(chunks).decode()).replace("\r", "")


def _rows_of(shown: str, name: str) -> list[str]:
    return [line for line in shown.splitlines() if line.split()[:1] == [name]]


@pytest.mark.parametrize("columns", [80, 60])
def test_compare_on_a_narrow_terminal_shows_every_metric_name_and_column(
    runs: tuple[Path, Path], columns: int
) -> None:
    """Before: at 80 columns the names were broken over two lines ("k_precisi" / "on_union");
    at 60 the metric column was gone (rows of "…") and the means cut to "mean…". Now the
    table is folded into parts, each led by the metric, every cell whole."""
    a, b = runs
    shown = _on_a_terminal(["compare", str(a), str(b)], columns)
    assert "note: the table above is cut" not in shown, shown
    assert "…" not in shown, shown
    assert all(len(line) <= columns for line in shown.splitlines()), shown
    for name in LONG_NAMES.split(","):
        rows = _rows_of(shown, name)
        assert rows, f"{name} not shown whole at {columns} columns:\n{shown}"
        # the verdict in the first part: worse / higher beside the name
        assert re.search(r"\b(worse|higher)\b", rows[0]), shown
    header = " ".join(shown.split())
    assert all(h in header for h in HEADERS), shown


@pytest.mark.parametrize("columns", [80, 60])
def test_compare_slices_on_a_narrow_terminal_keep_metric_and_slice(
    runs: tuple[Path, Path], columns: int
) -> None:
    """The slice table folds the same way, each part led by the metric and the slice."""
    a, b = runs
    shown = _on_a_terminal(["compare", str(a), str(b), "--by", "kind"], columns)
    assert "note: the table above is cut" not in shown, shown
    for name in LONG_NAMES.split(","):
        slices = [
            line for line in _rows_of(shown, name) if line.split()[1:2] in (["lone"], ["many"])
        ]
        assert slices, shown


@pytest.mark.parametrize("columns", [80, 60])
def test_the_longest_builtin_metric_name_stays_whole(
    runs: tuple[Path, Path], columns: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """context_relevance_perplexity (28 characters, the longest built-in name; its scorer
    model is not loaded here: the comparison's names are set to it). Before: cut or gone."""
    a, b = runs
    cmp = compare(a, b, n_resamples=100)
    long_name = "context_relevance_perplexity"
    cmp.metrics = [dataclasses.replace(cmp.metrics[0], metric=long_name), *cmp.metrics[1:]]
    out = io.StringIO()
    console = Console(file=out, width=columns, force_terminal=True, color_system=None)
    monkeypatch.setattr(cli_compare, "console", console)
    for renderable in to_rich(cmp):
        cli_compare.print_table(renderable)
    shown = out.getvalue()
    assert "note: the table above is cut" not in shown and "…" not in shown, shown
    assert _rows_of(shown, long_name), shown
    assert all(len(line) <= columns for line in shown.splitlines()), shown


def test_a_wide_terminal_prints_one_table(runs: tuple[Path, Path]) -> None:
    """Guard: a terminal wide enough for the table is not folded."""
    a, b = runs
    shown = _on_a_terminal(["compare", str(a), str(b)], 160)
    assert "(continued)" not in shown
    assert len(_rows_of(shown, "k_precision_union")) == 1


def test_the_python_api_refuses_an_unknown_local_model_too() -> None:
    """Was: ``evaluate(rows, "mrr", settings=Settings(judge="local:7b"))`` scored and returned
    without a word, as the CLI did before its check."""
    import ragmeter
    from ragmeter.errors import ConfigError

    rows = [{"question": "q", "answer": "a", "contexts": ["c"], "retrieved_ids": ["x"],
             "relevant_ids": ["x"]}]  # fmt: skip
    with pytest.raises(ConfigError, match=r"local:7b.*known: 1\.5b"):
        ragmeter.evaluate(rows, "mrr", settings={"judge": "local:7b", "embedder": "none"})
