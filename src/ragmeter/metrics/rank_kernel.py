"""The retrieval metrics of a whole batch in compiled loops (numba, the ``fast`` extra).

Why: each retrieval metric is a few arithmetic steps on the ranks of a sample's relevant
items, but finding those ranks and looping over them in Python cost about 20 us a sample for
the eight retrieval metrics together, a third of the non-LLM tier. Here each retrieved and
relevant id (or normalised text) of a batch is replaced by an integer code, the ranks are
found once per batch, and every metric's values come from one loop, in the same floating-point
operations as the per-sample code of metrics/retrieval.py (sums left to right, 1 / log2 from
the C library), so the values are equal bit for bit (tests/test_score_columns.py).

Used for batches of at least ``overlap_kernel.MIN_SAMPLES``, when numba is installed.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import count
from typing import Any

import numpy as np

_compiled: dict[str, Any] = {}


@dataclass
class Ranked:
    """Per sample: how many ids are relevant; the TREC ranks of the relevant retrieved items
    (duplicates counted once) at ``ranks[rank_start[s]:rank_start[s + 1]]``; Unitxt's 1-based
    positions holding a relevant id (every copy) at ``hits[hit_start[s]:hit_start[s + 1]]``."""

    n_relevant: np.ndarray
    ranks: np.ndarray
    rank_start: np.ndarray
    hits: np.ndarray
    hit_start: np.ndarray
    memo: dict[int, Any] = field(default_factory=dict)  # rows' Score details, once built


def ranked(rankings: Sequence[tuple[Sequence[str], Any]]) -> Ranked:
    """The ranks of every sample, from (retrieved ids, relevant ids) pairs."""
    codes: defaultdict[str, int] = defaultdict(count().__next__)
    code = codes.__getitem__
    retrieved: list[int] = []
    relevant: list[int] = []
    n_ret, n_rel = [], []
    for ret, rel in rankings:
        retrieved.extend(map(code, ret))
        relevant.extend(map(code, rel))
        n_ret.append(len(ret))
        n_rel.append(len(rel))
    ret_start = np.zeros(len(n_ret) + 1, dtype=np.int64)
    np.cumsum(n_ret, out=ret_start[1:])
    rel_start = np.zeros(len(n_rel) + 1, dtype=np.int64)
    np.cumsum(n_rel, out=rel_start[1:])
    return Ranked(
        *_kernels()["ranks"](
            np.array(retrieved, dtype=np.int64),
            ret_start,
            np.array(relevant, dtype=np.int64),
            rel_start,
            len(codes),
        )
    )


def values(
    r: Ranked, kind: str, k: int = 0, idcg: Callable[[int, int], float] | None = None
) -> np.ndarray:
    """One metric's value per sample (NaN where it is undefined: no relevant id, TREC);
    ``idcg(k, n_relevant)`` is the ideal DCG nDCG divides by (metrics/retrieval.py's)."""
    kinds = {"rr": 0, "ap": 1, "ndcg": 2, "precision": 3, "recall": 4, "hit": 5}
    if kind in ("unitxt_rr", "unitxt_ap"):
        return _kernels()["unitxt"](r.hits, r.hit_start, kind == "unitxt_ap", sum_compensates())
    n_max = int(r.n_relevant.max(initial=0))
    ideal = np.array([idcg(k, n) if idcg and n else 1.0 for n in range(n_max + 1)])
    return _kernels()["trec"](r.n_relevant, r.ranks, r.rank_start, kinds[kind], k, ideal)


def sum_compensates() -> bool:
    """Whether the builtin ``sum()`` of floats compensates rounding (Neumaier's algorithm, as
    CPython does since 3.12): unitxt's MAP adds with it, so its kernel loop must add the same."""
    return sum([1.0, 1e100, 1.0, -1e100]) == 2.0


def _kernels() -> dict[str, Callable[..., Any]]:
    if not _compiled:
        import numba

        jit = numba.njit(cache=True, nogil=True)
        _compiled.update(ranks=jit(_ranks), trec=jit(_trec), unitxt=jit(_unitxt))
    return _compiled


def _ranks(retrieved, ret_start, relevant, rel_start, n_codes):
    n = len(ret_start) - 1
    n_relevant = np.zeros(n, np.int64)
    ranks = np.empty(len(retrieved), np.int64)
    rank_start = np.zeros(n + 1, np.int64)
    hits = np.empty(len(retrieved), np.int64)
    hit_start = np.zeros(n + 1, np.int64)
    mark = np.zeros(max(n_codes, 1), np.int8)  # 1 relevant, 2 seen (ranked), per code
    n_ranks = 0
    n_hits = 0
    for s in range(n):
        for j in range(rel_start[s], rel_start[s + 1]):
            if mark[relevant[j]] == 0:
                mark[relevant[j]] = 1
                n_relevant[s] += 1
        rank = 0
        for j in range(ret_start[s], ret_start[s + 1]):
            doc = retrieved[j]
            if mark[doc] & 1:
                hits[n_hits] = j - ret_start[s] + 1
                n_hits += 1
            if mark[doc] & 2:
                continue
            mark[doc] |= 2
            rank += 1
            if mark[doc] & 1:
                ranks[n_ranks] = rank
                n_ranks += 1
        rank_start[s + 1] = n_ranks
        hit_start[s + 1] = n_hits
        for j in range(rel_start[s], rel_start[s + 1]):
            mark[relevant[j]] = 0
        for j in range(ret_start[s], ret_start[s + 1]):
            mark[retrieved[j]] = 0
    return n_relevant, ranks[:n_ranks], rank_start, hits[:n_hits], hit_start


def _trec(n_relevant, ranks, rank_start, kind, k, idcg):
    out = np.empty(len(n_relevant))
    for s in range(len(n_relevant)):
        n_rel = n_relevant[s]
        lo, hi = rank_start[s], rank_start[s + 1]
        if n_rel == 0:
            out[s] = np.nan
        elif kind == 0:  # reciprocal rank
            out[s] = 1.0 / ranks[lo] if hi > lo else 0.0
        elif kind == 1:  # average precision
            acc = 0.0
            for j in range(lo, hi):
                acc += (j - lo + 1) / ranks[j]
            out[s] = acc / n_rel
        elif kind == 2:  # nDCG@k
            acc = 0.0
            for j in range(lo, hi):
                if ranks[j] <= k:
                    acc += 1.0 / math.log2(ranks[j] + 1)
            out[s] = acc / idcg[n_rel]
        else:
            within = 0
            for j in range(lo, hi):
                if ranks[j] <= k:
                    within += 1
            if kind == 3:
                out[s] = within / k
            elif kind == 4:
                out[s] = within / n_rel
            else:
                out[s] = 1.0 if hi > lo and ranks[lo] <= k else 0.0
    return out


def _unitxt(hits, hit_start, average, compensated):
    # ``compensated``: add as CPython >= 3.12's sum() does (Neumaier), the float unitxt gets
    out = np.empty(len(hit_start) - 1)
    for s in range(len(out)):
        lo, hi = hit_start[s], hit_start[s + 1]
        if hi == lo:
            out[s] = 0.0
        elif not average:
            out[s] = 1 / hits[lo]
        else:
            acc = 0.0
            comp = 0.0
            for j in range(lo, hi):
                x = (j - lo + 1) / hits[j]
                t = acc + x
                if compensated:
                    if abs(acc) >= abs(x):
                        comp += (acc - t) + x
                    else:
                        comp += (x - t) + acc
                acc = t
            if comp != 0.0:
                acc += comp
            out[s] = acc / (hi - lo)
    return out
