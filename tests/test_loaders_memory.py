"""Data given in memory to evaluate() / dry_run() / load(): every plausible kind is read, or
refused with a DataError (exit 2 in the CLI) naming the kinds accepted, never a raw
AttributeError. A polars DataFrame crashed (``'list' object has no attribute 'duplicated'``:
any class named DataFrame with ``to_dict`` was taken for pandas); a pyarrow Table, a
generator of dicts and a dict of columns were refused although a file of the same rows is
read; a list of Samples repeating a question_id was scored, two rows under one id.

polars is not installed here (nor in the test extra): ``FakePolars`` stands in for its
DataFrame, with the attributes that matter (its module and class name, ``columns`` as a
list, ``to_dict`` returning columns, ``to_arrow``, ``to_pandas``, ``__arrow_c_stream__``,
iteration over columns).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from tests.conftest import make_row
from tests.needs import require_module

import ragmeter
from ragmeter.errors import DataError
from ragmeter.io import write_jsonl

# an extra column (kept in metadata) with a gap; first, as pa.Table.from_pylist takes the
# columns from the first row
ROWS = [make_row(1, bucket=7), make_row(2)]
ACCEPTED = "a list, tuple or iterator of dicts or Samples, a dict of columns, a pandas or polars"


def _core(samples: list[ragmeter.Sample]) -> list[dict[str, Any]]:
    return [s.model_dump() for s in samples]


EXPECTED = _core(ragmeter.load(ROWS))


class FakePolars:
    """What ragmeter sees of a polars.DataFrame (see the module docstring)."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self._table = pa.Table.from_pylist(rows)

    @property
    def columns(self) -> list[str]:
        return self._table.column_names

    def to_dict(self, *, as_series: bool = True) -> dict[str, list[Any]]:
        return self._table.to_pydict()

    def to_arrow(self) -> pa.Table:
        return self._table

    def to_pandas(self) -> pd.DataFrame:
        return self._table.to_pandas()

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self._table.__arrow_c_stream__(requested_schema)

    def __iter__(self) -> Iterator[Any]:  # polars iterates its columns
        return iter(self._table.columns)

    def __len__(self) -> int:
        return self._table.num_rows


FakePolars.__name__ = FakePolars.__qualname__ = "DataFrame"
FakePolars.__module__ = "polars.dataframe.frame"


class OnlyStream:
    """A table offering nothing but the Arrow PyCapsule interface (nanoarrow, duckdb...)."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self._table = pa.Table.from_pylist(rows)

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self._table.__arrow_c_stream__(requested_schema)


class OnlyPandas:
    """A table offering nothing but to_pandas() (modin, a Spark DataFrame...)."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self._frame = pd.DataFrame(rows)

    def to_pandas(self) -> pd.DataFrame:
        return self._frame


def test_a_polars_dataframe_is_evaluated() -> None:
    frame = FakePolars(ROWS)
    assert _core(ragmeter.load(frame)) == EXPECTED
    result = ragmeter.evaluate(frame, ["token_f1"], n_resamples=0)
    assert result.records() == ragmeter.evaluate(ROWS, ["token_f1"], n_resamples=0).records()
    assert ragmeter.dry_run(frame, ["token_f1"])["samples"] == 2


def test_arrow_keeps_an_integer_column_with_a_gap_as_integers() -> None:
    """Through to_pandas() the gap made the column float: bucket 7 became 7.0."""
    samples = ragmeter.load(FakePolars(ROWS))
    assert samples[0].metadata["bucket"] == 7 and type(samples[0].metadata["bucket"]) is int
    assert "bucket" not in samples[1].metadata  # null: missing, as in a file


@pytest.mark.parametrize(
    "make",
    [
        pa.Table.from_pylist,
        pa.RecordBatch.from_pylist,
        lambda rows: pa.Table.from_pandas(pd.DataFrame(rows, index=[5, 9])),  # unnamed index
        OnlyStream,
        OnlyPandas,
        lambda rows: (dict(r) for r in rows),  # a generator
        lambda rows: map(dict, rows),
        tuple,
        lambda rows: {k: [r.get(k) for r in rows] for k in rows[0]},  # a dict of columns
        lambda rows: {k: tuple(r.get(k) for r in rows) for k in rows[0]},
        lambda rows: {"samples": rows},
        lambda rows: pd.DataFrame(rows, index=pd.Index(["x", "y"])),  # a non-default index
    ],
    ids=[
        "pa.Table",
        "pa.RecordBatch",
        "pa.Table.from_pandas",
        "arrow_c_stream",
        "to_pandas",
        "generator",
        "map",
        "tuple",
        "dict of lists",
        "dict of tuples",
        "dict with samples",
        "pandas string index",
    ],
)
def test_each_kind_of_table_or_rows_gives_the_same_samples(make) -> None:
    assert _core(ragmeter.load(make(ROWS))) == EXPECTED


def test_a_dict_of_numpy_columns() -> None:
    data = {"question": np.array(["q1", "q2"]), "question_id": np.array([10, 11])}
    assert [s.question_id for s in ragmeter.load(data)] == ["10", "11"]


def test_a_path_as_str_path_or_pathlike(tmp_path: Path) -> None:
    class PathLike:  # py.path.local and others: os.PathLike but no pathlib.Path
        def __fspath__(self) -> str:
            return str(tmp_path / "d.jsonl")

    write_jsonl(ROWS, tmp_path / "d.jsonl")
    for data in (str(tmp_path / "d.jsonl"), tmp_path / "d.jsonl", PathLike()):
        assert _core(ragmeter.load(data)) == EXPECTED
    result = ragmeter.evaluate(PathLike(), ["token_f1"], n_resamples=0)
    assert result.manifest["input"]["file"] == "d.jsonl"  # hashed as the file it is


def test_samples_and_dicts_mixed_and_a_repeated_question_id() -> None:
    samples = ragmeter.load(ROWS)
    assert ragmeter.load([samples[0], ROWS[1]]) == samples
    with pytest.raises(DataError) as info:
        ragmeter.evaluate([samples[0], samples[0]], ["token_f1"], n_resamples=0)
    assert [str(p) for p in info.value.problems] == [
        "row 2, field 'question_id': duplicate question_id 'q1' (first used in row 1)"
    ]


def _said(data: Any) -> str:
    with pytest.raises(DataError) as info:
        ragmeter.evaluate(data, ["token_f1"], n_resamples=0)
    return str(info.value)


@pytest.mark.parametrize(
    "data",
    [
        pd.DataFrame(),
        pd.DataFrame(columns=["question", "answer"]),
        pa.table({"question": pa.array([], pa.string())}),
        FakePolars([]),
        iter([]),
        [],
        {"question": []},
    ],
    ids=["DataFrame()", "no rows", "pa.table", "polars", "iterator", "list", "dict"],
)
def test_empty_inputs_say_there_are_no_rows(data) -> None:
    assert "no rows: the data is empty" in _said(data)


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (None, "NoneType"),
        (42, "int"),
        (b'{"question": "q"}', "bytes (bytes are no rows: give the file's path"),
        (np.array([1, 2]), "numpy.ndarray"),
        (pd.Series(["q1"]), "pandas.Series (one column: give a DataFrame of the columns)"),
        ({1, 2}, "set"),
    ],
)
def test_anything_else_is_refused_naming_what_is_accepted(data, kind) -> None:
    said = _said(data)
    assert f"unsupported input type {kind}" in said and ACCEPTED in said
    with pytest.raises(DataError):
        ragmeter.dry_run(data, ["token_f1"])


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"question": ["q1", "q2"], "answer": ["a"]},
            "columns of different lengths ('question' 2, 'answer' 1)",
        ),
        ({"question": "q1", "answer": "a"}, "one record, not a list of them: wrap it in [ ]"),
        ({"rows": 3}, "a dict must hold a list of records under 'samples'"),
    ],
)
def test_a_dict_that_is_no_table_says_why(data, message) -> None:
    assert message in _said(data)


def test_a_dataset_dict_asks_for_one_split() -> None:
    datasets = require_module("datasets")
    splits = datasets.DatasetDict({"test": datasets.Dataset.from_list(ROWS)})
    assert "a dict of datasets (test): give one of them, e.g. data['test']" in _said(splits)
    assert _core(ragmeter.load(splits["test"])) == EXPECTED


def test_an_arrow_table_with_two_columns_of_one_name_is_refused() -> None:
    table = pa.Table.from_arrays([pa.array(["q"]), pa.array(["q2"])], ["question", "question"])
    assert "the table has 2 columns named 'question'" in _said(table)


def test_a_conversion_that_fails_is_said_not_hidden() -> None:
    class Broken:
        def to_arrow(self) -> pa.Table:
            raise RuntimeError("the lazy query failed")

    assert (
        "cannot read it as a table through to_arrow: RuntimeError: the lazy query failed"
        in _said(Broken())
    )


def test_the_stream_executor_takes_any_pathlike(tmp_path: Path) -> None:
    class PathLike:
        def __fspath__(self) -> str:
            return os.fspath(tmp_path / "d.jsonl")

    write_jsonl(ROWS, tmp_path / "d.jsonl")
    result = ragmeter.evaluate(
        PathLike(), ["token_f1"], n_resamples=0, executor="stream", out=tmp_path / "out"
    )
    assert result.manifest["input"]["file"] == "d.jsonl"
