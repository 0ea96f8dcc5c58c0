"""Two small CLI defects left by earlier audits: a misspelt `--judge local:KEY` passed without
a word when no metric asked needed the judge, and `compare` on a narrow terminal cut the
metric column (or dropped it). Each test marked "before" failed before its fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.conftest import EXAMPLES
from typer.testing import CliRunner

from ragmeter.cli import app
from ragmeter.cli import evaluate as cli_evaluate

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
        "gguf:/no/such/model.gguf",  # a syntax check only: no file looked at without a judged -m
        "openai:gpt-4o-mini",
        "litellm:gpt-4o-mini",
        "none",
        "off",
    ],
)
def test_valid_judges_still_run_the_metrics_that_need_none(judge: str) -> None:
    """Guard: every form the README gives runs `-m mrr` (no model loaded, no server asked)."""
    res = _evaluate("--judge", judge, "-q")
    assert res.exit_code == 0, res.output
    assert "mrr" in res.output


def test_no_judge_given_is_unchanged() -> None:
    res = _evaluate("-q")
    assert res.exit_code == 0, res.output
    assert "mrr" in res.output
