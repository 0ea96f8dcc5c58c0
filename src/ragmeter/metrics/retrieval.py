"""Retrieval metrics from ranked ids with binary relevance (TREC definitions).

Ranks are 1-based. Duplicate retrieved ids count once, at their first rank (as trec_eval,
which takes a run as a mapping doc -> score). When ids are absent but reference contexts
are given, retrieved contexts are matched to reference contexts by normalised text.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ragmeter.metrics.base import Metric, Score
from ragmeter.metrics.registry import register, register_template
from ragmeter.sample import Sample
from ragmeter.text import normalize_text_key


def _dedupe(ids: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for x in ids:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def _ranks(retrieved: Sequence[str], relevant: set[str]) -> list[int]:
    """1-based ranks of the relevant items in the (deduplicated) ranking."""
    return [i + 1 for i, doc in enumerate(_dedupe(retrieved)) if doc in relevant]


def reciprocal_rank(retrieved: Sequence[str], relevant: set[str]) -> float:
    """RR = 1 / rank of the first relevant item; 0 when none is retrieved."""
    ranks = _ranks(retrieved, relevant)
    return 1.0 / ranks[0] if ranks else 0.0


def average_precision(retrieved: Sequence[str], relevant: set[str]) -> float:
    """TREC AP = (1/|R|) * sum over relevant retrieved items at rank k of P@k.

    Normalised by all relevant items |R|, so a relevant item never retrieved costs score.
    """
    if not relevant:
        raise ValueError("average precision needs at least one relevant id")
    ranks = _ranks(retrieved, relevant)
    return sum((j + 1) / k for j, k in enumerate(ranks)) / len(relevant)


def unitxt_average_precision(retrieved: Sequence[str], relevant: set[str]) -> float:
    """Unitxt's MAP: the mean of P@k over relevant *retrieved* items only (0 if none).

    Unlike TREC AP it ignores relevant items that were never retrieved.
    """
    ranks = _ranks(retrieved, relevant)
    if not ranks:
        return 0.0
    return sum((j + 1) / k for j, k in enumerate(ranks)) / len(ranks)


def ndcg_at_k(retrieved: Sequence[str], relevant: set[str], k: int) -> float:
    """nDCG@k with binary gains: DCG = sum_{i<=k, d_i in R} 1/log2(i+1), over the ideal DCG."""
    if not relevant:
        raise ValueError("nDCG needs at least one relevant id")
    dcg = sum(1.0 / math.log2(r + 1) for r in _ranks(retrieved, relevant) if r <= k)
    idcg = sum(1.0 / math.log2(i + 1) for i in range(1, min(k, len(relevant)) + 1))
    return dcg / idcg


def precision_at_k(retrieved: Sequence[str], relevant: set[str], k: int) -> float:
    """P@k = |relevant in top k| / k (divided by k even when fewer than k are retrieved)."""
    return sum(1 for r in _ranks(retrieved, relevant) if r <= k) / k


def recall_at_k(retrieved: Sequence[str], relevant: set[str], k: int) -> float:
    """R@k = |relevant in top k| / |R|."""
    if not relevant:
        raise ValueError("recall needs at least one relevant id")
    return sum(1 for r in _ranks(retrieved, relevant) if r <= k) / len(relevant)


def hit_at_k(retrieved: Sequence[str], relevant: set[str], k: int) -> float:
    """1 when any relevant item is in the top k, else 0."""
    return 1.0 if any(r <= k for r in _ranks(retrieved, relevant)) else 0.0


_REQUIRES = (("context_ids", "reference_context_ids"), ("contexts", "reference_contexts"))


def ranking_of(sample: Sample) -> tuple[list[str], set[str], str]:
    """The ranked ids, the relevant set, and how they were matched ('ids' or 'text')."""
    if sample.context_ids is not None and sample.reference_context_ids is not None:
        return list(sample.context_ids), set(sample.reference_context_ids), "ids"
    retrieved = [normalize_text_key(c) for c in sample.contexts or []]
    relevant = {normalize_text_key(c) for c in sample.reference_contexts or []}
    return retrieved, relevant, "text"


def _scorer(fn: Callable[[list[str], set[str]], float]) -> Callable[[Sample], Score]:
    def compute(sample: Sample) -> Score:
        retrieved, relevant, matched_by = ranking_of(sample)
        if not relevant:
            return Score.undefined("no reference contexts: relevance is undefined")
        value = fn(retrieved, relevant)
        return Score.ok(value, matched_by=matched_by,
                        relevant_ranks=_ranks(retrieved, relevant),
                        n_retrieved=len(retrieved), n_relevant=len(relevant))

    return compute


register(Metric(
    name="mrr",
    description="Context correctness (Unitxt): reciprocal rank of the first relevant context.",
    requires=_REQUIRES,
    compute=_scorer(reciprocal_rank),
    reference_based=True,
    formula="1 / rank of first relevant retrieved item (0 if none)",
))
register(Metric(
    name="map",
    description="Average precision, TREC definition: normalised by all reference ids.",
    requires=_REQUIRES,
    compute=_scorer(average_precision),
    reference_based=True,
    formula="(1/|R|) * sum_{k: d_k in R} P@k",
))
register(Metric(
    name="unitxt_map",
    description="Unitxt's MAP: mean P@k over relevant retrieved items only (ignores misses).",
    requires=_REQUIRES,
    compute=_scorer(unitxt_average_precision),
    reference_based=True,
    formula="(1/|R ∩ retrieved|) * sum_{k: d_k in R} P@k",
))


def _template(prefix: str, fn: Callable[[list[str], set[str], int], float], description: str,
              formula: str) -> Callable[[int], Metric]:
    def factory(k: int) -> Metric:
        return Metric(
            name=f"{prefix}@{k}",
            description=description.replace("{k}", str(k)),
            requires=_REQUIRES,
            compute=_scorer(lambda r, rel: fn(r, rel, k)),
            reference_based=True,
            formula=formula,
        )

    return factory


register_template("ndcg", _template("ndcg", ndcg_at_k,
                                    "nDCG over the top {k} contexts, binary relevance.",
                                    "DCG@k / IDCG@k, gain 1/log2(rank+1)"), (10,))
register_template("precision", _template("precision", precision_at_k,
                                         "Share of the top {k} contexts that are relevant.",
                                         "|R ∩ top k| / k"), (5,))
register_template("recall", _template("recall", recall_at_k,
                                      "Share of reference contexts found in the top {k}.",
                                      "|R ∩ top k| / |R|"), (5,))
register_template("hit", _template("hit", hit_at_k,
                                   "1 when a relevant context is in the top {k}.",
                                   "[R ∩ top k ≠ ∅]"), (5,))
