"""Lexical metrics (Unitxt / Adlakha et al. 2023): token overlap after SQuAD normalisation.

All counts are multiset counts: a token appearing twice in the answer is supported twice
only if it appears at least twice in the other text.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ragmeter.metrics.base import Metric, Score
from ragmeter.metrics.registry import register
from ragmeter.sample import Sample
from ragmeter.text import cached_tokens, normalize_answer


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


def k_precision(answer: str, contexts: Sequence[str], *, per_context: bool = False) -> Score:
    """K-Precision: share of answer tokens found in the contexts.

    ``KP = |T(answer) ∩ T(C)| / |T(answer)|`` with multiset intersection and ``T`` the SQuAD
    tokens. ``C`` is the union (concatenation) of all contexts by default: a claim supported by
    two contexts together is supported. ``per_context=True`` gives Unitxt's variant,
    ``max_i |T(answer) ∩ T(c_i)| / |T(answer)|``.
    """
    ans = cached_tokens(answer)
    if not ans:
        return Score.undefined("answer has no tokens after normalisation")
    if not contexts:
        return Score.ok(0.0, answer_tokens=len(ans), supported_tokens=0, note="no contexts")
    if per_context:
        best, best_i = -1, 0
        for i, ctx in enumerate(contexts):
            n = _overlap(ans, cached_tokens(ctx))
            if n > best:
                best, best_i = n, i
        return Score.ok(best / len(ans), answer_tokens=len(ans), supported_tokens=best,
                        best_context=best_i)
    joined: list[str] = []
    for ctx in contexts:
        joined.extend(cached_tokens(ctx))
    n = _overlap(ans, joined)
    return Score.ok(n / len(ans), answer_tokens=len(ans), supported_tokens=n)


def _best_over_references(answer: str, references: Sequence[str], kind: str) -> Score:
    ans = cached_tokens(answer)
    best: float | None = None
    best_i = -1
    best_detail: tuple[int, int, int] = (0, 0, 0)
    empty_refs = 0
    for i, ref in enumerate(references):
        ref_toks = cached_tokens(ref)
        if not ref_toks:
            empty_refs += 1
            continue
        common = _overlap(ans, ref_toks)
        if kind == "recall":
            value = common / len(ref_toks)
        elif kind == "precision":
            if not ans:
                return Score.undefined("answer has no tokens after normalisation")
            value = common / len(ans)
        else:  # f1
            if common == 0:
                value = 0.0
            else:
                p, r = common / len(ans), common / len(ref_toks)
                value = 2 * p * r / (p + r)
        if best is None or value > best:
            best, best_i, best_detail = value, i, (common, len(ans), len(ref_toks))
    if best is None:
        return Score.undefined(f"all {empty_refs} reference answer(s) have no tokens after "
                               "normalisation")
    common, n_ans, n_ref = best_detail
    return Score.ok(best, best_reference=best_i, common_tokens=common, answer_tokens=n_ans,
                    reference_tokens=n_ref)


def token_recall(answer: str, references: Sequence[str]) -> Score:
    """Unitxt answer correctness: ``max_r |T(answer) ∩ T(r)| / |T(r)|`` over references r."""
    return _best_over_references(answer, references, "recall")


def token_precision(answer: str, references: Sequence[str]) -> Score:
    """``max_r |T(answer) ∩ T(r)| / |T(answer)|`` over references r."""
    return _best_over_references(answer, references, "precision")


def token_f1(answer: str, references: Sequence[str]) -> Score:
    """SQuAD F1: ``max_r 2PR / (P + R)`` with the token precision P and recall R against r."""
    return _best_over_references(answer, references, "f1")


def exact_match(answer: str, references: Sequence[str]) -> Score:
    """1 if the normalised answer equals any normalised reference, else 0."""
    norm = normalize_answer(answer)
    for i, ref in enumerate(references):
        if norm == normalize_answer(ref):
            return Score.ok(1.0, matched_reference=i)
    return Score.ok(0.0)


def _references(sample: Sample) -> list[str]:
    return sample.reference_answers or []


register(Metric(
    name="k_precision",
    description="Faithfulness by K-Precision: share of answer tokens found in the union of the "
                "contexts (Unitxt, Adlakha et al. 2023).",
    requires=(("answer", "contexts"),),
    compute=lambda s: k_precision(s.answer or "", s.contexts or []),
    formula="|T(answer) ∩ T(c1+...+cn)| / |T(answer)|",
))
register(Metric(
    name="k_precision_max",
    description="Unitxt's K-Precision variant: the best single context instead of their union.",
    requires=(("answer", "contexts"),),
    compute=lambda s: k_precision(s.answer or "", s.contexts or [], per_context=True),
    default=False,
    formula="max_i |T(answer) ∩ T(c_i)| / |T(answer)|",
))
register(Metric(
    name="token_recall",
    description="Answer correctness (Unitxt): share of reference-answer tokens present in the "
                "answer, best reference.",
    requires=(("answer", "reference_answers"),),
    compute=lambda s: token_recall(s.answer or "", _references(s)),
    reference_based=True,
    formula="max_r |T(answer) ∩ T(r)| / |T(r)|",
))
register(Metric(
    name="token_precision",
    description="Share of answer tokens present in the reference answer, best reference.",
    requires=(("answer", "reference_answers"),),
    compute=lambda s: token_precision(s.answer or "", _references(s)),
    reference_based=True,
    formula="max_r |T(answer) ∩ T(r)| / |T(answer)|",
))
register(Metric(
    name="token_f1",
    description="SQuAD token F1 between answer and reference answer, best reference.",
    requires=(("answer", "reference_answers"),),
    compute=lambda s: token_f1(s.answer or "", _references(s)),
    reference_based=True,
    formula="max_r 2PR/(P+R)",
))
register(Metric(
    name="exact_match",
    description="1 when the normalised answer equals a normalised reference answer.",
    requires=(("answer", "reference_answers"),),
    compute=lambda s: exact_match(s.answer or "", _references(s)),
    reference_based=True,
    formula="max_r [norm(answer) == norm(r)]",
))
