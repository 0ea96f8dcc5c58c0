"""A run's scores and aggregates as read back from its directory: the scores as columns
(``score_columns``), and summary.json's aggregates when they describe the scores in
scores.jsonl, else computed from those scores.

Why: summary.json's mean, counts and CI were taken as they were, whatever scores.jsonl held,
so a scores.jsonl edited by hand (rows removed, values changed) kept its old aggregates: the
report said mean 0.296 over 50 samples for a file of 25 samples that all scored 1.0, beside
distributions and worst samples drawn from the 25.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ragmeter.errors import Problem
from ragmeter.metrics.base import Score
from ragmeter.metrics.column import STATUSES, ScoreColumn
from ragmeter.result import Aggregate, aggregate

KEYS = ("mean", "ci_low", "ci_high", "n_ok", "n_undefined", "n_skipped", "n_failed")
COUNTS = KEYS[3:]


def _bootstrap(config: dict[str, Any]) -> dict[str, Any]:
    """The bootstrap settings summary.json's ``config`` records, when usable (else none: the
    defaults), so a recomputed CI is made as the run made its own."""
    n, level, seed = (config.get(k) for k in ("n_resamples", "confidence", "seed"))
    usable = (
        type(n) is int
        and (n == 0 or n >= 2)
        and isinstance(level, float)
        and 0 < level < 1
        and type(seed) is int
        and seed >= 0
    )
    return {"n_resamples": n, "confidence": level, "seed": seed} if usable else {}


def _describes(kept: Aggregate, read: Aggregate) -> bool:
    """Whether summary.json's aggregate has the counts and mean of the scores read."""
    if [getattr(kept, k) for k in COUNTS] != [getattr(read, k) for k in COUNTS]:
        return False
    if kept.mean is None or read.mean is None:
        return kept.mean is read.mean
    number = isinstance(kept.mean, int | float) and not isinstance(kept.mean, bool)
    return number and math.isclose(kept.mean, read.mean, rel_tol=1e-9, abs_tol=1e-12)


def _shown(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else repr(value)


def run_aggregates(
    entries: dict[str, Any],
    scores: dict[str, Sequence[Score]],
    config: dict[str, Any],
) -> tuple[dict[str, Aggregate], str | None]:
    """Each metric's aggregate: summary.json's entry when it describes the metric's scores,
    else the aggregate of the scores with the run's bootstrap settings (an older run without
    entries too); and a note naming the metrics whose entry said otherwise, or None."""
    out: dict[str, Aggregate] = {}
    differ: list[str] = []
    for metric, column in scores.items():
        entry = entries.get(metric)
        if isinstance(entry, dict) and all(k in entry for k in KEYS):
            kept = Aggregate(metric, *(entry[k] for k in KEYS))
            read = aggregate(metric, column, n_resamples=0)  # the mean and counts, no CI
            if _describes(kept, read):
                out[metric] = kept
                continue
            differ.append(
                f"{metric}: mean {_shown(kept.mean)} over {kept.n_ok!r} scored in summary.json, "
                f"{_shown(read.mean)} over {read.n_ok} in scores.jsonl"
            )
        out[metric] = aggregate(metric, column, **_bootstrap(config))
    if not differ:
        return out, None
    return out, (
        f"summary.json's aggregates are not those of scores.jsonl ({'; '.join(differ)}): was "
        "scores.jsonl edited? They are computed from scores.jsonl"
    )


def _score(value: Any, status: Any, reason: Any, details: Any) -> Score:
    """The Score of one metric in a record: its value, and its entries in the record's
    status ("ok" when none), reasons and details (None when none)."""
    if status == "ok" and value is None:
        status, reason = "undefined", reason or "no value recorded"
    return Score(None if value is None else float(value), status, reason, dict(details or {}))


_CODES = {name: code for code, name in enumerate(STATUSES)}
_OBJECT_OR_NONE = frozenset({dict, type(None)})


def score_columns(rows: list[dict[str, Any]], metrics: list[str]) -> dict[str, Sequence[Score]]:
    """Each metric's scores, as a ScoreColumn whose Scores are built when read.

    Why: building a Score per (row, metric) took a third of ``runs.load_run`` on 200k rows and
    most of its memory, while compare and report mostly read the arrays. Each Score built is
    the one the record describes (``_score``). A metric with a status that is none of
    STATUSES (a null) or details that are neither objects nor null gets the list of its
    Scores, built at once, so what ``dict(...)`` and the aggregates make of them, or raise,
    is as before."""
    empty: dict[str, Any] = {}
    marks = [
        (row.get("status") or empty, row.get("reasons") or empty, row.get("details") or empty)
        for row in rows
    ]
    marked = [(i, said) for i, (said, _, _) in enumerate(marks) if said]
    out: dict[str, Sequence[Score]] = {}
    for metric in metrics:
        raw = [row.get(metric) for row in rows]

        def make(i: int, metric: str = metric, raw: list[Any] = raw) -> Score:
            said, reasons, details = marks[i]
            return _score(raw[i], said.get(metric, "ok"), reasons.get(metric), details.get(metric))

        said = [(i, s[metric]) for i, s in marked if metric in s]
        kinds = {type(details.get(metric)) for _, _, details in marks}
        if any(s not in _CODES for _, s in said) or not kinds <= _OBJECT_OR_NONE:
            out[metric] = [make(i) for i in range(len(rows))]
            continue
        values = np.array(raw, dtype=np.float64)  # a null is NaN (check_values refused others)
        status = np.where(np.isnan(values), _CODES["undefined"], _CODES["ok"]).astype(np.int8)
        for i, s in said:
            if s != "ok":
                status[i] = _CODES[s]
        values[status != _CODES["ok"]] = np.nan
        out[metric] = ScoreColumn(values, status, make)
    return out


def read_column(
    raw: np.ndarray,
    said: np.ndarray,
    reasons: list[Any] | None,
    details: tuple[list[Any], list[Any]] | None,
) -> ScoreColumn:
    """One metric's ScoreColumn from what its records held: ``raw`` (each value, NaN for
    null), ``said`` (the code in STATUSES of each record's status for it, 0 when none), its
    reasons and details (None when no record has any; details as a list of each object's
    keys and one of its values, None for none or an empty one). Why: ``_run_records`` reads
    a run line by line into these and drops each record, where ``score_columns`` needs them
    all; the arrays, statuses and each Score built (``_score``) are the ones
    ``score_columns`` gives for the same records."""
    status = said.astype(np.int8)  # a copy: said keeps what the record said, for _score
    status[(said == _CODES["ok"]) & np.isnan(raw)] = _CODES["undefined"]
    # no record said a status: raw is NaN exactly where a row is not ok, so it is the values
    # (ScoreColumn.__setitem__ builds every Score before it changes one)
    values = np.where(status == _CODES["ok"], raw, np.nan) if said.any() else raw

    def make(i: int) -> Score:
        value = float(raw[i])
        keys = details[0][i] if details is not None else None
        return _score(
            None if value != value else value,
            STATUSES[said[i]],
            reasons[i] if reasons is not None else None,
            dict(zip(keys, details[1][i], strict=True)) if details and keys else None,
        )

    return ScoreColumn(values, status, make)


_CLEAN = frozenset({float, type(None)})


def _clean(rows: list[dict[str, Any]], metrics: list[str]) -> bool:
    """Whether ``check_values`` would find nothing, known quickly (a few passes over the rows,
    not one check per value) for a run as ragmeter writes it: status / reasons / details
    objects or absent, statuses known, each value a float that is finite, or null. Why: the
    checks value by value were a fifth of ``runs.load_run`` on 200k rows. Anything else (an
    int too) is left to the checks, which name every problem in row order."""
    for key in ("status", "reasons", "details"):
        if not {type(row.get(key)) for row in rows} <= {dict, type(None)}:
            return False
    wanted = set(metrics)
    for row in rows:
        said, details = row.get("status"), row.get("details")
        if said and any(k in wanted and v not in STATUSES for k, v in said.items()):
            return False
        if details and any(
            k in wanted and type(v) not in _OBJECT_OR_NONE for k, v in details.items()
        ):
            return False
    for metric in metrics:
        raw = [row.get(metric) for row in rows]
        if not {*map(type, raw)} <= _CLEAN:
            return False
        if not np.isfinite(np.array([v for v in raw if v is not None], dtype=np.float64)).all():
            return False
    return True


def _as_dict(details: Any) -> bool:
    """Whether a metric's details read as ``_score`` reads them: none, an object, or pairs."""
    try:
        dict(details or {})
    except (TypeError, ValueError):
        return False
    return True


def _finite(value: float) -> bool:
    """Whether a float can hold it, finitely: 10**400 was an internal OverflowError."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def check_values(rows: list[dict[str, Any]], metrics: list[str], problems: list[Problem]) -> None:
    """Every metric value must be a number or null, and status / reasons / details objects:
    a data file read as a run (its ``reference_answers`` taken for a metric) or a hand-edited
    record is named, not a crash."""
    if _clean(rows, metrics):
        return
    for row in rows:
        for key in ("status", "reasons", "details"):
            if row.get(key) is not None and not isinstance(row[key], dict):
                problems.append(
                    Problem(row["_line"], key, "scores.jsonl: expected an object {metric: ...}")
                )
        statuses = row.get("status") if isinstance(row.get("status"), dict) else {}
        details = row.get("details") if isinstance(row.get("details"), dict) else {}
        for metric in metrics:
            value, status = row.get(metric), statuses.get(metric)
            if metric in statuses and status not in STATUSES:  # an internal KeyError (null too)
                said = f"scores.jsonl: status {_short(status)} is none of {', '.join(STATUSES)}"
                problems.append(Problem(row["_line"], f"status.{metric}", said))
            if not _as_dict(details.get(metric)):  # "ab" was dict()'s ValueError, internal
                said = f"scores.jsonl: expected an object, not {_short(details[metric])}"
                problems.append(Problem(row["_line"], f"details.{metric}", said))
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int | float)
            ):
                problems.append(
                    Problem(
                        row["_line"],
                        metric,
                        "scores.jsonl: a score must be a number or null, not "
                        f"{_short(value)} (is this a scores.jsonl ragmeter wrote?)",
                    )
                )
            elif value is not None and not _finite(value):  # ragmeter never writes one
                problems.append(
                    Problem(
                        row["_line"],
                        metric,
                        f"scores.jsonl: a score must be finite, not {_short(value)} (was the file "
                        "edited by hand?)",
                    )
                )
