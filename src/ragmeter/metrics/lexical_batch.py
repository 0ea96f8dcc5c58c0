"""The lexical metrics declared, each with its per-sample and its whole-batch path.

The batch path (``Metric.compute_batch``) gives the same Scores as the per-sample one
(tests/test_score_columns.py compares them row by row, details included), computed as arrays:
the token counts of every sample come from one compiled pass (metrics/overlap_kernel.py, with
the ``fast`` extra; samples it cannot take exactly, and every sample without numba, are
counted by the per-sample code), the values from numpy, and a row's Score is built by the
per-sample path's own function when it is read (metrics/column.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ragmeter.metrics import overlap_kernel
from ragmeter.metrics.base import Metric, Score
from ragmeter.metrics.column import OK, UNDEFINED, ScoreColumn
from ragmeter.metrics.lexical import (
    _NO_REFERENCES,
    Overlaps,
    _best_from,
    _k_precision_from,
    _k_precision_union_from,
    _matched,
    _recall_from,
    _reference_overlaps,
    _references,
    _sample_support,
    exact_match,
    token_f1,
    token_precision,
    token_recall,
)
from ragmeter.metrics.token_support import Support, support
from ragmeter.sample import Sample


@dataclass
class _Counts:
    """Token counts of a batch: per sample the answer's tokens (``n``) and the union's
    supported tokens; per segment (a context, or a reference answer) the answer tokens it
    holds (``common``), its own tokens and whether it equals the answer; sample ``s``'s
    segments are ``start[s]:start[s + 1]``. Lists mirror the arrays for building Scores."""

    n: np.ndarray
    union: np.ndarray
    common: np.ndarray
    n_segment: np.ndarray
    equal: np.ndarray
    start: np.ndarray
    memo: dict[int, Overlaps] = field(default_factory=dict)

    def segments(self, s: int) -> range:
        return range(int(self.start[s]), int(self.start[s + 1]))

    def support(self, s: int) -> Support:
        per = self.common[self.start[s] : self.start[s + 1]].tolist()
        return Support(int(self.n[s]), tuple(per), int(self.union[s]))

    def overlaps(self, s: int) -> Overlaps:
        """Row s's counts as ``_reference_overlaps`` gives them; built once for the batch's
        token recall, precision and F1."""
        got = self.memo.get(s)
        if got is None:
            lo, hi = self.start[s], self.start[s + 1]
            pairs = zip(self.common[lo:hi].tolist(), self.n_segment[lo:hi].tolist(), strict=True)
            got = self.memo[s] = (int(self.n[s]), tuple(pairs))
        return got

    def best(self, per_segment: np.ndarray, empty: float) -> np.ndarray:
        """Per sample, the largest of its segments' values; ``empty`` for none."""
        out = np.full(len(self.n), empty)
        has = self.start[1:] > self.start[:-1]
        if has.any() and len(per_segment):
            out[has] = np.maximum.reduceat(per_segment, self.start[:-1][has])
        return out


def _python_counts(answer: str, segments: Sequence[str], of_contexts: bool) -> tuple:
    """One sample's counts by the per-sample code: (n, union, common, n_segment, equal)."""
    if of_contexts:
        sup = support(answer, segments)
        return sup.answer_tokens, sup.union, sup.per_context, [0] * len(segments), []
    n, pairs = _reference_overlaps.__wrapped__(answer, tuple(segments))
    k = _matched(answer, segments)
    return n, 0, [c for c, _ in pairs], [m for _, m in pairs], [i == k for i in range(len(pairs))]


def _counts(rows: Sequence[Sample], shared: dict[Any, Any], of_contexts: bool) -> _Counts:
    key = ("contexts" if of_contexts else "references", id(rows))
    if key in shared:
        return shared[key][1]
    answers = [s.answer or "" for s in rows]
    segments = [(s.contexts if of_contexts else _references(s)) or [] for s in rows]
    starts = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(g) for g in segments], out=starts[1:])
    if len(rows) >= overlap_kernel.MIN_SAMPLES and overlap_kernel.available():
        k = overlap_kernel.overlap_counts(answers, segments)
        counts = _Counts(k.n_answer, k.union, k.common, k.n_segment, k.equal, starts)
        redo = np.flatnonzero(~k.exact).tolist()
    else:
        n_seg = int(starts[-1])
        counts = _Counts(
            np.zeros(len(rows), np.int64),
            np.zeros(len(rows), np.int64),
            np.zeros(n_seg, np.int64),
            np.zeros(n_seg, np.int64),
            np.zeros(n_seg, np.bool_),
            starts,
        )
        redo = range(len(rows))
    for s in redo:  # by the per-sample code: the kernel's counts would not be exact here
        n, union, common, n_segment, equal = _python_counts(answers[s], segments[s], of_contexts)
        lo, hi = starts[s], starts[s + 1]
        counts.n[s], counts.union[s] = n, union
        counts.common[lo:hi] = common
        counts.n_segment[lo:hi] = n_segment
        counts.equal[lo:hi] = equal if equal else False
    shared[key] = (rows, counts)  # rows kept, so their id stays theirs
    return counts


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den elementwise, 0 where den is 0 (those rows are overwritten by the caller)."""
    out = np.zeros(len(num))
    np.divide(num, den, out=out, where=den > 0)
    return out


def _k_precision_batch(rows: Sequence[Sample], shared: dict[Any, Any]) -> ScoreColumn:
    c = _counts(rows, shared, of_contexts=True)
    has = c.start[1:] > c.start[:-1]
    values = np.where(has, _ratio(c.best(c.common.astype(np.float64), 0.0), c.n), np.nan)
    status = np.where(has, OK, UNDEFINED)
    return ScoreColumn(
        values, status, lambda i: _k_precision_from(c.support(i), len(c.segments(i)))
    )


def _k_precision_union_batch(rows: Sequence[Sample], shared: dict[Any, Any]) -> ScoreColumn:
    c = _counts(rows, shared, of_contexts=True)
    values = np.where(c.n > 0, _ratio(c.union, c.n), np.nan)
    status = np.where(c.n > 0, OK, UNDEFINED)
    return ScoreColumn(
        values, status, lambda i: _k_precision_union_from(c.support(i), len(c.segments(i)))
    )


def _token_batch(kind: str) -> Any:
    def batch(rows: Sequence[Sample], shared: dict[Any, Any]) -> ScoreColumn:
        c = _counts(rows, shared, of_contexts=False)
        common = c.common.astype(np.float64)
        n_seg = c.n_segment.astype(np.float64)
        owner = np.repeat(np.arange(len(c.n)), np.diff(c.start))
        n_ans = c.n[owner].astype(np.float64)
        if kind == "recall":
            per = _ratio(common, n_seg)  # 0 where nothing is shared, as in Unitxt
            values = c.best(per, np.nan)
            return ScoreColumn(
                values,
                np.where(np.isnan(values), UNDEFINED, OK),
                lambda i: _recall_from(c.overlaps(i)),
            )
        p = _ratio(common, n_ans)
        if kind == "precision":
            per = p
        else:
            r = _ratio(common, n_seg)
            per = np.zeros(len(common))
            np.divide(2 * p * r, p + r, out=per, where=common > 0)
        per = np.where(n_seg > 0, per, -np.inf)  # a reference without tokens is not scored
        values = c.best(per, -np.inf)
        values[values == -np.inf] = np.nan
        if kind == "precision":
            values[(c.n == 0) & (c.best(n_seg, 0.0) > 0)] = np.nan
        return ScoreColumn(
            values,
            np.where(np.isnan(values), UNDEFINED, OK),
            lambda i: _best_from(c.overlaps(i), kind),
        )

    return batch


def _exact_match_batch(rows: Sequence[Sample], shared: dict[Any, Any]) -> ScoreColumn:
    c = _counts(rows, shared, of_contexts=False)
    values = c.best(c.equal.astype(np.float64), np.nan)  # NaN: no reference answers

    def make(i: int) -> Score:
        if not len(c.segments(i)):
            return Score.undefined(_NO_REFERENCES)
        hit = [k for k, g in enumerate(c.segments(i)) if c.equal[g]]
        return Score.ok(1.0, matched_reference=hit[0]) if hit else Score.ok(0.0)

    return ScoreColumn(values, np.where(np.isnan(values), UNDEFINED, OK), make)


# Declared here, registered by metrics/registry.py (which imports this module, never the reverse).
METRICS: list[Metric] = []

METRICS.append(
    Metric(
        name="k_precision",
        description="Faithfulness by K-Precision, Unitxt's exactly (token_k_precision): share of "
        "answer tokens found in the best single context; 0 for an answer with no tokens, undefined "
        "with no contexts.",
        requires=(("answer", "contexts"),),
        compute=lambda s: _k_precision_from(_sample_support(s), len(s.contexts or ())),
        compute_batch=_k_precision_batch,
        formula="max_i |T(answer) ∩ T(c_i)| / |T(answer)|",
        version="2",  # 1 was the union of the contexts, now k_precision_union
    )
)
METRICS.append(
    Metric(
        name="k_precision_union",
        description="Ours, not Unitxt's: K-Precision against the union of the contexts, so an "
        "answer combining several contexts is supported; >= k_precision.",
        requires=(("answer", "contexts"),),
        compute=lambda s: _k_precision_union_from(_sample_support(s), len(s.contexts or ())),
        compute_batch=_k_precision_union_batch,
        default=False,
        formula="|T(answer) ∩ T(c1+...+cn)| / |T(answer)|",
    )
)
METRICS.append(
    Metric(
        name="token_recall",
        description="Answer correctness, Unitxt's exactly (token_recall): share of "
        "reference-answer tokens present in the answer, best reference.",
        requires=(("answer", "reference_answers"),),
        compute=lambda s: token_recall(s.answer or "", _references(s)),
        compute_batch=_token_batch("recall"),
        reference_based=True,
        formula="max_r |T(answer) ∩ T(r)| / |T(r)|",
        version="2",  # 1 was undefined when no reference had tokens; Unitxt gives 0
    )
)
METRICS.append(
    Metric(
        name="token_precision",
        description="Share of answer tokens present in the reference answer, best reference; "
        "undefined for an answer with no tokens.",
        requires=(("answer", "reference_answers"),),
        compute=lambda s: token_precision(s.answer or "", _references(s)),
        compute_batch=_token_batch("precision"),
        reference_based=True,
        formula="max_r |T(answer) ∩ T(r)| / |T(answer)|",
    )
)
METRICS.append(
    Metric(
        name="token_f1",
        description="SQuAD token F1 between answer and reference answer, best reference; 0 "
        "when no token is shared.",
        requires=(("answer", "reference_answers"),),
        compute=lambda s: token_f1(s.answer or "", _references(s)),
        compute_batch=_token_batch("f1"),
        reference_based=True,
        formula="max_r 2PR/(P+R)",
    )
)
METRICS.append(
    Metric(
        name="exact_match",
        description="1 when the normalised answer equals a normalised reference answer "
        "(undefined without reference answers).",
        requires=(("answer", "reference_answers"),),
        compute=lambda s: exact_match(s.answer or "", _references(s)),
        compute_batch=_exact_match_batch,
        reference_based=True,
        formula="max_r [norm(answer) == norm(r)]",
        version="2",  # 1 gave 0 for a row with no reference answers
    )
)
