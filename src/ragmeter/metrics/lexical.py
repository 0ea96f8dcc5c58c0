"""Lexical metrics: token overlap after SQuAD normalisation (Unitxt, Adlakha et al. 2023).

All counts are multiset counts: a token appearing twice in the answer is supported twice
only if it appears at least twice in the other text.

Two metrics are Unitxt's exactly (unitxt 1.26.10, ``metrics.token_overlap``; checked row by
row against the package in tests/test_unitxt_crosscheck.py):

- ``k_precision`` = ``metrics.rag.external_rag.faithfulness.token_k_precision``: the token
  precision of the answer against *each* context, the best context's value;
- ``token_recall`` = ``metrics.rag.external_rag.answer_correctness.token_recall``: the token
  recall of each reference answer in the answer, the best reference's value.

Unitxt scores 0 where no token is shared, including an answer (or every reference) with no
tokens at all; those rows keep Unitxt's 0 and say why in ``details["note"]``. Unitxt raises on
an empty list of contexts (or references): there it is ``undefined`` here, with that reason.

``k_precision_union`` is ours: the answer against the union of the contexts, so an answer
that combines two contexts is supported; ``undefined`` for an answer with no tokens.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from ragmeter.metrics.base import Metric, Score
from ragmeter.sample import Sample
from ragmeter.text import SPACE_PUNCT_TABLE, cached_tokens, tokens

_SEP = "\x00"  # joins contexts for one normalisation pass: neither whitespace nor punctuation
_JOIN = f" {_SEP} "
_NO_TOKENS = "answer has no tokens after normalisation"


def _overlap(pred: Sequence[str], ref: Sequence[str]) -> int:
    """Size of the multiset intersection of two token lists."""
    if len(pred) > len(ref):
        pred, ref = ref, pred
    if not pred:
        return 0
    small = Counter(pred)
    big: dict[str, int] = {}
    for tok in ref:
        if tok in small:
            big[tok] = big.get(tok, 0) + 1
    return sum(min(c, big.get(t, 0)) for t, c in small.items())


class _Bag(NamedTuple):
    """An answer's tokens: count, multiset, space-padded needles, all-alphanumeric flag."""

    n: int
    counts: dict[str, int]
    needles: tuple[tuple[str, int, int], ...]  # (" tok ", count, len(tok) + 1)
    simple: bool


@lru_cache(maxsize=1024)
def _answer_bag(answer: str) -> _Bag:
    toks = cached_tokens(answer)
    counts: dict[str, int] = {}
    for t in toks:
        counts[t] = counts.get(t, 0) + 1
    needles = tuple((f" {t} ", c, len(t) + 1) for t, c in counts.items())
    return _Bag(len(toks), counts, needles, all(t.isalnum() for t in counts))


def _simple_support(bag: _Bag, contexts: Sequence[str]) -> tuple[list[int], int] | None:
    """``support`` by substring search when every answer token is alphanumeric.

    The contexts are normalised in one pass, joined by `` NUL `` (neither whitespace nor
    punctuation, so it survives and marks where each context ends; None if a context holds
    NUL itself). Each needle `` tok `` is found in the whole text; the context of a hit is
    found by bisection, counted up to the answer's count, and the search jumps to the next
    context. Profiling showed this beats a search per context and tokenising the contexts.
    """
    per = [0] * len(contexts)
    joined = _JOIN.join(contexts)
    if joined.count(_SEP) != len(per) - 1:
        return None
    text = f" {joined.lower().translate(SPACE_PUNCT_TABLE)} "
    find = text.find
    ends: list[int] = []
    i = find(_SEP)
    while i >= 0:
        ends.append(i)
        i = find(_SEP, i + 1)
    ends.append(len(text))
    union = 0
    for needle, c, step in bag.needles:
        total = 0
        i = find(needle)
        while i >= 0:
            k = bisect_left(ends, i)
            end = ends[k]
            n = 1
            if c > 1:  # further copies in this context, up to the answer's count
                j = find(needle, i + step, end)
                while j >= 0 and n < c:
                    n += 1
                    j = find(needle, j + step, end)
            per[k] += n
            total += n
            i = find(needle, end)
        union += total if total < c else c
    return per, union


class Support(NamedTuple):
    """How many answer tokens each context supports, and the union of the contexts."""

    answer_tokens: int
    per_context: tuple[int, ...]
    union: int


def support(answer: str, contexts: Sequence[str]) -> Support:
    """|T(answer) ∩ T(c_i)| for every context, and |T(answer) ∩ T(c_1 + ... + c_n)|.

    When every answer token is alphanumeric (the usual case), only a context's raw
    whitespace tokens that equal an answer token matter (articles never equal one, and a raw
    token with any other character yields only non-alphanumeric tokens), so each answer token
    is found by a substring search between spaces in the normalised context, without
    tokenising it. Otherwise the exact tokens are counted. Tokens never span two contexts, so
    the union's count of a token is the sum of the contexts' counts (capped at the answer's).
    """
    bag = _answer_bag(answer)
    if not bag.n or not contexts:
        return Support(bag.n, tuple(0 for _ in contexts), 0)
    found = _simple_support(bag, contexts) if bag.simple else None
    if found is not None:
        return Support(bag.n, tuple(found[0]), found[1])
    per: list[int] = []
    totals = dict.fromkeys(bag.counts, 0)
    for ctx in contexts:
        seen = Counter(t for t in tokens(ctx) if t in totals)
        per.append(sum(min(c, seen[t]) for t, c in bag.counts.items()))
        for t, k in seen.items():
            totals[t] += k
    union = sum(min(c, totals[t]) for t, c in bag.counts.items())
    return Support(bag.n, tuple(per), union)


def _k_precision_from(sup: Support, n_contexts: int) -> Score:
    if not n_contexts:
        return Score.undefined(
            "no contexts: Unitxt's K-Precision is a max over contexts and has no value "
            "for none (unitxt raises)"
        )
    best = max(sup.per_context)
    best_i = sup.per_context.index(best)
    if not sup.answer_tokens:
        return Score.ok(0.0, answer_tokens=0, supported_tokens=0, note=f"{_NO_TOKENS}: 0")
    return Score.ok(
        best / sup.answer_tokens,
        answer_tokens=sup.answer_tokens,
        supported_tokens=best,
        best_context=best_i,
    )


def _k_precision_union_from(sup: Support, n_contexts: int) -> Score:
    if not sup.answer_tokens:
        return Score.undefined(_NO_TOKENS)
    if not n_contexts:
        return Score.ok(
            0.0, answer_tokens=sup.answer_tokens, supported_tokens=0, note="no contexts"
        )
    return Score.ok(
        sup.union / sup.answer_tokens, answer_tokens=sup.answer_tokens, supported_tokens=sup.union
    )


def k_precision(answer: str, contexts: Sequence[str]) -> Score:
    """Unitxt's K-Precision: ``max_i |T(answer) ∩ T(c_i)| / |T(answer)|``.

    ``T`` is the SQuAD tokens, ``∩`` the multiset intersection. Answer "The cat sat on the
    mat." (T = cat, sat, on, mat) against ["A cat sat.", "On a mat!"]: each context supports
    2 of 4 tokens, so 0.5 (the union of the two would give 1.0: ``k_precision_union``).
    An answer with no tokens scores 0, as in Unitxt; no contexts at all is undefined.
    """
    return _k_precision_from(support(answer, contexts), len(contexts))


def k_precision_union(answer: str, contexts: Sequence[str]) -> Score:
    """Ours: ``|T(answer) ∩ T(c_1 + ... + c_n)| / |T(answer)|``, the contexts taken together.

    Same example as ``k_precision``: the union holds cat, sat, on, mat, so 4/4 = 1.0. Higher
    than or equal to Unitxt's on every row; undefined for an answer with no tokens.
    """
    return _k_precision_union_from(support(answer, contexts), len(contexts))


@lru_cache(maxsize=256)
def _reference_overlaps(
    answer: str, references: tuple[str, ...]
) -> tuple[int, tuple[tuple[int, int], ...]]:
    """Answer token count and (common tokens, reference tokens) per reference.

    Cached because token recall, precision and F1 of one sample all need the same counts.
    """
    ans = cached_tokens(answer)
    out = []
    for ref in references:
        ref_toks = cached_tokens(ref)
        out.append((_overlap(ans, ref_toks), len(ref_toks)))
    return len(ans), tuple(out)


def _best_over_references(answer: str, references: Sequence[str], kind: str) -> Score:
    n_ans, overlaps = _reference_overlaps(answer, tuple(references))
    best: float | None = None
    best_i = -1
    best_detail: tuple[int, int] = (0, 0)
    empty_refs = 0
    for i, (common, n_ref) in enumerate(overlaps):
        if not n_ref:
            empty_refs += 1
            continue
        if kind == "precision":
            if not n_ans:
                return Score.undefined(_NO_TOKENS)
            value = common / n_ans
        elif common == 0:  # f1
            value = 0.0
        else:
            p, r = common / n_ans, common / n_ref
            value = 2 * p * r / (p + r)
        if best is None or value > best:
            best, best_i, best_detail = value, i, (common, n_ref)
    if best is None:
        return Score.undefined(
            f"all {empty_refs} reference answer(s) have no tokens after normalisation"
        )
    common, n_ref = best_detail
    return Score.ok(
        best,
        best_reference=best_i,
        common_tokens=common,
        answer_tokens=n_ans,
        reference_tokens=n_ref,
    )


def token_recall(answer: str, references: Sequence[str]) -> Score:
    """Unitxt's answer correctness: ``max_r |T(answer) ∩ T(r)| / |T(r)|`` over references r.

    "Paris is the capital of France" against ["Capital is Paris", "The French capital is
    Paris, France"]: 3/3 = 1.0 and 4/5 = 0.8, so 1.0. A reference with no tokens scores 0
    (Unitxt's ``num_same == 0`` branch); an empty list of references is undefined.
    """
    if not references:
        return Score.undefined("no reference answers: Unitxt's token recall raises for none")
    n_ans, overlaps = _reference_overlaps(answer, tuple(references))
    best, best_i = -1.0, 0
    for i, (common, n_ref) in enumerate(overlaps):
        value = common / n_ref if common else 0.0
        if value > best:
            best, best_i = value, i
    common, n_ref = overlaps[best_i]
    details: dict[str, object] = {
        "best_reference": best_i,
        "common_tokens": common,
        "answer_tokens": n_ans,
        "reference_tokens": n_ref,
    }
    if not any(n for _, n in overlaps):
        details["note"] = "no reference answer has tokens after normalisation: 0, as in Unitxt"
    return Score.ok(best, **details)


def token_precision(answer: str, references: Sequence[str]) -> Score:
    """``max_r |T(answer) ∩ T(r)| / |T(answer)|`` over references r."""
    return _best_over_references(answer, references, "precision")


def token_f1(answer: str, references: Sequence[str]) -> Score:
    """SQuAD F1: ``max_r 2PR / (P + R)`` with the token precision P and recall R against r."""
    return _best_over_references(answer, references, "f1")


def exact_match(answer: str, references: Sequence[str]) -> Score:
    """1 if the normalised answer equals any normalised reference, else 0.

    ``normalize_answer(x) == " ".join(tokens(x))``, so equal token tuples mean equal
    normalised strings.
    """
    norm = cached_tokens(answer)
    for i, ref in enumerate(references):
        if norm == cached_tokens(ref):
            return Score.ok(1.0, matched_reference=i)
    return Score.ok(0.0)


def _references(sample: Sample) -> list[str]:
    return sample.reference_answers or []


_LAST: list[object] = [None, None]  # (sample, Support): the K-Precision metrics of one sample


def _sample_support(sample: Sample) -> Support:
    """``support`` of one sample, computed once for both K-Precision metrics.

    The runner scores every metric of a sample in a row; the last sample is remembered by
    identity (as the retrieval metrics do).
    """
    if _LAST[0] is sample:
        return _LAST[1]  # type: ignore[return-value]
    sup = support(sample.answer or "", sample.contexts or [])
    _LAST[0], _LAST[1] = sample, sup
    return sup


# Declared here, registered by metrics/registry.py (which imports this module, never the reverse).
METRICS: list[Metric] = []

METRICS.append(
    Metric(
        name="k_precision",
        description="Faithfulness by K-Precision, Unitxt's exactly (token_k_precision): share of "
        "answer tokens found in the best single context; 0 for an answer with no tokens.",
        requires=(("answer", "contexts"),),
        compute=lambda s: _k_precision_from(_sample_support(s), len(s.contexts or ())),
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
        reference_based=True,
        formula="max_r |T(answer) ∩ T(r)| / |T(r)|",
        version="2",  # 1 was undefined when no reference had tokens; Unitxt gives 0
    )
)
METRICS.append(
    Metric(
        name="token_precision",
        description="Share of answer tokens present in the reference answer, best reference.",
        requires=(("answer", "reference_answers"),),
        compute=lambda s: token_precision(s.answer or "", _references(s)),
        reference_based=True,
        formula="max_r |T(answer) ∩ T(r)| / |T(answer)|",
    )
)
METRICS.append(
    Metric(
        name="token_f1",
        description="SQuAD token F1 between answer and reference answer, best reference.",
        requires=(("answer", "reference_answers"),),
        compute=lambda s: token_f1(s.answer or "", _references(s)),
        reference_based=True,
        formula="max_r 2PR/(P+R)",
    )
)
METRICS.append(
    Metric(
        name="exact_match",
        description="1 when the normalised answer equals a normalised reference answer.",
        requires=(("answer", "reference_answers"),),
        compute=lambda s: exact_match(s.answer or "", _references(s)),
        reference_based=True,
        formula="max_r [norm(answer) == norm(r)]",
    )
)
