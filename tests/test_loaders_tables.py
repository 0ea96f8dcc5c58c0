"""DataFrames and JSON documents: every column kept or the input refused, never one dropped."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pandas as pd
import pytest

import ragmeter


def _messages(data) -> list[str]:
    with pytest.raises(ragmeter.DataError) as info:
        ragmeter.load(data)
    return [str(p) for p in info.value.problems]


def test_a_dataframe_with_two_columns_of_one_name_is_refused() -> None:
    """to_dict(orient="records") kept the second 'answer' and dropped the first."""
    frame = pd.DataFrame([["q1", "first", "second"]], columns=["question", "answer", "answer"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and no pandas warning on the way
        assert _messages(frame) == [
            "field 'answer': the DataFrame has two columns named 'answer': rename or drop one"
        ]


@pytest.mark.parametrize("levels", [["question_id"], ["question_id", "source"]])
def test_a_named_index_is_a_column(levels: list[str]) -> None:
    """df.set_index("question_id") lost every id (new ones were generated), as Parquet now
    keeps a named index for both executors."""
    frame = pd.DataFrame(
        {"question_id": ["a1", "b2"], "question": ["q1", "q2"], "source": ["web", "wiki"]}
    ).set_index(levels)
    samples = ragmeter.load(frame)
    assert [s.question_id for s in samples] == ["a1", "b2"]
    assert [s.metadata for s in samples] == [{"source": "web"}, {"source": "wiki"}]


def test_an_unnamed_index_is_not_data() -> None:
    frame = pd.DataFrame({"question": ["q1", "q2"]}, index=[10, 20])
    assert [s.metadata for s in ragmeter.load(frame)] == [{}, {}]


def test_an_index_named_as_a_column_is_refused() -> None:
    frame = pd.DataFrame(
        {"question": ["q1"], "answer": ["a"]}, index=pd.Index(["x"], name="answer")
    )
    assert _messages(frame) == [
        "field 'answer': 'answer' is both the DataFrame's index and a column: drop one"
    ]


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        (
            {"question": ["q1", "q2"], "answer": ["a1"]},
            "input: columns of different lengths ('question' 2, 'answer' 1): every column "
            "needs one value a row",
        ),
        (
            {"question": "q1", "answer": "a1"},
            "input: one record, not a list of them: wrap it in [ ]",
        ),
    ],
)
def test_a_json_object_that_is_no_list_of_records_says_why(tmp_path: Path, doc, message) -> None:
    """Both were told "a JSON object must hold a list under 'samples'"."""
    path = tmp_path / "d.json"
    path.write_text(json.dumps(doc))
    assert _messages(path) == [message]
