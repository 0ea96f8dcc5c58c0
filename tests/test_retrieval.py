"""Retrieval metrics from ids (and by text when ids are missing): hand-computed values."""

from __future__ import annotations

import math

import pytest

import ragmeter
from ragmeter.errors import MetricError
from ragmeter.metrics.registry import get_metric, resolve
from ragmeter.metrics.retrieval import (
    average_precision,
    hit_at_k,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
    unitxt_average_precision,
    unitxt_reciprocal_rank,
)
from ragmeter.sample import Sample


def _sample(retrieved: list[str], relevant: list[str], **extra) -> Sample:
    return Sample(
        question="q?",
        question_id="q",
        context_ids=retrieved,
        reference_context_ids=relevant,
        **extra,
    )


def _score(name: str, sample: Sample):
    metric = get_metric(name)
    assert metric.compute is not None
    return metric.compute(sample)


# --- Unitxt's own anchors --------------------------------------------------------------


def test_unitxt_anchor_abc_vs_ac():
    # relevant A at rank 1 (P@1 = 1), C at rank 3 (P@3 = 2/3): (1 + 2/3) / 2 = 0.8333...
    sample = _sample(["A", "B", "C"], ["A", "C"])
    assert _score("unitxt_map", sample).value == pytest.approx(5 / 6)
    assert _score("map", sample).value == pytest.approx(5 / 6)  # both retrieved: same as TREC
    assert _score("mrr", sample).value == 1.0
    assert round(_score("unitxt_map", sample).value, 3) == 0.833


def test_unitxt_anchor_ab_vs_b():
    # B at rank 2: AP = P@2 = 1/2; RR = 1/2
    sample = _sample(["A", "B"], ["B"])
    assert _score("unitxt_map", sample).value == 0.5
    assert _score("mrr", sample).value == 0.5


def test_trec_map_and_unitxt_map_differ_when_a_relevant_id_is_missed():
    # relevant {A, D}; D never retrieved. TREC: (P@1) / |R| = 1/2. Unitxt: P@1 / 1 = 1.0
    retrieved, relevant = ["A", "B", "C"], {"A", "D"}
    assert average_precision(retrieved, relevant) == 0.5
    assert unitxt_average_precision(retrieved, relevant) == 1.0
    sample = _sample(["A", "B", "C"], ["A", "D"])
    assert _score("map", sample).value == 0.5
    assert _score("unitxt_map", sample).value == 1.0


# --- every retrieval metric, hand-computed -------------------------------------------


def test_reciprocal_rank():
    assert reciprocal_rank(["x", "y", "A"], {"A"}) == pytest.approx(1 / 3)  # 1 / rank 3
    assert reciprocal_rank(["x", "y"], {"A"}) == 0.0  # none retrieved
    assert reciprocal_rank(["x", "x", "A"], {"A"}) == 0.5  # duplicate x counts once


def test_average_precision_trec():
    # R = {A, B, C}; A at 2 (P=1/2), B at 4 (P=2/4); C missed: (1/2 + 1/2) / 3 = 1/3
    assert average_precision(["x", "A", "y", "B"], {"A", "B", "C"}) == pytest.approx(1 / 3)
    # Unitxt divides by the 2 retrieved relevant items: (1/2 + 1/2) / 2 = 1/2
    assert unitxt_average_precision(["x", "A", "y", "B"], {"A", "B", "C"}) == 0.5
    assert unitxt_average_precision(["x"], {"A"}) == 0.0
    with pytest.raises(ValueError):
        average_precision(["x"], set())


def test_ndcg_at_k():
    # [A, B, C] vs {A, C}, k = 3: DCG = 1/log2(2) + 1/log2(4) = 1.5;
    # IDCG = 1/log2(2) + 1/log2(3) = 1.6309...; nDCG = 0.91972...
    expected = 1.5 / (1 + 1 / math.log2(3))
    assert ndcg_at_k(["A", "B", "C"], {"A", "C"}, 3) == pytest.approx(expected, abs=1e-15)
    assert ndcg_at_k(["A", "B", "C"], {"A", "C"}, 1) == 1.0  # ideal top-1 is one relevant
    assert ndcg_at_k(["B", "A"], {"A"}, 10) == pytest.approx(1 / math.log2(3))
    # |R| = 3 > k = 2: IDCG over min(k, |R|) = 2 positions; A at 1 -> 1 / (1 + 1/log2(3))
    assert ndcg_at_k(["A", "x"], {"A", "B", "C"}, 2) == pytest.approx(1 / (1 + 1 / math.log2(3)))
    assert ndcg_at_k(["x", "y"], {"A"}, 10) == 0.0


def test_precision_recall_hit_at_k():
    retrieved, relevant = ["A", "B", "C"], {"A", "C"}
    assert precision_at_k(retrieved, relevant, 2) == 0.5  # A in top 2: 1/2
    assert precision_at_k(retrieved, relevant, 5) == 0.4  # 2 relevant / k=5, not / 3 retrieved
    assert recall_at_k(retrieved, relevant, 2) == 0.5  # 1 of |R| = 2
    assert recall_at_k(retrieved, relevant, 3) == 1.0
    assert hit_at_k(retrieved, relevant, 1) == 1.0
    assert hit_at_k(["B", "C"], {"A"}, 2) == 0.0
    assert hit_at_k(["B", "A"], {"A"}, 1) == 0.0
    assert hit_at_k(["B", "A"], {"A"}, 2) == 1.0


def test_metric_objects_match_functions_and_report_details():
    sample = _sample(["x", "A", "x", "B"], ["A", "B", "C"])  # deduped: x, A, B -> ranks 2, 3
    expected = {
        "mrr": 1 / 2,
        "map": (1 / 2 + 2 / 3) / 3,
        "ndcg@2": (1 / math.log2(3)) / (1 + 1 / math.log2(3)),
        "precision@2": 1 / 2,
        "recall@3": 2 / 3,
        "hit@1": 0.0,
    }
    for name, value in expected.items():
        score = _score(name, sample)
        assert score.status == "ok"
        assert score.value == pytest.approx(value, abs=1e-15), name
        assert score.details["matched_by"] == "ids"
        assert list(score.details["relevant_ranks"]) == [2, 3]
        assert score.details["n_relevant"] == 3
        assert score.details["duplicate_ids"] == 1


def test_unitxt_metrics_score_positions_not_deduplicated_ranks():
    # Unitxt: relevant ids at positions 2 and 4 of [x, A, x, B] (the copy of x takes a rank):
    # MRR = 1/2; MAP = (P@2 + P@4) / 2 = (1/2 + 2/4) / 2 = 1/2 (TREC-style ranks 2, 3: 7/12).
    sample = _sample(["x", "A", "x", "B"], ["A", "B", "C"])
    assert _score("unitxt_mrr", sample).value == 0.5
    umap = _score("unitxt_map", sample)
    assert umap.value == 0.5 and list(umap.details["relevant_positions"]) == [2, 4]
    # [B, B, A] vs {A}: Unitxt's MRR 1/3, TREC-style 1/2
    dup = _sample(["B", "B", "A"], ["A"])
    assert _score("unitxt_mrr", dup).value == pytest.approx(1 / 3)
    assert _score("mrr", dup).value == 0.5
    # [B, A, A] vs {A}: a duplicated relevant id is a hit twice: (1/2 + 2/3) / 2
    assert _score("unitxt_map", _sample(["B", "A", "A"], ["A"])).value == pytest.approx(7 / 12)
    assert unitxt_reciprocal_rank(["B", "A", "A"], {"A"}) == 0.5


def test_unitxt_metrics_give_zero_without_reference_ids_and_need_ids():
    for name in ("unitxt_mrr", "unitxt_map"):
        score = _score(name, _sample(["A"], []))
        assert score.status == "ok" and score.value == 0.0
        assert "as in Unitxt" in score.details["note"]
        assert _score(name, _sample([], ["A"])).value == 0.0  # nothing retrieved
    text_only = Sample(question="q?", question_id="q", contexts=["a"], reference_contexts=["a"])
    assert get_metric("unitxt_mrr").missing(text_only) == "needs context_ids+reference_context_ids"
    assert get_metric("mrr").missing(text_only) is None


def test_no_reference_ids_is_undefined_with_reason():
    score = _score("map", _sample(["A"], []))
    assert score.status == "undefined" and score.value is None
    assert "no reference contexts" in score.reason


def test_bad_k_and_unknown_names():
    assert get_metric("ndcg@7").name == "ndcg@7"
    for bad in ("ndcg@0", "ndcg@x", "ndcg@k", "precision@-1", "nope"):
        with pytest.raises(MetricError):
            get_metric(bad)
    with pytest.raises(MetricError, match="nope"):
        resolve("mrr,nope")


# --- text matching when ids are missing ------------------------------------------------


def test_text_matching_fallback_is_used_and_noted():
    rows = [
        {
            "question_id": "t1",
            "question": "Where is the Eiffel Tower?",
            "contexts": ["Berlin is in Germany.", "The Eiffel Tower is in PARIS!"],
            # same text up to case, punctuation and articles
            "reference_contexts": ["eiffel tower is in paris"],
        },
        {
            "question_id": "t2",
            "question": "Where is Berlin?",
            "contexts": ["Berlin is in Germany."],
            "context_ids": ["d-berlin"],
            "reference_contexts": ["Something else."],
            "reference_context_ids": ["d-berlin"],  # ids win over text when both exist
        },
    ]
    result = ragmeter.evaluate(rows, ["mrr", "map"], n_resamples=0)
    first, second = result.scores["mrr"]
    assert first.value == 0.5 and first.details["matched_by"] == "text"
    assert second.value == 1.0 and second.details["matched_by"] == "ids"
    assert any("1 sample(s) had no ids" in n and "normalised text" in n for n in result.notes)
    assert result.records()[0]["details"]["mrr"]["matched_by"] == "text"
