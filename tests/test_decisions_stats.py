"""The decisions compare makes, at the statistics' edges: float-noise ties, large runs.

Every number is checked against an independent computation: exact enumeration of the sign
patterns, the exact binomial null of +/-1 differences, scipy's own bootstrap.
"""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest
from scipy import stats as sps
from tests.conftest import make_row

import ragmeter
from ragmeter import Score
from ragmeter.compare import compare
from ragmeter.compare_render import verdict
from ragmeter.gates import fail_on_regression
from ragmeter.stats import SCIPY_MAX_PAIRS, TIE, paired_delta_ci, paired_p_value


def _runs(values_a: list[float], values_b: list[float], metric: str = "token_f1"):
    """Two runs over the same rows whose ``metric`` scores are the given values."""
    rows = [make_row(i) for i in range(1, len(values_a) + 1)]
    a = ragmeter.evaluate(rows, "token_f1,mrr", n_resamples=100)
    b = ragmeter.evaluate(rows, "token_f1,mrr", n_resamples=100)
    a.scores[metric] = [Score.ok(v) for v in values_a]
    b.scores[metric] = [Score.ok(v) for v in values_b]
    return a, b


def _exact_p(d: np.ndarray) -> float:
    """Two-sided sign-flip p by enumerating every sign pattern (2 * the smaller tail)."""
    obs = d.mean()
    means = np.array([(d * s).mean() for s in itertools.product((1, -1), repeat=len(d))])
    tails = (np.mean(means >= obs - 1e-12), np.mean(means <= obs + 1e-12))
    return float(min(1.0, 2 * min(tails)))


def test_float_noise_differences_are_ties_not_a_significant_regression():
    # 0.1 + 0.2 = 0.30000000000000004: twelve such "drops" of 5.6e-17 were 0/12/0 W/T/L yet
    # p = 2/4096, "worse", and a failed --fail-on-regression gate
    a, b = _runs([0.1 + 0.2] * 12, [0.3] * 12)
    m = compare(a, b).metric("token_f1")
    assert (m.wins, m.ties, m.losses) == (0, 12, 0)
    d = np.asarray([0.3] * 12) - np.asarray([0.1 + 0.2] * 12)
    rounded = np.where(np.abs(d) <= TIE, 0.0, d)
    assert m.p_value == _exact_p(rounded) == 1.0
    assert m.delta == 0.0 and (m.ci_low, m.ci_high) == (0.0, 0.0)
    assert verdict(m, 0.05) == "no clear change" and not m.worse(0.05)
    assert fail_on_regression(compare(a, b)) == []
    assert fail_on_regression(compare(b, a)) == []  # nor "better" the other way round
    assert not compare(b, a).metric("token_f1").better(0.05)


def test_noise_beside_real_changes_gives_the_exact_p_of_the_real_ones():
    base = [0.2, 0.4, 0.5, 0.7, 0.1 + 0.2, 0.6, 0.9]
    moved = [0.5, 0.6, 0.3, 0.8, 0.3, 0.6, 0.9]  # the fifth pair differs by float noise only
    a, b = _runs(base, moved)
    m = compare(a, b).metric("token_f1")
    d = np.asarray(moved) - np.asarray(base)
    rounded = np.where(np.abs(d) <= TIE, 0.0, d)
    assert m.p_value == pytest.approx(_exact_p(rounded), abs=1e-12)
    assert m.delta == pytest.approx(rounded.mean(), abs=1e-15)
    assert (m.wins, m.ties, m.losses) == (3, 3, 1)


def _plus_minus(n: int, ups: int, downs: int) -> tuple[np.ndarray, np.ndarray]:
    """n pairs: ``ups`` where B gained 1, ``downs`` where it lost 1, the rest tied."""
    a = np.zeros(n)
    b = np.zeros(n)
    b[:ups] = 1.0
    a[ups : ups + downs] = 1.0
    order = np.random.default_rng(3).permutation(n)
    return a[order], b[order]


@pytest.mark.parametrize(("ups", "downs"), [(118, 82), (100, 100), (60, 90), (30, 0)])
def test_large_run_p_value_matches_the_exact_binomial_null(ups, downs):
    # With +/-1 differences the sign-flip null of the sum is 2 * Binomial(k, 1/2) - k over the
    # k non-zero pairs: an exact p-value to check the random sign patterns against.
    n = 3 * SCIPY_MAX_PAIRS
    a, b = _plus_minus(n, ups, downs)
    k = ups + downs
    exact = min(1.0, 2 * min(sps.binom.sf(ups - 1, k, 0.5), sps.binom.cdf(ups, k, 0.5)))
    resamples = 19_999
    p = paired_p_value(a, b, n_resamples=resamples, seed=11)
    floor = 2 / (resamples + 1)  # the observed pattern counts: no random p below this
    # below it only Hoeffding's bound on the exact p, never below the exact p (30 ups of 30:
    # exact 2^-29, bound 2 exp(-15) = 6e-7, where the random patterns gave 1e-4)
    assert p >= min(floor, exact)
    # p = 2 * a tail share estimated from the resamples: 4 standard errors, plus the floor
    assert abs(p - exact) <= 2 * 4 * np.sqrt(exact / 2 * (1 - exact / 2) / resamples) + floor
    assert paired_p_value(a, b, n_resamples=resamples, seed=11) == p  # same seed, same p
    assert paired_p_value(b, a, n_resamples=resamples, seed=11) == pytest.approx(p)


def test_large_run_ci_is_scipys_paired_bootstrap():
    rng = np.random.default_rng(7)
    n = 2 * SCIPY_MAX_PAIRS + 500
    a = rng.integers(0, 1001, n) / 1000
    b = np.clip(a + rng.integers(-200, 260, n) / 1000, 0, 1)
    for confidence, seed in ((0.95, 0), (0.9, 41), (0.99, 2**20)):
        ours = paired_delta_ci(a, b, confidence=confidence, n_resamples=1000, seed=seed)
        ref = sps.bootstrap(
            (a, b),
            lambda x, y, axis: np.mean(y - x, axis=axis),
            paired=True,
            vectorized=True,
            n_resamples=1000,
            confidence_level=confidence,
            method="percentile",
            rng=np.random.default_rng(seed),
        ).confidence_interval
        assert ours == pytest.approx((ref.low, ref.high), rel=1e-9, abs=1e-12)


def test_a_hundred_thousand_pairs_take_seconds_not_minutes():
    # scipy's permutation test sorted random keys per pair: 48 s for 100k pairs, per metric
    rng = np.random.default_rng(0)
    a = rng.random(100_000)
    b = np.clip(a + rng.normal(0.002, 0.1, a.size), 0, 1)
    paired_p_value(a[:2000], b[:2000])  # imports out of the timing
    paired_delta_ci(a[:2000], b[:2000])
    start = time.perf_counter()
    p = paired_p_value(a, b)
    low, high = paired_delta_ci(a, b)
    assert time.perf_counter() - start < 20
    assert 0 < p <= 1 and low < float(np.mean(b - a)) < high
