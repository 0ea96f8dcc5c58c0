"""How a Ray run reads its input: the file cut into chunks on the driver, each chunk read in
a Ray task by the readers the local and stream executors use.

Why not ``ray.data.read_text`` / ``read_parquet``: read_text splits lines with
``str.splitlines``, which also breaks at U+2028, U+0085 and other separators that JSON
strings may hold raw (``json.dumps(..., ensure_ascii=False)`` writes them), and keeps a UTF-8
BOM: a file the validation pass accepted failed mid-run with a Ray traceback. And neither
says which row of the file a record is: a row without a ``question_id`` is given one from
its row number, so each batch numbered its rows from 1 and the generated ids differed from a
local run's (and could repeat across batches). Here a chunk knows the line and row it starts
at, and its rows are parsed by ``source._read_batch`` (JSONL) or pyarrow as ``_parquet``
reads them: the same records, line and row numbers as ``check_file`` saw.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragmeter._parquet import data_columns, pylist
from ragmeter.errors import DataError
from ragmeter.executors.source import RawBatch, _read_batch, _validate
from ragmeter.sample import Sample

PIECES = 32  # at most, per row group (see _parquet_chunks)


def plan_chunks(path: str | Path, kind: str, rows: int) -> list[dict[str, int]]:
    """The file cut into chunks of about ``rows`` rows: ``start``/``stop`` (JSONL: byte
    offsets; Parquet: row groups), ``line`` (JSONL: the first line's number) and ``row``
    (rows before the chunk). A pass over the file without parsing it: ~1 s a million lines."""
    if kind == "parquet":
        return _parquet_chunks(Path(path), rows)
    return _jsonl_chunks(Path(path), rows)


def _blank(raw: bytes, lineno: int) -> bool:
    """Whether ``_read_batch`` skips the line (its text is only whitespace). Decoding only
    when the bytes could be whitespace to ``str.strip`` (non-ASCII, control characters) or
    a BOM; an undecodable line is a row (a problem there, refused by check_file)."""
    stripped = raw.strip()
    if stripped and 0x21 <= stripped[0] < 0x80:
        return False
    try:
        return not raw.decode("utf-8-sig" if lineno == 1 else "utf-8").strip()
    except UnicodeDecodeError:
        return False


def _jsonl_chunks(path: Path, rows: int) -> list[dict[str, int]]:
    chunks: list[dict[str, int]] = []
    start = offset = row = n = 0
    first_line = 1
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if not _blank(raw, lineno):
                if n == rows:  # a chunk starts at its first row's line
                    chunks.append(
                        {"start": start, "stop": offset, "line": first_line, "row": row - n}
                    )
                    start, first_line, n = offset, lineno, 0
                row += 1
                n += 1
            offset += len(raw)
    if n:
        chunks.append({"start": start, "stop": offset, "line": first_line, "row": row - n})
    return chunks


def _parquet_chunks(path: Path, rows: int) -> list[dict[str, int]]:
    """Runs of row groups of about ``rows`` rows; a row group larger than ``rows`` is cut
    into pieces (``skip``, ``take``: rows into the group, rows in the piece) of ``rows``
    rows, or more for a group of more than ``PIECES * rows``.

    Why: pandas and pyarrow write a file of up to a million rows as one row group, and a
    row group was one chunk: a 3,000-row file was one chunk, read, validated and judged by
    one actor whatever ``--actors`` said (``usage.actors`` 1), which also held the whole
    group's scored rows until it returned them in one batch. A piece is read from its
    group's start (Parquet cannot seek to a row inside a group), so a group is cut into at
    most ``PIECES`` pieces: each read of a whole group costs little beside judging it."""
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(path).metadata
    chunks: list[dict[str, int]] = []
    start = row = n = 0

    def run(stop: int) -> None:
        chunks.append(
            {"start": start, "stop": stop, "line": 0, "row": row - n, "skip": 0, "take": n}
        )

    for group in range(meta.num_row_groups):
        size = meta.row_group(group).num_rows
        if size > rows:  # the run so far, then this group in pieces
            if n:
                run(group)
            piece = max(rows, -(-size // PIECES))
            for skip in range(0, size, piece):
                take = min(piece, size - skip)
                chunks.append(
                    {"start": group, "stop": group + 1, "line": 0, "row": row + skip,
                     "skip": skip, "take": take}
                )  # fmt: skip
            row += size
            start, n = group + 1, 0
            continue
        if n >= rows:
            run(group)
            start, n = group, 0
        row += size
        n += size
    if n:
        run(meta.num_row_groups)
    return chunks


def read_chunk(path: str, kind: str, chunk: dict[str, int], batch_size: int) -> Iterator[RawBatch]:
    """The chunk's records, ``batch_size`` at a time, numbered as in the whole file."""
    if kind == "parquet":
        yield from _parquet_chunk(path, chunk, batch_size)
        return
    with open(path, "rb") as fh:
        fh.seek(chunk["start"])
        data = fh.read(chunk["stop"] - chunk["start"])
    lines = enumerate(io.BytesIO(data), start=chunk["line"])
    row = chunk["row"]
    while True:
        batch, row, done = _read_batch(lines, batch_size, row)
        if batch.records or batch.problems:
            yield batch
        if done:
            return


def _parquet_chunk(path: str, chunk: dict[str, int], batch_size: int) -> Iterator[RawBatch]:
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(path)
    columns = data_columns(pf.schema_arrow.names, path)
    row, skip, take = chunk["row"], chunk.get("skip", 0), chunk.get("take")
    groups = list(range(chunk["start"], chunk["stop"]))
    for part in pf.iter_batches(batch_size=batch_size, row_groups=groups, columns=columns):
        if skip >= part.num_rows:  # a piece of a group: the rows before it (_parquet_chunks)
            skip -= part.num_rows
            continue
        part = part.slice(skip, take)
        skip = 0
        records: list[Any] = pylist(part, path)  # maps as dicts, as a local run reads them
        yield RawBatch(records=records, rows=list(range(row + 1, row + len(records) + 1)))
        row += len(records)
        if take is not None:
            take -= len(records)
            if take <= 0:
                return


def chunk_samples(
    path: str, kind: str, chunk: dict[str, int], batch_size: int
) -> Iterator[list[Sample]]:
    """Validated samples of a chunk, batch by batch (the driver checked the whole file: a
    DataError here means it changed since, and names its line and row)."""
    for batch in read_chunk(path, kind, chunk, batch_size):
        samples, problems = _validate(batch, path)
        if problems:
            raise DataError(problems, path)
        yield samples
