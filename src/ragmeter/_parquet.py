"""Parquet and Arrow rows as Python records, read the same way by a local and a streamed run.

Why pyarrow's ``to_pylist`` and not pandas: pandas turns an integer column with a null into
floats, so a local run refused a Parquet ``question_id`` column of int64 with a gap ("got
float (1.0)") that a streamed run of the same file accepted, and wrote ``1.0`` in metadata
where the streamed run wrote ``1``. It also took a named index (``df.set_index("id")``) off
the rows, so a local run lost that column while a streamed run kept it. Read here, both runs
see the same records: every column as stored, except the index pandas writes when its index
has no name (``__index_level_0__``), which is no column of the data. An in-memory Arrow
table (a pyarrow Table, a polars DataFrame) is read the same way.

Two columns of one name are refused: Arrow and Parquet allow them, and ``to_pylist`` kept
the last one's values, so a file with two ``answer`` columns was scored on the second.

A map column (``map<string, string>``, what Spark and pandas-on-Arrow write for a dict) is
read as a dict, as the JSON object it stands for; a map holding one key twice is refused, as
a JSON object is. ``to_pylist`` gave a list of (key, value) pairs, and ``metadata`` stored so
was refused as "expected an object, got list".
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ragmeter.errors import DataError, Problem

_UNNAMED_INDEX = re.compile(r"__index_level_\d+__")


def _unreadable(path: Path, exc: Exception) -> DataError:
    return DataError([Problem(None, None, f"unreadable Parquet file: {exc}")], str(path))


def data_columns(names: Sequence[str], source: str, what: str = "file") -> list[str]:
    """The columns to read (the unnamed pandas index left out); a DataError naming every
    column name used more than once."""
    counts = Counter(names)
    repeated = sorted(n for n, count in counts.items() if count > 1)
    if repeated:
        raise DataError(
            [
                Problem(
                    None,
                    name,
                    f"the {what} has {counts[name]} columns named '{name}': a record keeps "
                    "only one of their values, so the others would be lost; rename or drop them",
                )
                for name in repeated
            ],
            source,
        )
    return [n for n in names if not _UNNAMED_INDEX.fullmatch(n)]


def iter_parquet(path: str | Path, batch_size: int) -> Iterator[list[dict[str, Any]]]:
    """The file's rows as dicts, ``batch_size`` at a time; a DataError for a corrupt file.

    Opened as a local file (``pa.OSFile``), not by name: given a name, pyarrow reads it as a
    URI when it looks like one, so ``run-2024-01-01T10:00.parquet`` (a time in the name) was
    "Unrecognized filesystem type in URI" and ``s3:/x.parquet`` an S3 address."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    try:
        with pa.OSFile(os.fspath(path)) as source:
            pf = pq.ParquetFile(source)
            columns = data_columns(pf.schema_arrow.names, str(path))
            batches = pf.iter_batches(batch_size=batch_size, columns=columns)
            while True:
                try:
                    batch = next(batches)
                except StopIteration:
                    return
                yield pylist(batch, str(path))
    except DataError:
        raise
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise _unreadable(path, exc) from None


def read_parquet(path: str | Path) -> list[dict[str, Any]]:
    """Every row of the file as a dict (see the module docstring)."""
    return [row for batch in iter_parquet(path, 65_536) for row in batch]


def arrow_records(table: Any, source: str) -> list[dict[str, Any]]:
    """The rows of a pyarrow Table or RecordBatch as a Parquet file of it is read."""
    columns = data_columns(table.schema.names, source, "table")
    if len(columns) < table.num_columns:
        table = table.select(columns)
    return pylist(table, source)


def pylist(table: Any, source: str) -> list[dict[str, Any]]:
    """A Table's or RecordBatch's rows, maps as dicts; a DataError for a map with a repeated
    key (pyarrow's strict mode raises KeyError naming it)."""
    try:
        return list(table.to_pylist(maps_as_pydicts="strict"))
    except KeyError as exc:
        said = str(exc.args[0]) if exc.args else str(exc)
        problem = Problem(None, None, f"a map column holds a key twice: {said}")
        raise DataError([problem], source) from None
