"""Retrieval arithmetic: ranks of the relevant items and each metric from them, pure.

The TREC definitions (``reciprocal_rank`` ... ``hit_at_k``) and Unitxt's positional ones
(``unitxt_*``); metrics/retrieval.py declares the metrics on top of these. The TREC sums run
left to right (``_sum``), as trec_eval's C loops and metrics/rank_kernel.py's compiled loops
add, so all give the same floats. Unitxt's MAP adds with the builtin ``sum()``, as unitxt
does: it compensates rounding since Python 3.12, and the kernel does what ``sum`` does.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from functools import lru_cache


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


def _sum(terms: Iterable[float]) -> float:
    """Left to right, as a compiled loop adds (sum() of floats is compensated since 3.12)."""
    total = 0.0
    for term in terms:
        total += term
    return total


def _ap(ranks: Sequence[int], n_relevant: int) -> float:
    return _sum((j + 1) / k for j, k in enumerate(ranks)) / n_relevant


@lru_cache(maxsize=1024)
def _idcg(k: int, n_relevant: int) -> float:
    return _sum(1.0 / math.log2(i + 1) for i in range(1, min(k, n_relevant) + 1))


def _ndcg(ranks: Sequence[int], n_relevant: int, k: int) -> float:
    return _sum(1.0 / math.log2(r + 1) for r in ranks if r <= k) / _idcg(k, n_relevant)


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
    """Unitxt's MAP: mean over hits of P@position; [B, A, A] vs {A} -> (1/2 + 2/3) / 2.

    Added with the builtin ``sum()``, as unitxt adds them (its zero terms for the misses change
    no sum): Neumaier-compensated on Python >= 3.12, left to right before, so the float is
    unitxt's on every Python.
    """
    if not hits:
        return 0.0
    return sum((j + 1) / k for j, k in enumerate(hits)) / len(hits)


def _need_relevant(relevant: frozenset[str], what: str) -> None:
    if not relevant:
        raise ValueError(f"{what} needs at least one relevant id")


def _relevant(relevant: Collection[str]) -> frozenset[str]:
    """The relevant ids as a set: a list naming an id twice holds one relevant item (TREC
    qrels and Unitxt both de-duplicate), so |R| counts it once. A single string is refused:
    it was read as a set of characters ("doc1" relevant meant d, o, c and 1)."""
    _not_text(relevant, "relevant")
    return relevant if isinstance(relevant, frozenset) else frozenset(relevant)


def _not_text(ids: object, what: str) -> None:
    if isinstance(ids, (str, bytes)):
        raise TypeError(f"{what} must be a collection of ids, not a single string {ids!r}")


def _k(k: object) -> int:
    """``k`` as the cut-off it must be: P@0 divided by zero, nDCG@-1 too, and k=2.5 or True
    were taken as given."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer, not {k!r}")
    return k


def reciprocal_rank(retrieved: Sequence[str], relevant: Collection[str]) -> float:
    """RR = 1 / rank of the first relevant item; 0 when none is retrieved.

    [d1, d2, d3] against {d2}: 1/2 = 0.5. A duplicate id takes no rank: [d1, d1, d2] gives 0.5
    too (``unitxt_reciprocal_rank`` 1/3).
    """
    _not_text(retrieved, "retrieved")
    relevant = _relevant(relevant)
    _need_relevant(relevant, "reciprocal rank")
    return _rr(_ranks(retrieved, relevant), len(relevant))


def average_precision(retrieved: Sequence[str], relevant: Collection[str]) -> float:
    """TREC AP = (1/|R|) * sum over relevant retrieved items at rank k of P@k.

    Normalised by all relevant items |R|, so a relevant item never retrieved costs score:
    [a, b, c] against {a, c, x} is (1/1 + 2/3) / 3 = 0.5556.
    """
    _not_text(retrieved, "retrieved")
    relevant = _relevant(relevant)
    _need_relevant(relevant, "average precision")
    return _ap(_ranks(retrieved, relevant), len(relevant))


def unitxt_average_precision(retrieved: Sequence[str], relevant: Collection[str]) -> float:
    """Unitxt's MAP: the mean of P@k over the positions holding a relevant id (0 if none).

    Unlike TREC AP it ignores relevant items that were never retrieved, and it scores
    positions, so a duplicated relevant id counts at each of its positions: [b, a, a] against
    {a} is (1/2 + 2/3) / 2 = 0.5833 (TREC AP 1/2).
    """
    _not_text(retrieved, "retrieved")
    relevant = _relevant(relevant)
    return _unitxt_positional_ap(unitxt_hits(retrieved, relevant))


def unitxt_reciprocal_rank(retrieved: Sequence[str], relevant: Collection[str]) -> float:
    """Unitxt's MRR: 1 / position of the first relevant id (0 if none); duplicates take ranks."""
    _not_text(retrieved, "retrieved")
    relevant = _relevant(relevant)
    return _unitxt_rr(unitxt_hits(retrieved, relevant))


def ndcg_at_k(retrieved: Sequence[str], relevant: Collection[str], k: int) -> float:
    """nDCG@k, binary gains: DCG = sum_{i<=k, d_i in R} 1/log2(i+1), over the ideal DCG.

    The ideal ranking puts min(k, |R|) relevant items first (trec_eval's ndcg_cut).
    [a, b, c] against {c, x}, k = 10: DCG = 1/log2(4) = 0.5, IDCG = 1 + 1/log2(3) = 1.6309,
    so 0.3066; k may exceed the list.
    """
    k = _k(k)
    _not_text(retrieved, "retrieved")
    relevant = _relevant(relevant)
    _need_relevant(relevant, "nDCG")
    return _ndcg(_ranks(retrieved, relevant), len(relevant), k)


def precision_at_k(retrieved: Sequence[str], relevant: Collection[str], k: int) -> float:
    """P@k = |relevant in top k| / k (divided by k even when fewer than k are retrieved).

    [a, b, c] against {c, x}: P@2 = 0/2 = 0, P@5 = 1/5 = 0.2 (trec_eval's P_5).
    """
    k = _k(k)
    _not_text(retrieved, "retrieved")
    relevant = _relevant(relevant)
    _need_relevant(relevant, "precision")
    return _precision(_ranks(retrieved, relevant), len(relevant), k)


def recall_at_k(retrieved: Sequence[str], relevant: Collection[str], k: int) -> float:
    """R@k = |relevant in top k| / |R|: [a, b, c] against {c, x}: R@2 = 0, R@5 = 1/2."""
    k = _k(k)
    _not_text(retrieved, "retrieved")
    relevant = _relevant(relevant)
    _need_relevant(relevant, "recall")
    return _recall(_ranks(retrieved, relevant), len(relevant), k)


def hit_at_k(retrieved: Sequence[str], relevant: Collection[str], k: int) -> float:
    """1 when any relevant item is in the top k, else 0: [a, b, c] against {c}: hit@2 = 0,
    hit@3 = 1."""
    k = _k(k)
    _not_text(retrieved, "retrieved")
    relevant = _relevant(relevant)
    _need_relevant(relevant, "hit")
    return _hit(_ranks(retrieved, relevant), len(relevant), k)
