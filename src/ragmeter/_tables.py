"""Records of the inputs that are tables rather than lines: a JSON document, and whatever
``ragmeter.load`` is given in memory (rows, a dict of columns, a DataFrame, an Arrow table).

Why one place for the in-memory inputs: each was recognised by a guess of its own (a class
named ``DataFrame`` with ``to_dict`` was taken for pandas, so a polars DataFrame crashed with
``AttributeError: 'list' object has no attribute 'duplicated'``), and a generator, a dict of
columns or a pyarrow Table was refused although a file of the same rows is read. Each kind
is now read by what it offers, in the order that keeps values as stored: Arrow (``to_arrow()``,
the Arrow PyCapsule ``__arrow_c_stream__``) before pandas (``to_pandas()``), which turns an
integer column with a gap into floats (see ``_parquet``). Anything else is refused with the
list of what is accepted.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ragmeter._json_rows import DuplicateKey, dotted, parse_json
from ragmeter._parquet import arrow_records
from ragmeter.errors import DataError, Problem

ACCEPTED = (
    "a file path (str or pathlib.Path: .jsonl, .json, .csv, .tsv, .parquet), a list, tuple or "
    "iterator of dicts or Samples, a dict of columns, a pandas or polars DataFrame, a pyarrow "
    "Table, a datasets.Dataset, or any table offering to_arrow(), to_pandas() or the Arrow "
    "PyCapsule interface (__arrow_c_stream__)"
)
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
    return document_records(data, str(path))


def _repeated_key(exc: DuplicateKey) -> Problem:
    """A key repeated in a JSON document, at the row it is in when it is in a record."""
    path, row = exc.path, None
    if path and isinstance(path[0], int):  # [ {...}, ... ]
        path, row = path[1:], path[0] + 1
    elif len(path) > 1 and path[0] in _RECORD_KEYS and isinstance(path[1], int):
        path, row = path[2:], path[1] + 1  # {"samples": [ {...}, ... ]}
    return Problem(row, dotted([*path, exc.key]), exc.reason())


def document_records(data: Any, source: str, what: str = "a JSON object") -> list[Any]:
    """The records of a parsed JSON document or a dict: a list as it is, a list under
    'samples' (or 'data', 'rows', 'records'), or columns of one value a row."""
    if isinstance(data, Mapping):
        for key in _RECORD_KEYS:
            if isinstance(data.get(key), list):
                return list(data[key])
        columns = {k: _column(v) for k, v in data.items()}
        if columns and all(v is not None for v in columns.values()):
            lengths = {len(v) for v in columns.values() if v is not None}
            if len(lengths) == 1:
                n = lengths.pop()
                return [{k: v[i] for k, v in columns.items() if v is not None} for i in range(n)]
            said = ", ".join(f"'{k}' {len(v)}" for k, v in columns.items() if v is not None)
            why = f"columns of different lengths ({said}): every column needs one value a row"
        elif "question" in data or "user_input" in data:
            why = "one record, not a list of them: wrap it in [ ]"
        elif data and all(_is_hf_dataset(v) for v in data.values()):
            why = (
                f"a dict of datasets ({', '.join(map(str, data))}): give one of them, "
                f"e.g. data[{next(iter(data))!r}]"
            )
        else:
            why = (
                f"{what} must hold a list of records under 'samples', or map column names "
                "to lists of one value a row"
            )
        raise DataError([Problem(None, None, why)], source)
    if not isinstance(data, list):
        raise DataError(
            [Problem(None, None, f"expected a JSON list of objects, got {type(data).__name__}")],
            source,
        )
    return data


def _column(value: Any) -> list[Any] | None:
    """A column's values as a list (a list, a tuple, a numpy array), else None."""
    if isinstance(value, list):
        return value
    if isinstance(value, tuple):
        return list(value)
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and not isinstance(value, (str, bytes)):
        out = tolist()
        return out if isinstance(out, list) else None
    return None


def memory_records(data: Any, source: str | None) -> tuple[list[Any], str]:
    """The records of in-memory data, and the name its problems are reported under; a
    DataError naming what is accepted for anything else."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        raise _unsupported(data, "bytes are no rows: give the file's path as str or pathlib.Path")
    if _is_hf_dataset(data):
        return list(data), source or "datasets.Dataset"
    pd = sys.modules.get("pandas")  # a pandas DataFrame can only come from a loaded pandas
    if pd is not None and isinstance(data, pd.DataFrame):
        return frame_records(data, source or "DataFrame"), source or "DataFrame"
    name = source or _type_name(data)
    if isinstance(data, Mapping):
        return document_records(data, name, "a dict"), name
    if pd is not None and isinstance(data, pd.Series):
        raise _unsupported(data, "one column: give a DataFrame of the columns")
    table = _arrow_table(data, name)
    if table is not None:
        return arrow_records(table, name), name
    if callable(getattr(data, "to_pandas", None)):
        frame = _converted(data, "to_pandas", name)
        if pd is None or not isinstance(frame, pd.DataFrame):
            raise _unsupported(data, f"its to_pandas() gave {type(frame).__name__}")
        return frame_records(frame, name), name
    if isinstance(data, Sequence) and not isinstance(data, str):
        return list(data), source or "list of records"
    if isinstance(data, io.IOBase):  # iterates as lines of text: "row 1: got str", one a line
        raise _unsupported(data, "an open file: give its path as str or pathlib.Path")
    if isinstance(data, Iterator):
        return list(data), source or "iterator of records"
    raise _unsupported(data)


def _arrow_table(data: Any, name: str) -> Any:
    """``data`` as a pyarrow Table or RecordBatch when it is one or offers one, else None."""
    pa = sys.modules.get("pyarrow")
    if pa is not None and isinstance(data, (pa.Table, pa.RecordBatch)):
        return data
    offers = callable(getattr(data, "to_arrow", None))
    if not offers and not hasattr(data, "__arrow_c_stream__"):
        return None
    import pyarrow as pa

    if offers:
        table = _converted(data, "to_arrow", name)
    else:
        table = _converted(data, "__arrow_c_stream__", name, pa.table)
    if isinstance(table, pa.RecordBatchReader):
        table = table.read_all()
    if not isinstance(table, (pa.Table, pa.RecordBatch)):
        raise _unsupported(data, f"its to_arrow() gave {type(table).__name__}, not a pyarrow Table")
    return table


def _converted(data: Any, method: str, name: str, how: Any = None) -> Any:
    """``data.method()`` (or ``how(data)``), any exception it raises said as a DataError."""
    try:
        return how(data) if how is not None else getattr(data, method)()
    except Exception as exc:  # a third-party conversion: its own exception types
        said = f"{type(exc).__name__}: {exc}"
        raise DataError(
            [Problem(None, None, f"cannot read it as a table through {method}: {said}")], name
        ) from exc


def _type_name(data: Any) -> str:
    """``polars.DataFrame``, ``pyarrow.Table``: the type with its package's name."""
    package = type(data).__module__.split(".")[0]
    name = type(data).__name__
    return name if package == "builtins" else f"{package}.{name}"


def _unsupported(data: Any, why: str = "") -> DataError:
    said = f"unsupported input type {_type_name(data)}" + (f" ({why})" if why else "")
    return DataError([Problem(None, None, f"{said}: give {ACCEPTED}")])


def _is_hf_dataset(obj: Any) -> bool:
    return type(obj).__module__.startswith("datasets") and hasattr(obj, "features")


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
