"""Slices as a user reads them: a numeric column of many values cut into quantile bins, a
null column and an empty label said so.

Before: sliced by latency or context length, every sample was a slice of its own (n=1,
flagged small, no CI), a table of noise as long as the run."""

from __future__ import annotations

import pytest
from tests.conftest import make_row

import ragmeter
from ragmeter.slices import BIN_ABOVE, MISSING, N_BINS, column_labels, slice_summary


def _result(values):
    rows = [make_row(i, metadata={"x": v}) for i, v in enumerate(values, start=1)]
    return ragmeter.evaluate(rows, "token_f1", n_resamples=50)


def test_many_distinct_numbers_are_cut_into_quantile_bins():
    values = [float(v) * 1.5 for v in range(1, 31)]  # 30 distinct numbers
    labels = column_labels(values)
    assert len(set(labels)) == N_BINS
    assert labels[0] == "[1.5, 10.2)" and labels[-1] == "[36.3, 45]"
    assert all(labels.count(label) == 6 for label in set(labels))
    assert column_labels([*values, None])[-1] == MISSING  # a missing value stays missing
    rows = slice_summary(_result(values), "x")
    assert {r.value for r in rows} == set(labels) and all(r.n == 6 for r in rows)


@pytest.mark.parametrize(
    "values",
    [
        list(range(BIN_ABOVE)),  # few distinct numbers: each its own slice, as written
        [str(v) for v in range(BIN_ABOVE)],  # as text too
        [f"{v:05d}" for v in range(30)],  # codes with a leading zero ("02139"): as written
        [*range(BIN_ABOVE), "other"],  # few numbers among words
        [True, False] * 15,  # booleans are categories
        ["true", "false"] * 15,  # as text too
    ],
)
def test_categories_and_few_numbers_are_sliced_as_written(values):
    assert column_labels(values) == [str(v) for v in values]


def test_compare_by_a_numeric_column_bins_the_values_it_slices_by():
    rows = [make_row(i, metadata={"x": i * 10}) for i in range(1, 31)]
    other = [dict(r, answer="Nothing here.") if i % 3 == 0 else r for i, r in enumerate(rows)]
    a = ragmeter.evaluate(rows, "token_f1", n_resamples=50)
    b = ragmeter.evaluate(other, "token_f1", n_resamples=50)
    cmp = ragmeter.compare(a, b, by="x", n_resamples=50)
    assert {s.value for s in cmp.slices} == set(column_labels([i * 10 for i in range(1, 31)]))
    assert sum(s.n for s in cmp.slices) == 30


def test_a_column_null_everywhere_is_said_so_and_an_empty_label_is_named():
    """It said "no sample has a value in column 'lab'; pass-through columns present: lab";
    a slice labelled "" printed a blank cell in the terminal and in compare's Markdown."""
    from ragmeter.compare_render import slice_rows, to_markdown
    from ragmeter.errors import DataError

    nulls = _result([None] * 3)
    with pytest.raises(DataError, match="column 'x' is null in every sample") as err:
        slice_summary(nulls, "x")
    assert "present" not in str(err.value)
    a, b = _result(["", "", "b"]), _result(["", "", "b"])
    cmp = ragmeter.compare(a, b, by="x", n_resamples=50)
    assert {row[1] for row in slice_rows(cmp)} == {"(empty string)", "b"}
    assert "| (empty string) |" in to_markdown(cmp)
    assert {s.value for s in cmp.slices} == {"", "b"}  # the JSON keeps the value
