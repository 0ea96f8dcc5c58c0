"""CI gates as library functions: thresholds, regressions, and their one-line reasons."""

from __future__ import annotations

import pytest
from tests.conftest import EXAMPLES, make_row

from ragmeter.compare import compare
from ragmeter.errors import DataError
from ragmeter.gates import (
    check_metric_names,
    fail_on_regression,
    fail_under,
    parse_thresholds,
)
from ragmeter.runs import load_run

RUNS = EXAMPLES / "compare" / "runs"


def test_parse_thresholds():
    assert parse_thresholds("faithfulness=0.8, ndcg@10=0.6,") == {
        "faithfulness": 0.8,
        "ndcg@10": 0.6,
    }
    assert parse_thresholds(None) == {}
    with pytest.raises(DataError, match="'faithfulness' is not METRIC=VALUE"):
        parse_thresholds("faithfulness")
    with pytest.raises(DataError, match="mrr: 'high' is not a number"):
        parse_thresholds("mrr=high")


def test_metric_names_are_checked_before_any_work():
    check_metric_names({"mrr": 0.5, "ndcg@10": 0.5}, ["mrr", "ndcg@10"])
    with pytest.raises(DataError) as err:
        check_metric_names({"faithfullness": 0.5, "token_f1": 0.1}, ["mrr"])
    text = str(err.value)
    assert "unknown metric 'faithfullness'" in text
    assert "'token_f1' is gated but not among the metrics run" in text


def test_fail_under_on_mean_and_on_ci_lower_bound():
    result = load_run(RUNS / "reranked").result  # mrr mean 0.736, CI low ~0.6
    agg = result.aggregates["mrr"]
    assert fail_under(result, {"mrr": agg.mean}) == []  # reaching the threshold passes
    (f,) = fail_under(result, {"mrr": agg.mean + 0.001})
    assert f.metric == "mrr" and str(f).startswith("mrr: mean 0.736 < ")
    assert fail_under(result, {"mrr": agg.ci_low}, on="ci_low") == []
    (g,) = fail_under(result, {"mrr": agg.mean}, on="ci_low")
    assert "CI lower bound" in str(g)
    (h,) = fail_under(result, {"faithfulness": 0.5})
    assert "not computed" in str(h)


def test_fail_on_regression_only_for_a_significant_drop():
    better = compare(RUNS / "baseline", RUNS / "reranked")
    worse = compare(RUNS / "reranked", RUNS / "baseline")
    assert fail_on_regression(better) == []
    failed = fail_on_regression(worse)
    assert [f.metric for f in failed] == ["mrr", "ndcg@10"]  # token_f1's drop is not significant
    assert "dropped -0.163" in str(failed[0]) and "Holm p=" in str(failed[0])
    assert fail_on_regression(worse, alpha=1e-6) == []
    with pytest.raises(ValueError):
        fail_on_regression(worse, alpha=0)


def test_one_scored_sample_has_no_ci_and_fails_a_ci_gate(tmp_path):
    """One value has no spread: the aggregate's CI is None (was [v, v], which logged a
    zero-width "95% CI" and let on="ci_low" pass as if certain)."""
    import json

    from typer.testing import CliRunner

    import ragmeter
    from ragmeter.cli import app
    from ragmeter.testing import assert_scores

    rows = [make_row(1), make_row(2, answer=None)]  # token_f1: one ok, one skipped
    result = ragmeter.evaluate(rows, ["token_f1"])
    agg = result.aggregates["token_f1"]
    assert agg.n_ok == 1 and agg.mean is not None
    assert agg.ci_low is None and agg.ci_high is None
    assert agg.ci_note == "no CI from 1 scored sample"
    assert "token_f1: no CI from 1 scored sample" in result.notes
    assert result.summary()["metrics"]["token_f1"]["ci_low"] is None
    assert fail_under(result, {"token_f1": 0.1}) == []  # the mean is known
    (g,) = fail_under(result, {"token_f1": 0.1}, on="ci_low")
    assert str(g) == "token_f1: no CI from 1 scored sample (threshold 0.1)"
    with pytest.raises(AssertionError, match="no CI from 1 scored sample"):
        assert_scores(result, token_f1=0.1, on="ci_low")
    two = ragmeter.evaluate([make_row(1), make_row(2)], ["token_f1"]).aggregates["token_f1"]
    assert two.ci_low is not None and two.ci_note is None

    data = tmp_path / "one.jsonl"
    data.write_text(json.dumps(make_row(1)) + "\n")
    args = ["evaluate", str(data), "-m", "token_f1", "--quiet", "--fail-under", "token_f1=0.1"]
    passed = CliRunner().invoke(app, args)
    assert passed.exit_code == 0, passed.output
    failed = CliRunner().invoke(app, [*args, "--gate-on", "ci-low"])
    flat = " ".join(failed.output.split())
    assert failed.exit_code == 1, flat
    assert "gate failed: token_f1: no CI from 1 scored sample" in flat
