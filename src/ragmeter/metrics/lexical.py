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

from collections.abc import Sequence
from functools import lru_cache

from ragmeter.metrics.base import Score
from ragmeter.metrics.token_support import Support, overlap, support
from ragmeter.sample import Sample
from ragmeter.text import cached_tokens

_NO_TOKENS = "answer has no tokens after normalisation"
# SQuAD's metric_max_over_ground_truths is a max over the references: none, no value.
_NO_REFERENCES = "no reference answers: a best over reference answers has no value for none"


def _texts(texts: Sequence[str], what: str) -> Sequence[str]:
    """``texts`` when it is a list of texts: a single string was read as one text per
    character, and k_precision("Paris is big", "Paris is big") was 0.0."""
    if isinstance(texts, (str, bytes)):
        raise TypeError(f"{what} must be a list of texts, not a single string: [{texts!r}]")
    return texts


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
    contexts = _texts(contexts, "contexts")
    return _k_precision_from(support(answer, contexts), len(contexts))


def k_precision_union(answer: str, contexts: Sequence[str]) -> Score:
    """Ours: ``|T(answer) ∩ T(c_1 + ... + c_n)| / |T(answer)|``, the contexts taken together.

    Same example as ``k_precision``: the union holds cat, sat, on, mat, so 4/4 = 1.0. The
    contexts' tokens are pooled, so counts add: "cat cat cat" against ["cat", "cat cat"] is
    3/3 = 1.0 (``k_precision`` 2/3). Higher than or equal to Unitxt's on every row; undefined
    for an answer with no tokens, 0 with no contexts.
    """
    contexts = _texts(contexts, "contexts")
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
        out.append((overlap(ans, ref_toks), len(ref_toks)))
    return len(ans), tuple(out)


Overlaps = tuple[int, tuple[tuple[int, int], ...]]


def _best_over_references(answer: str, references: Sequence[str], kind: str) -> Score:
    return _best_from(_reference_overlaps(answer, tuple(_texts(references, "references"))), kind)


def _best_from(counts: Overlaps, kind: str) -> Score:
    n_ans, overlaps = counts
    if not overlaps:
        return Score.undefined(_NO_REFERENCES)
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
    return _recall_from(_reference_overlaps(answer, tuple(_texts(references, "references"))))


def _recall_from(counts: Overlaps) -> Score:
    n_ans, overlaps = counts
    if not overlaps:
        return Score.undefined("no reference answers: Unitxt's token recall raises for none")
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
    """``max_r |T(answer) ∩ T(r)| / |T(answer)|`` over references r.

    "The capital is Paris" (T = capital, is, paris) against ["Paris", "Paris is the capital of
    France"]: 1/3 and 3/3, so 1.0. A reference with no tokens is passed over; an answer with
    no tokens, no reference answers, or only references without tokens: undefined.
    """
    return _best_over_references(answer, references, "precision")


def token_f1(answer: str, references: Sequence[str]) -> Score:
    """SQuAD F1: ``max_r 2PR / (P + R)`` with the token precision P and recall R against r.

    Same example as ``token_precision``: against "Paris" P = 1/3, R = 1, F1 = 0.5; against the
    second reference P = 1, R = 3/5, F1 = 0.75; so 0.75. No shared token: 0 (an answer with no
    tokens too); a reference with no tokens is passed over, and with none left: undefined.
    """
    return _best_over_references(answer, references, "f1")


def exact_match(answer: str, references: Sequence[str]) -> Score:
    """1 if the normalised answer equals any normalised reference, else 0.

    "The Paris!" against ["paris", "Rome"]: both normalise to "paris", so 1.0; "Paris,
    France" against ["paris"]: 0.0 (no partial credit).

    ``normalize_answer(x) == " ".join(tokens(x))``, so equal token tuples mean equal
    normalised strings. No reference answers at all: undefined (a max over none), as for
    the other reference-answer metrics, not a 0 that would lower the mean.
    """
    if not _texts(references, "references"):
        return Score.undefined(_NO_REFERENCES)
    i = _matched(answer, references)
    return Score.ok(0.0) if i is None else Score.ok(1.0, matched_reference=i)


def _matched(answer: str, references: Sequence[str]) -> int | None:
    norm = cached_tokens(answer)
    for i, ref in enumerate(references):
        if norm == cached_tokens(ref):
            return i
    return None


def _references(sample: Sample) -> list[str]:
    return sample.reference_answers or []


# [(sample, Support)]: the K-Precision metrics of one sample; one tuple, read and replaced
# whole, so two threads evaluating at once never pair a sample with another's support
_LAST: list[tuple[object, Support | None]] = [(None, None)]


def _sample_support(sample: Sample) -> Support:
    """``support`` of one sample, computed once for both K-Precision metrics.

    The runner scores every metric of a sample in a row; the last sample is remembered by
    identity (as the retrieval metrics do).
    """
    last_sample, last_support = _LAST[0]
    if last_sample is sample and last_support is not None:
        return last_support
    sup = support(sample.answer or "", sample.contexts or [])
    _LAST[0] = (sample, sup)
    return sup
