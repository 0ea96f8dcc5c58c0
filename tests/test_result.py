"""Runner and result: partial rows, failures, bootstrap CIs, exports."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from tests.conftest import LEXICAL, make_row

import ragmeter
from ragmeter.metrics.base import Metric, Score
from ragmeter.plan import plan_metrics
from ragmeter.result import aggregate, bootstrap_ci
from ragmeter.scheduler import run_compute as _run_compute


def test_partial_rows_score_the_others_and_list_the_skipped(rows):
    rows[1].pop("reference_answers")
    result = ragmeter.evaluate(rows, ["token_recall", "k_precision"], n_resamples=0)
    recall = result.scores["token_recall"]
    assert [s.status for s in recall] == ["ok", "skipped", "ok"]
    assert recall[1].value is None and "answer+reference_answers" in recall[1].reason
    assert all(s.status == "ok" for s in result.scores["k_precision"])
    agg = result.aggregates["token_recall"]
    assert (agg.n_ok, agg.n_skipped) == (2, 1)
    assert agg.mean == pytest.approx(np.mean([recall[0].value, recall[2].value]))
    assert {
        "question_id": "q2",
        "metric": "token_recall",
        "status": "skipped",
        "reason": recall[1].reason,
    } in result.failures()
    assert any(n.startswith("token_recall: 1 sample(s) skipped") for n in result.notes)


def test_default_metrics_are_those_whose_inputs_are_present():
    samples = ragmeter.load(
        [
            make_row(
                1,
                context_ids=None,
                reference_context_ids=None,
                reference_contexts=None,
                reference_answers=None,
            )
        ]
    )
    notes: list[str] = []
    chosen = plan_metrics(samples, None, notes, available_needs=set())  # no models
    # refusal_rate needs only the answer; refusal_accuracy also is_answerable (set in make_row)
    assert [m.name for m in chosen] == ["refusal_rate", "refusal_accuracy", "k_precision"]


def test_an_exception_becomes_a_failed_score_with_reason():
    def boom(sample):
        raise ZeroDivisionError("nope")

    metric = Metric(name="boom", description="", requires=(("answer",),), compute=boom)
    score = _run_compute(metric, ragmeter.load([make_row(1)])[0])
    assert score.status == "failed" and score.value is None
    assert score.reason == "internal error: ZeroDivisionError: nope"
    agg = aggregate("boom", [score, Score.ok(0.5)], n_resamples=10)
    assert (agg.n_failed, agg.n_ok, agg.mean) == (1, 1, 0.5)


def test_undefined_scores_are_counted_not_averaged():
    scores = [Score.ok(1.0), Score.undefined("no tokens"), Score.ok(0.0)]
    agg = aggregate("m", scores, n_resamples=50)
    assert (agg.mean, agg.n_ok, agg.n_undefined, agg.n) == (0.5, 2, 1, 3)
    none = aggregate("m", [Score.undefined("x")])
    assert none.mean is None and none.ci_low is None and none.n_undefined == 1


def test_bootstrap_ci_is_reproducible_and_contains_the_mean():
    rng = np.random.default_rng(3)
    for values in (rng.random(200), rng.integers(0, 2, 5000).astype(float)):  # both paths
        low, high = bootstrap_ci(values, n_resamples=500, seed=11)
        assert (low, high) == bootstrap_ci(values, n_resamples=500, seed=11)
        assert low < values.mean() < high
        assert bootstrap_ci(values, n_resamples=500, seed=12) != (low, high)
        # about mean ± 1.96 standard errors
        se = values.std() / math.sqrt(len(values))
        assert high - low == pytest.approx(2 * 1.96 * se, rel=0.2)
    assert bootstrap_ci(np.array([0.3]), n_resamples=100) == (0.3, 0.3)


def test_evaluate_is_reproducible_with_a_seed(example_jsonl):
    a = ragmeter.evaluate(example_jsonl, LEXICAL, seed=5, n_resamples=300)
    b = ragmeter.evaluate(example_jsonl, LEXICAL, seed=5, n_resamples=300)
    c = ragmeter.evaluate(example_jsonl, LEXICAL, seed=6, n_resamples=300)
    assert a.aggregates == b.aggregates
    assert a.aggregates != c.aggregates
    for agg in a.aggregates.values():
        assert agg.ci_low <= agg.mean <= agg.ci_high


def test_exports(tmp_path, rows):
    rows[2]["answer"] = "The."  # no tokens: k_precision_union undefined (Unitxt's k_precision: 0)
    metrics = ["k_precision_union", "token_f1", "mrr", "ndcg@10"]
    result = ragmeter.evaluate(rows, metrics, n_resamples=100)

    frame = result.to_pandas()
    assert list(frame.columns) == ["question_id", *metrics]
    assert list(frame["question_id"]) == ["q1", "q2", "q3"]
    assert frame["k_precision_union"].isna().tolist() == [False, False, True]

    scores_path, summary_path = result.write(tmp_path / "out")
    lines = [json.loads(x) for x in scores_path.read_text().splitlines()]
    assert [x["question_id"] for x in lines] == ["q1", "q2", "q3"]
    for line in lines:
        assert set(metrics) <= set(line)
    assert lines[0]["mrr"] == 1.0 and lines[0]["details"]["mrr"]["relevant_ranks"] == [1]
    assert lines[2]["k_precision_union"] is None
    assert lines[2]["status"]["k_precision_union"] == "undefined"
    assert "no tokens" in lines[2]["reasons"]["k_precision_union"]

    summary = json.loads(summary_path.read_text())
    assert summary["n_samples"] == 3
    assert set(summary["metrics"]) == set(metrics)
    kp = summary["metrics"]["k_precision_union"]
    assert kp["n_ok"] == 2 and kp["n_undefined"] == 1
    assert kp["ci_low"] <= kp["mean"] <= kp["ci_high"]
    # undefined is not a failure: counted apart, as not applicable
    assert summary["n_failed"] == 0 and summary["failures"] == []
    assert summary["n_undefined"] == 1 and summary["n_not_applicable"] == 1
    assert summary["not_applicable"][0]["question_id"] == "q3"
    assert summary["config"]["seed"] == 0
    assert "NaN" not in summary_path.read_text() + scores_path.read_text()


def test_no_resamples_means_no_ci_and_one_resample_is_refused():
    """n_resamples=0 gave the CI [mean, mean] and 1 a zero-width interval around one resample's
    mean: both read as certainty. Now 0 is no CI at all and 1 a ConfigError before any work."""
    from ragmeter.errors import ConfigError

    rows = [
        {"question": f"q{i}", "answer": f"a {i}", "reference_answers": ["a 1"]} for i in range(6)
    ]
    agg = ragmeter.evaluate(rows, ["token_recall"], n_resamples=0).aggregates["token_recall"]
    assert agg.mean is not None and agg.ci_low is None and agg.ci_high is None
    with pytest.raises(ConfigError, match=r"n_resamples must be 0 \(no CI\) or an integer of 2"):
        ragmeter.evaluate(rows, ["token_recall"], n_resamples=1)
