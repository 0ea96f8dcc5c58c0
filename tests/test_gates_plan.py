"""A gate on a metric the run's plan leaves out is refused once the plan is known, before any
judge call, embedding or scoring (exit 2, naming the metric and the plan's reason), on every
executor; a planned metric that scores no sample still fails its gate after the run, saying
why. Before, `evaluate --fail-under mrr=0.5` on rows without retrieval ids did all its work,
then exited 1 with `mrr: not computed in this run`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app
from ragmeter.errors import DataError
from ragmeter.gates import fail_under

runner = CliRunner()
NO_IDS = {"context_ids": None, "reference_context_ids": None, "reference_contexts": None}


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def no_ids(tmp_path: Path) -> Path:
    """Rows no retrieval metric can score: no ids, no reference contexts."""
    return _write(tmp_path / "no_ids.jsonl", [make_row(i, **NO_IDS) for i in range(1, 4)])


@pytest.fixture
def no_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any scoring or model session fails the test: the refusal must come before them."""

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("scoring started before the gate was checked")

    monkeypatch.setattr("ragmeter.runner.compute_all", forbidden)
    monkeypatch.setattr("ragmeter.executors.stream.compute_all", forbidden)
    monkeypatch.setattr("ragmeter.executors.session.build_resources", forbidden)


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("executor", ["local", "stream"])
def test_cli_refuses_a_gate_the_default_plan_will_not_run(
    no_ids: Path, tmp_path: Path, executor: str, no_scoring: None
) -> None:
    out = tmp_path / "out"
    args = ["evaluate", str(no_ids), "--judge", "none", "--quiet", "-o", str(out)]
    res = runner.invoke(
        app, [*args, "--executor", executor, "--fail-under", "mrr=0.5,faithfulness=0.7"]
    )
    text = _flat(res.output)
    assert res.exit_code == 2, text
    assert (
        "'mrr' is gated but will not run: it needs context_ids+reference_context_ids | "
        "contexts+reference_contexts, and no row has these fields" in text
    )
    assert "'faithfulness' is gated but will not run: no judge available" in text
    assert "gate failed" not in text
    assert not out.exists()  # nothing claimed, nothing written


def test_cli_refuses_a_metric_a_default_run_does_not_choose(
    tmp_path: Path, no_scoring: None
) -> None:
    data = _write(tmp_path / "d.jsonl", [make_row(1), make_row(2)])
    res = runner.invoke(
        app, ["evaluate", str(data), "--judge", "none", "--fail-under", "precision@3=0.5"]
    )
    assert res.exit_code == 2, res.output
    assert "'precision@3' is gated but will not run: a run without a metric list" in _flat(
        res.output
    )


def test_library_evaluate_checks_gated_metrics_against_the_plan(no_ids: Path) -> None:
    settings = ragmeter.Settings(judge="none", embedder="none", cache=None)
    with pytest.raises(DataError, match="'mrr' is gated but will not run: it needs"):
        ragmeter.evaluate(str(no_ids), settings=settings, gated=["mrr"])
    with pytest.raises(DataError, match="'mrr' is gated but not among the metrics run"):
        ragmeter.evaluate(str(no_ids), ["token_f1"], gated=["mrr"])
    with pytest.raises(DataError, match="unknown metric 'mrrr'"):
        ragmeter.evaluate(str(no_ids), ["token_f1"], gated=["mrrr"])
    ok = ragmeter.evaluate(str(no_ids), settings=settings, gated=["token_f1"])
    assert "token_f1" in ok.aggregates
    # the scripted test evaluator plans the same way
    evaluator = ragmeter.testing.Evaluator(judge="scripted")
    with pytest.raises(DataError, match="'mrr' is gated but will not run"):
        evaluator.evaluate(str(no_ids), gated=["mrr"])


def test_ray_refuses_before_starting_ray(
    no_ids: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.needs import require_module

    require_module("ray")
    require_module("ray.data")
    from ragmeter.executors import ray_executor

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("Ray started before the gate was checked")

    monkeypatch.setattr(ray_executor, "_start", forbidden)
    settings = ragmeter.Settings(judge="none", embedder="none", cache=None)
    with pytest.raises(DataError, match="'mrr' is gated but will not run: it needs"):
        ragmeter.evaluate(
            str(no_ids), settings=settings, executor="ray", out=tmp_path / "o", gated=["mrr"]
        )
    assert not (tmp_path / "o").exists()


def test_a_planned_metric_with_no_scored_sample_fails_after_the_run_with_why(
    tmp_path: Path,
) -> None:
    rows = [make_row(i, reference_context_ids=[], reference_contexts=None) for i in (1, 2, 3)]
    data = _write(tmp_path / "d.jsonl", rows)
    out = tmp_path / "out"
    args = ["evaluate", str(data), "--judge", "none", "--quiet", "-o", str(out)]
    res = runner.invoke(app, [*args, "--fail-under", "mrr=0.5"])
    assert res.exit_code == 1, res.output
    assert (out / "scores.jsonl").exists()  # the outputs are written first
    assert (
        "gate failed: mrr: no value: 0 of 3 samples scored; 3 undefined (no reference "
        "contexts: relevance is undefined) (threshold 0.5)" in _flat(res.output)
    )


def test_fail_under_after_the_run_says_why_the_plan_left_a_metric_out(no_ids: Path) -> None:
    settings = ragmeter.Settings(judge="none", embedder="none", cache=None)
    result = ragmeter.evaluate(str(no_ids), settings=settings)
    (f,) = fail_under(result, {"faithfulness": 0.5})
    assert str(f) == (
        "faithfulness: not computed in this run: no judge available: --judge none "
        "(judge='none') was given; choose one with --judge (local, openai:MODEL, litellm:MODEL "
        "or gguf:PATH) (threshold 0.5)"
    )
