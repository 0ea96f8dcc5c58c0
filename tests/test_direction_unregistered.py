"""A lower-is-better metric of one's own, read back where it is not registered: the gates
and the report take its direction from the run's run.json, and say when it is unknown."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import ragmeter
from ragmeter import Metric, Score
from ragmeter.errors import DataError
from ragmeter.gates import check_threshold_values, fail_under
from ragmeter.metrics import registry
from ragmeter.reporting.build import report_context, worst_samples
from ragmeter.testing import assert_scores

NAME = "dirun_latency"


def _run(out: Path, base: float = 1.0) -> Path:
    """A run of NAME (lower is better, values base + i/100), written by a process that
    registered it; the registry is emptied of it after, as a fresh process would be."""
    rows = [{"question_id": f"q{i}", "question": f"Q{i}?", "answer": "x" * i} for i in range(6)]
    metric = Metric(
        name=NAME,
        description="seconds",
        requires=(("answer",),),
        compute=lambda s: Score.ok(base + len(s.answer) / 100),
        direction="lower",
        value_range=None,
    )
    ragmeter.register_metric(metric)
    try:
        ragmeter.evaluate(rows, [NAME], out=out, n_resamples=0)
    finally:
        registry._FIXED.pop(NAME, None)
        registry._GIVEN.pop(NAME, None)
    return out


def _old(out: Path) -> Path:
    """The run as a run.json written before directions were recorded."""
    path = out / "run.json"
    manifest = json.loads(path.read_text())
    for entry in manifest["metrics"]:
        entry.pop("direction", None)
    path.write_text(json.dumps(manifest))
    return out


def test_the_run_records_the_direction_and_the_registry_does_not_know_it(tmp_path: Path) -> None:
    from ragmeter.gates import known_direction

    run = ragmeter.load_run(_run(tmp_path / "a"))
    with pytest.raises(ragmeter.errors.MetricError):
        registry.get_metric(NAME)
    assert known_direction(NAME, run.manifest) == "lower"
    assert known_direction(NAME, {}) is None


def test_fail_under_refuses_a_recorded_lower_is_better_metric(tmp_path: Path) -> None:
    run = ragmeter.load_run(_run(tmp_path / "a"))
    # a mean of 1.025 s "reached" a 0.5 floor: the gate passed the slower run
    with pytest.raises(DataError, match="lower-is-better"):
        fail_under(run, {NAME: 0.5})
    result = run.result  # as evaluate() returns it: with its run.json
    with pytest.raises(DataError, match="lower-is-better"):
        fail_under(result, {NAME: 0.5})
    with pytest.raises(DataError, match="lower-is-better"):
        assert_scores(result, {NAME: 0.5})
    with pytest.raises(DataError, match="lower-is-better"):
        check_threshold_values({NAME: 0.5}, manifest=run.manifest)


def test_a_read_runs_result_holds_its_run_json(tmp_path: Path) -> None:
    """``load_run(d).result`` is what one hands to fail_under, assert_scores or mlflow's
    log_result; its manifest was empty, so a recorded lower-is-better metric was gated as
    higher-is-better (with a warning that it was assumed) and mlflow logged no version."""
    from ragmeter.integrations.mlflow import params_of

    run = ragmeter.load_run(_run(tmp_path / "a"))
    assert run.result.manifest == run.manifest and run.manifest["metrics"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "higher-is-better assumed"
        with pytest.raises(DataError, match="lower-is-better"):
            fail_under(run.result, {NAME: 0.5})
    assert params_of(run.result)["ragmeter.version"] == ragmeter.__version__


def test_assert_scores_refuses_a_recorded_lower_is_better_metric(tmp_path: Path) -> None:
    run = ragmeter.load_run(_run(tmp_path / "a"))
    with pytest.raises(DataError, match="lower-is-better"):
        assert_scores(run, {NAME: 0.5})


def test_a_gate_on_a_metric_of_unknown_direction_says_it_assumed_higher(tmp_path: Path) -> None:
    run = ragmeter.load_run(_old(_run(tmp_path / "a")))
    with pytest.warns(UserWarning, match="higher-is-better assumed"):
        failures = fail_under(run, {NAME: 2.0})
    (failure,) = failures
    assert "higher-is-better assumed" in failure.reason
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(AssertionError, match="higher-is-better assumed"):
            assert_scores(run.result, {NAME: 2.0})


def test_a_gate_on_a_registered_metric_says_nothing_of_direction(tmp_path: Path) -> None:
    rows = [{"question_id": "q1", "question": "Q?", "answer": "yes", "reference": "no"}]
    result = ragmeter.evaluate(rows, ["exact_match"], n_resamples=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (failure,) = fail_under(result, {"exact_match": 0.5})
    assert "assumed" not in failure.reason


def test_report_lists_the_highest_as_worst_for_a_recorded_lower_metric(tmp_path: Path) -> None:
    run = ragmeter.load_run(_run(tmp_path / "a"))
    worst = worst_samples(run, NAME, 2)
    assert [w.question_id for w in worst] == ["q5", "q4"]  # were q0, q1: the fastest
    (section,) = report_context(run)["worst"]
    assert section["directions"][NAME] == "lower"


def test_report_compare_uses_the_recorded_direction_for_each_run(tmp_path: Path) -> None:
    a = ragmeter.load_run(_run(tmp_path / "a"))
    b = ragmeter.load_run(_run(tmp_path / "b", base=2.0))
    cmp = ragmeter.compare(a, b)
    context = report_context(a, comparison=cmp)
    assert [w["directions"][NAME] for w in context["worst"]] == ["lower", "lower"]
    assert [s.question_id for s in context["worst"][1]["metrics"][NAME][:1]] == ["q5"]


def test_report_says_when_it_assumed_a_direction(tmp_path: Path) -> None:
    run = ragmeter.load_run(_old(_run(tmp_path / "a")))
    assert [w.question_id for w in worst_samples(run, NAME, 1)] == ["q0"]  # as before
    (notes,) = report_context(run)["notes"]
    assert any(NAME in n and "higher-is-better assumed" in n for n in notes["notes"])
    fresh = ragmeter.load_run(_run(tmp_path / "b"))
    (notes,) = report_context(fresh)["notes"]
    assert not any("assumed" in n for n in notes["notes"])


def test_report_cli_where_unregistered_orders_worst_by_the_recorded_direction(
    tmp_path: Path,
) -> None:
    from typer.testing import CliRunner

    from ragmeter.cli import app

    out = _run(tmp_path / "a")
    html = tmp_path / "r.html"
    got = CliRunner().invoke(app, ["report", str(out), "-o", str(html)])
    assert got.exit_code == 0, got.output
    page = html.read_text()
    assert "highest values: lower is better" in page
