"""--fail-under thresholds must be able to fail: NaN, infinities and values outside the
metric's range are refused (exit 2) before any scoring."""

from __future__ import annotations

import math

import pytest
from typer.testing import CliRunner

from conftest import LEXICAL
from ragmeter import evaluate
from ragmeter.cli import app
from ragmeter.errors import DataError
from ragmeter.gates import check_threshold_values
from ragmeter.metrics.base import Metric, Score
from ragmeter.metrics.registry import get_metric


@pytest.mark.parametrize(
    ("gate", "expected"),
    [
        ("k_precision=nan", "k_precision=nan: not a finite number"),
        ("k_precision=-inf", "k_precision=-inf: not a finite number"),
        ("k_precision=1.5", "k_precision=1.5 is outside k_precision's range [0, 1]"),
        ("mrr=-1", "mrr=-1 is outside mrr's range [0, 1]"),
    ],
)
def test_cli_refuses_a_gate_that_cannot_fail(example_jsonl, monkeypatch, gate, expected) -> None:
    from ragmeter.cli import evaluate as cli_evaluate

    def no_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("scored before the gate was checked")

    monkeypatch.setattr(cli_evaluate, "run_evaluate", no_run)
    args = ["evaluate", str(example_jsonl), "-m", "k_precision,mrr", "--fail-under", gate]
    result = CliRunner().invoke(app, args)
    flat = " ".join(result.output.split())
    assert result.exit_code == 2, flat
    assert expected in flat and "--fail-under" in flat


def test_bounds_are_inclusive_and_every_problem_is_listed() -> None:
    check_threshold_values({"k_precision": 0.0, "mrr": 1.0, "ndcg@10": 0.5})
    with pytest.raises(DataError) as info:
        check_threshold_values({"k_precision": math.nan, "mrr": 2.0})
    assert len(info.value.problems) == 2


def test_a_metric_on_another_scale_declares_its_range() -> None:
    """Only a declared range is enforced: an unbounded metric takes any finite threshold."""
    from ragmeter.metrics import registry

    unbounded = Metric(
        name="test_unbounded_count",
        description="a count",
        requires=(("answer",),),
        compute=lambda s: Score.ok(float(len(s.answer or ""))),
        value_range=None,
    )
    registry._FIXED[unbounded.name] = unbounded
    try:
        check_threshold_values({"test_unbounded_count": 42.0})
        with pytest.raises(DataError, match="not a finite number"):
            check_threshold_values({"test_unbounded_count": math.inf})
    finally:
        del registry._FIXED[unbounded.name]


def test_built_in_scores_lie_in_the_declared_range(example_jsonl, example_csv) -> None:
    """The range the gate check trusts is the one the scores keep."""
    names = [*LEXICAL, "refusal_rate", "k_precision_union"]
    for data in (example_jsonl, example_csv):
        result = evaluate(data, names, n_resamples=10)
        for name in result.metrics:
            low, high = get_metric(name).value_range or (-math.inf, math.inf)
            values = [s.value for s in result.scores[name] if s.value is not None]
            assert all(low <= v <= high for v in values), name


def test_the_python_gates_refuse_a_threshold_that_is_not_finite():
    """assert_scores and parse_thresholds, not only the CLI: 'nan' reads as a float and no
    mean is below it, so a NaN gate passed every run."""
    import math

    from ragmeter.errors import DataError
    from ragmeter.gates import parse_thresholds
    from ragmeter.testing import assert_scores

    with pytest.raises(DataError, match="not a finite number"):
        parse_thresholds("k_precision=nan")
    with pytest.raises(DataError, match="not a finite number"):
        parse_thresholds({"k_precision": math.inf})
    with pytest.raises(DataError, match="not a finite number"):
        assert_scores(object(), k_precision=math.nan)
