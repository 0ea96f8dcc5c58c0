"""Lexical metrics (Unitxt / Adlakha et al. 2023): token overlap after SQuAD normalisation.

All counts are multiset counts: a token appearing twice in the answer is supported twice
only if it appears at least twice in the other text.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from ragmeter.metrics.base import Metric, Score
from ragmeter.sample import Sample
from ragmeter.text import SPACE_PUNCT_TABLE, cached_tokens, tokens


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


@lru_cache(maxsize=1024)
def _answer_bag(answer: str) -> tuple[int, dict[str, int], bool]:
    """Token count, token multiset, and whether every token is alphanumeric (fast path)."""
    toks = cached_tokens(answer)
    bag: dict[str, int] = {}
    for t in toks:
        bag[t] = bag.get(t, 0) + 1
    return len(toks), bag, all(t.isalnum() for t in toks)


def _count_token(padded: str, token: str, limit: int) -> int:
    """Whole-token occurrences of ``token`` in a space-padded text, counting up to ``limit``."""
    needle = f" {token} "
    step = len(token) + 1  # the trailing space may open the next occurrence
    n = 0
    i = padded.find(needle)
    while i >= 0:
        n += 1
        if n >= limit:
            break
        i = padded.find(needle, i + step)
    return n


def _supported(bag: dict[str, int], simple: bool, text: str) -> int:
    """|bag ∩ T(text)| without tokenising a long text.

    When every answer token is alphanumeric (``simple``), only the text's raw whitespace
    tokens that equal an answer token matter (articles never equal one, and a raw token with
    any other character yields only non-alphanumeric tokens), so each answer token is found
    by a substring search between spaces in the lower-cased, punctuation-free text.
    Otherwise the exact tokens are used.
    """
    if simple:
        padded = f" {text.lower().translate(SPACE_PUNCT_TABLE)} "
        return sum(_count_token(padded, t, c) for t, c in bag.items())
    source = tokens(text)
    present = set(source)
    return sum(min(c, source.count(t)) for t, c in bag.items() if t in present)


def k_precision(answer: str, contexts: Sequence[str], *, per_context: bool = False) -> Score:
    """K-Precision: share of answer tokens found in the contexts.

    ``KP = |T(answer) ∩ T(C)| / |T(answer)|`` with multiset intersection and ``T`` the SQuAD
    tokens. ``C`` is the union (concatenation) of all contexts by default: a claim supported by
    two contexts together is supported. ``per_context=True`` gives Unitxt's variant,
    ``max_i |T(answer) ∩ T(c_i)| / |T(answer)|``.
    """
    n_ans, bag, simple = _answer_bag(answer)
    if not n_ans:
        return Score.undefined("answer has no tokens after normalisation")
    if not contexts:
        return Score.ok(0.0, answer_tokens=n_ans, supported_tokens=0, note="no contexts")
    if per_context:
        best, best_i = -1, 0
        for i, ctx in enumerate(contexts):
            n = _supported(bag, simple, ctx)
            if n > best:
                best, best_i = n, i
        return Score.ok(
            best / n_ans, answer_tokens=n_ans, supported_tokens=best, best_context=best_i
        )
    # Joining with a space concatenates the token lists: the union of the contexts.
    n = _supported(bag, simple, " ".join(contexts))
    return Score.ok(n / n_ans, answer_tokens=n_ans, supported_tokens=n)


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
        if kind == "recall":
            value = common / n_ref
        elif kind == "precision":
            if not n_ans:
                return Score.undefined("answer has no tokens after normalisation")
            value = common / n_ans
        else:  # f1
            if common == 0:
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
    """Unitxt answer correctness: ``max_r |T(answer) ∩ T(r)| / |T(r)|`` over references r."""
    return _best_over_references(answer, references, "recall")


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


# Declared here, registered by metrics/registry.py (which imports this module, never the reverse).
METRICS: list[Metric] = []

METRICS.append(
    Metric(
        name="k_precision",
        description="Faithfulness by K-Precision: share of answer tokens found in the union of the "
        "contexts (Unitxt, Adlakha et al. 2023).",
        requires=(("answer", "contexts"),),
        compute=lambda s: k_precision(s.answer or "", s.contexts or []),
        formula="|T(answer) ∩ T(c1+...+cn)| / |T(answer)|",
    )
)
METRICS.append(
    Metric(
        name="k_precision_max",
        description="Unitxt's K-Precision variant: the best single context instead of their union.",
        requires=(("answer", "contexts"),),
        compute=lambda s: k_precision(s.answer or "", s.contexts or [], per_context=True),
        default=False,
        formula="max_i |T(answer) ∩ T(c_i)| / |T(answer)|",
    )
)
METRICS.append(
    Metric(
        name="token_recall",
        description="Answer correctness (Unitxt): share of reference-answer tokens present in the "
        "answer, best reference.",
        requires=(("answer", "reference_answers"),),
        compute=lambda s: token_recall(s.answer or "", _references(s)),
        reference_based=True,
        formula="max_r |T(answer) ∩ T(r)| / |T(r)|",
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
