"""Reading a run's scores.jsonl: its samples and score columns, in one pass when it is clean.

Why: ``runs.load_run`` parsed every record into a dict, held them all while the score columns
and the samples were built, and gave each Sample its own set of the fields given: two runs
of a million samples took 4.3 GiB to compare. ``read_clean`` builds the samples and the
columns (arrays) as the lines are read, dropping each record once read, and every Sample it
builds shares one fields set. Anything unusual (a line jiter refuses, a carriage return, a
value or status the checks would look at, a duplicate id, a field a Sample validates) makes
it give up: the records are then read whole (``read_records``) and checked as before, so a
file with a problem is named with the same lines and the same words.
"""

from __future__ import annotations

import json
import math
from array import array
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import jiter
import numpy as np
from pydantic import ValidationError

from ragmeter._json_rows import loads
from ragmeter.errors import DataError, Problem
from ragmeter.metrics.base import Score
from ragmeter.metrics.column import STATUSES
from ragmeter.run_aggregates import read_column
from ragmeter.sample import Sample

# Keys of a scores.jsonl record that are not metric values.
RECORD_KEYS = frozenset(
    {"question_id", "question", "answer", "contexts", "context_ids", "metadata"}
    | {"status", "reasons", "details"}
)

_CUT = (
    "; the file ends inside this record, cut short (a copy or a disk that filled up?): "
    "re-run the `ragmeter evaluate` command that wrote it, with the same -o, to write it whole"
)


def read_records(path: Path, problems: list[Problem]) -> list[dict[str, Any]]:
    """The records of scores.jsonl, each with its line number under ``_line``; a file that
    cannot be read or is not UTF-8 is a problem (it was an internal error, exit 1)."""
    try:
        return _records(path, problems)
    except OSError as exc:
        problems.append(Problem(None, path.name, f"cannot be read: {exc.strerror or exc}"))
    except UnicodeDecodeError as exc:
        problems.append(Problem(None, path.name, f"not UTF-8 text: {exc.reason}"))
    return []


def _records(path: Path, problems: list[Problem]) -> list[dict[str, Any]]:
    with path.open("rb") as raw:
        fast = _fast_records(raw)
    if fast is not None:
        return fast
    rows: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                row = loads(line.rstrip("\r\n"))
            except json.JSONDecodeError as exc:
                cut = "" if line.endswith("\n") else _CUT
                said = f"scores.jsonl: invalid JSON: {exc.msg} (column {exc.colno}){cut}"
                problems.append(Problem(lineno, None, said))
                continue
            if not isinstance(row, dict) or "question_id" not in row:
                problems.append(Problem(lineno, "question_id", "a record needs a question_id"))
                continue
            rows.append({**row, "_line": lineno})
    return rows


def _fast_records(lines: Iterable[bytes]) -> list[dict[str, Any]] | None:
    """The records of a well-formed scores.jsonl parsed by jiter (pydantic-core's parser,
    values as ``json.loads`` gives them), or None for anything unusual: a carriage return, a
    line jiter refuses (invalid JSON, not UTF-8, a lone surrogate, a number Python does not
    read), a record without question_id. Why: ``json.loads`` line by line was a third of
    ``load_run`` on 200k rows; the old reading (``_records``) still says what is wrong."""
    rows: list[dict[str, Any]] = []
    for lineno, line in enumerate(lines, start=1):  # a binary file's lines end at b"\n" only
        if b"\r" in line:  # text mode splits lines there too: left to the old reading
            return None
        if not line.strip():
            continue
        try:
            row = jiter.from_json(line, cache_mode="keys")
        except ValueError:
            return None
        if not isinstance(row, dict) or "question_id" not in row:
            return None
        row["_line"] = lineno
        rows.append(row)
    return rows


def metric_names(summary: dict[str, Any], rows: list[dict[str, Any]]) -> list[str]:
    """summary.json's metrics, else every key of the records that is not a RECORD_KEY."""
    listed = summary.get("metrics")
    if isinstance(listed, dict) and listed:
        return list(listed)
    names: list[str] = []
    for row in rows:
        for key in row:
            if key not in RECORD_KEYS and key != "_line" and key not in names:
                names.append(key)
    return names


_ALL_STR = frozenset({str})
_GIVEN = frozenset({"question_id", "question", "answer", "contexts", "context_ids", "metadata"})
_UNREAD = {f: info.default for f, info in Sample.model_fields.items() if f not in _GIVEN}
# One fields set for every Sample built here. Safe because a Sample is frozen (assignment
# raises) and pydantic's model_copy and copy.copy copy the set before updating it; a frozenset
# is not: model_copy(update=...) calls its ``update``. Each set of its own was 472 bytes.
_GIVEN_SET = set(_GIVEN)


def sample(row: dict[str, Any]) -> Sample:
    """The Sample of a record; DataError naming its line when a field is of another type."""
    contexts = row.get("contexts")
    ids = row.get("context_ids")
    meta = row.get("metadata")
    fields = {
        "question_id": str(row["question_id"]),
        "question": str(row.get("question") or ""),
        "answer": row.get("answer"),
        "contexts": list(contexts) if isinstance(contexts, list) else None,
        "context_ids": [str(i) for i in ids] if isinstance(ids, list) else None,
        "metadata": dict(meta) if isinstance(meta, dict) else {},
    }
    built = _plain(fields)
    if built is not None:
        return built
    try:
        return Sample(**fields)
    except ValidationError as exc:  # "answer": 5 was pydantic's error, naming no row
        where = ".".join(map(str, exc.errors()[0]["loc"]))
        said = f"scores.jsonl: {exc.errors()[0]['msg']} (was the file edited by hand?)"
        raise DataError([Problem(row.get("_line"), where, said)]) from None


def _plain(fields: dict[str, Any]) -> Sample | None:
    """The Sample of ``fields`` built unvalidated when each is of the type the model declares,
    else None. Why: validating 200k Samples was a fifth of load_run."""
    answer, contexts = fields["answer"], fields["contexts"]
    if (answer is None or type(answer) is str) and (
        contexts is None or {*map(type, contexts)} <= _ALL_STR
    ):
        return Sample.model_construct(_fields_set=_GIVEN_SET, **fields, **_UNREAD)
    return None


class _Unusual(Exception):
    """A record ``read_clean`` leaves to the reading that names problems."""


class _Metric:
    """One metric's values, said statuses, reasons and details as records are read."""

    __slots__ = ("details", "keys", "nulls", "raw", "reasons", "said", "shapes")

    def __init__(self, before: int, shapes: dict[tuple[str, ...], tuple[str, ...]]) -> None:
        self.raw = array("d", [math.nan]) * before  # rows read before this metric was seen
        self.said = bytearray(before)
        self.nulls = before
        self.reasons: list[Any] | None = None
        # a details object as its keys (one tuple for all details of those keys, from
        # ``shapes``) and its values: two tuples take a third of what a small dict takes
        self.keys: list[tuple[str, ...] | None] | None = None
        self.details: list[tuple[Any, ...] | None] | None = None
        self.shapes = shapes

    def add(self, row: dict[str, Any], name: str, n: int, marks: tuple[Any, Any, Any]) -> None:
        value = row.get(name)
        if value is None:
            self.raw.append(math.nan)
            self.nulls += 1
        elif type(value) is float:
            self.raw.append(value)
        else:  # an int, a string: the checks say what they make of it
            raise _Unusual
        said, reasons, details = marks
        self.said.append(_CODES[said[name]] if said and name in said else 0)
        reason = reasons.get(name) if reasons else None
        if reason is not None and self.reasons is None:
            self.reasons = [None] * n
        if self.reasons is not None:
            self.reasons.append(reason)
        detail = details.get(name) if details else None
        if detail and self.keys is None:
            self.keys, self.details = [None] * n, [None] * n
        if self.keys is not None and self.details is not None:
            keys = tuple(detail) if detail else None  # {} reads as null does: no details
            self.keys.append(self.shapes.setdefault(keys, keys) if keys else None)
            self.details.append(tuple(detail.values()) if keys else None)

    def column(self) -> Sequence[Score]:
        raw = np.frombuffer(self.raw, dtype=np.float64)
        if np.count_nonzero(np.isnan(raw)) != self.nulls or np.isinf(raw).any():
            raise _Unusual  # a NaN or an infinity written as a value: the checks name it
        said = np.frombuffer(self.said, dtype=np.uint8).astype(np.int8)
        details = None if self.keys is None else (self.keys, self.details)
        return read_column(raw, said, self.reasons, details)


_CODES = {name: code for code, name in enumerate(STATUSES)}  # the codes of a ScoreColumn


def _marks(row: dict[str, Any]) -> tuple[Any, Any, Any]:
    """The record's status, reasons and details objects; _Unusual when one is not an object,
    a status is none of STATUSES or a details entry is neither an object nor null."""
    marks = row.get("status"), row.get("reasons"), row.get("details")
    for mark in marks:
        if mark is not None and type(mark) is not dict:
            raise _Unusual
    said, _, details = marks
    if said and any(type(s) is not str or s not in _CODES for s in said.values()):
        raise _Unusual
    if details and any(d is not None and type(d) is not dict for d in details.values()):
        raise _Unusual
    return marks


def read_clean(
    path: Path, listed: list[str]
) -> tuple[list[Sample], list[str], dict[str, Sequence[Score]]] | None:
    """(samples, metrics, score columns) of a clean scores.jsonl read in one pass, or None
    when anything in it is unusual (see the module's docstring). ``listed``: summary.json's
    metrics, or [] to take every key of the records that is not a RECORD_KEY, in the order
    first seen."""
    if "_line" in listed:  # the old reading's key for a record's line: left to it
        return None
    try:
        with path.open("rb") as lines:
            return _read(lines, listed)
    except (OSError, _Unusual):
        return None


def _read(
    lines: Iterable[bytes], listed: list[str]
) -> tuple[list[Sample], list[str], dict[str, Sequence[Score]]] | None:
    shapes: dict[tuple[str, ...], tuple[str, ...]] = {}
    metrics = {name: _Metric(0, shapes) for name in listed}
    samples: list[Sample] = []
    hashes = array("q")
    for line in lines:
        if b"\r" in line:
            return None
        if not line.strip():
            continue
        try:
            row = jiter.from_json(line, cache_mode="all")
        except ValueError:
            return None
        if type(row) is not dict or "question_id" not in row:
            return None
        n = len(samples)
        marks = _marks(row)
        if not listed:
            for key in row:
                if key not in metrics and key not in RECORD_KEYS and key != "_line":
                    metrics[key] = _Metric(n, shapes)
            if any(mark and not metrics.keys() >= mark.keys() for mark in marks):
                return None  # a status (reason, details) of a metric whose value comes later
        for name, metric in metrics.items():
            metric.add(row, name, n, marks)
        meta = row.get("metadata")
        contexts, ids = row.get("contexts"), row.get("context_ids")
        fields = {  # as ``sample`` makes them; the record's own lists and dict: it is dropped
            "question_id": str(row["question_id"]),
            "question": str(row.get("question") or ""),
            "answer": row.get("answer"),
            "contexts": contexts if type(contexts) is list else None,
            "context_ids": [str(i) for i in ids] if type(ids) is list else None,
            "metadata": meta if type(meta) is dict else {},
        }
        built = _plain(fields)
        if built is None:
            return None
        samples.append(built)
        hashes.append(hash(built.question_id))
    ids = np.frombuffer(hashes, dtype=np.int64)
    ids.sort()  # in place: 8 bytes a sample where a set of the ids took 40 to 70
    if not samples or (ids[1:] == ids[:-1]).any():
        return None  # no records, or a duplicate id (or two ids of one hash): named the old way
    return samples, list(metrics), {name: m.column() for name, m in metrics.items()}
