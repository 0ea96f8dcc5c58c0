"""Records of the inputs that are tables rather than lines: a JSON document, a DataFrame."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ragmeter._json_rows import DuplicateKey, dotted, parse_json
from ragmeter.errors import DataError, Problem

_RECORD_KEYS = ("samples", "data", "rows", "records")


def read_json_records(path: Path) -> list[Any]:
    """The records of a .json file: a list, a list under a known key, or columns."""
    text = path.read_text(encoding="utf-8-sig")
    if not text.strip():
        raise DataError([Problem(None, None, "no rows: the file is empty")], str(path))
    try:
        data = parse_json(text)
    except DuplicateKey as exc:
        raise DataError([_repeated_key(exc)], str(path)) from None
    except json.JSONDecodeError as exc:
        raise DataError(
            [
                Problem(
                    None, None, f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
                )
            ],
            str(path),
        ) from None
    if isinstance(data, Mapping) and ("resourceSpans" in data or "resource_spans" in data):
        raise DataError(
            [Problem(None, None, "this is an OTLP trace export: load it with --format otel")],
            str(path),
        )
    if isinstance(data, Mapping):
        # {"samples": [...]} / {"data": [...]}, or columnar {"question": [...], ...}
        for key in _RECORD_KEYS:
            if isinstance(data.get(key), list):
                return data[key]
        if data and all(isinstance(v, list) for v in data.values()):
            lengths = {len(v) for v in data.values()}
            if len(lengths) == 1:
                n = lengths.pop()
                return [{k: v[i] for k, v in data.items()} for i in range(n)]
            said = ", ".join(f"'{k}' {len(v)}" for k, v in data.items())
            what = f"columns of different lengths ({said}): every column needs one value a row"
        elif "question" in data or "user_input" in data:
            what = "one record, not a list of them: wrap it in [ ]"
        else:
            what = "a JSON object must hold a list under 'samples' (or be a list of objects)"
        raise DataError([Problem(None, None, what)], str(path))
    if not isinstance(data, list):
        raise DataError(
            [Problem(None, None, f"expected a JSON list of objects, got {type(data).__name__}")],
            str(path),
        )
    return data


def _repeated_key(exc: DuplicateKey) -> Problem:
    """A key repeated in a JSON document, at the row it is in when it is in a record."""
    path, row = exc.path, None
    if path and isinstance(path[0], int):  # [ {...}, ... ]
        path, row = path[1:], path[0] + 1
    elif len(path) > 1 and path[0] in _RECORD_KEYS and isinstance(path[1], int):
        path, row = path[2:], path[1] + 1  # {"samples": [ {...}, ... ]}
    return Problem(row, dotted([*path, exc.key]), exc.reason())


def frame_records(frame: Any, source: str) -> list[dict[str, Any]]:
    """A pandas DataFrame's rows as dicts, its named index levels as columns.

    Why: ``to_dict(orient="records")`` keeps one of two columns of the same name (the first
    silently lost, a UserWarning at most) and drops the index, so ``df.set_index("question_id")``
    lost every id (and a question index gave "question: required field is missing"). A
    Parquet file keeps a named index as a column (``_parquet``); a DataFrame does the same.
    """
    repeated = sorted({str(c) for c in frame.columns[frame.columns.duplicated()]})
    names = [n for n in frame.index.names if n is not None]
    clash = sorted(str(n) for n in names if n in frame.columns)
    problems = [
        Problem(None, name, f"the DataFrame has two columns named '{name}': rename or drop one")
        for name in repeated
    ] + [
        Problem(None, name, f"'{name}' is both the DataFrame's index and a column: drop one")
        for name in clash
    ]
    if problems:
        raise DataError(problems, source)
    if names:
        frame = frame.reset_index(level=names)
    return frame.to_dict(orient="records")
