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
MAX_PROBLEMS = 50  # listed in the error; the count says how many more there were


@dataclass
class RawBatch:
    """Parsed records with their line (JSONL) and row numbers, and unparseable lines."""

    records: list[Any] = field(default_factory=list)
    lines: list[int] | None = None
    rows: list[int] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def stream_kind(path: str | Path) -> str:
    """``jsonl`` or ``parquet``; a DataError for anything a streamed run cannot read."""
    p = Path(path)
    if (said := stat_problem(p)) is not None:  # a 256-byte name: not an internal error
        raise DataError([Problem(None, None, f"cannot read file: {said}")], str(p))
    if not p.exists():
        raise DataError([Problem(None, None, f"file not found: {p}")], str(p))
    suffix = p.suffix.lower()
    if suffix not in STREAM_SUFFIXES:
        raise DataError(
            [
                Problem(
                    None,
                    None,
                    f"a streamed run reads .jsonl or .parquet files, not '{suffix or p.name}': "
                    "convert it, or use the local executor",
                )
            ],
            str(p),
        )
    if suffix not in (".parquet", ".pq") and (said := sniff_problem(p)) is not None:
        raise DataError([Problem(None, None, said)], str(p))  # compressed: one problem a row
    return "parquet" if suffix in (".parquet", ".pq") else "jsonl"


def iter_raw(path: str | Path, batch_size: int) -> Iterator[RawBatch]:
    """The file's records, ``batch_size`` at a time (JSONL line by line; Parquet by row
    groups through pyarrow)."""
    if stream_kind(path) == "parquet":
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
    path: str | Path, batch_size: int = 10_000, presence: FieldPresence | None = None
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
    for batch in iter_raw(path, batch_size):
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


def iter_batches(path: str | Path, batch_size: int = 10_000) -> Iterator[list[Sample]]:
    """Validated samples, batch by batch (run ``check_file`` first: a batch with a problem
    raises here too, but only once the batches before it were scored)."""
    source = str(path)
    for batch in iter_raw(path, batch_size):
        samples, problems = _validate(batch, source)
        if problems:
            raise DataError(problems, source)
        yield samples
