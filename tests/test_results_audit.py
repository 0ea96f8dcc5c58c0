"""A statistician's audit of a run's numbers: aggregates, their bootstrap CIs and the slices
of ``evaluate --by``, with data chosen so that every number is known."""

from __future__ import annotations

import math

import pytest
from tests.conftest import make_row

import ragmeter
from ragmeter.slices import MISSING, N_BINS, column_labels, slice_summary

STAMPS = [1_700_000_000 + i for i in range(30)]  # Unix timestamps: 30 distinct numbers


def _result(values: list) -> ragmeter.EvaluationResult:
    rows = [make_row(i, metadata={"x": v}) for i, v in enumerate(values, start=1)]
    return ragmeter.evaluate(rows, "token_f1", n_resamples=50)


def _bounds(label: str) -> tuple[float, float, bool]:
    """(lo, hi, hi included) of a bin label "[lo, hi)" or "[lo, hi]"."""
    lo, hi = label[1:-1].split(", ")
    return float(lo), float(hi), label.endswith("]")


def test_bins_of_large_close_numbers_are_told_apart():
    """Before: every edge was written with 6 digits, so the five bins of timestamps read
    "[1.7e+09, 1.7e+09)" four times: `evaluate --by ts` showed one slice of 24 samples for
    four bins (a slice is its label), and a fifth with the same unreadable bounds."""
    labels = column_labels(STAMPS)
    assert len(set(labels)) == N_BINS
    assert all(labels.count(label) == 6 for label in set(labels))
    rows = slice_summary(_result(STAMPS), "x")
    assert len(rows) == N_BINS and all(r.n == 6 for r in rows)


@pytest.mark.parametrize(
    "values",
    [
        STAMPS,
        [1_234_560 + v / 10 for v in range(30)],
        [v / 7 for v in range(1, 31)],
        [-(10.0**12) + v * 1e-3 for v in range(30)],
        [0] * 40 + list(range(1, 25)),  # heavily repeated: edges collapse
    ],
)
def test_each_value_lies_in_the_bin_its_label_says(values):
    """Before: an edge 1700000017.4 was written "1.7e+09" (or, with a few more digits,
    "1700000017"), so 1700000017 sat in the bin whose label ended at it, excluded."""
    for value, label in zip(values, column_labels(values), strict=True):
        lo, hi, closed = _bounds(label)
        # the last bin's top is the largest value, written to 6 digits like any other
        top = value <= hi or math.isclose(value, hi, rel_tol=1e-6)
        assert lo <= value and (top if closed else value < hi), (value, label)


def test_an_int_too_large_for_a_float_keeps_its_own_label():
    """Before: ``evaluate --by x`` over a column holding 10**400 (a JSON file may) scored the
    run, then died with "internal error: OverflowError: int too large to convert to float"."""
    huge = 10**400
    values = [huge, *range(30)]
    labels = column_labels(values)
    assert labels[0] == str(huge)
    assert len(set(labels[1:])) == N_BINS
    rows = slice_summary(_result(values), "x")
    assert sum(r.n for r in rows) == 31 and {r.value for r in rows} == set(labels)


def test_a_nan_among_many_numbers_does_not_undo_the_bins():
    """Before: one NaN (a Sample built in Python; loaders turn it into None) made the column
    "not every value a number", so each of the 30 numbers was a slice of its own again."""
    values = [math.nan, math.inf, None, *(float(v) * 1.5 for v in range(30))]
    labels = column_labels(values)
    assert labels[:3] == ["nan", "inf", MISSING]
    assert len(set(labels[3:])) == N_BINS


@pytest.fixture
def constant_metric():
    """A metric scoring every sample 0.7 (a judge's scale of tenths), removed after the test."""
    from ragmeter import Metric, Score
    from ragmeter.metrics import registry

    name = "audit_seven_tenths"
    ragmeter.register_metric(
        Metric(
            name=name,
            description="test-only",
            requires=(("answer",),),
            compute=lambda sample: Score.ok(0.7),
        )
    )
    yield name
    registry._FIXED.pop(name, None)
    registry._GIVEN.pop(name, None)


@pytest.mark.parametrize("n", [2, 3, 7, 8, 30, 100])
def test_every_sample_at_a_value_gives_that_mean_and_ci(constant_metric, n):
    """Before: 30 scores of 0.7 had the mean 0.6999999999999997 (numpy's pairwise sum) beside
    a CI [0.7, 0.7] that did not hold it, and 3 scores of 0.7 the CI [0.6999999999999998,
    0.6999999999999998]: ``assert_scores`` (and --fail-under) at 0.7 failed on a run where
    every sample scored 0.7."""
    from ragmeter.testing import assert_scores

    rows = [make_row(i) for i in range(1, n + 1)]
    result = ragmeter.evaluate(rows, constant_metric, n_resamples=50)
    agg = result.aggregates[constant_metric]
    assert (agg.mean, agg.ci_low, agg.ci_high) == (0.7, 0.7, 0.7)
    assert_scores(result, {constant_metric: 0.7})
    assert_scores(result, {constant_metric: 0.7}, on="ci_low")
    rows_by = [make_row(i, metadata={"x": "all"}) for i in range(1, n + 1)]
    (only,) = slice_summary(ragmeter.evaluate(rows_by, constant_metric, n_resamples=50), "x")
    assert (only.mean, only.ci_low, only.ci_high, only.effect) == (0.7, 0.7, 0.7, 0.0)


def test_equal_values_give_that_value_in_the_slices_cis_too():
    """The slices' CIs (mean_cis_many) of equal values are [v, v], as the overall one is:
    five scores of 0.1 gave [0.09999999999999999, 0.09999999999999999] before."""
    import numpy as np

    from ragmeter.stats_many import mean_cis_many

    assert mean_cis_many([np.full(7, 0.1)], [0]) == [(0.1, 0.1)]


def test_no_ci_asked_for_is_not_blamed_on_the_sample_count():
    """Before: ``evaluate(..., n_resamples=0)`` over 3 samples noted "token_f1: no CI from 3
    scored samples" and a ``ci_low`` gate failed saying so, as if 3 were too few."""
    from ragmeter.testing import assert_scores

    result = ragmeter.evaluate([make_row(i) for i in range(1, 4)], "token_f1", n_resamples=0)
    said = "no CI: the run asked for none (n_resamples=0), 3 scored samples"
    assert result.aggregates["token_f1"].ci_note == said
    assert f"token_f1: {said}" in result.notes
    with pytest.raises(AssertionError, match=r"asked for none \(n_resamples=0\)"):
        assert_scores(result, {"token_f1": 0.1}, on="ci_low")
    one = ragmeter.evaluate([make_row(1)], "token_f1")  # one value: still its own reason
    assert one.aggregates["token_f1"].ci_note == "no CI from 1 scored sample"


@pytest.mark.parametrize(
    ("kw", "says"),
    [
        ({"n_resamples": 1}, "n_resamples must be 0 .no CI. or an integer of 2 or more"),
        ({"n_resamples": -5}, "n_resamples must be"),
        ({"n_resamples": 2.5}, "n_resamples must be"),
        ({"confidence": 0.0}, "confidence must be between 0 and 1"),
        ({"confidence": 1.5}, "confidence must be between 0 and 1"),
        ({"seed": -1}, "seed must be an integer of 0 or more"),
        ({"seed": 1.5}, "seed must be an integer of 0 or more"),
    ],
)
def test_slice_summary_refuses_bootstrap_settings_evaluate_refuses(kw, says):
    """Before: n_resamples=1 gave every slice a zero-width "CI" away from its mean
    ([0.667, 0.667] for a mean of 0.5), confidence=0 and n_resamples=-5 a zero-width one,
    and the others numpy's or Python's words ("Quantiles must be in the range [0, 1]",
    "expected non-negative integer", "unsupported operand type(s) for ^")."""
    from ragmeter.errors import ConfigError

    answers = ["The sky is blue.", "Grass.", "sky"]
    rows = [make_row(i, metadata={"x": i % 2}, answer=answers[i % 3]) for i in range(1, 13)]
    result = ragmeter.evaluate(rows, "token_f1", n_resamples=50)
    with pytest.raises(ConfigError, match=says):
        slice_summary(result, "x", **kw)


def test_numpy_numbers_are_binned_as_python_numbers_are():
    """Before: a Sample built in Python from an array's items (np.int64, np.float32) was
    "not a number", so 30 latencies were 30 slices of one; numpy booleans stay categories."""
    import numpy as np

    assert column_labels(list(np.arange(30))) == column_labels(list(range(30)))
    floats = list(np.arange(30, dtype=np.float32) / 2)
    assert column_labels(floats) == column_labels([float(v) for v in floats])
    assert column_labels([np.bool_(i % 2) for i in range(30)]).count("True") == 15


def test_ece_is_computed_from_the_unrounded_bin_means():
    """Before: ECE was summed from the reliability table's 4-decimal means, so scores of
    0.12344 with every label 0 (ECE 0.12344 by its definition) gave 0.1234."""
    from ragmeter.stats import ece, reliability_table

    assert ece([0.12344] * 4, [0] * 4) == pytest.approx(0.12344, abs=1e-12)
    assert reliability_table([0.12344] * 4, [0] * 4)[0]["mean_score"] == 0.1234  # shown rounded
    assert ece([0.9, 0.2], [1, 0]) == pytest.approx((0.1 + 0.2) / 2)


def test_the_bootstrap_of_many_repeated_values_holds_its_draws_in_blocks():
    """Before: values with at most one distinct number per 8 were resampled as multinomial
    counts all at once, resamples x distinct numbers: a million scores rounded to 5
    decimals (100,000 distinct) peaked at 1.6 GB for one metric's CI (80 MB here, now
    about 33). The interval is the same, draw for draw."""
    import tracemalloc

    import numpy as np

    from ragmeter.result import bootstrap_ci

    values = np.repeat(np.arange(5000) / 5000, 8)
    tracemalloc.start()
    try:
        low, high = bootstrap_ci(values, n_resamples=1000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50e6
    assert low < float(values.mean()) < high


def test_blocked_multinomial_draws_give_the_interval_drawn_at_once():
    """The blocks change no number: the same counts, row after row, as one call drew them."""
    import numpy as np

    from ragmeter.result import bootstrap_ci

    values = np.repeat(np.arange(3000) / 3000, 8)  # 3000 distinct: blocks of 666 resamples
    distinct, counts = np.unique(values, return_counts=True)
    n = len(values)
    draws = np.random.default_rng(11).multinomial(n, counts / n, size=1000)
    expected = np.quantile(draws @ distinct / n, [0.025, 0.975])
    assert bootstrap_ci(values, n_resamples=1000, seed=11) == tuple(map(float, expected))


def test_compare_means_and_delta_of_equal_values_are_those_values():
    """30 pairs all moving 0.2 -> 0.9: the delta was 0.6999999999999997 beside its CI
    [0.7, 0.7], and compare's means 30 x 0.7 = 0.6999999999999996 beside summary.json's 0.7."""
    from ragmeter.stats import mean_difference

    assert mean_difference([0.2] * 30, [0.9] * 30) == 0.7
