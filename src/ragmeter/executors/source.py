"""Reading a data file in batches, so a run never holds its whole input in memory.

Two passes over the file: ``check_file`` validates every row (the same checks and messages as
``ragmeter.load``, with the file's own line and row numbers, duplicates across batches
included) before any scoring, so bad input fails before expensive work as it does in a local
run, and counts which fields the rows have (``FieldPresence``: the metrics are planned on every
row, not a sample of them); ``iter_batches`` then yields validated samples batch by batch for
scoring. Validation runs at ~90k rows/s, so the first pass costs a few percent of even the
cheapest run.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragmeter._json_rows import BLANK, parse_line
from ragmeter._parquet import iter_parquet
from ragmeter._perf import gc_paused
from ragmeter.errors import DataError, Problem
from ragmeter.io import sniff_problem, stat_problem
from ragmeter.plan import FieldPresence
from ragmeter.sample import Sample, validate_records

STREAM_SUFFIXES = (".jsonl", ".ndjson", ".parquet", ".pq")
STREAM_FORMATS = ("jsonl", "parquet")
PARQUET_MAGIC = b"PAR1"  # the first (and last) four bytes of every Parquet file
MAX_PROBLEMS = 50  # listed in the error; the count says how many more there were


@dataclass
class RawBatch:
    """Parsed records with their line (JSONL) and row numbers, and unparseable lines."""

    records: list[Any] = field(default_factory=list)
    lines: list[int] | None = None
    rows: list[int] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def stream_format(path: str | Path, format: str | None) -> str | None:
    """``jsonl`` or ``parquet`` as ``format`` (any case) or else the suffix names it, or None
    when a streamed run cannot read it (the caller says so in its own words).

    Why: ``--format jsonl`` tells the local executor how to read ``data`` or ``run.log``; the
    stream and Ray executors ignored it and refused the file for its name."""
    if format is not None:
        kind = format.lower() if isinstance(format, str) else None
        return kind if kind in STREAM_FORMATS else None
    suffix = Path(path).suffix.lower()
    if suffix not in STREAM_SUFFIXES:
        return None
    return "parquet" if suffix in (".parquet", ".pq") else "jsonl"


def stream_kind(path: str | Path, format: str | None = None) -> str:
    """``jsonl`` or ``parquet`` (``stream_format``); a DataError for anything a streamed run
    cannot read, or a file whose first bytes are of the other format."""
    p = Path(path)
    if (said := stat_problem(p)) is not None:  # a 256-byte name: not an internal error
        raise DataError([Problem(None, None, f"cannot read file: {said}")], str(p))
    if not p.exists():
        raise DataError([Problem(None, None, f"file not found: {p}")], str(p))
    kind = stream_format(p, format)
    if kind is None:
        what = f"--format {format}" if format is not None else f"'{p.suffix.lower() or p.name}'"
        raise DataError(
            [
                Problem(
                    None,
                    None,
                    f"a streamed run reads .jsonl or .parquet files, not {what}: "
                    "convert it, or use the local executor",
                )
            ],
            str(p),
        )
    if kind == "jsonl" and (said := sniff_problem(p)) is not None:
        raise DataError([Problem(None, None, said)], str(p))  # compressed: one problem a row
    if (said := _other_format(p, kind)) is not None:
        raise DataError([Problem(None, None, said)], str(p))
    return kind


def _other_format(path: Path, kind: str) -> str | None:
    """What is wrong when ``path``, read as ``kind``, holds the other format's bytes, or None.

    Why: a Parquet file named ``.jsonl`` was one "invalid JSON" problem a row of binary, and
    a JSON Lines file named ``.parquet`` pyarrow's "magic bytes not found in footer": neither
    said the file was simply of the other format."""
    try:
        with path.open("rb") as fh:
            head = fh.read(4)
    except OSError:
        return None  # said by the reader, as for any file it cannot read
    if kind == "jsonl" and head == PARQUET_MAGIC:
        return (
            f"{path.name} is a Parquet file, not JSON Lines: rename it .parquet or give "
            "--format parquet (format='parquet')"
        )
    if kind == "parquet" and head.lstrip()[:1] == b"{":  # text, a row an object
        return (
            f"{path.name} is JSON Lines, not a Parquet file: rename it .jsonl or give "
            "--format jsonl (format='jsonl')"
        )
    return None


def iter_raw(path: str | Path, batch_size: int, format: str | None = None) -> Iterator[RawBatch]:
    """The file's records, ``batch_size`` at a time (JSONL line by line; Parquet by row
    groups through pyarrow); ``format`` as ``stream_format`` reads it."""
    if stream_kind(path, format) == "parquet":
        yield from _iter_parquet(Path(path), batch_size)
    else:
        yield from _iter_jsonl(Path(path), batch_size)


def _iter_jsonl(path: Path, batch_size: int) -> Iterator[RawBatch]:
    with path.open("rb") as fh:
        lines = enumerate(fh, start=1)
        row = 0
        while True:
            # Parsing builds many acyclic objects: with the collector on, each batch was
            # rescanned over and over (9 of a streamed run's 44 us a row).
            with gc_paused():
                batch, row, done = _read_batch(lines, batch_size, row)
            if batch.records or batch.problems:
                yield batch
            if done:
                return


def _read_batch(
    lines: Iterator[tuple[int, bytes]], batch_size: int, row: int
) -> tuple[RawBatch, int, bool]:
    """The next ``batch_size`` records (blank lines skipped, unparseable ones reported), the
    last row number given, and whether the file ended."""
    batch = RawBatch(lines=[])
    assert batch.lines is not None
    for lineno, raw in lines:
        record, fault = parse_line(raw, lineno)  # as ragmeter.load reads a line
        if record is BLANK:
            continue
        row += 1
        if fault is not None:
            batch.problems.append(Problem(row, *fault, lineno))
            continue
        batch.records.append(record)
        batch.lines.append(lineno)
        batch.rows.append(row)
        if len(batch.records) >= batch_size:
            return batch, row, False
    return batch, row, True


def _iter_parquet(path: Path, batch_size: int) -> Iterator[RawBatch]:
    row = 0
    for records in iter_parquet(path, batch_size):
        rows = list(range(row + 1, row + len(records) + 1))
        row += len(records)
        yield RawBatch(records=records, rows=rows)


def _validate(batch: RawBatch, source: str) -> tuple[list[Sample], list[Problem]]:
    if not batch.records:  # only unparseable lines (a file cut short): nothing to validate,
        return [], batch.problems  # and no "no rows" beside them (ragmeter.load says none)
    try:
        samples = validate_records(  # text decoded as UTF-8 holds no lone surrogate
            batch.records, source, batch.lines, rows=batch.rows, check_text=False
        )
    except DataError as exc:  # in the file's order, as ragmeter.load lists them
        found = batch.problems + exc.problems
        return [], sorted(found, key=lambda p: (p.line or 0, p.row or 0))
    return samples, batch.problems


def check_file(
    path: str | Path,
    batch_size: int = 10_000,
    presence: FieldPresence | None = None,
    format: str | None = None,
) -> int:
    """Validate every row of the file; the number of rows, or a DataError listing problems
    (the first MAX_PROBLEMS, with the total) before any scoring starts. ``presence``, when
    given, counts which fields each valid row has: this pass is the only one before work
    that sees every row, so the metrics are planned on the whole file from it."""
    source = str(path)
    problems: list[Problem] = []
    n_problems = 0
    seen: dict[str, int] = {}
    n = 0
    for batch in iter_raw(path, batch_size, format):
        samples, found = _validate(batch, source)
        n_problems += len(found)
        problems.extend(found[: max(MAX_PROBLEMS - len(problems), 0)])
        for sample, row in zip(samples, batch.rows, strict=False):
            if presence is not None:
                presence.add(sample)
            first = seen.setdefault(sample.question_id, row)
            if first != row:
                n_problems += 1
                if len(problems) < MAX_PROBLEMS:
                    problems.append(
                        Problem(
                            row,
                            "question_id",
                            f"duplicate question_id '{sample.question_id}' (first used in row "
                            f"{first})",
                        )
                    )
        n += len(batch.records) + len(batch.problems)
    if n_problems:
        raise DataError(problems, source, total=n_problems)
    if n == 0:
        raise DataError([Problem(None, None, "no rows: the file is empty")], source)
    return n


def iter_batches(
    path: str | Path, batch_size: int = 10_000, format: str | None = None
) -> Iterator[list[Sample]]:
    """Validated samples, batch by batch (run ``check_file`` first: a batch with a problem
    raises here too, but only once the batches before it were scored)."""
    source = str(path)
    for batch in iter_raw(path, batch_size, format):
        samples, problems = _validate(batch, source)
        if problems:
            raise DataError(problems, source)
        yield samples
