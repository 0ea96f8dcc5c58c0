"""The questions given to an integration's ``collect``: checked the same way everywhere.

A question is a string, or a record holding ``question`` and what the sample should carry
besides the pipeline's output: ``question_id``, the references (``reference_answers``,
``reference_contexts``, ``reference_context_ids``, ``is_answerable``) and ``metadata``.
What the pipeline produces (``answer``, ``contexts``, ``context_ids``, or an alias of them
such as ``response`` or ``retrieved_contexts``) is captured from its run, so a record
giving one is a DataError before any call: letting either side win silently would score an
answer the pipeline never gave, or hide the one it gave. A reference answer goes under
``reference_answers`` (``reference`` and ``ground_truth`` are accepted too).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from ragmeter.errors import ConfigError, DataError, PipelineFailed, Problem
from ragmeter.redact import describe
from ragmeter.sample import ALIASES, FIELDS

CAPTURED = {
    "answer": "a reference answer goes under 'reference_answers'",
    "contexts": "reference passages go under 'reference_contexts'",
    "context_ids": "ids of the relevant passages go under 'reference_context_ids'",
}


def question_records(questions: Sequence[str | Mapping[str, Any]], what: str) -> list[dict]:
    """One record per question (a string becomes ``{"question": it}``); every problem at once.

    ``what`` names the pipeline in the messages ("the chain", "the query engine").
    """
    records: list[dict[str, Any]] = []
    problems: list[Problem] = []
    for row, q in enumerate(questions, 1):
        if not isinstance(q, (str, Mapping)):
            records.append({})
            problems.append(
                Problem(row, None, f"expected a string or a record, not {type(q).__name__}")
            )
            continue
        rec = {"question": q} if isinstance(q, str) else dict(q)
        records.append(rec)
        if not isinstance(rec.get("question"), str):
            problems.append(Problem(row, "question", "needs a 'question' string"))
        for key in rec:
            target = key if key in FIELDS else ALIASES.get(key)
            if target in CAPTURED:
                problems.append(
                    Problem(
                        row,
                        key,
                        f"'{key}' is the {target} {what} produces, captured from its run, so it "
                        f"cannot be given; {CAPTURED[target]}",
                    )
                )
    if problems:
        raise DataError(problems, "questions")
    return records


OnError = Literal["raise", "skip"]


def check_on_error(on_error: str) -> None:
    if on_error not in ("raise", "skip"):
        raise ConfigError(f"on_error must be 'raise' or 'skip', not {on_error!r}")


def finish(
    samples: list[Any], failures: list[tuple[str, BaseException]], n: int, what: str, on_error: str
) -> list[Any]:
    """The samples of the questions that ran; the failed ones said, never silently dropped.

    ``raise``: PipelineFailed carrying the samples and failures (nothing already answered is
    lost); ``skip``: a RuntimeWarning naming how many failed and the first one."""
    if not failures:
        return samples
    question, exc = failures[0]
    more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
    head = f"{len(failures)} of {n} questions raised in {what}: {question!r}: {describe(exc)}{more}"
    kept = f"{len(samples)} sample{'' if len(samples) == 1 else 's'}"
    if on_error == "skip":
        warnings.warn(f"{head}; left out, {kept} kept", RuntimeWarning, stacklevel=3)
        return samples
    raise PipelineFailed(
        f"{head}. Every question was asked: the others' {kept} are on this error's .samples "
        "and the failures on .failures; collect(..., on_error='skip') returns them with a "
        "warning instead",
        samples,
        failures,
    ) from exc
