"""Parquet rows as Python records, read the same way by a local and a streamed run.

Why pyarrow's ``to_pylist`` and not pandas: pandas turns an integer column with a null into
floats, so a local run refused a Parquet ``question_id`` column of int64 with a gap ("got
float (1.0)") that a streamed run of the same file accepted, and wrote ``1.0`` in metadata
where the streamed run wrote ``1``. It also took a named index (``df.set_index("id")``) off
the rows, so a local run lost that column while a streamed run kept it. Read here, both runs
see the same records: every column as stored, except the index pandas writes when its index
has no name (``__index_level_0__``), which is no column of the data.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragmeter.errors import DataError, Problem

_UNNAMED_INDEX = re.compile(r"__index_level_\d+__")


def _unreadable(path: Path, exc: Exception) -> DataError:
    return DataError([Problem(None, None, f"unreadable Parquet file: {exc}")], str(path))


def iter_parquet(path: str | Path, batch_size: int) -> Iterator[list[dict[str, Any]]]:
    """The file's rows as dicts, ``batch_size`` at a time; a DataError for a corrupt file."""
    import pyarrow.parquet as pq

    path = Path(path)
    try:
        pf = pq.ParquetFile(path)
        columns = [n for n in pf.schema_arrow.names if not _UNNAMED_INDEX.fullmatch(n)]
        batches = pf.iter_batches(batch_size=batch_size, columns=columns)
        while True:
            try:
                batch = next(batches)
            except StopIteration:
                return
            yield batch.to_pylist()
    except DataError:
        raise
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise _unreadable(path, exc) from None


def read_parquet(path: str | Path) -> list[dict[str, Any]]:
    """Every row of the file as a dict (see the module docstring)."""
    return [row for batch in iter_parquet(path, 65_536) for row in batch]
