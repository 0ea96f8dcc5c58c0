"""Checks of raw values that validation shares: yes/no flags, and text that cannot be
written (lone UTF-16 surrogates).

Why: ``json.loads`` (and Python code building rows) accepts ``"\\ud83d"``, half of an
escaped emoji pair whose other half was cut off. Such a string is no Unicode text: it cannot
be encoded as UTF-8, so a run scored every row and then failed writing scores.jsonl
("internal error: UnicodeEncodeError", exit 1), every score lost, or failed while
generating the row's question_id. Found at validation, it is a DataError naming the row and
the field, before any work. ASCII strings (most) are cleared by ``str.isascii`` at C speed,
others by encoding them.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import Any

import pydantic_core

__all__ = [
    "as_flag",
    "float_id",
    "line_surrogate",
    "missing_question",
    "surrogate",
    "surrogate_in",
    "unwritable_in",
]

_SURROGATE = re.compile("[\ud800-\udfff]")


def surrogate(text: str) -> str | None:
    """What is wrong with ``text`` when it holds a lone surrogate, else None."""
    if text.isascii():
        return None
    try:  # 6 times faster than the search below on Latin text, which runs only on failure
        text.encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        return None
    found = _SURROGATE.search(text)
    if found is None:
        return None
    return (
        f"holds a lone surrogate {found.group()!r} at character {found.start()}, which is not "
        "text and cannot be written as UTF-8 (half of an escaped pair such as "
        "\\ud83d\\ude00: fix the escaping where the data is made)"
    )


def surrogate_in(value: Any, where: str) -> tuple[str, str] | None:
    """(where, what) of the first lone surrogate in a string, list or dict (keys included),
    searched depth first, or None."""
    if isinstance(value, str):
        said = surrogate(value)
        return (where, said) if said else None
    if isinstance(value, Mapping):
        for key, item in value.items():
            inner = f"{where}.{key}" if where else str(key)
            if isinstance(key, str) and surrogate(key):
                return inner, f"a key that {surrogate(key)}"
            found = surrogate_in(item, inner)
            if found:
                return found
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found = surrogate_in(item, f"{where}[{i}]")
            if found:
                return found
    return None


_JSON_LEAVES = (str, int, float, bool, type(None))


def unwritable_in(value: Any, where: str) -> tuple[str, str] | None:
    """(where, what) of the first value in a pass-through column (or ``metadata``) that
    scores.jsonl cannot hold, or None. Why: such a value (an ``object()``, a pandas Period or
    Interval) passed validation and crashed hashing the input with pydantic's
    PydanticSerializationError; what pydantic writes (dates, Decimal, bytes, sets) passes."""
    if isinstance(value, _JSON_LEAVES):
        return None
    if isinstance(value, Mapping):
        items: Any = ((f"{where}.{key}", item) for key, item in value.items())
    elif isinstance(value, (list, tuple)):
        items = ((f"{where}[{i}]", item) for i, item in enumerate(value))
    else:
        try:
            pydantic_core.to_json(value)
        except (pydantic_core.PydanticSerializationError, ValueError):
            return where, (
                f"holds a value of type {type(value).__name__}, which cannot be written to "
                "scores.jsonl: give a string, number, bool, list or dict"
            )
        return None
    for inner, item in items:
        if found := unwritable_in(item, inner):
            return found
    return None


def line_surrogate(line: str, record: Any) -> tuple[str, str] | None:
    """``surrogate_in`` for a record parsed from a JSON line: JSON writes a surrogate only as
    a ``\\u`` escape (raw, it is not UTF-8), so a line without one needs no search."""
    return surrogate_in(record, "") if "\\u" in line else None


_TRUE, _FALSE = frozenset({"true", "1", "yes"}), frozenset({"false", "0", "no"})


def as_flag(value: Any) -> bool | None:
    """A yes/no field as a bool, None when it is not one.

    Why so lenient: the same data arrives as CSV (every cell a string), as
    ``pd.read_csv(..., dtype=str)``, as 0/1 integer columns (1.0/0.0 once pandas has seen a
    gap), or as JSON booleans; each input path must accept what the others do. Accepted:
    bools, 0 and 1, and true/false/yes/no/1/0 in any case.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        low = value.strip().lower()
        if low in _TRUE or low in _FALSE:
            return low in _TRUE
    return None


_QUESTION_NAMES = ("question", "user_input", "query")
# Other tools' names for the question, not read as it (see missing_question).
_FOREIGN_QUESTION = ("input", "inputs", "prompt", "questions", "user_query")


def missing_question(record: Mapping[str, Any]) -> str:
    """What to say of a row without a question: which of its columns looks like one.

    Why: a row exported by DeepEval (``input``), LangSmith (``inputs: {"question": ...}``)
    or with a misspelt header (``Question``, ``questions``) was refused as "required field
    is missing" in every row, with no word of the column the user thought was read."""
    said = "required field is missing (also accepted as 'user_input' or 'query')"
    for key, value in record.items():
        if isinstance(value, Mapping):
            inner = next((k for k in _QUESTION_NAMES if k in value), None)
            if inner is not None:
                return (
                    f"{said}; column '{key}' holds '{inner}', and nested fields are not "
                    "read: flatten them (pandas.json_normalize) or rename"
                )
    names = [key for key in record if isinstance(key, str)]
    near = [n for n in names if n.strip().lower() in _QUESTION_NAMES + _FOREIGN_QUESTION]
    near = near or difflib.get_close_matches("question", names, n=1, cutoff=0.75)
    if near:
        return f"{said}; column '{near[0]}' is not read as the question: rename it 'question'"
    return said


def float_id(value: Any) -> str:
    """What to add when an id is a whole float (``1.0``), else "". Why: pandas stores an
    integer column with a gap as floats, and writes them so to JSON and Parquet; "expected a
    string, got float (1.0)" did not say where the float came from or how to keep ids whole.
    Not read as "1": 1.0 may as well have been rounded from 1.4, and ids are not numbers."""
    if isinstance(value, float) and value.is_integer():
        return (
            ": pandas stores an integer column with a gap as floats; keep ids as strings, or "
            'as pandas\' nullable integers (df["question_id"].astype("Int64"))'
        )
    return ""
