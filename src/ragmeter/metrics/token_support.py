"""How many of an answer's tokens each context supports: the count under K-Precision.

``support(answer, contexts)`` gives |T(answer) ∩ T(c_i)| for every context and for their
union (multiset counts of SQuAD tokens), the shared step of ``k_precision`` and
``k_precision_union`` (metrics/lexical.py); ``overlap`` is the same count for two token lists
(token recall, precision, F1).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from ragmeter.text import SPACE_PUNCT_TABLE, cached_tokens, tokens

_SEP = "\x00"  # joins contexts for one normalisation pass: neither whitespace nor punctuation
_JOIN = f" {_SEP} "


def overlap(pred: Sequence[str], ref: Sequence[str]) -> int:
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
