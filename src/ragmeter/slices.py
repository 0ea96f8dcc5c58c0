"""Per-slice summaries: the scores grouped by one input column (question type, source, ...).

A slice is every sample with the same value in the column, looked up among the sample's
fields first (``is_answerable``) and then its pass-through columns (``metadata``). Small
slices are flagged, not hidden: their CIs are wide and say so themselves.
"""

from __future__ import annotations

import math
import numbers
import re
import zlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ragmeter.errors import DataError, Problem
from ragmeter.executors.common import check_bootstrap
from ragmeter.result import EvaluationResult
from ragmeter.sample import Sample
from ragmeter.stats import mean_of
from ragmeter.stats_many import mean_cis_many

SMALL_SLICE = 10  # below this many scored samples a slice is flagged as small
BIN_ABOVE = 20  # a column of more distinct numbers than this is sliced into quantile bins
N_BINS = 5
MISSING = "(missing)"


def raw_value(sample: Sample, column: str) -> Any:
    """The sample's value in ``column`` (its field, else its pass-through column), or None."""
    if column in Sample.model_fields and column != "metadata":
        return getattr(sample, column)
    return sample.metadata.get(column)


def label_of(value: Any) -> str:
    """A value as a slice label: MISSING for none, a list's items joined."""
    if value is None:
        return MISSING
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    return str(value)


def slice_value(sample: Sample, column: str) -> str:
    """The sample's value in ``column`` as a label; MISSING when it has none."""
    return label_of(raw_value(sample, column))


# A number as a CSV cell holds it: 12, -3.5, .5, 1e3, 2.5E-4, in ASCII digits. Not "007" or
# "02139" (a leading zero: an id, a code, a ZIP code; binning would lose what it names), nor
# what Python's float() also reads but no one writes for a quantity ("1_000", "nan", "inf",
# "0x1F", Arabic-Indic digits).
_NUMBER_TEXT = re.compile(r"[+-]?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _is_number(value: Any) -> bool:
    """An int or float, numpy's too (a Sample built in Python from an array's items), or a
    number written as text (``_NUMBER_TEXT``): a CSV's cells are strings, and a column of
    500 context lengths read from CSV was 500 one-row slices where the same column read
    from JSONL was 5 bins. Not a boolean (a category)."""
    if type(value) is float or type(value) is int:  # the common case, 5x faster
        return True
    if isinstance(value, str):
        return _NUMBER_TEXT.fullmatch(value.strip()) is not None
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _number(value: Any) -> float | None:
    """A finite number (or number as text) as a float; None for anything else, an int too
    large for a float too (10**400 in a JSON file raised OverflowError after the run was
    scored; "1e400" in a CSV is inf)."""
    if not _is_number(value):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _edge_names(edges: np.ndarray, numbers: np.ndarray) -> list[str]:
    """The edges written with the fewest significant digits (6 at least) that tell them
    apart and put each number in the bin its label says, lo <= x < hi as written. Why: at a
    fixed 6, the bins of Unix timestamps all read "[1.7e+09, 1.7e+09)" and, a slice being
    its label, four of the five bins were one slice; an edge 17.4 written "17" showed 17
    in the bin below the one labelled "[17, ...)"."""
    where = np.searchsorted(edges, numbers, side="right")
    for digits in range(6, 18):
        names = [f"{e:.{digits}g}" for e in edges]
        shown = np.searchsorted([float(name) for name in names], numbers, side="right")
        if len(set(names)) == len(names) and np.array_equal(shown, where):
            return names
    return [repr(float(e)) for e in edges]


def column_labels(values: Sequence[Any]) -> list[str]:
    """Each value's slice label: as written, but when the column holds more than
    ``BIN_ABOVE`` distinct finite numbers (numbers written as text too, see
    ``_NUMBER_TEXT``), their quantile bin, "[lo, hi)" (the last "[lo, hi]"), each bin its
    own label; a value no bin holds (NaN, inf, an int too large for a float, a word such as
    "n/a" or "timeout", an id such as "007") keeps its own label, as written. Why: sliced by
    latency or context length, every sample was a slice of its own, flagged small, with no
    CI: a table of noise (one NaN, or one "n/a" among a CSV's lengths, brought it back).
    The values themselves are never changed; fewer distinct numbers are sliced as written."""
    xs = [None if v is None else _number(v) for v in values]
    finite = np.array([x for x in xs if x is not None])
    if len(np.unique(finite)) <= BIN_ABOVE:
        return [label_of(v) for v in values]
    edges = np.unique(np.quantile(finite, np.linspace(0, 1, N_BINS + 1)))
    last = len(edges) - 2
    ends = _edge_names(edges, finite)
    names = [f"[{ends[i]}, {ends[i + 1]}{']' if i == last else ')'}" for i in range(last + 1)]
    bins = iter(np.minimum(np.searchsorted(edges, finite, side="right") - 1, last).tolist())
    pairs = zip(values, xs, strict=True)
    return [label_of(v) if x is None else names[next(bins)] for v, x in pairs]


def check_column(samples: list[Sample], column: str, source: str = "the run") -> None:
    """DataError unless some sample has a value in ``column`` (naming the columns there are).
    A ``by`` that is no string (a list of columns) is said so: it was a TypeError."""
    if not isinstance(column, str):
        said = f"by names one input column (a string), not {type(column).__name__} {column!r}"
        raise DataError([Problem(None, "by", said)], source)
    if any(slice_value(s, column) != MISSING for s in samples):
        return
    known = sorted({k for s in samples for k in s.metadata})
    if column in known:  # "present: lab" beside "no value in 'lab'" read as a contradiction
        said = f"column '{column}' is null in every sample: there is nothing to slice by"
        raise DataError([Problem(None, column, said)], source)
    hint = f"; pass-through columns present: {', '.join(known)}" if known else ""
    raise DataError(
        [Problem(None, column, f"no sample has a value in column '{column}'{hint}")], source
    )


def _same_value(v: Any, w: Any) -> bool:
    """``_same_key(v) == _same_key(w)``, without computing the keys of two equal strings or
    numbers of one type (nearly every pair: the keys were 0.9 s of 100,000 pairs)."""
    if type(v) is type(w) and type(v) in (str, int, float) and v == w:
        return True
    return bool(_same_key(v) == _same_key(w))


def _same_key(value: Any) -> Any:
    """What two runs' values are compared by: a boolean and "true"/"false" alike, a number and
    the same number as text alike. Why: comparing a JSONL run with the same rows saved as
    CSV (where true is "true", 3.5 may be "3.50") warned that every id "has another value in
    B than in A"."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value)).lower()
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower()
    number = _number(value)
    return label_of(value) if number is None else number


def paired_labels(
    a: list[Sample], b: list[Sample], column: str, sources: tuple[str, str]
) -> tuple[dict[str, str], list[str]]:
    """Each question_id's slice label in a comparison: its value in run A, else its value in
    run B (a column added to one run's input slices the comparison; it was an error naming
    run A). Also the ids both runs label, differently (A's label is used for them).
    DataError when neither run has a value in the column."""
    check_column([*a, *b], column, " and ".join(dict.fromkeys(sources)))
    # each sample's value read once (a million-pair compare --by read them 3 times, 13 s)
    if column in Sample.model_fields and column != "metadata":  # as raw_value reads it
        raw_a = [(s.question_id, getattr(s, column)) for s in a]
        raw_b = {s.question_id: getattr(s, column) for s in b}
    else:
        raw_a = [(s.question_id, s.metadata.get(column)) for s in a]
        raw_b = {s.question_id: s.metadata.get(column) for s in b}
    chosen = {q: v if v is not None else raw_b.get(q) for q, v in raw_a}
    # binned together, as evaluate --by bins one run's numbers
    labels = dict(zip(chosen, column_labels(list(chosen.values())), strict=True))
    differ = [
        q
        for q, v in raw_a
        if v is not None and (w := raw_b.get(q)) is not None and not _same_value(v, w)
    ]
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


def recorded_bootstrap(
    config: dict[str, Any], manifest: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The bootstrap a run was made with: ``n_resamples``, ``confidence`` and ``seed`` from
    its summary.json ``config``, else its run.json ``fingerprint`` (``bootstrap_seed``),
    else the defaults (1000, 0.95, 0). Why: a run's slices are summarised by its own
    settings; a 90% run's slices were given 95% CIs, a run without CIs (n_resamples 0)
    slices with [v, v]. DataError for a recorded value no bootstrap can use."""
    fingerprint = (manifest or {}).get("fingerprint")
    fingerprint = fingerprint if isinstance(fingerprint, dict) else {}
    out: dict[str, Any] = {}
    problems = []
    for key, recorded, default in (
        ("n_resamples", "n_resamples", 1000),
        ("confidence", "confidence", 0.95),
        ("seed", "bootstrap_seed", 0),
    ):
        value = config.get(key, fingerprint.get(recorded, default))
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if key == "confidence":
            ok = ok and 0 < value < 1
        else:
            ok = ok and float(value).is_integer() and value >= 0
            ok = ok and not (key == "n_resamples" and value == 1)
        if not ok:
            problems.append(Problem(None, key, f"the run records {key} = {value!r}"))
        out[key] = int(value) if ok and key != "confidence" else value
    if problems:
        raise DataError(problems, "the run's config")
    return out


def slice_summary(
    result: EvaluationResult,
    by: str,
    *,
    min_n: int = SMALL_SLICE,
    n_resamples: int | None = None,
    confidence: float | None = None,
    seed: int | None = None,
) -> list[SliceRow]:
    """Per metric and slice: n, mean, bootstrap CI, effect vs the overall mean.

    Rows are grouped by metric (in the result's order) and, within a metric, sorted by the
    size of the effect, largest first; slices with fewer than ``min_n`` scored samples
    carry ``small=True``. Each slice's CI is ``result.bootstrap_ci`` of its values with the
    seed ``seed ^ crc32("metric/label")``, all of a metric's slices computed at once
    (``stats_many.mean_cis_many``, the same numbers): one call per slice took a second for
    4,000 slices. ``n_resamples``, ``confidence`` and ``seed`` not given are the run's own
    (``recorded_bootstrap``), as its overall CIs were made; ``n_resamples=0`` gives no CI,
    as it does the overall aggregates; values ``evaluate`` refuses raise its ConfigError.
    """
    check_column(result.samples, by)
    if n_resamples is None or confidence is None or seed is None:
        recorded = recorded_bootstrap(result.config, result.manifest)
        n_resamples = recorded["n_resamples"] if n_resamples is None else n_resamples
        confidence = recorded["confidence"] if confidence is None else confidence
        seed = recorded["seed"] if seed is None else seed
    # the values given are held to evaluate()'s rules: n_resamples=1 or confidence=0 gave
    # zero-width "CIs" away from the mean, a negative seed numpy's "expected non-negative
    # integer", confidence=1.5 "Quantiles must be in the range [0, 1]"
    check_bootstrap(n_resamples=n_resamples, confidence=confidence, seed=seed)
    labels = column_labels([raw_value(s, by) for s in result.samples])
    rows: list[SliceRow] = []
    for metric in result.metrics:
        overall = result.aggregates[metric].mean
        groups: dict[str, list[float]] = {label: [] for label in labels}
        for label, sc in zip(labels, result.scores[metric], strict=True):
            if sc.status == "ok" and sc.value is not None:
                groups[label].append(sc.value)
        # one value has no spread to resample, 0 resamples ask for none: no CI, not [v, v]
        spread = [label for label, values in groups.items() if len(values) > 1 and n_resamples]
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
            mean = mean_of(np.asarray(values, dtype=float))  # as the overall mean
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
