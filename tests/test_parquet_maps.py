"""A Parquet/Arrow map column (``map<string, string>``, as Spark writes a dict) is read as the
dict it stands for: ``metadata`` stored so was refused as "got list" (pyarrow's ``to_pylist``
gives (key, value) pairs). A map naming one key twice is refused, as a JSON object is."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ragmeter
from ragmeter.errors import DataError

MAP = pa.map_(pa.string(), pa.string())


def _table(metadata: list[list[tuple[str, str]]]) -> pa.Table:
    n = len(metadata)
    return pa.table(
        {
            "question": [f"q{i}?" for i in range(n)],
            "answer": ["Paris."] * n,
            "contexts": [["Paris is in France."]] * n,
            "metadata": pa.array(metadata, type=MAP),
        }
    )


def test_a_map_column_is_a_dict_locally_streamed_and_from_arrow(tmp_path: Path) -> None:
    table = _table([[("source", "wiki"), ("split", "dev")], [("source", "news")]])
    path = tmp_path / "rows.parquet"
    pq.write_table(table, path)
    for samples in (ragmeter.load(path), ragmeter.load(table)):
        assert [s.metadata for s in samples] == [
            {"source": "wiki", "split": "dev"},
            {"source": "news"},
        ]
    streamed = ragmeter.evaluate(
        str(path), ["k_precision"], executor="stream", out=tmp_path / "o", n_resamples=0
    )
    assert streamed.n_samples == 2


def test_a_map_with_a_key_twice_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "dup.parquet"
    pq.write_table(_table([[("source", "wiki"), ("source", "news")]]), path)
    with pytest.raises(DataError, match=r"a map column holds a key twice.*'source'"):
        ragmeter.load(path)
