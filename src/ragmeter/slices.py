"""Per-slice summaries: the scores grouped by one input column (question type, source, ...).

A slice is every sample with the same value in the column, looked up among the sample's
fields first (``is_answerable``) and then its pass-through columns (``metadata``). Small
slices are flagged, not hidden: their CIs are wide and say so themselves.
"""

from __future__ import annotations

import zlib
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ragmeter.errors import DataError, Problem
from ragmeter.result import EvaluationResult
from ragmeter.sample import Sample
from ragmeter.stats_many import mean_cis_many

SMALL_SLICE = 10  # below this many scored samples a slice is flagged as small
MISSING = "(missing)"


def slice_value(sample: Sample, column: str) -> str:
    """The sample's value in ``column`` as a label; MISSING when it has none."""
    if column in Sample.model_fields and column != "metadata":
        value: Any = getattr(sample, column)
    else:
        value = sample.metadata.get(column)
    if value is None:
        return MISSING
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    return str(value)


def check_column(samples: list[Sample], column: str, source: str = "the run") -> None:
    """DataError unless some sample has a value in ``column`` (naming the columns there are)."""
    if any(slice_value(s, column) != MISSING for s in samples):
        return
    known = sorted({k for s in samples for k in s.metadata})
    hint = f"; pass-through columns present: {', '.join(known)}" if known else ""
    raise DataError(
        [Problem(None, column, f"no sample has a value in column '{column}'{hint}")], source
    )


def paired_labels(
    a: list[Sample], b: list[Sample], column: str, sources: tuple[str, str]
) -> tuple[dict[str, str], list[str]]:
    """Each question_id's slice label in a comparison: its value in run A, else its value in
    run B (a column added to one run's input slices the comparison; it was an error naming
    run A). Also the ids both runs label, differently (A's label is used for them).
    DataError when neither run has a value in the column."""
    check_column([*a, *b], column, " and ".join(dict.fromkeys(sources)))
    in_a = {s.question_id: slice_value(s, column) for s in a}
    in_b = {s.question_id: slice_value(s, column) for s in b}
    labels = {q: v if v != MISSING else in_b.get(q, MISSING) for q, v in in_a.items()}
    differ = [q for q, v in in_a.items() if MISSING != v != in_b.get(q, v) != MISSING]
    return labels, differ


@dataclass(frozen=True)
class SliceRow:
    """One (metric, slice value) cell of an evaluate summary."""

    metric: str
    column: str
    value: str
    n: int
    mean: float | None
    ci_low: float | None
    ci_high: float | None
    effect: float | None  # slice mean minus the metric's overall mean
    small: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def slice_summary(
    result: EvaluationResult,
    by: str,
    *,
    min_n: int = SMALL_SLICE,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> list[SliceRow]:
    """Per metric and slice: n, mean, bootstrap CI, effect vs the overall mean.

    Rows are grouped by metric (in the result's order) and, within a metric, sorted by the
    size of the effect, largest first; slices with fewer than ``min_n`` scored samples
    carry ``small=True``. Each slice's CI is ``result.bootstrap_ci`` of its values with the
    seed ``seed ^ crc32("metric/label")``, all of a metric's slices computed at once
    (``stats_many.mean_cis_many``, the same numbers): one call per slice took a second for
    4,000 slices.
    """
    check_column(result.samples, by)
    labels = [slice_value(s, by) for s in result.samples]
    rows: list[SliceRow] = []
    for metric in result.metrics:
        overall = result.aggregates[metric].mean
        groups: dict[str, list[float]] = {label: [] for label in labels}
        for label, sc in zip(labels, result.scores[metric], strict=True):
            if sc.status == "ok" and sc.value is not None:
                groups[label].append(sc.value)
        # one value has no spread to resample: no CI, not [v, v]
        spread = [label for label, values in groups.items() if len(values) > 1]
        cis = mean_cis_many(
            [groups[label] for label in spread],
            [seed ^ zlib.crc32(f"{metric}/{label}".encode()) for label in spread],
            n_resamples=n_resamples,
            confidence=confidence,
        )
        ci_of = dict(zip(spread, cis, strict=True))
        cells = []
        for label, values in groups.items():
            if not values:
                cells.append(SliceRow(metric, by, label, 0, None, None, None, None, True))
                continue
            mean = float(np.asarray(values, dtype=float).mean())
            low, high = ci_of.get(label, (None, None))
            effect = None if overall is None else mean - overall
            cells.append(
                SliceRow(
                    metric, by, label, len(values), mean, low, high, effect, len(values) < min_n
                )
            )
        cells.sort(key=lambda r: (r.effect is None, -abs(r.effect or 0.0), r.value))
        rows.extend(cells)
    return rows
