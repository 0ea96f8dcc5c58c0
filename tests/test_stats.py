"""The paired statistics against scipy and against exact enumeration, on random paired data."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from ragmeter.stats import holm, paired_delta_ci, paired_p_value

# Metric values on a 0.001 grid (ratios of small counts, rounded scores): two sums are then
# equal or at least ~1e-4 apart, so ties are decided the same way by any tolerance.
unit = st.integers(0, 1000).map(lambda k: k / 1000)


@st.composite
def paired(draw, min_n: int = 2, max_n: int = 9):  # type: ignore[no-untyped-def]
    n = draw(st.integers(min_n, max_n))
    a = draw(st.lists(unit, min_size=n, max_size=n))
    b = draw(st.lists(unit, min_size=n, max_size=n))
    return a, b


def exact_sign_flip_p(a: list[float], b: list[float]) -> float:
    """Two-sided p by enumerating all 2^n sign patterns (scipy's two-sided rule: 2 * min tail)."""
    d = np.asarray(b) - np.asarray(a)
    obs = d.mean()
    means = np.array([(d * s).mean() for s in itertools.product((1, -1), repeat=len(d))])
    tol = 1e-9
    greater = np.mean(means >= obs - tol)
    less = np.mean(means <= obs + tol)
    return float(min(1.0, 2 * min(greater, less)))


@settings(max_examples=40, deadline=None)
@given(paired())
def test_p_value_is_the_exact_sign_flip_test_for_small_n(data):
    a, b = data
    p = paired_p_value(a, b)
    if not np.any(np.asarray(b) - np.asarray(a)):
        assert p == 1.0
    else:
        assert p == pytest.approx(exact_sign_flip_p(a, b), abs=1e-9)


@settings(max_examples=25, deadline=None)
@given(paired(min_n=15, max_n=40), st.integers(0, 2**16))
def test_p_value_matches_scipy_permutation_test(data, seed):
    a, b = data
    p = paired_p_value(a, b, n_resamples=999, seed=seed)
    if not np.any(np.asarray(b) - np.asarray(a)):
        assert p == 1.0
        return
    ref = sps.permutation_test(
        (np.asarray(a), np.asarray(b)),
        lambda x, y, axis: np.mean(y - x, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=999,
        rng=np.random.default_rng(seed),
    ).pvalue
    assert p == pytest.approx(min(1.0, ref))
    assert 0 < p <= 1


@settings(max_examples=25, deadline=None)
@given(paired(min_n=3, max_n=40), st.integers(0, 2**16))
def test_delta_ci_matches_scipy_paired_bootstrap_and_brackets_the_data(data, seed):
    a, b = data
    d = np.asarray(b) - np.asarray(a)
    low, high = paired_delta_ci(a, b, n_resamples=500, seed=seed)
    assert d.min() - 1e-12 <= low <= high <= d.max() + 1e-12
    if np.ptp(d) == 0:
        assert low == high == pytest.approx(d[0])
        return
    ref = sps.bootstrap(
        (np.asarray(a), np.asarray(b)),
        lambda x, y, axis: np.mean(y - x, axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=500,
        method="percentile",
        rng=np.random.default_rng(seed),
    ).confidence_interval
    assert (low, high) == pytest.approx((ref.low, ref.high))


@settings(max_examples=30, deadline=None)
@given(paired(min_n=2, max_n=8))
def test_swapping_a_and_b_negates_the_delta_and_keeps_p(data):
    a, b = data
    assert paired_p_value(a, b) == pytest.approx(paired_p_value(b, a))


def test_identical_runs_give_p_one_and_zero_width_ci():
    a = [0.1, 0.5, 0.9, 0.3] * 10
    assert paired_p_value(a, a) == 1.0
    assert paired_delta_ci(a, a) == (0.0, 0.0)


def test_docstring_worked_numbers():
    assert paired_p_value([0.0] * 3, [0.2] * 3) == pytest.approx(0.25)
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), unit), min_size=1, max_size=12))
def test_holm_properties(ps):
    adj = holm(ps)
    present = [(p, q) for p, q in zip(ps, adj, strict=True) if p is not None]
    assert all((p is None) == (q is None) for p, q in zip(ps, adj, strict=True))
    m = len(present)
    for p, q in present:
        assert p <= q + 1e-15 <= 1 + 1e-15
        assert q <= min(1.0, m * p) + 1e-12  # never more conservative than Bonferroni
    # monotone: a smaller raw p never gets a larger adjusted p
    for (p1, q1), (p2, q2) in itertools.combinations(present, 2):
        if p1 < p2:
            assert q1 <= q2 + 1e-15
    if present:
        smallest = min(p for p, _ in present)
        assert min(q for _, q in present) == pytest.approx(min(1.0, m * smallest))
