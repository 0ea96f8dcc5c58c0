"""A column whose name is close to a needed field ('context' for 'contexts') is named where
the plan says no row has that field: with -m (the error) and without (the note of metrics not
run). Before, it was kept as metadata without a word and the metrics were refused, or left
out, naming only the field."""

from __future__ import annotations

import pytest

import ragmeter
from ragmeter.errors import DataError

ROW = {"question": "q?", "answer": "Rome is the capital", "context": ["Rome is the capital."]}


def test_a_listed_metric_names_the_misnamed_column() -> None:
    with pytest.raises(DataError) as err:
        ragmeter.evaluate([ROW], ["k_precision"])
    assert "no row has these fields (column 'context' is kept as metadata: rename it" in str(
        err.value
    )


def test_the_plan_notes_name_it_for_the_metrics_left_out() -> None:
    result = ragmeter.evaluate([ROW], settings={"judge": "none"})
    (said,) = [n for n in result.notes if "column 'context'" in n]
    assert said.startswith("not run: ") and "k_precision" in said and "rename it 'contexts'" in said


def test_nothing_is_said_without_a_close_name() -> None:
    row = {**{k: v for k, v in ROW.items() if k != "context"}, "source": "wiki"}
    result = ragmeter.evaluate([row], settings={"judge": "none"})
    assert not any("kept as metadata" in n for n in result.notes)
