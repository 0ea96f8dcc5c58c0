"""Bad input and configuration found by fuzzing the CLI: each exits 2 with one line naming
the problem (never an internal error, a silently dropped option or gate, an input or a run
written over, a key printed back)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app

runner = CliRunner()
LEX = "token_f1,k_precision"
DEEP = "[" * 100_000 + "]" * 100_000
LONG_INT = "1" + "0" * 5000


def _run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    text = " ".join(result.output.split())
    assert "internal error" not in text and "Traceback" not in text, text
    return result.exit_code, text


def _data(tmp_path: Path, n: int = 3, name: str = "rows.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(make_row(i)) + "\n" for i in range(1, n + 1)))
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("runs")
    rows = [make_row(i) for i in range(1, 6)]
    ragmeter.evaluate(rows, LEX, n_resamples=50).write(root / "a")
    ragmeter.evaluate(rows, LEX, n_resamples=50, seed=1).write(root / "b")
    return root / "a", root / "b"


# ---- JSON that Python cannot hold: nested past the stack, an integer of 5000 digits ----------


@pytest.mark.parametrize("value", [DEEP, LONG_INT], ids=["deep", "long-int"])
@pytest.mark.parametrize("executor", ["local", "stream"])
def test_unreadable_json_line_is_a_data_error(tmp_path: Path, value: str, executor: str) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"question_id": "q1", "question": "q", "answer": "a", "x": ' + value + "}\n")
    out = str(tmp_path / "out")
    code, text = _run("evaluate", str(path), "-m", LEX, "--executor", executor, "-o", out)
    assert code == 2, text
    assert "row 1: invalid JSON" in text
    assert ("nested deeper" in text) if value == DEEP else ("5001 digits" in text)


def test_unreadable_json_file_and_config(tmp_path: Path) -> None:
    data = tmp_path / "rows.json"
    data.write_text("[" + DEEP + "]")
    code, text = _run("evaluate", str(data), "-m", LEX)
    assert code == 2 and "invalid JSON" in text and "nested deeper" in text, text
    config = tmp_path / "settings.json"
    config.write_text('{"x": ' + DEEP + "}")
    code, text = _run("evaluate", str(_data(tmp_path)), "-m", LEX, "--config", str(config))
    assert code == 2 and "not valid JSON" in text and "nested deeper" in text, text


def test_meta_eval_unreadable_json_line(tmp_path: Path) -> None:
    path = tmp_path / "wikieval.jsonl"
    path.write_text('{"question": ' + LONG_INT + "}\n")
    code, text = _run("meta-eval", "wikieval", "--data", str(path))
    assert code == 2 and "5001 digits" in text, text


@pytest.mark.parametrize(
    ("file", "text"),
    [
        ("scores.jsonl", '{"question_id": "q1", "x": ' + DEEP + "}\n"),
        ("scores.jsonl", '{"question_id": "q1", "token_f1": ' + LONG_INT + "}\n"),
        ("summary.json", '{"x": ' + DEEP + "}"),
    ],
    ids=["scores-deep", "scores-long-int", "summary-deep"],
)
def test_compare_unreadable_run_json(
    runs: tuple[Path, Path], tmp_path: Path, file: str, text: str
) -> None:
    import shutil

    b = tmp_path / "b"
    shutil.copytree(runs[1], b)
    (b / file).write_text(text)
    code, said = _run("compare", str(runs[0]), str(b))
    assert code == 2, said
    assert "invalid JSON" in said or "unreadable JSON" in said


# ---- summary.json parts of the wrong type ---------------------------------------------------


@pytest.mark.parametrize(("key", "value"), [("config", "x"), ("usage", [1]), ("notes", "abc")])
def test_summary_part_of_the_wrong_type(
    runs: tuple[Path, Path], tmp_path: Path, key: str, value: object
) -> None:
    import shutil

    b = tmp_path / "b"
    shutil.copytree(runs[1], b)
    summary = json.loads((b / "summary.json").read_text())
    (b / "summary.json").write_text(json.dumps({**summary, key: value}))
    code, text = _run("compare", str(runs[0]), str(b))
    assert code == 2, text
    assert f"summary.json': '{key}' must be" in text


# ---- an output written over an input --------------------------------------------------------


@pytest.mark.parametrize("extra", [[], ["--overwrite"], ["--dry-run"], ["--executor", "stream"]])
def test_evaluate_out_holding_the_input_is_refused(tmp_path: Path, extra: list[str]) -> None:
    data = _data(tmp_path, 3, name="scores.jsonl")  # re-scoring a run's rows in place
    before = data.read_bytes()
    code, text = _run("evaluate", str(data), "-m", LEX, "-o", str(data.parent), *extra)
    assert code == 2, text
    assert "would replace the input" in text and "scores.jsonl is written there" in text
    assert data.read_bytes() == before


def test_evaluate_out_beside_the_input_still_works(tmp_path: Path) -> None:
    data = _data(tmp_path)  # rows.jsonl: no output file of the run has its name
    code, text = _run("evaluate", str(data), "-m", LEX, "-o", str(tmp_path))
    assert code == 0, text


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["compare", "{a}", "{b}", "--json", "{a}/scores.jsonl"], "--json"),
        (["compare", "{a}", "{b}", "--markdown", "{b}/summary.json"], "--markdown"),
        (["report", "{a}", "-o", "{a}/scores.jsonl"], "--out"),
        (["report", "{a}", "--compare", "{b}", "-o", "{b}/run.json"], "--out"),
    ],
)
def test_outputs_never_replace_a_run_file(
    runs: tuple[Path, Path], args: list[str], option: str
) -> None:
    a, b = runs
    kept = {p: p.read_bytes() for run in runs for p in run.iterdir()}
    code, text = _run(*(x.format(a=a, b=b) for x in args))
    assert code == 2, text
    assert f"{option} " in text and "of the run" in text and "which is read" in text
    assert {p: p.read_bytes() for p in kept} == kept


def test_compare_markdown_and_json_to_one_file(runs: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "same.out"
    code, text = _run("compare", *map(str, runs), "--json", str(out), "--markdown", str(out))
    assert code == 2 and "--markdown and --json are one file" in text, text
    assert not out.exists()


def test_a_new_file_inside_a_run_directory_is_fine(tmp_path: Path) -> None:
    rows = [make_row(i) for i in range(1, 4)]
    a, b = tmp_path / "a", tmp_path / "b"
    ragmeter.evaluate(rows, LEX, n_resamples=50).write(a)
    ragmeter.evaluate(rows, LEX, n_resamples=50, seed=1).write(b)
    code, text = _run("compare", str(a), str(b), "--json", str(a / "compare.json"))
    assert code == 0 and (a / "compare.json").is_file(), text


# ---- an option taking one value given twice; --fail-under naming a metric twice or none -----


def test_fail_under_given_twice_is_refused(tmp_path: Path) -> None:
    """The first gate fails (token_f1 0.6 < 0.99): it was dropped and the run exited 0."""
    gates = ["--fail-under", "token_f1=0.99", "--fail-under", "k_precision=0"]
    code, text = _run("evaluate", str(_data(tmp_path)), "-m", LEX, *gates)
    assert code == 2, text
    assert "--fail-under is given 2 times: give it once" in text
    assert "--fail-under faithfulness=0.8,mrr=0.6" in text


def test_other_options_still_repeat(tmp_path: Path) -> None:
    """--mode is repeatable; a one-value option keeps click's last-wins (a wrapper's default
    overridden after it); flags repeat."""
    args = ["--mode", "faithfulness=fast", "--mode", "answer_relevance=fast", "-q", "-q"]
    args += ["--judge", "local", "--judge", "none", "--seed", "1", "--seed", "2"]
    code, text = _run("evaluate", str(_data(tmp_path)), "-m", LEX, *args)
    assert code == 0, text
    assert "token_f1" in text and "k_precision" in text


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_metrics_given_twice_is_refused(tmp_path: Path, command: str) -> None:
    """``-m token_f1 -m k_precision`` scored (or compared) k_precision alone, exit 0: the
    user asked for two metrics and got one without a word."""
    target = [str(_data(tmp_path))] if command == "evaluate" else [str(tmp_path)] * 2
    code, text = _run(command, *target, "-m", "token_f1", "-m", "k_precision")
    assert code == 2, text
    assert "-m is given 2 times: give it once" in text or "--metrics is given 2" in text
    assert "-m token_f1,k_precision" in text


@pytest.mark.parametrize(
    ("gate", "said"),
    [
        ("token_f1=0.99,token_f1=0", "token_f1 is given twice (0.99, then 0)"),
        ("", "--fail-under is given an empty value"),  # any option (an unset variable?)
        (" , ", "names no gate"),
    ],
)
def test_fail_under_naming_a_metric_twice_or_none(tmp_path: Path, gate: str, said: str) -> None:
    code, text = _run("evaluate", str(_data(tmp_path)), "-m", LEX, "--fail-under", gate)
    assert code == 2, text
    assert said in text


# ---- server URLs and the key's variable -----------------------------------------------------


@pytest.mark.parametrize(
    "url", ["localhost:8000", "ftp://h/v1", "http://h:99999/v1", "http://[::1", ""]
)
def test_base_url_that_is_no_http_url(tmp_path: Path, url: str) -> None:
    args = ["-m", "faithfulness", "--judge", "openai:m", "--base-url", url, "--dry-run"]
    code, text = _run("evaluate", str(_data(tmp_path, 1)), *args)
    assert code == 2, text
    if not url:  # refused as every option's empty value is, before the settings are built
        assert "--base-url is given an empty value" in text
        return
    assert "--base-url (base_url):" in text and "is not a server URL" in text


def test_openai_base_url_without_scheme(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "localhost:8000")
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    args = ["-m", "faithfulness", "--judge", "openai:m", "--dry-run"]
    code, text = _run("evaluate", str(_data(tmp_path, 1)), *args)
    assert code == 2 and "OPENAI_BASE_URL: 'localhost:8000' is not a server URL" in text, text


def test_base_url_shown_without_its_credentials(tmp_path: Path) -> None:
    args = ["-m", "faithfulness", "--judge", "openai:m", "--base-url", "user:hunter2@host:8000"]
    code, text = _run("evaluate", str(_data(tmp_path, 1)), *args, "--dry-run")
    assert code == 2 and "is not a server URL" in text, text
    assert "hunter2" not in text


@pytest.mark.parametrize("name", ["sk-proj-abcdefghijklmnop1234", ""])
def test_api_key_env_that_is_no_variable_name(tmp_path: Path, name: str) -> None:
    args = ["-m", "faithfulness", "--judge", "openai:m", "--api-key-env", name]
    code, text = _run("evaluate", str(_data(tmp_path, 1)), *args)
    assert code == 2, text
    said = "takes the name of the environment variable" if name else "is given an empty value"
    assert said in text
    assert "abcdefghijklmnop" not in text


@pytest.mark.parametrize(
    "args",
    [["-o", ""], ["--by", " "], ["--cache", ""], ["--judge", ""], ["--mode", ""]],
)
def test_an_empty_option_value_is_refused(tmp_path: Path, args: list[str]) -> None:
    """``-o ""`` wrote the run into the current directory, ``--by ""`` gave no slices, and
    ``compare -m ""`` compared every metric, each without a word (an unset CI variable)."""
    code, text = _run("evaluate", str(_data(tmp_path)), "-m", LEX, *args)
    assert code == 2 and f"{args[0]} is given an empty value" in text, text
    code, text = _run("compare", str(tmp_path), str(tmp_path), "-m", "")
    assert code == 2 and "--metrics/-m is given an empty value" in text, text


# ---- numbers past what can be computed; settings in the wrong place -------------------------


def test_n_resamples_past_the_maximum(tmp_path: Path) -> None:
    code, text = _run("evaluate", str(_data(tmp_path)), "-m", LEX, "--n-resamples", "1" + "0" * 20)
    assert code == 2 and "--n-resamples" in text, text


@pytest.mark.parametrize("name", ["max_context_tokens", "evidence_k"])
def test_metric_option_among_the_settings(tmp_path: Path, name: str) -> None:
    config = tmp_path / "ragmeter.toml"
    config.write_text(f"[ragmeter]\n{name} = 3\n")
    code, text = _run("evaluate", str(_data(tmp_path)), "-m", LEX, "--config", str(config))
    assert code == 2, text
    assert f"field '{name}': an option of the metrics" in text and "[ragmeter.options]" in text
    assert "secrets" not in text


def test_input_unchanged_by_refusals(tmp_path: Path) -> None:
    """The refusals above run before any output: nothing is created beside the input."""
    data = _data(tmp_path)
    gates = ["--fail-under", "token_f1=0.1", "--fail-under", "k_precision=0.1"]
    _run("evaluate", str(data), "-m", LEX, *gates, "-o", str(tmp_path / "o"))
    assert sorted(os.listdir(tmp_path)) == ["rows.jsonl"]


@pytest.mark.parametrize("broken", ["scores-dir", "scores-binary", "summary-dir"], ids=lambda b: b)
def test_a_run_file_that_cannot_be_read_is_said(
    runs: tuple[Path, Path], tmp_path: Path, broken: str
) -> None:
    """A directory in place of scores.jsonl / summary.json, or bytes that are not UTF-8,
    ended compare and report in "internal error: IsADirectoryError" (exit 1)."""
    import shutil

    b = tmp_path / "b"
    shutil.copytree(runs[1], b)
    name = "summary.json" if broken == "summary-dir" else "scores.jsonl"
    (b / name).unlink()
    if broken.endswith("dir"):
        (b / name).mkdir()
    else:
        (b / name).write_bytes(b"\xff\xfe\x00not text\n")
    for args in (
        ["compare", str(runs[0]), str(b)],
        ["report", str(b), "-o", str(tmp_path / "r.html")],
    ):
        code, text = _run(*args)
        assert code == 2, text
        assert "internal error" not in text and f"field '{name}'" in text
