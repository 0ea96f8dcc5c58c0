"""CSV and TSV rows as records, each with the line it starts on; a malformed file refused.

Why not ``pandas.read_csv``: given a row with one field more than the header, pandas takes
the first column for an index and shifts every other one left, so the answer was read as the
question, silently, in every row; it renamed a repeated column (``answer``, ``answer.1``) and
kept the second copy in metadata; a row with a field missing was filled with blanks; and
the line of a row was guessed as its row number + 1, wrong after a blank line or a cell
holding a line break. The standard ``csv`` module reads the rows as written, and says where
each one starts.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path
from typing import Any

from ragmeter.errors import DataError, Problem


def _header(names: list[str], line: int) -> tuple[list[str], list[Problem]]:
    """The column names (an empty one named as pandas names it: ``Unnamed: N``, N from 0), and
    a problem for each name used twice."""
    out = [name if name else f"Unnamed: {i}" for i, name in enumerate(names)]
    problems = []
    first: dict[str, int] = {}
    for i, name in enumerate(out, start=1):
        if name in first:
            problems.append(
                Problem(
                    None,
                    name,
                    f"the header names column '{name}' twice (columns {first[name]} and {i}): "
                    "rename or remove one",
                    line,
                )
            )
        else:
            first[name] = i
    return out, problems


def _fields(n: int) -> str:
    return f"{n} field" + ("" if n == 1 else "s")


def read_csv_records(path: Path, sep: str) -> tuple[list[dict[str, Any]], list[int]]:
    """The rows as {column: cell} (an empty cell left out: missing) and the line each starts on;
    a DataError listing every row whose field count differs from the header's, a repeated
    column name, or where the file cannot be parsed."""
    records: list[dict[str, Any]] = []
    lines: list[int] = []
    problems: list[Problem] = []
    names: list[str] | None = None
    limit = csv.field_size_limit()
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # a context may exceed 128 KiB
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            reader = csv.reader(fh, delimiter=sep, strict=True)
            end = 0  # the line the previous row ended on
            try:
                for cells in reader:
                    start, end = end + 1, reader.line_num
                    if not cells:  # a blank line
                        continue
                    if names is None:
                        names, found = _header(cells, start)
                        problems += found
                        continue
                    if len(cells) != len(names):
                        problems.append(
                            Problem(
                                len(records) + 1,
                                None,
                                f"has {_fields(len(cells))} where the header has "
                                f"{len(names)} ({', '.join(names)}): quote a cell holding "
                                f"{'a comma' if sep == ',' else 'a tab'} or a quote",
                                start,
                            )
                        )
                        records.append({})  # unused (refused below): keeps the rows' numbers
                        lines.append(start)
                        continue
                    records.append({k: v for k, v in zip(names, cells, strict=True) if v != ""})
                    lines.append(start)
            except csv.Error as exc:  # a quote never closed, text after a closing quote
                problems.append(
                    Problem(
                        len(records) + 1,
                        None,
                        f"malformed CSV: {exc} (a cell "
                        'holding a quote must be quoted, its quotes doubled: "say ""hi""")',
                        end + 1,
                    )
                )
    finally:
        csv.field_size_limit(limit)
    if names is None:
        raise DataError([Problem(None, None, "no rows: the file is empty")], str(path))
    if problems:
        raise DataError(problems, str(path))
    return records, lines
