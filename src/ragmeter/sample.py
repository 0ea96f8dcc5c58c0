"""The evaluated turn of a RAG pipeline, column aliases, and row validation.

Validation never stops at the first problem: every row is checked and every problem is
returned with its row number and field, so a user fixes a file in one pass.
"""

from __future__ import annotations

import math
import sys
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ragmeter._perf import gc_paused
from ragmeter._sample_checks import (
    as_flag,
    float_id,
    missing_question,
    surrogate_in,
    unwritable_in,
)
from ragmeter.errors import DataError, Problem

LIST_FIELDS = (
    "contexts",
    "context_ids",
    "reference_answers",
    "reference_contexts",
    "reference_context_ids",
)
ID_LIST_FIELDS = ("context_ids", "reference_context_ids")
TEXT_FIELDS = ("question", "answer")
FIELDS = (
    "question",
    "question_id",
    "metadata",
    "contexts",
    "context_ids",
    "answer",
    "reference_answers",
    "reference_contexts",
    "reference_context_ids",
    "is_answerable",
)

# Column names of ragas (current and v1) and Unitxt, mapped to ours.
ALIASES: dict[str, str] = {
    "user_input": "question",
    "query": "question",
    "response": "answer",
    "prediction": "answer",
    "retrieved_contexts": "contexts",
    "contexts_id": "context_ids",  # Unitxt's spelling
    "contexts_ids": "context_ids",
    "context_id": "context_ids",
    "retrieved_context_ids": "context_ids",
    "reference": "reference_answers",
    "ground_truth": "reference_answers",
    "ground_truths": "reference_answers",
    "reference_answer": "reference_answers",
    "is_answerable_label": "is_answerable",
    "metadata_field": "metadata",
    "id": "question_id",
}
# Aliases whose value is one string where we keep a list.
SCALAR_TO_LIST = {"reference", "ground_truth", "reference_answer"}


class Sample(BaseModel):
    """One evaluated turn: inputs, pipeline outputs and optional references."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str
    question_id: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    contexts: list[str] | None = None
    context_ids: list[str] | None = None
    answer: str | None = None
    reference_answers: list[str] | None = None
    reference_contexts: list[str] | None = None
    reference_context_ids: list[str] | None = None
    is_answerable: bool | None = None

    def has(self, field: str) -> bool:
        """True when the field is present and non-empty (an empty answer counts as present)."""
        value = getattr(self, field)
        if value is None:
            return False
        if isinstance(value, list):
            return len(value) > 0
        return True


_PLAIN = frozenset({str, list, dict, bool, int})  # floats may be NaN: checked the long way


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    # pandas.NA / NaT can only come from a loaded pandas: importing it here would add
    # about 0.3 s to every evaluate() of plain dicts.
    pd = sys.modules.get("pandas")
    return pd is not None and (value is pd.NA or value is pd.NaT)


def _to_plain(value: Any) -> Any:
    """numpy arrays and scalars (from Parquet / pandas) become Python values."""
    tolist = getattr(value, "tolist", None)
    if tolist is not None and not isinstance(value, (str, bytes)):
        return tolist()
    return value


def _check_str(
    value: Any, row: int, field: str, problems: list[Problem], line: int | None, allow_empty: bool
) -> str | None:
    if not isinstance(value, str):
        problems.append(
            Problem(
                row, field, f"expected a string, got {type(value).__name__} ({_short(value)})", line
            )
        )
        return None
    if not allow_empty and not value.strip():
        problems.append(Problem(row, field, "must not be empty", line))
        return None
    return value


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _check_list(
    value: Any, row: int, field: str, problems: list[Problem], line: int | None, ids: bool
) -> list[str] | None:
    if isinstance(value, str):
        problems.append(
            Problem(
                row,
                field,
                "expected a list of strings, got a single string "
                "(wrap it in a list, or in CSV write a JSON array)",
                line,
            )
        )
        return None
    if not isinstance(value, (list, tuple)):
        problems.append(
            Problem(
                row,
                field,
                f"expected a list of strings, got {type(value).__name__} ({_short(value)})",
                line,
            )
        )
        return None
    if type(value) is list and all(type(item) is str for item in value):
        return list(value)  # the common case, as the loop below would return it
    out: list[str] = []
    for i, item in enumerate(value):
        item = _to_plain(item)
        if ids and isinstance(item, int) and not isinstance(item, bool):
            item = str(item)
        if not isinstance(item, str):
            problems.append(
                Problem(
                    row,
                    f"{field}[{i}]",
                    f"expected a string, got {type(item).__name__} ({_short(item)})"
                    + (float_id(item) if ids else ""),
                    line,
                )
            )
            return None
        out.append(item)
    return out


def canonical_columns(
    record: Mapping[str, Any], row: int, problems: list[Problem], line: int | None = None
) -> dict[str, Any]:
    """Rename alias columns; unknown columns are kept in metadata so results can be sliced."""
    out: dict[str, Any] = {}
    origin: dict[str, str] = {}
    extra: dict[str, Any] = {}
    for key, raw in record.items():
        if not isinstance(key, str):
            problems.append(Problem(row, str(key), "column names must be strings", line))
            continue
        if type(raw) in _PLAIN:  # JSON's own types: already plain, never missing
            value = raw
        else:
            value = _to_plain(raw)
            if _is_missing(value):
                continue
        target = key if key in FIELDS else ALIASES.get(key)
        if target in (None, "metadata") and (bad := unwritable_in(value, key)):
            problems.append(Problem(row, bad[0], bad[1], line))
            continue
        if target is None:
            extra[key] = value
            continue
        if key in SCALAR_TO_LIST and isinstance(value, str):
            value = [value]
        elif key == "metadata_field" and isinstance(value, str):
            value = {"metadata_field": value}  # Unitxt's metadata is one string
        if target in out and out[target] != value:
            problems.append(
                Problem(
                    row,
                    key,
                    f"both '{origin[target]}' and '{key}' are given "
                    f"and differ; they mean the same field '{target}'",
                    line,
                )
            )
            continue
        out[target] = value
        origin[target] = key
    if extra:
        meta = out.get("metadata")
        if meta is None:
            out["metadata"] = dict(extra)
        elif isinstance(meta, dict):
            for key in (k for k in extra if k in meta and meta[k] != extra[k]):
                problems.append(
                    Problem(
                        row,
                        key,
                        f"both column '{key}' and '{origin['metadata']}.{key}' are given "
                        "and differ; an unknown column is kept in metadata under its name",
                        line,
                    )
                )
            out["metadata"] = {**extra, **meta}
    return out


def validate_record(
    record: Mapping[str, Any],
    row: int,
    problems: list[Problem],
    line: int | None = None,
    check_text: bool = True,
) -> Sample | None:
    """Check one raw record; append every problem found; return the Sample when valid.
    ``check_text=False`` skips the search for lone surrogates (``_sample_checks``), for
    records read from text decoded as UTF-8, which cannot hold one."""
    if not isinstance(record, Mapping):
        problems.append(
            Problem(
                row,
                None,
                f"expected an object with named fields, got {type(record).__name__}",
                line,
            )
        )
        return None
    start = len(problems)
    data = canonical_columns(record, row, problems, line)
    clean: dict[str, Any] = {}

    if "question" not in data:
        problems.append(Problem(row, "question", missing_question(record), line))
    else:
        clean["question"] = _check_str(data["question"], row, "question", problems, line, False)

    if "question_id" in data:
        qid = data["question_id"]
        if isinstance(qid, int) and not isinstance(qid, bool):
            qid = str(qid)
        if float_id(qid):
            said = f"expected a string, got float ({qid!r}){float_id(qid)}"
            problems.append(Problem(row, "question_id", said, line))
        else:
            clean["question_id"] = _check_str(qid, row, "question_id", problems, line, False)

    if "answer" in data:
        clean["answer"] = _check_str(data["answer"], row, "answer", problems, line, True)

    for field in LIST_FIELDS:
        if field in data:
            clean[field] = _check_list(
                data[field], row, field, problems, line, ids=field in ID_LIST_FIELDS
            )

    if "metadata" in data:
        meta = data["metadata"]
        if not isinstance(meta, dict):
            problems.append(
                Problem(
                    row, "metadata", f"expected an object (dict), got {type(meta).__name__}", line
                )
            )
        else:
            clean["metadata"] = meta

    if "is_answerable" in data:
        flag = as_flag(data["is_answerable"])
        if flag is None:
            problems.append(
                Problem(
                    row,
                    "is_answerable",
                    f"expected true or false, got {_short(data['is_answerable'])}",
                    line,
                )
            )
        else:
            clean["is_answerable"] = flag

    for ids_field, text_field in (
        ("context_ids", "contexts"),
        ("reference_context_ids", "reference_contexts"),
    ):
        ids, texts = clean.get(ids_field), clean.get(text_field)
        if ids is not None and texts is not None and len(ids) != len(texts):
            problems.append(
                Problem(
                    row,
                    ids_field,
                    f"has {len(ids)} ids but '{text_field}' has "
                    f"{len(texts)} texts; they must pair up one to one",
                    line,
                )
            )

    if check_text and (found := surrogate_in(clean, "")):
        problems.append(Problem(row, found[0], found[1], line))
    return None if len(problems) > start else _sample(clean, row)


def _sample(clean: dict[str, Any], row: int) -> Sample:
    """The Sample of a valid record, its question_id generated when it has none."""
    if "question_id" not in clean:
        clean["question_id"] = (
            f"q{row:05d}-{uuid.uuid5(uuid.NAMESPACE_OID, clean['question']).hex[:8]}"
        )
    return Sample(**{k: v for k, v in clean.items() if v is not None})


def validate_records(
    records: Iterable[Mapping[str, Any]],
    source: str | None = None,
    lines: list[int] | None = None,
    *,
    rows: list[int] | None = None,
    check_text: bool = True,
) -> list[Sample]:
    """Validate all rows; raise DataError listing every problem, or return the samples.

    ``rows`` gives each record's row number when some rows of the source were dropped
    earlier (unparseable lines); by default rows are numbered from 1. ``check_text``: see
    ``validate_record``. A record may be a Sample already: a list of Samples (or of Samples
    and dicts) is checked for repeated question_ids too, which would pair scores with the
    wrong rows in a comparison.
    """
    problems: list[Problem] = []
    samples: list[Sample] = []
    seen: dict[str, int] = {}
    n = 0
    with gc_paused():
        for i, record in enumerate(records):
            n += 1
            row = rows[i] if rows else i + 1
            line = lines[i] if lines else None
            if isinstance(record, Sample):  # already valid; its question_id checked below
                sample: Sample | None = record
            else:
                sample = validate_record(record, row, problems, line, check_text)
            if sample is None:
                continue
            first = seen.get(sample.question_id)
            if first is not None:
                problems.append(
                    Problem(
                        row,
                        "question_id",
                        f"duplicate question_id '{sample.question_id}' (first used in row {first})",
                        line,
                    )
                )
                continue
            seen[sample.question_id] = row
            samples.append(sample)
    if n == 0:
        problems.append(Problem(None, None, "no rows: the data is empty"))
    if problems:
        raise DataError(problems, source)
    return samples
