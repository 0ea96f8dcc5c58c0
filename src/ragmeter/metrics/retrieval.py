"""Retrieval metrics from ranked ids with binary relevance (TREC definitions).

Ranks are 1-based. Duplicate retrieved ids count once, at their first rank (as trec_eval,
which takes a run as a mapping doc -> score). When ids are absent but reference contexts
are given, retrieved contexts are matched to reference contexts by normalised text.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import NamedTuple

from ragmeter.metrics.base import Metric, Score
from ragmeter.sample import Sample
from ragmeter.text import normalize_text_key


def _ranks(retrieved: Sequence[str], relevant: set[str] | frozenset[str]) -> list[int]:
    """1-based ranks of the relevant items in the ranking, duplicates counted once."""
    seen: set[str] = set()
    ranks: list[int] = []
    rank = 0
    for doc in retrieved:
        if doc in seen:
            continue
        seen.add(doc)
        rank += 1
        if doc in relevant:
            ranks.append(rank)
    return ranks


# Arithmetic on the ranks of the relevant retrieved items and the number of relevant items.
def _rr(ranks: Sequence[int], n_relevant: int) -> float:
    return 1.0 / ranks[0] if ranks else 0.0


def _ap(ranks: Sequence[int], n_relevant: int) -> float:
    return sum((j + 1) / k for j, k in enumerate(ranks)) / n_relevant


def _unitxt_ap(ranks: Sequence[int], n_relevant: int) -> float:
    if not ranks:
        return 0.0
    return sum((j + 1) / k for j, k in enumerate(ranks)) / len(ranks)


@lru_cache(maxsize=1024)
def _idcg(k: int, n_relevant: int) -> float:
    return sum(1.0 / math.log2(i + 1) for i in range(1, min(k, n_relevant) + 1))


def _ndcg(ranks: Sequence[int], n_relevant: int, k: int) -> float:
    return sum(1.0 / math.log2(r + 1) for r in ranks if r <= k) / _idcg(k, n_relevant)


def _precision(ranks: Sequence[int], n_relevant: int, k: int) -> float:
    return sum(1 for r in ranks if r <= k) / k


def _recall(ranks: Sequence[int], n_relevant: int, k: int) -> float:
    return sum(1 for r in ranks if r <= k) / n_relevant


def _hit(ranks: Sequence[int], n_relevant: int, k: int) -> float:
    return 1.0 if ranks and ranks[0] <= k else 0.0


def _need_relevant(relevant: set[str], what: str) -> None:
    if not relevant:
        raise ValueError(f"{what} needs at least one relevant id")


def reciprocal_rank(retrieved: Sequence[str], relevant: set[str]) -> float:
    """RR = 1 / rank of the first relevant item; 0 when none is retrieved."""
    return _rr(_ranks(retrieved, relevant), len(relevant))


def average_precision(retrieved: Sequence[str], relevant: set[str]) -> float:
    """TREC AP = (1/|R|) * sum over relevant retrieved items at rank k of P@k.

    Normalised by all relevant items |R|, so a relevant item never retrieved costs score.
    """
    _need_relevant(relevant, "average precision")
    return _ap(_ranks(retrieved, relevant), len(relevant))


def unitxt_average_precision(retrieved: Sequence[str], relevant: set[str]) -> float:
    """Unitxt's MAP: the mean of P@k over relevant *retrieved* items only (0 if none).

    Unlike TREC AP it ignores relevant items that were never retrieved.
    """
    return _unitxt_ap(_ranks(retrieved, relevant), len(relevant))


def ndcg_at_k(retrieved: Sequence[str], relevant: set[str], k: int) -> float:
    """nDCG@k, binary gains: DCG = sum_{i<=k, d_i in R} 1/log2(i+1), over the ideal DCG.

    The ideal ranking puts min(k, |R|) relevant items first (trec_eval's ndcg_cut).
    """
    _need_relevant(relevant, "nDCG")
    return _ndcg(_ranks(retrieved, relevant), len(relevant), k)


def precision_at_k(retrieved: Sequence[str], relevant: set[str], k: int) -> float:
    """P@k = |relevant in top k| / k (divided by k even when fewer than k are retrieved)."""
    return _precision(_ranks(retrieved, relevant), len(relevant), k)


def recall_at_k(retrieved: Sequence[str], relevant: set[str], k: int) -> float:
    """R@k = |relevant in top k| / |R|."""
    _need_relevant(relevant, "recall")
    return _recall(_ranks(retrieved, relevant), len(relevant), k)


def hit_at_k(retrieved: Sequence[str], relevant: set[str], k: int) -> float:
    """1 when any relevant item is in the top k, else 0."""
    return _hit(_ranks(retrieved, relevant), len(relevant), k)


_REQUIRES = (("context_ids", "reference_context_ids"), ("contexts", "reference_contexts"))


def ranking_of(sample: Sample) -> tuple[list[str], set[str], str]:
    """The ranked ids, the relevant set, and how they were matched ('ids' or 'text')."""
    if sample.context_ids is not None and sample.reference_context_ids is not None:
        return list(sample.context_ids), set(sample.reference_context_ids), "ids"
    retrieved = [normalize_text_key(c) for c in sample.contexts or []]
    relevant = {normalize_text_key(c) for c in sample.reference_contexts or []}
    return retrieved, relevant, "text"


class _Judged(NamedTuple):
    ranks: tuple[int, ...]
    n_retrieved: int
    n_relevant: int
    matched_by: str
    details: dict[str, object]  # one read-only dict shared by the sample's retrieval scores


_LAST: tuple[Sample | None, _Judged | None] = (None, None)


def _judge(sample: Sample) -> _Judged:
    """Ranks of the relevant items of one sample, shared by all retrieval metrics.

    The runner scores every metric of a sample in a row, so remembering the last sample
    (held by reference, compared by identity) saves re-ranking it for each metric.
    """
    global _LAST
    last_sample, last = _LAST
    if last_sample is sample and last is not None:
        return last
    retrieved, relevant, matched_by = ranking_of(sample)
    ranks = tuple(_ranks(retrieved, relevant))
    n_retrieved, n_relevant = len(set(retrieved)), len(relevant)
    details = {
        "matched_by": matched_by,
        "relevant_ranks": ranks,
        "n_retrieved": n_retrieved,
        "n_relevant": n_relevant,
    }
    judged = _Judged(ranks, n_retrieved, n_relevant, matched_by, details)
    _LAST = (sample, judged)
    return judged


def _scorer(fn: Callable[[Sequence[int], int], float]) -> Callable[[Sample], Score]:
    def compute(sample: Sample) -> Score:
        j = _judge(sample)
        if not j.n_relevant:
            return Score.undefined("no reference contexts: relevance is undefined")
        return Score(float(fn(j.ranks, j.n_relevant)), "ok", None, j.details)

    return compute


# Declared here, registered by metrics/registry.py (which imports this module, never the reverse).
METRICS: list[Metric] = []
# (prefix, factory k -> Metric, the k run by default) for the ``prefix@k`` metrics
TEMPLATES: list[tuple[str, Callable[[int], Metric], tuple[int, ...]]] = []

METRICS.append(
    Metric(
        name="mrr",
        description="Context correctness (Unitxt): reciprocal rank of the first relevant context.",
        requires=_REQUIRES,
        compute=_scorer(_rr),
        reference_based=True,
        formula="1 / rank of first relevant retrieved item (0 if none)",
    )
)
METRICS.append(
    Metric(
        name="map",
        description="Average precision, TREC definition: normalised by all reference ids.",
        requires=_REQUIRES,
        compute=_scorer(_ap),
        reference_based=True,
        formula="(1/|R|) * sum_{k: d_k in R} P@k",
    )
)
METRICS.append(
    Metric(
        name="unitxt_map",
        description="Unitxt's MAP: mean P@k over relevant retrieved items only (ignores misses).",
        requires=_REQUIRES,
        compute=_scorer(_unitxt_ap),
        reference_based=True,
        formula="(1/|R ∩ retrieved|) * sum_{k: d_k in R} P@k",
    )
)


def _template(
    prefix: str, fn: Callable[[Sequence[int], int, int], float], description: str, formula: str
) -> Callable[[int], Metric]:
    def factory(k: int) -> Metric:
        return Metric(
            name=f"{prefix}@{k}",
            description=description.replace("{k}", str(k)),
            requires=_REQUIRES,
            compute=_scorer(lambda ranks, n: fn(ranks, n, k)),
            reference_based=True,
            formula=formula,
        )

    factory.description_template = description  # type: ignore[attr-defined]
    return factory


def _declare_template(
    prefix: str, factory: Callable[[int], Metric], default_ks: tuple[int, ...]
) -> None:
    TEMPLATES.append((prefix, factory, default_ks))


_declare_template(
    "ndcg",
    _template(
        "ndcg",
        _ndcg,
        "nDCG over the top {k} contexts, binary relevance.",
        "DCG@k / IDCG@k, gain 1/log2(rank+1)",
    ),
    (10,),
)
_declare_template(
    "precision",
    _template(
        "precision",
        _precision,
        "Share of the top {k} contexts that are relevant.",
        "|R ∩ top k| / k",
    ),
    (5,),
)
_declare_template(
    "recall",
    _template(
        "recall", _recall, "Share of reference contexts found in the top {k}.", "|R ∩ top k| / |R|"
    ),
    (5,),
)
_declare_template(
    "hit",
    _template("hit", _hit, "1 when a relevant context is in the top {k}.", "[R ∩ top k ≠ ∅]"),
    (5,),
)
