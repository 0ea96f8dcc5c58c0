"""Retrieval metrics from ranked ids with binary relevance.

``mrr``, ``map``, ``ndcg@k``, ``precision@k``, ``recall@k``, ``hit@k`` are the TREC
definitions (they agree with trec_eval on every SciFact query: benchmarks/retrieval_crosscheck.py).
Ranks are 1-based. A run given to trec_eval names each document once (pytrec_eval takes it as a
mapping doc -> score), so a duplicate retrieved id is our convention: it counts once, at its
first rank, and later copies take no rank. A row with no reference id is ``undefined``. When ids
are absent but reference contexts are given, retrieved contexts are matched to reference
contexts by normalised text.

``unitxt_mrr`` and ``unitxt_map`` are Unitxt's context correctness exactly (unitxt 1.26.10
``metrics.mrr`` / ``metrics.map``, checked row by row in tests/test_unitxt_crosscheck.py):
positional, so every copy of a relevant id is a hit at its own position; ids only; 0 (not
undefined) when nothing is relevant, as Unitxt.
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


def unitxt_hits(retrieved: Sequence[str], relevant: set[str] | frozenset[str]) -> list[int]:
    """Unitxt's view: 1-based positions holding a relevant id, every copy of an id included."""
    return [pos for pos, doc in enumerate(retrieved, 1) if doc in relevant]


def _unitxt_rr(hits: Sequence[int]) -> float:
    """Unitxt's MRR: 1 / position of the first relevant id; [B, B, A] vs {A} -> 1/3."""
    return 1 / hits[0] if hits else 0.0


def _unitxt_positional_ap(hits: Sequence[int]) -> float:
    """Unitxt's MAP: mean over hits of P@position; [B, A, A] vs {A} -> (1/2 + 2/3) / 2."""
    if not hits:
        return 0.0
    return sum((j + 1) / k for j, k in enumerate(hits)) / len(hits)


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
    """Unitxt's MAP: the mean of P@k over the positions holding a relevant id (0 if none).

    Unlike TREC AP it ignores relevant items that were never retrieved, and it scores
    positions, so a duplicated relevant id counts at each of its positions.
    """
    return _unitxt_positional_ap(unitxt_hits(retrieved, relevant))


def unitxt_reciprocal_rank(retrieved: Sequence[str], relevant: set[str]) -> float:
    """Unitxt's MRR: 1 / position of the first relevant id (0 if none); duplicates take ranks."""
    return _unitxt_rr(unitxt_hits(retrieved, relevant))


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
    details: dict[str, object] = {
        "matched_by": matched_by,
        "relevant_ranks": ranks,
        "n_retrieved": n_retrieved,
        "n_relevant": n_relevant,
    }
    if n_retrieved < len(retrieved):
        details["duplicate_ids"] = len(retrieved) - n_retrieved  # each counted at its first rank
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


_LAST_UNITXT: tuple[Sample | None, tuple[tuple[int, ...], dict[str, object]] | None] = (None, None)


def _unitxt_scorer(fn: Callable[[Sequence[int]], float]) -> Callable[[Sample], Score]:
    """Unitxt's context correctness on ids: positions of relevant ids, 0 when none is."""

    def compute(sample: Sample) -> Score:
        global _LAST_UNITXT
        last_sample, last = _LAST_UNITXT
        if last_sample is sample and last is not None:
            hits, details = last
        else:
            relevant = set(sample.reference_context_ids or ())
            hits = tuple(unitxt_hits(sample.context_ids or (), relevant))
            details = {"relevant_positions": hits, "n_relevant": len(relevant)}
            if not relevant:
                details["note"] = "no reference ids: 0, as in Unitxt"
            _LAST_UNITXT = (sample, (hits, details))
        return Score(float(fn(hits)), "ok", None, details)

    return compute


# Declared here, registered by metrics/registry.py (which imports this module, never the reverse).
METRICS: list[Metric] = []
# (prefix, factory k -> Metric, the k run by default) for the ``prefix@k`` metrics
TEMPLATES: list[tuple[str, Callable[[int], Metric], tuple[int, ...]]] = []

METRICS.append(
    Metric(
        name="mrr",
        description="Reciprocal rank of the first relevant context, TREC definition (a duplicate "
        "id counts once, at its first rank).",
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
        name="unitxt_mrr",
        description="Context correctness, Unitxt's MRR exactly: positional (duplicate ids take "
        "ranks), ids only, 0 when no id is relevant.",
        requires=(("context_ids", "reference_context_ids"),),
        compute=_unitxt_scorer(_unitxt_rr),
        reference_based=True,
        default=False,
        formula="1 / position of first relevant id (0 if none)",
    )
)
METRICS.append(
    Metric(
        name="unitxt_map",
        description="Unitxt's MAP exactly: mean P@k over the positions holding a relevant id "
        "(ignores misses; duplicates count at each position); ids only.",
        requires=(("context_ids", "reference_context_ids"),),
        compute=_unitxt_scorer(_unitxt_positional_ap),
        reference_based=True,
        formula="(1/|hits|) * sum_{k in hits} P@k, hits = positions of relevant ids",
        version="2",  # 1 de-duplicated ids and matched texts; Unitxt scores positions of ids
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
