"""A Parquet file gives the same records to a local and to a streamed run."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ragmeter
from ragmeter.executors.source import check_file, iter_batches


def _both(path: Path) -> tuple[list[dict], list[dict]]:
    local = [s.model_dump() for s in ragmeter.load(path)]
    check_file(path, batch_size=2)
    streamed = [s.model_dump() for batch in iter_batches(path, 2) for s in batch]
    return local, streamed


def test_an_integer_column_with_a_gap_stays_integers(tmp_path: Path) -> None:
    """pandas made int64 columns with a null floats: a local run refused the question_id
    column ("got float (1.0)") that a streamed run accepted, and wrote bucket 1.0 for 1."""
    path = tmp_path / "gap.parquet"
    table = pa.table(
        {
            "question": ["q1", "q2", "q3"],
            "question_id": pa.array([7, 8, None], pa.int64()),
            "bucket": pa.array([1, None, 3], pa.int64()),
        }
    )
    pq.write_table(table, path)
    local, streamed = _both(path)
    assert local == streamed
    assert [s["question_id"] for s in local][:2] == ["7", "8"]
    assert [s["metadata"] for s in local] == [{"bucket": 1}, {}, {"bucket": 3}]
    assert isinstance(local[0]["metadata"]["bucket"], int)


@pytest.mark.parametrize(
    ("index", "metadata"),
    [
        (pd.Index([5, 7]), [{}, {}]),  # pandas' unnamed index: no column of the data
        (pd.Index(["x", "y"], name="source"), [{"source": "x"}, {"source": "y"}]),
    ],
)
def test_a_pandas_index_is_read_alike(tmp_path: Path, index, metadata) -> None:
    """A named index is a column (a local run lost it, a streamed run kept it); the
    unnamed one pandas writes is not (a streamed run put __index_level_0__ in metadata)."""
    path = tmp_path / "indexed.parquet"
    pd.DataFrame({"question": ["a", "b"]}, index=index).to_parquet(path)
    local, streamed = _both(path)
    assert local == streamed
    assert [s["metadata"] for s in local] == metadata


def test_a_named_question_id_index_is_the_question_id(tmp_path: Path) -> None:
    path = tmp_path / "ids.parquet"
    frame = pd.DataFrame({"question_id": ["a1", "b2"], "question": ["a", "b"]})
    frame.set_index("question_id").to_parquet(path)
    local, streamed = _both(path)
    assert [s["question_id"] for s in local] == ["a1", "b2"]
    assert local == streamed
