"""CSV and TSV rows as records, each with the line it starts on; a malformed file refused.

Why not ``pandas.read_csv``: given a row with one field more than the header, pandas takes
the first column for an index and shifts every other one left, so the answer was read as the
question, silently, in every row; it renamed a repeated column (``answer``, ``answer.1``) and
kept the second copy in metadata; a row with a field missing was filled with blanks; and
the line of a row was guessed as its row number + 1, wrong after a blank line or a cell
holding a line break. The standard ``csv`` module reads the rows as written, and says where
each one starts.

A ``.csv`` whose header holds no comma but a semicolon (or a tab) is read with that
delimiter: Excel in locales whose decimal mark is a comma saves "CSV" with ``;``, and such a
file was refused row by row as "required field 'question' is missing", its whole header
taken for one column named ``question;answer;contexts``.
"""

from __future__ import annotations

import ast
import csv
import io
import itertools
import sys
import tokenize
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


_SEP_NAMES = {",": "a comma", ";": "a semicolon", "\t": "a tab"}


def _delimiter(path: Path, sep: str) -> str:
    """``sep``, or ``;`` or a tab when ``sep`` is a comma and the header (the first line that
    is not blank) holds none but holds that (see the module docstring)."""
    if sep != ",":
        return sep
    with path.open(encoding="utf-8-sig", newline="") as fh:
        for line in fh:
            if line.strip():
                break
        else:
            return sep
    if "," in line:
        return sep
    return next((other for other in (";", "\t") if other in line), sep)


class NotLiteral(ValueError):
    """A cell that is no Python literal either; ``said`` is set when it is something known
    that cannot be read back (a numpy array as pandas prints it)."""

    def __init__(self, said: str | None = None) -> None:
        super().__init__(said or "not a Python literal")
        self.said = said


def python_literal(cell: str) -> Any:
    """A list or dict cell written as Python writes it, read back: ``['a', 'b']``.

    Why: ``pandas.DataFrame.to_csv`` (so ragas' ``EvaluationDataset.to_csv`` and a
    ``dataset.to_pandas().to_csv()``) writes a list cell as its Python repr, and such a file
    was refused row by row as "must be a JSON array". ``ast.literal_eval`` reads literals
    only, never runs code. A numpy array printed by pandas (``['a' 'b']``, what a list
    column read from Parquet becomes) is refused: Python reads adjacent strings as one
    (``['ab']``), which would silently merge the contexts, and numpy cuts long arrays with
    ``...``. NotLiteral for anything else."""
    text = cell.strip()
    if not text.startswith(("[", "{", "(")):
        raise NotLiteral
    try:
        tree = ast.parse(text, mode="eval")
        value = ast.literal_eval(tree)
        strings = [
            tok.type
            for tok in tokenize.generate_tokens(io.StringIO(text).readline)
            if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER)
        ]
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError, tokenize.TokenError):
        raise NotLiteral from None
    if any(a == b == tokenize.STRING for a, b in itertools.pairwise(strings)):
        raise NotLiteral(
            "holds strings side by side with no comma between them, as pandas prints a "
            "numpy array (['a' 'b']), which cannot be read back: write the lists as JSON, "
            "e.g. df[col] = df[col].map(lambda v: json.dumps(list(v))) before to_csv"
        )
    if not isinstance(value, (list, tuple, dict)) or not _json_shaped(value):
        raise NotLiteral
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keys = [ast.literal_eval(key) for key in node.keys if key is not None]
            if len(set(keys)) < len(keys):
                twice = next(k for k in keys if keys.count(k) > 1)
                raise NotLiteral(
                    f"the key {twice!r} is given twice in one dict: Python keeps only one of "
                    "the two values and loses the other without a word; remove or rename one"
                )
    return list(value) if isinstance(value, tuple) else value


def _json_shaped(value: Any) -> bool:
    """True for what JSON could have written: lists, dicts of string keys, text, numbers,
    booleans and None (a tuple read as a list)."""
    if value is None or isinstance(value, (str, int, float)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_json_shaped(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_shaped(v) for k, v in value.items())
    return False


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
        sep = _delimiter(path, sep)
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
                                f"{_SEP_NAMES.get(sep, repr(sep))} or a quote",
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
