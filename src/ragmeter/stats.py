"""Paired statistics for comparing two runs on the same samples (scipy does the resampling).

For paired scores a_i, b_i the effect is the mean paired difference d = mean(b_i - a_i).

- ``paired_delta_ci``: percentile bootstrap CI of d, ``scipy.stats.bootstrap`` with
  ``paired=True`` (the pairs are resampled together; beyond ``SCIPY_MAX_PAIRS`` pairs the
  differences are resampled here, as evaluate's aggregates are: ``_bootstrap_ci``).
- ``paired_p_value``: two-sided sign-flip permutation test of H0 "A and B are exchangeable
  within each pair", ``scipy.stats.permutation_test`` with ``permutation_type='samples'``;
  exact (all 2^n sign patterns) when 2^n <= n_resamples (9999 by default, fewer beyond 2000
  pairs: ``default_permutations``); beyond ``SCIPY_MAX_PAIRS`` pairs the random sign
  patterns are drawn here with scipy's p-value rule, and p is at most Hoeffding's bound on
  the exact p (``_sign_flip_bound``), so a large run's p is not stuck at 2/1000. Worked
  number: d = (0.2, 0.2, 0.2) gives 8 sign patterns of which 2 (all +, all -) reach
  |mean| = 0.2, so p = 2/8 = 0.25.
- From ``CLT_MIN_CHANGED`` changed pairs on (``uses_normal``), both are their normal (CLT)
  limits, which the resampling only estimates: ``normal_ci`` and ``normal_p``.
- ``mean_of``: the mean of one run's scores, exactly v when every score is v (the
  aggregates' and slices' mean).
- ``holm``: Holm's step-down adjustment of several p-values (family-wise error), which
  scipy does not provide (``false_discovery_control`` is Benjamini-Hochberg, a different
  guarantee). Worked number: p = (0.01, 0.04, 0.03) -> (0.03, 0.06, 0.06).

A paired difference of at most ``TIE`` is float noise (0.1 + 0.2 vs 0.3 differ by 5.6e-17),
not a change: the delta, the CI and the p-value count it as 0, as the win/tie/loss counts do.
Without this, twelve noise-level differences of one sign gave p = 2/4096 and a "worse"
verdict that failed the regression gate on a tie.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence

import numpy as np

BATCH_VALUES = 4_000_000  # resampled values held at once (~32 MB of float64 per array)
TIE = 1e-9  # |b - a| at or below this is a tie (float noise), counted as no difference
# Up to this many pairs scipy resamples; beyond it the resampling is done here on the
# differences. Permutations (``_sign_flip_p``): scipy permutes each pair by sorting random
# keys, which took 48 s for 999 patterns of 100k pairs, against 0.5 s as random bits.
# Bootstrap (``_bootstrap_ci``): scipy's indices (or counts of few values), 6x faster.
SCIPY_MAX_PAIRS = 1000
# From this many changed pairs (|b - a| > TIE) on, the CI is the normal interval and p the
# normal approximation of the sign-flip test (``uses_normal``): 2000 resamples of a million
# continuous differences drew 2e9 indices, about 25 s per metric, to estimate them.
CLT_MIN_CHANGED = 20_000
# The least p-value the analytic tests give: erfc and exp underflow to exactly 0.0 beyond
# |z| ~ 38, and no sign-flip test can give p = 0 (the observed pattern is one of 2^n).
# The smallest *normal* float, not math.ulp(0.0) (5e-324, subnormal): it still over-states
# no certainty (the true p is smaller), Holm's (m - k) * p keeps its full precision, and
# a reader that flushes subnormals to zero (numpy with FTZ, some JSON parsers) reads no 0.
MIN_P = sys.float_info.min


def _paired(a: Sequence[float], b: Sequence[float], what: str) -> tuple[np.ndarray, np.ndarray]:
    """A and B as arrays, B set to A's value where they differ by at most TIE."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if len(x) != len(y) or len(x) == 0:
        raise ValueError(f"{what} needs two non-empty sequences of the same length")
    return x, np.where(np.abs(y - x) <= TIE, x, y)


def mean_difference(a: Sequence[float], b: Sequence[float]) -> float:
    """mean(b - a), differences within TIE counted as 0."""
    x, y = _paired(a, b, "mean_difference")
    return mean_of(y - x)  # 30 pairs all moving 0.2 -> 0.9: 0.7, inside its CI [0.7, 0.7]


def mean_of(values: np.ndarray) -> float:
    """The mean of ``values`` (a non-empty float array): the value itself when all are
    equal, else numpy's mean. Why: numpy's pairwise sum made the mean of 30 scores of 0.7
    come out as 0.6999999999999997, beside the CI [0.7, 0.7], so a gate at 0.7 failed on a
    run where every sample scored 0.7 ("mean 0.6999999999999997 < 0.7"). Other means keep
    numpy's digits, so the means of runs already written are reproduced to the last one."""
    if np.ptp(values) == 0:
        return float(values[0])
    return float(np.mean(values))


def _mean_diff(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(b - a, axis=axis)


def _batch(n: int) -> int:
    """Resamples per vectorised call, so memory stays bounded for large runs."""
    return max(1, BATCH_VALUES // max(1, n))


def paired_delta_ci(
    a: Sequence[float],
    b: Sequence[float],
    *,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap CI of mean(b - a); a degenerate sample (one pair, or all
    differences equal) has the zero-width interval at that difference."""
    x, y = _paired(a, b, "paired_delta_ci")
    d = y - x
    if len(d) == 1 or np.ptp(d) == 0:
        return float(d[0]), float(d[0])
    if uses_normal(d):
        return normal_ci(d, confidence)
    if len(d) > SCIPY_MAX_PAIRS:
        return _bootstrap_ci(d, confidence, n_resamples, seed)
    from scipy.stats import bootstrap  # here: importing scipy.stats takes a second or two

    res = bootstrap(
        (x, y),
        _mean_diff,
        paired=True,
        vectorized=True,
        n_resamples=n_resamples,
        confidence_level=confidence,
        method="percentile",
        batch=_batch(len(d)),
        rng=np.random.default_rng(seed),
    )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def _bootstrap_ci(
    d: np.ndarray, confidence: float, n_resamples: int, seed: int
) -> tuple[float, float]:
    """scipy's paired percentile bootstrap over the differences d, drawn as evaluate's
    aggregates are (``_resampled_means``): the same resampled indices as scipy from the same
    generator when d takes many values, multinomial counts of its values when it takes few.

    Why the counts: a million pairs of 0/1 scores (differences -1, 0, 1) drew 2e9 indices,
    20 s per metric; the counts of 3 values take a fraction of a second, and resampling n
    values is drawing how often each is picked (the same distribution)."""
    means = _resampled_means(d, n_resamples, np.random.default_rng(seed))
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return float(low), float(high)


def _resampled_means(values: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """``bootstrap_ci``'s bootstrap distribution of the mean, draw for draw: multinomial
    counts when the values take few distinct numbers (at most one per 8 values, so never
    below 8 values, where ``np.unique`` is skipped), else indices; both in blocks, so
    memory stays bounded. ``bootstrap_ci`` draws through it."""
    n = len(values)
    means = np.empty(n_resamples)
    if n >= 8:
        distinct, counts = np.unique(values, return_counts=True)
        if len(distinct) * 8 <= n:
            # in blocks, as the indices below: 1000 resamples of a million scores on 100,000
            # distinct values held 1000 x 100,000 counts at once (1.6 GB); the draws are the
            # same, block by block, as the generator draws row after row
            block = max(1, min(n_resamples, 2_000_000 // len(distinct)))
            for start in range(0, n_resamples, block):
                stop = min(n_resamples, start + block)
                draws = rng.multinomial(n, counts / n, size=stop - start)
                means[start:stop] = draws @ distinct / n
            return means
    block = max(1, min(n_resamples, 2_000_000 // n))
    for start in range(0, n_resamples, block):
        stop = min(n_resamples, start + block)
        means[start:stop] = values[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
    return means


def default_permutations(n: int) -> int:
    """9999 sign patterns, fewer for very large runs (at most 2e7 resampled values, never
    under 999): ~0.5 s per 1e8 values. Their floor, 2/1000, is not small enough after Holm
    over many metrics (25 x 0.002 = 0.05), so beyond ``SCIPY_MAX_PAIRS`` pairs the p-value
    is also bounded by ``_sign_flip_bound``, which resolves a large run's clear change."""
    return int(min(9999, max(999, 20_000_000 // max(1, n))))


def paired_p_value(
    a: Sequence[float], b: Sequence[float], *, n_resamples: int | None = None, seed: int = 0
) -> float:
    """Two-sided sign-flip permutation p-value of mean(b - a) = 0.

    All-zero differences (within TIE) give p = 1: every sign pattern reaches the observed
    |mean| of 0. ``n_resamples`` defaults to ``default_permutations(n)``.
    """
    x, y = _paired(a, b, "paired_p_value")
    if not np.any(y - x):
        return 1.0
    d = y - x
    if uses_normal(d):
        return normal_p(d)
    if len(x) >= CLT_MIN_CHANGED:  # the pairs that did not change add 0 to every pattern
        d = d[d != 0]
    if len(x) > SCIPY_MAX_PAIRS:
        return _sign_flip_p(d, n_resamples or default_permutations(len(x)), seed)
    from scipy.stats import permutation_test

    res = permutation_test(
        (x, y),
        _mean_diff,
        permutation_type="samples",
        alternative="two-sided",
        vectorized=True,
        n_resamples=n_resamples or default_permutations(len(x)),
        batch=_batch(len(x)),
        rng=np.random.default_rng(seed),
    )
    return float(min(1.0, res.pvalue))


def _sign_flip_p(d: np.ndarray, n_resamples: int, seed: int) -> float:
    """scipy's randomized two-sided rule on ``n_resamples`` random sign patterns of ``d``:
    each tail counts the patterns whose mean reaches the observed one, plus the observed
    pattern itself, over n_resamples + 1; p = min(1, 2 * the smaller tail).

    A pattern flips the pairs whose bit is 1, so its mean is (sum(d) - 2 * bits . d) / n.
    Means equal to the observed one up to rounding count as reaching it (gamma).
    """
    rng = np.random.default_rng(seed)
    n, total, observed = len(d), float(d.sum()), float(d.mean())
    gamma = 1e-9 * float(np.mean(np.abs(d)))
    greater = less = done = 0
    while done < n_resamples:
        k = min(_batch(n), n_resamples - done)
        octets = rng.integers(0, 256, size=(k, (n + 7) // 8), dtype=np.uint8)
        bits = np.unpackbits(octets, axis=1, count=n).astype(float)
        means = (total - 2.0 * (bits @ d)) / n
        greater += int(np.count_nonzero(means >= observed - gamma))
        less += int(np.count_nonzero(means <= observed + gamma))
        done += k
    tail = (min(greater, less) + 1) / (n_resamples + 1)
    return float(min(1.0, 2 * tail, _sign_flip_bound(d)))


def uses_normal(d: np.ndarray) -> bool:
    """Whether the CI and p of the (tie-zeroed) differences ``d`` are the normal ones: when at
    least ``CLT_MIN_CHANGED`` pairs changed.

    Why there: both the percentile bootstrap of a mean and the sign-flip null converge to a
    normal distribution (the CLT; for the sign flips, Lindeberg's CLT given |d| <= 1, which
    scores in [0, 1] make so), and 20,000 changed pairs put them closer to it than 2000
    resamples can tell (their own Monte Carlo error at the 2.5% quantile is ~6% of the
    standard error; the CLT's error there is ~skewness / (6 sqrt(n)), under 1% of it). The
    count of changed pairs, not of pairs, decides: a million pairs of which 30 changed have
    a skewed, lumpy null that the normal does not describe, and keep the resampling. Below
    20,000 pairs nothing changes (tests pin those results)."""
    return int(np.count_nonzero(d)) >= CLT_MIN_CHANGED


def normal_ci(d: np.ndarray, confidence: float) -> tuple[float, float]:
    """mean(d) -/+ z * sd(d) / sqrt(n), z the normal quantile of ``confidence``: the interval
    the paired percentile bootstrap converges to. On 100,000 pairs of continuous scores it
    agreed with 2000 resamples to 3 decimals, its bounds within 3% of the half-width (the
    resamples' own Monte Carlo noise is ~6%), in 5 ms where the resamples took 2-3 s
    (benchmarks/compare_scale.py, ``agreement``)."""
    from statistics import NormalDist

    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    mean = mean_of(d)
    half = z * float(np.std(d, ddof=1)) / float(np.sqrt(len(d)))
    return mean - half, mean + half


def normal_p(d: np.ndarray) -> float:
    """Two-sided normal approximation of the sign-flip test: under H0 the signed sum
    sum(e_i d_i) has mean 0 and variance sum(d_i^2), so p = erfc(|z| / sqrt(2)) with
    z = sum(d) / sqrt(sum(d^2)). Exact in the limit, and never above Hoeffding's bound
    (``_sign_flip_bound``, 2 exp(-z^2 / 2)), which random patterns needed to resolve a
    clear change below their floor of 2 / (n_resamples + 1). At least ``MIN_P``: erfc
    underflowed to 0.0 for a large clear change, and the JSON claimed p = 0."""
    squares = float(np.dot(d, d))
    if squares == 0:
        return 1.0
    p = math.erfc(abs(float(d.sum())) / math.sqrt(2 * squares))
    return float(min(1.0, max(MIN_P, p)))


def _sign_flip_bound(d: np.ndarray) -> float:
    """Hoeffding's bound on the exact two-sided sign-flip p of ``d``: for random signs e_i,
    P(|sum e_i d_i| >= |sum d_i|) <= 2 exp(-(sum d_i)^2 / (2 sum d_i^2)).

    Why: random patterns cannot give a p below 2 / (n_resamples + 1), and beyond 20,000
    pairs only 999 are drawn (``default_permutations``): p >= 0.002 however large the change,
    so Holm over 25 metrics (or over 5 at alpha 0.01) could never call a regression of a
    large run significant, which a run of 2,000 pairs (9999 patterns) did. The bound is at
    least the exact p (it never claims more than the exact test would), and it is far below
    the random test's floor exactly when the change is far beyond the null's spread.
    """
    squares = float(np.dot(d, d))
    if squares == 0:
        return 1.0
    # at least MIN_P: exp underflows to 0.0 (2,000 pairs all 0.1 lower: z^2 / 2 = 1000)
    return float(min(1.0, max(MIN_P, 2 * np.exp(-(float(d.sum()) ** 2) / (2 * squares)))))


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm-adjusted p-values, same order as given; None entries stay None and do not count.

    Sort the m p-values ascending; the k-th smallest (k from 0) becomes
    max over j <= k of min(1, (m - j) * p_(j)).
    """
    present = [(p, i) for i, p in enumerate(p_values) if p is not None]
    m = len(present)
    out: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(sorted(present)):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out


# ---- calibration of probability-like scores against binary labels -------------------------
# Why: a score users threshold at 0.5 must mean what it says. Brier = mean (p - y)^2 (0 is
# perfect; a constant at the base rate b scores b(1 - b)). ECE = sum over 10 equal-width bins
# of (n_bin / n) * |mean p - share of positives|. Worked number: scores (0.9, 0.2) with labels
# (1, 0) give Brier ((0.1)^2 + (0.2)^2) / 2 = 0.025.

N_BINS = 10


def brier(scores: Sequence[float], labels: Sequence[int]) -> float:
    s, y = np.asarray(scores, dtype=float), np.asarray(labels, dtype=float)
    return float(np.mean((s - y) ** 2)) if s.size else float("nan")


def _bins(scores: Sequence[float], labels: Sequence[int]) -> list[tuple[int, int, float, float]]:
    """(bin, count, mean score, share of positives) per non-empty bin [lo, hi), unrounded."""
    s, y = np.asarray(scores, dtype=float), np.asarray(labels, dtype=float)
    b = np.minimum((s * N_BINS).astype(int), N_BINS - 1)
    out = []
    for i in range(N_BINS):
        m = b == i
        if m.any():
            out.append((i, int(m.sum()), float(s[m].mean()), float(y[m].mean())))
    return out


def reliability_table(scores: Sequence[float], labels: Sequence[int]) -> list[dict]:
    """Per non-empty bin [lo, hi) of the score: count, mean score, share of positives."""
    return [
        {
            "bin": f"{i / N_BINS:.1f}-{(i + 1) / N_BINS:.1f}",
            "n": n,
            "mean_score": round(mean, 4),
            "positive_rate": round(rate, 4),
        }
        for i, n, mean, rate in _bins(scores, labels)
    ]


def ece(scores: Sequence[float], labels: Sequence[int]) -> float:
    """Expected calibration error over the reliability table's bins, from their unrounded
    means: it was summed from the table's 4-decimal ones, off by up to 5e-5 per bin."""
    n = len(scores)
    if not n:
        return float("nan")
    return float(sum(k / n * abs(mean - rate) for _, k, mean, rate in _bins(scores, labels)))
