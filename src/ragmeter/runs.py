"""Read a run back from its directory, so compare and report work on files as well as objects.

A run directory holds ``scores.jsonl`` (one record per sample, see
``EvaluationResult.records``), ``summary.json`` (aggregates, failures, notes, config) and,
from issue 11 on, ``run.json`` (the manifest: judge, modes, prompt versions, metric
definition versions). Older runs lack the sample keys in their records and the manifest:
they still load, with empty questions and an empty manifest.
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, get_args

from ragmeter import _repr
from ragmeter._json_rows import loads
from ragmeter._perf import gc_paused
from ragmeter._run_records import RECORD_KEYS as RECORD_KEYS  # keys of a record, not metrics
from ragmeter._run_records import metric_names, read_clean, read_records, sample
from ragmeter.errors import DataError, Problem, UnpairedRunsError
from ragmeter.io import stat_problem
from ragmeter.metrics.base import Score, Status
from ragmeter.result import EvaluationResult
from ragmeter.run_aggregates import check_values, run_aggregates, score_columns
from ragmeter.sample import Sample

STATUSES = get_args(Status)  # a score's status in a record ("ok" when none is given)
FINISHED = "complete"  # run.json's status once scores.jsonl and summary.json are written
_STATES = {
    "interrupted": "was interrupted (Ctrl-C)",
    "aborted": "was aborted",
    "crashed": "crashed",  # an unexpected error ended it: manifest.crash_recorded
    "running": "is still running, or was killed before it finished",
}


@dataclass
class Run:
    """One evaluation run: its result, its manifest (run.json, may be empty), where it came from."""

    result: EvaluationResult
    manifest: dict[str, Any] = field(default_factory=dict)
    source: str = "in-memory result"

    def __repr__(self) -> str:
        """``Run('runs/a', 25 samples, 3 metrics)``: where it came from and its counts. The
        dataclass default printed the whole result and the manifest (its settings too)."""
        source = _repr.quoted(self.source)
        n, m = len(self.result.samples), len(self.result.metrics)
        said = f"{_repr.plural(n, 'sample')}, {_repr.plural(m, 'metric')}"
        status = self.manifest.get("status") if isinstance(self.manifest, dict) else None
        if isinstance(status, str) and status != FINISHED:
            said += f", status {_repr.cell(status, 20)}"
        return f"Run({source}, {said})"

    def _repr_html_(self) -> str:
        """The result's table (``EvaluationResult._repr_html_``) under this run's line."""
        return f"<div>{html.escape(repr(self))}</div>\n" + self.result._repr_html_()

    @property
    def name(self) -> str:
        """The run directory's name: "." and "runs/a/.." are named as the directory they are
        (they were "", so compare said "B = b vs A = " and Markdown an empty code span)."""
        if self.source == "in-memory result":
            return self.source
        return Path(os.path.abspath(self.source)).name or self.source  # "/" is itself

    def unfinished(self) -> str | None:
        """Why this run may not be whole (its run.json says it did not complete), or None."""
        status, error = self.manifest.get("status"), self.manifest.get("error")
        if not isinstance(status, str) or status == FINISHED:
            return None
        said = _unfinished(Path(self.source), (status, error if isinstance(error, str) else None))
        return f"{said}. The scores read may be from an earlier run in {self.name}"

    def provenance(self) -> dict[str, Any]:
        """What decides comparability: summary.json's config, and run.json when present."""
        out: dict[str, Any] = {"config": dict(self.result.config)}
        if self.manifest:
            out["run"] = dict(self.manifest)
        return out


def as_run(run: Any, *, name: str | None = None) -> Run:
    """An EvaluationResult, a Run, or a path (run directory or its scores.jsonl) as a Run."""
    if isinstance(run, Run):
        return run
    if isinstance(run, EvaluationResult):
        manifest = getattr(run, "manifest", None) or {}
        return Run(run, dict(manifest), name or "in-memory result")
    if isinstance(run, (str, Path)):
        return load_run(run)
    raise DataError(
        [
            Problem(
                None,
                None,
                f"cannot read a run from {type(run).__name__}: give an EvaluationResult "
                "or the path of a run directory (scores.jsonl + summary.json)",
            )
        ]
    )


def _read_json(path: Path, problems: list[Problem]) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        problems.append(Problem(None, path.name, f"unreadable JSON: {exc}"))
        return {}
    except OSError as exc:  # a directory in its place, no permission: said, not "internal error"
        problems.append(Problem(None, path.name, f"cannot be read: {exc.strerror or exc}"))
        return {}
    if not isinstance(data, dict):
        problems.append(Problem(None, path.name, "expected a JSON object"))
        return {}
    return data


_SUMMARY_PARTS = {"config": dict, "usage": dict, "notes": list}


def _check_parts(summary: dict[str, Any], problems: list[Problem]) -> None:
    """A Problem for each of summary.json's ``config``, ``usage`` and ``notes`` that is not
    the object or list ragmeter writes there. Why: a run is rebuilt from them with
    ``dict(...)`` and ``list(...)``, so ``"config": "x"`` (an edit, or another tool's file)
    ended compare and report as an internal error, and ``"notes": "abc"`` became 3 notes."""
    for key, kind in _SUMMARY_PARTS.items():
        value = summary.get(key)
        if value is not None and not isinstance(value, kind):
            what = "an object" if kind is dict else "a list"
            said = f"'{key}' must be {what}, not {type(value).__name__} (was it edited?)"
            problems.append(Problem(None, "summary.json", said))


def _state(directory: Path) -> tuple[str, str | None] | None:
    """(status, error line) of the run.json in ``directory``; None when there is none."""
    try:
        doc = loads((directory / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("status"), str):
        return None
    error = doc.get("error")
    return doc["status"], error if isinstance(error, str) else None


def _unfinished(directory: Path, state: tuple[str, str | None] | None) -> str | None:
    """What a run directory whose run.json is not ``complete`` holds, and how to finish it.

    Why: an interrupted, aborted or crashed evaluate leaves run.json (status and the line it
    ended with) but no scores.jsonl, and "not a run directory" sent users looking for a path
    mistake when re-running the same command would resume the run from the call cache.
    """
    if state is None or state[0] == FINISHED:
        return None
    status, error = state
    what = _STATES.get(status, f"did not finish (status {status!r})")
    partial = directory / "scores.jsonl.partial"
    when = {
        "running": "once it has stopped, re-running",
        "crashed": "once the error is fixed, re-running",
    }.get(status, "re-running")
    return (
        f"not a finished run: the run in {directory} {what} (run.json: status {status!r}"
        + (f"; {error}" if error else "")
        + ")"
        + (f"; the rows it scored are in {partial}" if partial.exists() else "")
        + f". {when[0].upper()}{when[1:]} the same `ragmeter evaluate` command (same data, "
        "metrics and -o) resumes it"
    )


def _result(
    summary: dict[str, Any], scores_path: Path, source: str, problems: list[Problem]
) -> EvaluationResult:
    """The EvaluationResult of a run's summary.json and scores.jsonl; DataError naming all."""
    listed = summary.get("metrics") if isinstance(summary.get("metrics"), dict) else {}
    clean = None if problems else read_clean(scores_path, list(listed))
    samples, metrics, scores = clean or _checked(summary, scores_path, source, problems)
    config = dict(summary.get("config") or {})
    aggregates, edited = run_aggregates(listed, scores, config)
    return EvaluationResult(
        samples=samples,
        metrics=metrics,
        scores=scores,
        aggregates=aggregates,
        notes=[*([edited] if edited else []), *(summary.get("notes") or [])],
        usage=dict(summary.get("usage") or {}),
        config=config,
    )


def _checked(
    summary: dict[str, Any], scores_path: Path, source: str, problems: list[Problem]
) -> tuple[list[Sample], list[str], dict[str, Sequence[Score]]]:
    """(samples, metrics, scores) of a scores.jsonl ``read_clean`` gave up on, its records
    read whole and checked: DataError naming every problem with its line."""
    rows = read_records(scores_path, problems)
    seen: dict[str, int] = {}  # id -> its first line: the row named is the file's line
    for row in rows:  # (counting records named the wrong line after a blank one)
        qid = str(row["question_id"])
        if qid in seen:
            said = f"duplicate question_id '{qid}' (first used in row {seen[qid]})"
            problems.append(Problem(row["_line"], "question_id", said))
        seen.setdefault(qid, row["_line"])
    if not rows and not problems:
        problems.append(Problem(None, None, "scores.jsonl holds no records"))
    metrics = metric_names(summary, rows)
    check_values(rows, metrics, problems)
    if problems:
        raise DataError(problems, source)
    scores = score_columns(rows, metrics)
    try:
        samples = [sample(row) for row in rows]
    except DataError as exc:  # a field of another type than a Sample's, named by its row
        raise DataError(exc.problems, source) from None
    return samples, metrics, scores


def load_run(path: str | Path) -> Run:
    """Rebuild a run from its directory (or its scores.jsonl); DataError naming what is wrong."""
    if not isinstance(path, (str, os.PathLike)):  # None was pathlib's TypeError
        raise DataError(
            [Problem(None, None, f"a run is read from its directory's path, not {path!r}")]
        )
    path = Path(path).expanduser()  # as evaluate(out=) and report() read it
    if (unreachable := stat_problem(path)) is not None:  # a 256-byte name: not a traceback
        raise DataError([Problem(None, None, f"not a run directory: {path} ({unreachable})")])
    directory = path.parent if path.is_file() else path
    scores_path = path if path.is_file() else path / "scores.jsonl"
    source = str(directory)
    if not path.exists():
        raise DataError([Problem(None, None, f"not a run directory: {path} does not exist")])
    if path.is_file() and path.name != "scores.jsonl":
        raise DataError(
            [
                Problem(
                    None,
                    None,
                    f"not a run directory: {path} is a file (give the directory ragmeter "
                    "evaluate -o wrote, holding scores.jsonl / run.json; for input data, run "
                    "ragmeter evaluate on it first)",
                )
            ]
        )
    if not scores_path.exists():
        said = _unfinished(directory, _state(directory))
        raise DataError(
            [
                Problem(
                    None, None, said or f"not a run directory: {path} (no scores.jsonl / run.json)"
                )
            ]
        )
    problems: list[Problem] = []
    summary = _read_json(directory / "summary.json", problems)
    _check_parts(summary, problems)
    manifest = _read_json(directory / "run.json", problems)
    with gc_paused():  # a million acyclic dicts, lists and strings: see _perf
        result = _result(summary, scores_path, source, problems)
    # its result holds the run.json too: the gates' directions, mlflow's version read it there
    result.manifest, run = manifest, Run(result, manifest, source)
    unfinished = run.unfinished()  # scores.jsonl of an earlier run there, or of a partial one
    if unfinished:
        result.notes.insert(0, unfinished)
    return run


def pair_ids(a: Run, b: Run, intersect: bool) -> tuple[list[str], list[str], list[str]]:
    """(paired ids in A's order, ids only in A, ids only in B); UnpairedRunsError naming
    the ids that do not pair unless ``intersect``, and always when none pair."""
    ids_a = [s.question_id for s in a.result.samples]
    ids_b = {s.question_id for s in b.result.samples}
    set_a = set(ids_a)
    only_a = [q for q in ids_a if q not in ids_b]
    only_b = sorted(ids_b - set_a)
    if (only_a or only_b) and not intersect:
        _hint(UnpairedRunsError(only_a, only_b, a.source, b.source), only_a + only_b)
    paired = [q for q in ids_a if q in ids_b]
    if not paired:
        _hint(UnpairedRunsError(only_a, only_b, a.source, b.source, none_paired=True), ids_a)
    return paired, only_a, only_b


_GENERATED_ID = re.compile(r"q\d{5,}-[0-9a-f]{8}")  # sample.py: row number + question hash


def _hint(error: UnpairedRunsError, ids: list[str]) -> NoReturn:
    """Raise ``error``, saying why when the ids that did not pair were generated: the data had
    no question_id, so each id holds its row number and rows in another order (or one row
    more or less) pair with nothing."""
    if ids and all(_GENERATED_ID.fullmatch(q) for q in ids):
        raise UnpairedRunsError(
            error.only_in_a,
            error.only_in_b,
            message=f"{error}. These ids were generated from row numbers (the data has no "
            "question_id): give every row a question_id, or keep both files' rows in the same "
            "order",
        )
    raise error
