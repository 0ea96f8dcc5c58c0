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
