"""The paired CI and p-value of many small samples at once (``compare --by``'s slices): the
same numbers ``stats.paired_delta_ci`` and ``stats.paired_p_value`` give one sample at a time,
bit for bit, for the same seeds.

Why: ``compare A B --by user`` with 20,000 pairs in 4,000 slices of 5 spent 10 s of CPU in
scipy's ``bootstrap`` and ``permutation_test``, nearly all of it their per-call set-up
(input checks, array-API dispatch), not arithmetic. Here each slice draws from its own
generator exactly as scipy does (its seed is the slice's), and the arithmetic runs once per
group of slices:

- bootstrap: scipy resamples the indices ``rng.integers(0, n, (batch, n))`` batch by batch and
  takes ``mean(y[i] - x[i])`` per row, which is ``d[i].mean(axis=-1)``; the percentiles of all
  slices' bootstrap distributions are taken at once, by scipy's rule (``_linear_quantiles``).
- exact sign-flip test (2^n patterns <= the permutations asked for; n <= 13 by default):
  every slice of size n shares the 2^n sign patterns, so their null distributions are one
  array operation. scipy sums each pattern's n signed differences in order, left to right
  (checked bit for bit in tests/test_stats_many.py); so does ``_ordered_mean``, where
  ``np.mean`` would sum pairwise and, on ties up to rounding, count a pattern differently.
- random sign patterns (larger slices): scipy's draws, ``rng.permuted`` on its index array
  batch by batch, reproduced per slice; a pair is flipped where its first index is 1.

Slices over ``SCIPY_MAX_PAIRS`` pairs, or with enough changed pairs for the normal limits
(``stats.uses_normal``), take the one-at-a-time path (they are few, and it is already
vectorised).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from ragmeter.stats import (
    BATCH_VALUES,
    SCIPY_MAX_PAIRS,
    _batch,
    _paired,
    _resampled_means,
    default_permutations,
    mean_of,
    paired_delta_ci,
    paired_p_value,
    uses_normal,
)

CI_ROWS = 512  # bootstrap distributions per quantile call (512 x 2000 floats: 8 MB)


def paired_stats_many(
    samples: Sequence[tuple[Sequence[float], Sequence[float]]],
    seeds: Sequence[int],
    *,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    permutations: int | None = None,
) -> list[tuple[float, float, float]]:
    """``(ci_low, ci_high, p)`` for each paired sample ``(a, b)`` with its seed: equal to
    ``paired_delta_ci(a, b, confidence=..., n_resamples=..., seed=s)`` and
    ``paired_p_value(a, b, n_resamples=permutations, seed=s)``."""
    if len(samples) != len(seeds):
        raise ValueError("paired_stats_many needs one seed per sample")
    diffs = []
    for a, b in samples:
        x, y = _paired(a, b, "paired_stats_many")
        diffs.append((x, y, y - x))
    cis = _cis(diffs, seeds, confidence, n_resamples)
    ps = _p_values(diffs, seeds, permutations)
    return [(lo, hi, p) for (lo, hi), p in zip(cis, ps, strict=True)]


def _cis(
    diffs: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
    seeds: Sequence[int],
    confidence: float,
    n_resamples: int,
) -> list[tuple[float, float]]:
    out: list[tuple[float, float] | None] = [None] * len(diffs)
    rows: list[int] = []
    thetas: list[np.ndarray] = []
    for i, ((x, y, d), seed) in enumerate(zip(diffs, seeds, strict=True)):
        n = len(d)
        if n == 1 or np.ptp(d) == 0 or n > SCIPY_MAX_PAIRS or uses_normal(d):
            out[i] = paired_delta_ci(
                x, y, confidence=confidence, n_resamples=n_resamples, seed=seed
            )
            continue
        rng = np.random.default_rng(seed)
        theta = np.empty(n_resamples)
        step = _batch(n)
        for start in range(0, n_resamples, step):
            stop = min(start + step, n_resamples)
            theta[start:stop] = d[rng.integers(0, n, (stop - start, n))].mean(axis=-1)
        rows.append(i)
        thetas.append(theta)
    alpha = (1 - confidence) / 2
    for start in range(0, len(rows), CI_ROWS):
        ci = _linear_quantiles(np.stack(thetas[start : start + CI_ROWS]), alpha)
        for i, (low, high) in zip(rows[start : start + CI_ROWS], ci, strict=True):
            out[i] = (float(low), float(high))
    return [c for c in out if c is not None]


def _linear_quantiles(theta: np.ndarray, alpha: float) -> np.ndarray:
    """Each row's ``alpha`` and ``1 - alpha`` quantiles by ``scipy.stats.quantile``'s
    'linear' rule, operation for operation (so bit for bit), the rows at once: y sorted,
    j = floor(p n + 1 - p) - 1, g its fraction, (1 - g) y[j] + g y[j + 1]. Why not call
    it: importing scipy.stats costs a second or two, more than every slice's statistics."""
    y = np.sort(theta, axis=-1)
    n = float(y.shape[-1])
    p = np.array([alpha, 1 - alpha], dtype=np.float64)
    jg = p * n + (1 - p)
    jp1 = jg // 1
    j = jp1 - 1
    g = np.where(j < 0, 0.0, jg % 1)
    j = np.clip(j, 0.0, n - 1).astype(np.int64)
    jp1 = np.clip(jp1, 0.0, n - 1).astype(np.int64)
    return (1 - g) * y[:, j] + g * y[:, jp1]


def _p_values(
    diffs: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
    seeds: Sequence[int],
    permutations: int | None,
) -> list[float]:
    out: list[float | None] = [None] * len(diffs)
    exact: dict[int, list[int]] = {}  # slice size -> the slices tested on all 2^n patterns
    for i, ((x, y, d), seed) in enumerate(zip(diffs, seeds, strict=True)):
        n = len(d)
        n_perm = permutations or default_permutations(n)
        if not np.any(d) or n > SCIPY_MAX_PAIRS or uses_normal(d):
            out[i] = paired_p_value(x, y, n_resamples=permutations, seed=seed)
        elif n_perm >= 2**n:
            exact.setdefault(n, []).append(i)
        else:
            out[i] = _random_p(x, y, d, n_perm, seed)
    for n, members in exact.items():
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=n)))
        step = max(1, BATCH_VALUES // (len(signs) * n))
        for start in range(0, len(members), step):
            chunk = members[start : start + step]
            d = np.stack([diffs[i][2] for i in chunk])
            null = _ordered_mean(d[:, None, :] * signs[None, :, :])
            for i, row in zip(chunk, null, strict=True):
                x, y, _ = diffs[i]
                out[i] = _two_sided(row, float(np.mean(y - x)), len(signs), exact=True)
    return [p for p in out if p is not None]


def _random_p(x: np.ndarray, y: np.ndarray, d: np.ndarray, n_perm: int, seed: int) -> float:
    """scipy's random sign patterns: ``rng.permuted`` of the (batch, n, 2) index array."""
    rng = np.random.default_rng(seed)
    n = len(d)
    batch = min(_batch(n), n_perm)
    indices = np.tile(np.arange(2), (batch, n, 1))
    null = np.empty(n_perm)
    for start in range(0, n_perm, batch):
        stop = min(start + batch, n_perm)
        flipped = rng.permuted(indices, axis=-1)[: stop - start, :, 0] == 1
        null[start:stop] = _ordered_mean(np.where(flipped, -d, d))
    return _two_sided(null, float(np.mean(y - x)), n_perm, exact=False)


def _ordered_mean(signed: np.ndarray) -> np.ndarray:
    """The mean over the last axis summed left to right, as scipy's null distribution is."""
    total = signed[..., 0].copy()
    for j in range(1, signed.shape[-1]):
        total += signed[..., j]
    return total / signed.shape[-1]


def _two_sided(null: np.ndarray, observed: float, n_perm: int, *, exact: bool) -> float:
    """scipy's two-sided p: each tail counts the null values reaching the observed one
    (within 100 eps, relative), plus one for a random test; twice the smaller, at most 1."""
    gamma = abs(np.finfo(np.float64).eps * 100 * observed)
    adjustment = 0 if exact else 1
    less = (np.count_nonzero(null <= observed + gamma) + adjustment) / (n_perm + adjustment)
    greater = (np.count_nonzero(null >= observed - gamma) + adjustment) / (n_perm + adjustment)
    return float(np.clip(min(less, greater) * 2, 0.0, 1.0))


# ---- the percentile bootstrap CI of each slice's mean (``evaluate --by``) --------------------


def mean_cis_many(
    samples: Sequence[Sequence[float]],
    seeds: Sequence[int],
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
) -> list[tuple[float, float]]:
    """``result.bootstrap_ci(values, n_resamples=..., confidence=..., seed=s)`` for each
    sample with its seed, bit for bit (tests/test_slice_cis.py), without its per-call
    overhead.

    Why: ``evaluate --by user`` over 4,000 slices of 5 spent about a second in 4,000 calls,
    most of it set-up around little arithmetic (``np.quantile``'s checks and dispatch,
    ``np.unique``). Each slice still draws from its own generator the same numbers in the
    same calls as ``bootstrap_ci`` (other blocks would change the stream) and takes their
    means the same way (``_resampled_means``); the quantiles of up to ``CI_ROWS`` slices'
    bootstrap distributions are then one ``np.quantile`` over the rows, which reduces each
    row as the one-slice call does. Gathering several slices' resamples in one indexing
    was slower (numpy's broadcast fancy indexing), so it is not done.
    """
    if len(samples) != len(seeds):
        raise ValueError("mean_cis_many needs one seed per sample")
    alpha = (1 - confidence) / 2
    out: list[tuple[float, float] | None] = [None] * len(samples)
    window: list[tuple[int, np.ndarray]] = []  # (slice, its bootstrap means), CI_ROWS at most
    for i, (given, seed) in enumerate(zip(samples, seeds, strict=True)):
        values = np.asarray(given, dtype=float)
        if len(values) == 0:
            raise ValueError("no values")
        if len(values) == 1 or n_resamples <= 0 or np.ptp(values) == 0:
            v = mean_of(values)  # equal values: [v, v], as bootstrap_ci gives
            out[i] = (v, v)
            continue
        window.append((i, _resampled_means(values, n_resamples, np.random.default_rng(seed))))
        if len(window) == CI_ROWS:
            _percentiles(window, alpha, out)
            window = []
    _percentiles(window, alpha, out)
    return [c for c in out if c is not None]


def _percentiles(
    window: list[tuple[int, np.ndarray]], alpha: float, out: list[tuple[float, float] | None]
) -> None:
    """Each slice's ``alpha`` and ``1 - alpha`` quantiles, ``bootstrap_ci``'s rule, at once."""
    if not window:
        return
    low, high = np.quantile(np.stack([m for _, m in window]), [alpha, 1 - alpha], axis=-1)
    for (i, _), lo, hi in zip(window, low, high, strict=True):
        out[i] = (float(lo), float(hi))
