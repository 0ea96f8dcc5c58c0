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

import unicodedata
from collections.abc import Callable, Sequence
from math import nan
from typing import Any, NamedTuple

import numpy as np

from ragmeter.metrics import overlap_kernel, rank_kernel
from ragmeter.metrics.base import BatchFn, Metric, Score
from ragmeter.metrics.column import OK, UNDEFINED, ScoreColumn
from ragmeter.metrics.ranking import (
    _ap,
    _hit,
    _idcg,
    _ndcg,
    _precision,
    _ranks,
    _recall,
    _rr,
    _unitxt_positional_ap,
    _unitxt_rr,
    average_precision,
    hit_at_k,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
    unitxt_average_precision,
    unitxt_hits,
    unitxt_reciprocal_rank,
)
from ragmeter.sample import Sample
from ragmeter.text import normalize_text_key

# The public functions of this family, defined in metrics/ranking.py.
__all__ = [
    "average_precision",
    "hit_at_k",
    "ndcg_at_k",
    "precision_at_k",
    "ranking_of",
    "recall_at_k",
    "reciprocal_rank",
    "unitxt_average_precision",
    "unitxt_reciprocal_rank",
]

_REQUIRES = (("context_ids", "reference_context_ids"), ("contexts", "reference_contexts"))


def ranking_of(sample: Sample) -> tuple[list[str], set[str], str]:
    """The ranked ids, the relevant set, and how they were matched ('ids' or 'text').

    By text, a reference context with no words (empty, blank, punctuation only) is no
    relevant item: it would match every blank retrieved context, crediting a pipeline that
    retrieved nothing useful with a hit. A row whose reference contexts all lack words has no
    relevant item (undefined). So, by ids, is a blank reference id ("", spaces): an empty CSV
    cell matched every chunk the pipeline returned without an id.
    """
    if sample.context_ids is not None and sample.reference_context_ids is not None:
        relevant_ids = {i for i in sample.reference_context_ids if i.strip()}
        return list(sample.context_ids), relevant_ids, "ids"
    retrieved = [_text_key(c) for c in sample.contexts or []]
    relevant = {_text_key(c) for c in sample.reference_contexts or []}
    relevant.discard("")
    return retrieved, relevant, "text"


def _text_key(text: str) -> str:
    """The key a context is matched by: its normalised text, composed first (NFC), so a
    context saved decomposed (NFD: macOS file names, some PDF extractions) matches the same
    text written composed; "café" was two different strings and the hit was missed."""
    return normalize_text_key(unicodedata.normalize("NFC", text))


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
    judged = _judged(sample)
    _LAST = (sample, judged)
    return judged


def _judged(sample: Sample) -> _Judged:
    retrieved, relevant, matched_by = ranking_of(sample)
    ranks = tuple(_ranks(retrieved, relevant))
    n_retrieved, n_relevant = len(set(retrieved)), len(relevant)
    details: dict[str, object] = {
        "matched_by": matched_by,
        "relevant_ranks": ranks,
        "n_retrieved": n_retrieved,
        "n_relevant": n_relevant,
    }
    if matched_by == "text":
        blank = sum(1 for c in sample.reference_contexts or () if not _text_key(c))
        if blank:
            details["blank_reference_contexts"] = blank  # not relevant items (ranking_of)
    elif blank := sum(1 for i in sample.reference_context_ids or () if not i.strip()):
        details["blank_reference_ids"] = blank  # not relevant items (ranking_of)
    if n_retrieved < len(retrieved):
        details["duplicate_ids"] = len(retrieved) - n_retrieved  # each counted at its first rank
    return _Judged(ranks, n_retrieved, n_relevant, matched_by, details)


_NO_RELEVANT = "no reference contexts: relevance is undefined"
_NO_RELEVANT_TEXT = (
    "no reference context has words (empty or punctuation only): relevance is undefined"
)


_NO_RELEVANT_IDS = "every reference id is blank (empty or spaces): relevance is undefined"


def _score_of(j: _Judged, fn: Callable[[Sequence[int], int], float]) -> Score:
    if not j.n_relevant:
        if j.details.get("blank_reference_ids"):
            return Score.undefined(_NO_RELEVANT_IDS)
        blank = j.matched_by == "text" and j.details.get("blank_reference_contexts")
        return Score.undefined(_NO_RELEVANT_TEXT if blank else _NO_RELEVANT)
    return Score(float(fn(j.ranks, j.n_relevant)), "ok", None, j.details)


def _scorer(fn: Callable[[Sequence[int], int], float]) -> Callable[[Sample], Score]:
    return lambda sample: _score_of(_judge(sample), fn)


def _ranked(
    rows: Sequence[Sample], shared: dict[Any, Any], unitxt: bool = False
) -> rank_kernel.Ranked | None:
    """The compiled ranks of a large batch (None: a small one, or no numba). Unitxt's metrics
    take a blank reference id as relevant, the TREC ones do not (``ranking_of``): a batch
    holding one is ranked apart for them."""
    if len(rows) < overlap_kernel.MIN_SAMPLES or not overlap_kernel.available():
        return None
    apart = unitxt and any(not i.strip() for s in rows for i in s.reference_context_ids or ())
    key = ("unitxt_ranked" if apart else "ranked", id(rows))
    if key not in shared:
        pairs = (
            [(s.context_ids or [], set(s.reference_context_ids or ())) for s in rows]
            if apart
            else [ranking_of(s)[:2] for s in rows]
        )
        shared[key] = (rows, rank_kernel.ranked(pairs))  # rows kept, so their id stays theirs
    return shared[key][1]


def _judged_once(found: rank_kernel.Ranked, rows: Sequence[Sample], i: int) -> _Judged:
    """Row i's ranks and details for its Scores, built once for all the batch's metrics."""
    memo: dict[int, _Judged] = found.memo
    if i not in memo:
        memo[i] = _judged(rows[i])
    return memo[i]


def _batch(fn: Callable[[Sequence[int], int], float], kind: str, k: int = 0) -> BatchFn:
    """``_scorer(fn)`` over a batch (Metric.compute_batch), the ranks shared by its metrics."""

    def batch(rows: Sequence[Sample], shared: dict[Any, Any]) -> ScoreColumn:
        found = _ranked(rows, shared)
        if found is not None:
            values = rank_kernel.values(found, kind, k, _idcg)
            status = np.where(np.isnan(values), UNDEFINED, OK)
            row = _judged_once
            return ScoreColumn(values, status, lambda i: _score_of(row(found, rows, i), fn))
        key = ("ranks", id(rows))
        if key not in shared:
            shared[key] = (rows, [_judged(s) for s in rows])
        judged: list[_Judged] = shared[key][1]
        values = [float(fn(j.ranks, j.n_relevant)) if j.n_relevant else nan for j in judged]
        status = [OK if j.n_relevant else UNDEFINED for j in judged]
        return ScoreColumn(values, status, lambda i: _score_of(judged[i], fn))

    return batch


_LAST_UNITXT: tuple[Sample | None, tuple[tuple[int, ...], dict[str, object]] | None] = (None, None)


def _unitxt_hits_of(sample: Sample) -> tuple[tuple[int, ...], dict[str, object]]:
    relevant = set(sample.reference_context_ids or ())
    hits = tuple(unitxt_hits(sample.context_ids or (), relevant))
    details: dict[str, object] = {"relevant_positions": hits, "n_relevant": len(relevant)}
    if not relevant:
        details["note"] = "no reference ids: 0, as in Unitxt"
    return hits, details


def _unitxt_scorer(fn: Callable[[Sequence[int]], float]) -> Callable[[Sample], Score]:
    """Unitxt's context correctness on ids: positions of relevant ids, 0 when none is."""

    def compute(sample: Sample) -> Score:
        global _LAST_UNITXT
        last_sample, last = _LAST_UNITXT
        if last_sample is sample and last is not None:
            hits, details = last
        else:
            hits, details = _unitxt_hits_of(sample)
            _LAST_UNITXT = (sample, (hits, details))
        return Score(float(fn(hits)), "ok", None, details)

    return compute


def _unitxt_batch(fn: Callable[[Sequence[int]], float], kind: str) -> BatchFn:
    def batch(rows: Sequence[Sample], shared: dict[Any, Any]) -> ScoreColumn:
        found = _ranked(rows, shared, unitxt=True)
        if found is not None:
            values = rank_kernel.values(found, kind)
            return ScoreColumn(
                values,
                np.full(len(values), OK),
                lambda i: Score(float(values[i]), "ok", None, _unitxt_hits_of(rows[i])[1]),
            )
        key = ("unitxt_hits", id(rows))
        if key not in shared:
            shared[key] = (rows, [_unitxt_hits_of(s) for s in rows])
        hits = shared[key][1]
        values = [float(fn(h)) for h, _ in hits]
        return ScoreColumn(
            values, [OK] * len(values), lambda i: Score(values[i], "ok", None, hits[i][1])
        )

    return batch


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
        compute_batch=_batch(_rr, "rr"),
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
        compute_batch=_batch(_ap, "ap"),
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
        compute_batch=_unitxt_batch(_unitxt_rr, "unitxt_rr"),
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
        compute_batch=_unitxt_batch(_unitxt_positional_ap, "unitxt_ap"),
        reference_based=True,
        formula="(1/|hits|) * sum_{k in hits} P@k, hits = positions of relevant ids (0 if none)",
        version="2",  # 1 de-duplicated ids and matched texts; Unitxt scores positions of ids
    )
)


def _template(
    prefix: str, fn: Callable[[Sequence[int], int, int], float], description: str, formula: str
) -> Callable[[int], Metric]:
    def factory(k: int) -> Metric:
        def at_k(ranks: Sequence[int], n: int) -> float:
            return fn(ranks, n, k)

        return Metric(
            name=f"{prefix}@{k}",
            description=description.replace("{k}", str(k)),
            requires=_REQUIRES,
            compute=_scorer(at_k),
            compute_batch=_batch(at_k, prefix, k),
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
        "|R ∩ top k| / k (k even when fewer are retrieved)",
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
