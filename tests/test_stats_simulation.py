"""The statistics mean what they say, checked by simulation (fixed seeds, so each run is the same).

Under the null (A and B from one distribution, paired and correlated) about 5% of tests are
significant at 0.05; the 95% CIs cover the true value about 95% of the time; Holm keeps the
family-wise error of 10 metrics near 5%; a real change is found as often as the exact sign
test can find it; and a large run's p-value is not stuck at its random patterns' floor.
Bounds are the expected rate +/- about 3.5 standard errors of the simulated share.
"""

from __future__ import annotations

import copy
import itertools
import time

import numpy as np
import pytest
from scipy import stats as sps
from tests.conftest import make_row

import ragmeter
from ragmeter import Score
from ragmeter.compare import compare
from ragmeter.gates import fail_on_regression
from ragmeter.stats import _sign_flip_bound, holm, paired_delta_ci, paired_p_value
from ragmeter.stats_many import mean_cis_many, paired_stats_many

REPS = 400


def _null_pair(kind: str, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A and B exchangeable within each pair, correlated through the question's difficulty."""
    if kind == "binary":  # a shared latent difficulty: correlation about 0.3 between A and B
        z = rng.normal(size=n)
        a = (0.7 * z + 0.7 * rng.normal(size=n) > 0.3).astype(float)
        b = (0.7 * z + 0.7 * rng.normal(size=n) > 0.3).astype(float)
        return a, b
    if kind == "continuous":  # [0, 1] scores, clipped (some exact 0s and 1s)
        z = rng.beta(2, 2, size=n)
        return np.clip(z + rng.normal(0, 0.2, n), 0, 1), np.clip(z + rng.normal(0, 0.2, n), 0, 1)
    if kind == "ties":  # three levels, B equal to A on about 70% of the pairs
        levels, p = [0.0, 0.5, 1.0], [0.2, 0.3, 0.5]
        a = rng.choice(levels, size=n, p=p)
        return a, np.where(rng.random(n) < 0.7, a, rng.choice(levels, size=n, p=p))
    return rng.beta(0.3, 3, size=n), rng.beta(0.3, 3, size=n)  # skewed, mostly near 0


def _stats(samples, permutations=None, n_resamples=200):
    seeds = list(range(len(samples)))
    out = paired_stats_many(samples, seeds, n_resamples=n_resamples, permutations=permutations)
    return np.array(out)  # rows: ci_low, ci_high, p


@pytest.mark.parametrize("kind", ["binary", "continuous", "ties", "skewed"])
@pytest.mark.parametrize(("n", "permutations"), [(10, None), (30, None), (100, 999)])
def test_type_one_error_is_about_alpha_under_the_null(kind, n, permutations):
    rng = np.random.default_rng([n, len(kind)])
    res = _stats([_null_pair(kind, n, rng) for _ in range(REPS)], permutations)
    rejected = float(np.mean(res[:, 2] < 0.05))
    assert rejected <= 0.09, f"{kind} n={n}: {rejected:.3f} significant under the null"
    if kind in ("continuous", "skewed"):  # no ties: the test uses its level
        assert rejected >= 0.02, f"{kind} n={n}: {rejected:.3f}, far too conservative"
    # 0/1 or tied scores: only the pairs that differ count, and an exact test of a few
    # +/-1 differences is conservative (3 discordant pairs never give p < 0.25), as any exact
    # paired test of such data is; by 100 pairs it nears alpha
    elif n >= 100:
        assert rejected >= 0.015, f"{kind} n={n}: {rejected:.3f}, far too conservative"


@pytest.mark.slow  # several seconds
@pytest.mark.parametrize("kind", ["binary", "continuous"])
def test_type_one_error_of_large_runs(kind):
    # 1000 pairs: scipy's random sign patterns (as stats_many draws them); 2500: ragmeter's
    # own, with the bound
    rng = np.random.default_rng([len(kind), 1])
    small = _stats([_null_pair(kind, 1000, rng) for _ in range(150)], 999, n_resamples=1)
    rejected = float(np.mean(small[:, 2] < 0.05))
    assert 0.01 <= rejected <= 0.11, f"{kind} n=1000: {rejected:.3f} under the null"
    ps = [
        paired_p_value(*_null_pair(kind, 2500, rng), n_resamples=999, seed=r) for r in range(REPS)
    ]
    rejected = float(np.mean(np.array(ps) < 0.05))
    assert 0.015 <= rejected <= 0.09, f"{kind} n=2500: {rejected:.3f} under the null"


@pytest.mark.parametrize("n", [20, 50, 200])
def test_paired_delta_ci_covers_the_true_difference(n):
    rng = np.random.default_rng(n)
    binary, continuous = [], []
    for _ in range(REPS):
        binary.append(((rng.random(n) < 0.6).astype(float), (rng.random(n) < 0.7).astype(float)))
        a = rng.beta(2, 5, n)
        continuous.append((a, a + rng.normal(0.05, 0.2, n)))
    for samples, true in ((binary, 0.1), (continuous, 0.05)):
        res = _stats(samples, permutations=999, n_resamples=1000)
        cover = float(np.mean((res[:, 0] <= true) & (true <= res[:, 1])))
        # a percentile interval is a little narrow with few pairs (docs/compare.md)
        assert (0.88 if n == 20 else 0.91) <= cover <= 0.98, f"n={n}: {cover:.3f}"


@pytest.mark.parametrize("n", [20, 50, 200])
def test_mean_ci_covers_the_true_mean(n):
    # mean_cis_many is evaluate's aggregate CI bit for bit (tests/test_slice_cis.py)
    rng = np.random.default_rng(n + 1)
    for draw, true, low in (
        (lambda: (rng.random(n) < 0.3).astype(float), 0.3, 0.90),
        # 0/1 scores near 1: the percentile interval is too narrow with few samples, as
        # README says ("read the n beside it"); by 50 samples it is near 95%
        (lambda: (rng.random(n) < 0.9).astype(float), 0.9, 0.85 if n == 20 else 0.91),
        (lambda: rng.beta(2, 5, n), 2 / 7, 0.91),
    ):
        cis = np.array(mean_cis_many([draw() for _ in range(REPS)], list(range(REPS))))
        cover = float(np.mean((cis[:, 0] <= true) & (true <= cis[:, 1])))
        assert low <= cover <= 0.98, f"n={n}, mean {true:.3f}: {cover:.3f}"


def test_holm_keeps_the_family_wise_error_of_ten_metrics():
    rng = np.random.default_rng(10)
    n, reps, any_holm, any_raw = 40, 300, 0, 0
    for _ in range(reps):
        z = rng.random(n)  # the question's difficulty, shared by the ten metrics
        samples = []
        for _ in range(10):
            shared = z + rng.normal(0, 0.1, n)
            samples.append(
                (
                    np.clip(shared + rng.normal(0, 0.15, n), 0, 1),
                    np.clip(shared + rng.normal(0, 0.15, n), 0, 1),
                )
            )
        ps = _stats(samples, permutations=999, n_resamples=50)[:, 2].tolist()
        any_holm += min(p for p in holm(ps) if p is not None) < 0.05
        any_raw += min(ps) < 0.05
    assert any_holm / reps <= 0.08  # Holm: at most alpha, whatever the dependence
    assert any_raw / reps >= 0.2  # without it, "some metric moved" in a third of the runs


@pytest.mark.slow  # several seconds
def test_a_difference_of_a_tenth_on_200_binary_pairs_is_found_as_the_exact_test_can():
    rng = np.random.default_rng(200)
    n = 200
    independent, correlated = [], []
    for _ in range(REPS):
        independent.append(
            ((rng.random(n) < 0.6).astype(float), (rng.random(n) < 0.7).astype(float))
        )
        a = (rng.random(n) < 0.6).astype(float)  # B fixes 30% of A's misses, breaks 5% of hits
        b = np.where(a == 1, rng.random(n) >= 0.05, rng.random(n) < 0.30).astype(float)
        correlated.append((a, b))
    power_independent = float(np.mean(_stats(independent, 999, 50)[:, 2] < 0.05))
    power_correlated = float(np.mean(_stats(correlated, 999, 50)[:, 2] < 0.05))
    # independent pairs: 46% of them differ, B wins 61% of those; the exact sign test's power
    k, q = 92, 0.28 / 0.46
    crit = sps.binom.ppf(0.025, k, 0.5)
    expected = sps.binom.cdf(crit - 1, k, q) + sps.binom.sf(k - crit, k, q)
    assert abs(power_independent - expected) <= 0.1, (power_independent, expected)
    assert power_correlated >= 0.9  # the same change on paired runs of one pipeline


def test_ci_and_p_agree_beyond_a_few_pairs():
    rng = np.random.default_rng(31)
    for n in (30, 100):
        samples = []
        for _ in range(REPS):
            a, b = _null_pair("continuous", n, rng)
            samples.append((a, b + rng.choice([0.0, 0.05])))  # half null, half a shift
        res = _stats(samples, permutations=999, n_resamples=1000)
        excludes = (res[:, 0] > 0) | (res[:, 1] < 0)
        disagree = float(np.mean(excludes != (res[:, 2] < 0.05)))
        assert disagree <= 0.06, f"n={n}: CI and p disagree on {disagree:.3f}"


def _runs(values_a, values_b):
    rows = [make_row(i) for i in range(1, len(values_a) + 1)]
    a = ragmeter.evaluate(rows, "token_f1", n_resamples=0)
    b = ragmeter.evaluate(rows, "token_f1", n_resamples=0)
    a.scores["token_f1"] = [Score.ok(float(v)) for v in values_a]
    b.scores["token_f1"] = [Score.ok(float(v)) for v in values_b]
    return a, b


def test_verdict_and_win_tie_loss_follow_the_direction_of_the_change():
    rng = np.random.default_rng(5)
    for shift in (-0.3, 0.3):
        a_values = rng.random(30)
        b_values = np.clip(a_values + shift + rng.normal(0, 0.05, 30), 0, 1)
        m = compare(*_runs(a_values, b_values)).metric("token_f1")
        assert (m.delta > 0) == (shift > 0)
        assert (m.wins > m.losses) == (shift > 0)
        assert m.better(0.05) == (shift > 0) and m.worse(0.05) == (shift < 0)
        assert (m.ci_high < 0) if shift < 0 else (m.ci_low > 0)


def test_a_large_runs_clear_regression_is_significant_after_holm():
    # Beyond 20,000 pairs only 999 random sign patterns are drawn, so the p-value was never
    # below 2/1000 = 0.002: with 25 metrics Holm made it 0.05 at least, and a run of 30,000
    # samples whose every metric dropped by 0.1 was "n.s." and passed the regression gate,
    # where the same drop on 2,000 samples (9999 patterns) failed it.
    rng = np.random.default_rng(7)
    n = 30_000
    a = rng.random(n)
    b = np.clip(a - 0.1 + rng.normal(0, 0.1, n), 0, 1)
    p = paired_p_value(a, b)
    assert p < 1e-6
    assert all(q is not None and q < 0.01 for q in holm([p] * 25))
    # the bound never claims more than the exact test: a null sample keeps its random p
    null = rng.random(n)
    assert paired_p_value(null, null[::-1]) > 0.01


def test_degenerate_inputs():
    assert paired_p_value([0.5] * 20, [0.5] * 20) == 1.0
    assert paired_delta_ci([0.5] * 20, [0.7] * 20) == pytest.approx((0.2, 0.2))
    # two pairs moving the same way: the smallest p two pairs can give, 2/4
    assert paired_p_value([0.0, 0.0], [0.1, 0.3]) == 0.5
    # one pair differing among many: no evidence, whatever its size
    assert paired_p_value(np.zeros(3000), np.r_[np.zeros(2999), 1.0]) == 1.0


def test_a_million_pairs_test_in_seconds():
    rng = np.random.default_rng(6)
    a = (rng.random(1_000_000) < 0.5).astype(float)
    b = (rng.random(1_000_000) < 0.5).astype(float)
    start = time.perf_counter()
    p = paired_p_value(a, b, seed=1)
    assert time.perf_counter() - start < 15
    assert 0.01 < p <= 1


def test_a_million_binary_pairs_get_their_ci_in_seconds():
    # 2e9 resampled indices took 20 s per metric; the counts of the 3 differences take less
    # than one, for the same bootstrap distribution (checked against the normal interval)
    rng = np.random.default_rng(8)
    a = (rng.random(1_000_000) < 0.5).astype(float)
    b = (rng.random(1_000_000) < 0.52).astype(float)
    start = time.perf_counter()
    low, high = paired_delta_ci(a, b, seed=3)
    assert time.perf_counter() - start < 6
    d = b - a
    half = 1.96 * d.std() / np.sqrt(d.size)
    assert low == pytest.approx(d.mean() - half, abs=half / 10)
    assert high == pytest.approx(d.mean() + half, abs=half / 10)


@pytest.mark.slow  # several seconds
def test_a_large_runs_regression_fails_the_gate_at_alpha_001_over_five_metrics():
    # 21,000 samples: 999 sign patterns, p was 0.002 for every metric, Holm 0.01: "n.s."
    n = 21_000
    a = ragmeter.evaluate([make_row(i) for i in range(1, n + 1)], "token_f1", n_resamples=0)
    b = copy.deepcopy(a)
    names = ["token_f1", "token_recall", "token_precision", "exact_match", "mrr"]
    rng = np.random.default_rng(21)
    for run in (a, b):
        run.metrics = names
    for name in names:
        before = rng.random(n)
        after = np.clip(before - 0.1 + rng.normal(0, 0.1, n), 0, 1)
        a.scores[name] = [Score.ok(float(v)) for v in before]
        b.scores[name] = [Score.ok(float(v)) for v in after]
    cmp = compare(a, b)
    assert all(m.worse(0.01) for m in cmp.metrics)
    assert len(fail_on_regression(cmp, alpha=0.01)) == len(names)


def test_the_bound_is_never_below_the_exact_p():
    # it may only lower a random p that the patterns could not resolve, never claim more
    # than the exact test: checked against all 2^12 sign patterns of random differences
    rng = np.random.default_rng(12)
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=12)))
    for _ in range(200):
        d = rng.normal(rng.choice([0.0, 0.3, 1.0]), 1.0, 12) * (rng.random(12) < 0.8)
        null = np.abs(signs @ d)
        exact = float(np.mean(null >= abs(d.sum()) - 1e-12))
        assert _sign_flip_bound(d) >= exact
