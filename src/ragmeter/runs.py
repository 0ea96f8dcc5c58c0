"""Read a run back from its directory, so compare and report work on files as well as objects.

A run directory holds ``scores.jsonl`` (one record per sample, see
``EvaluationResult.records``), ``summary.json`` (aggregates, failures, notes, config) and,
from issue 11 on, ``run.json`` (the manifest: judge, modes, prompt versions, metric
definition versions). Older runs lack the sample keys in their records and the manifest:
they still load, with empty questions and an empty manifest.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, get_args

import jiter
from pydantic import ValidationError

from ragmeter._json_rows import loads
from ragmeter._perf import gc_paused
from ragmeter.errors import DataError, Problem, UnpairedRunsError
from ragmeter.io import stat_problem
from ragmeter.metrics.base import Status
from ragmeter.result import EvaluationResult
from ragmeter.run_aggregates import check_values, run_aggregates, score_columns
from ragmeter.sample import Sample

# Keys of a scores.jsonl record that are not metric values.
RECORD_KEYS = frozenset(
    {"question_id", "question", "answer", "contexts", "context_ids", "metadata"}
    | {"status", "reasons", "details"}
)


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


_CUT = (
    "; the file ends inside this record, cut short (a copy or a disk that filled up?): "
    "re-run the `ragmeter evaluate` command that wrote it, with the same -o, to write it whole"
)


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


def _read_records(path: Path, problems: list[Problem]) -> list[dict[str, Any]]:
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


def _metric_names(summary: dict[str, Any], rows: list[dict[str, Any]]) -> list[str]:
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


def _sample(row: dict[str, Any]) -> Sample:
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
    # Why: validating 200k Samples was a fifth of load_run. Values of the types the model
    # declares are built unvalidated; anything else is validated, raising as it did.
    answer, contexts = fields["answer"], fields["contexts"]
    if (answer is None or type(answer) is str) and (
        contexts is None or {*map(type, contexts)} <= _ALL_STR
    ):
        return Sample.model_construct(_fields_set=set(_GIVEN), **fields, **_UNREAD)
    try:
        return Sample(**fields)
    except ValidationError as exc:  # "answer": 5 was pydantic's error, naming no row
        where = ".".join(map(str, exc.errors()[0]["loc"]))
        said = f"scores.jsonl: {exc.errors()[0]['msg']} (was the file edited by hand?)"
        raise DataError([Problem(row.get("_line"), where, said)]) from None


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
    rows = _read_records(scores_path, problems)
    seen: dict[str, int] = {}  # id -> its first line: the row named is the file's line
    for row in rows:  # (counting records named the wrong line after a blank one)
        qid = str(row["question_id"])
        if qid in seen:
            said = f"duplicate question_id '{qid}' (first used in row {seen[qid]})"
            problems.append(Problem(row["_line"], "question_id", said))
        seen.setdefault(qid, row["_line"])
    if not rows and not problems:
        problems.append(Problem(None, None, "scores.jsonl holds no records"))
    metrics = _metric_names(summary, rows)
    check_values(rows, metrics, problems)
    if problems:
        raise DataError(problems, source)
    scores = score_columns(rows, metrics)
    try:
        samples = [_sample(row) for row in rows]
    except DataError as exc:  # a field of another type than a Sample's, named by its row
        raise DataError(exc.problems, source) from None
    del rows
    listed = summary.get("metrics") if isinstance(summary.get("metrics"), dict) else {}
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
