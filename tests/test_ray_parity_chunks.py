"""The Ray executor's input, without Ray: the file cut into chunks and each read alone gives
the records, lines and rows the stream executor reads."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ragmeter.executors._ray_source import plan_chunks, read_chunk
from ragmeter.executors.source import iter_raw
from test_ray_parity_runs import nasty_jsonl


def flat(batches) -> list[tuple]:
    out = []
    for b in batches:
        lines = b.lines or [None] * len(b.records)
        out.extend(zip(b.records, lines, b.rows, strict=True))
    return out


@pytest.mark.parametrize("rows_per_chunk", [1, 2, 4, 100])
def test_jsonl_chunks_read_as_the_stream_executor_reads(tmp_path: Path, rows_per_chunk) -> None:
    path = nasty_jsonl(tmp_path / "in.jsonl")
    chunks = plan_chunks(path, "jsonl", rows_per_chunk)
    got = [x for c in chunks for x in flat(read_chunk(str(path), "jsonl", c, 3))]
    assert got == flat(iter_raw(path, 3))
    assert len(got) == 9 and len(chunks) == -(-9 // rows_per_chunk)


def test_parquet_chunks_follow_row_groups_and_number_rows(tmp_path: Path) -> None:
    path = tmp_path / "in.parquet"
    table = pa.table(
        {
            "question": [f"q{i}" for i in range(10)],
            "bucket": pa.array([i if i % 3 else None for i in range(10)], pa.int64()),
            "__index_level_0__": list(range(10)),
        }
    )
    pq.write_table(table, path, row_group_size=3)
    chunks = plan_chunks(path, "parquet", 4)
    assert [c["row"] for c in chunks] == [0, 6]  # groups of 3 rows: 6, then 4
    got = [x for c in chunks for x in flat(read_chunk(str(path), "parquet", c, 2))]
    assert got == flat(iter_raw(path, 2))


def test_a_data_error_from_a_ray_task_reads_as_raised() -> None:
    """Ray pickles a task's error; DataError(message) came back listing its own message one
    character a line. A chunk whose file changed since the check raises one."""
    import pickle

    from ragmeter.errors import DataError, Problem
    from ragmeter.executors._ray_cluster import ragmeter_cause

    raised = DataError([Problem(3, "question", "must be a string", 4)], "in.jsonl")
    raised.args = (raised.args[0] + "\nFailed to apply UDF transform after 1/1 attempts",)
    back = pickle.loads(pickle.dumps(raised))
    wrapper = RuntimeError("ray wrapper")
    wrapper.cause = back  # type: ignore[attr-defined]
    assert str(ragmeter_cause(wrapper)) == str(DataError(raised.problems, "in.jsonl"))
