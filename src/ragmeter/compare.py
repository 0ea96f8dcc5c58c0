"""Paired comparison of two runs on the same samples: is B better than A, where, how sure.

Samples pair by question_id. For each metric both runs share, over the pairs where both
runs have a value: mean A, mean B, the paired delta mean(B - A) with a bootstrap CI, a
sign-flip permutation p-value, win/tie/loss counts (B higher / equal / lower, whatever the
metric's direction), and Holm-adjusted p-values across the metrics. A significant change is
better or worse by the metric's ``direction`` (``Metric.direction``: most are higher-is-better;
a descriptive one such as refusal_rate is neither, so it is shown but never a regression).
Optionally the same per slice of an input column. Which samples pair and why the others are
left out (the scores B lost among them): ``ragmeter.compare_pairs``; statistics:
``ragmeter.stats``, ``ragmeter.stats_many`` (many slices at once); output formats:
``ragmeter.compare_render``.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from ragmeter.comparability import manifest_differences
from ragmeter.compare_margins import check_max_drop, margins_of, parse_max_drop, summary_repr
from ragmeter.compare_options import check_options, permutations_floor
from ragmeter.compare_pairs import IN_MEMORY, Pairing, question_mismatch, same_run, values_of
from ragmeter.compare_render import failure_warnings, verdict
from ragmeter.errors import DataError, MetricError, Problem, UnpairedRunsError
from ragmeter.metrics.registry import get_metric
from ragmeter.redact import public_text
from ragmeter.runs import Run, as_run, pair_ids
from ragmeter.slices import SMALL_SLICE, paired_labels
from ragmeter.stats import TIE, _paired, holm, mean_difference, mean_of, uses_normal
from ragmeter.stats_many import paired_stats_many

# Below this many pairs a bootstrap CI or a permutation test says nothing (one pair has one
# resample and two sign patterns): the cell shows n/a with the reason instead of a number.
MIN_PAIRS = 2


def too_few(n: int) -> str | None:
    """Why a CI and a p-value cannot be given over n pairs, or None when they can."""
    if n == 0:
        return "no pair scored in both runs"
    if n < MIN_PAIRS:
        return f"{n} pair: too few for a CI or a test"
    return None


def direction_of(metric: str, runs: tuple[Run, ...] = ()) -> str:
    """ "higher", "lower" or "none" as the metric registry declares; for a name it does not
    know (registered in another process), as the runs' run.json recorded it, else "higher":
    assumed, a rise of one's own direction="lower" metric was called better."""
    try:
        return get_metric(metric).direction
    except MetricError:
        said = (e for r in runs for e in r.manifest.get("metrics") or () if isinstance(e, dict))
        found = (e.get("direction") for e in said if e.get("name") == metric)
        return next((d for d in found if d in ("higher", "lower", "none")), "higher")


def models_of(metric: str, mode: str | None) -> frozenset[str] | None:
    """The models (judge, embedder, ...) a metric asks in a mode, as the registry declares;
    None for a name or mode it does not know (comparability then assumes every model)."""
    try:
        m = get_metric(metric)
        return m.needs_in(mode) | m.uses_in(mode)
    except (MetricError, ValueError):
        return None


@dataclass(frozen=True)
class MetricDelta:
    """One metric's paired comparison; None values where no pair has both scores."""

    metric: str
    n: int  # pairs with a value in both runs
    n_excluded: int  # pairs where either run has no value (failed, undefined, skipped)
    mean_a: float | None
    mean_b: float | None
    delta: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    p_holm: float | None
    wins: int
    ties: int
    losses: int
    note: str | None = None  # why the CI and p are missing (too few pairs)
    direction: str = "higher"  # which way is better: "higher", "lower" or "none"
    # Why pairs were left out: scores failed in A, failed in B (a pair failed in both counts
    # in both), and pairs neither failed but one had no value by definition (undefined,
    # skipped). A run B that lost a metric to failures shows here, not as a quiet "no pairs".
    failed_a: int = 0
    failed_b: int = 0
    not_applicable: int = 0
    # The samples A scored and B did not (failed, undefined or skipped in B), and how many
    # of them failed in B: a sample B lost left the pairs unseen (compare_pairs).
    lost_b: int = 0
    lost_b_failed: int = 0
    # how the CI and p were made: "resampled" (bootstrap, sign flips) or "normal" (their CLT
    # limits, from stats.CLT_MIN_CHANGED changed pairs on); None without a CI
    method: str | None = None

    @property
    def lost_to_failures(self) -> bool:
        """B failed more of this metric's scores than A: a regression of its own."""
        return self.failed_b > self.failed_a

    @property
    def lost_beyond_failures(self) -> int:
        """The samples B lost that ``lost_to_failures`` does not already report: every one,
        or, when B failed more than A (its failures said there), the undefined or skipped.
        What the warnings, the Markdown and the regression gate say about lost scores."""
        return self.lost_b - (self.lost_b_failed if self.lost_to_failures else 0)

    def significant(self, alpha: float) -> bool:
        return self.p_holm is not None and self.p_holm < alpha

    def better(self, alpha: float) -> bool:
        """Significant and in the metric's better direction (never for direction "none")."""
        return self._moved(alpha, toward_better=True)

    def worse(self, alpha: float) -> bool:
        """Significant and against the metric's better direction: what a regression gate
        fails on (never for direction "none")."""
        return self._moved(alpha, toward_better=False)

    def _moved(self, alpha: float, *, toward_better: bool) -> bool:
        if self.delta is None or self.delta == 0 or not self.significant(alpha):
            return False
        if self.direction not in ("higher", "lower"):
            return False
        up_is_better = self.direction == "higher"
        return (self.delta > 0) == (up_is_better == toward_better)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SliceDelta:
    """One (metric, slice value) cell of a comparison."""

    metric: str
    column: str
    value: str
    n: int
    mean_a: float | None
    mean_b: float | None
    delta: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    small: bool
    note: str | None = None  # why the CI and p are missing (too few pairs)
    method: str | None = None  # "resampled" or "normal", as MetricDelta's

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Comparison:
    """Everything compare() found; ``pairs(metric)`` gives the per-sample values."""

    a: Run
    b: Run
    ids: list[str]
    metrics: list[MetricDelta]
    slices: list[SliceDelta] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    only_in_a: list[str] = field(default_factory=list)
    only_in_b: list[str] = field(default_factory=list)
    confidence: float = 0.95
    by: str | None = None
    # computed in A, not in B (unless metrics= named what to compare): fails the regression gate
    lost_metrics: list[str] = field(default_factory=list)
    margins: list[Any] = field(default_factory=list)  # compare_margins.Margin, of max_drop=

    def __repr__(self) -> str:  # bounded: the dataclass's printed both runs whole
        return summary_repr(self)

    def metric(self, name: str) -> MetricDelta:
        for m in self.metrics:
            if m.metric == name:
                return m
        raise KeyError(name)

    def pairs(self, metric: str) -> list[tuple[str, float, float]]:
        """(question_id, value A, value B) for every pair where both runs have a value."""
        va, vb = values_of(self.a, metric), values_of(self.b, metric)
        return [
            (q, va[q], vb[q]) for q in self.ids if va.get(q) is not None and vb.get(q) is not None
        ]

    def to_dict(self, alpha: float = 0.05) -> dict[str, Any]:
        """Every number, and each metric's verdict at ``alpha`` (as the table and Markdown
        say it: a JSON without them left CI scripts to redo Holm, direction and alpha)."""
        return {
            "a": self.a.source,
            "b": self.b.source,
            "n_paired": len(self.ids),
            "only_in_a": self.only_in_a,
            "only_in_b": self.only_in_b,
            "lost_metrics": self.lost_metrics,
            # samples A scored and B did not, per metric (failed ones too: see lost_b_failed)
            "lost_scores": {m.metric: m.lost_b for m in self.metrics if m.lost_b},
            "confidence": self.confidence,
            "warnings": [public_text(w) for w in self.warnings],
            "alpha": alpha,
            "metrics": [{**m.to_dict(), "verdict": verdict(m, alpha)} for m in self.metrics],
            "by": self.by,
            "slices": [s.to_dict() for s in self.slices],
            "margins": [g.to_dict() for g in self.margins],
        }

    def to_json(self, alpha: float = 0.05) -> str:
        return json.dumps(self.to_dict(alpha), indent=2, ensure_ascii=False)

    def to_markdown(self, alpha: float = 0.05) -> str:
        from ragmeter.compare_render import to_markdown

        return to_markdown(self, alpha=alpha)


def _paired_stats(
    named: list[tuple[str, Sequence[float], Sequence[float]]], opts: dict[str, Any]
) -> list[dict[str, Any]]:
    """For each (name, A's values, B's values): mean A, mean B, delta, CI, p-value and, when
    some are missing, why. The seed of each is ``opts["seed"]`` mixed with its name.

    No pair: all None. Fewer than MIN_PAIRS: the means and the delta, no CI or p (scipy
    cannot resample one observation, and a CI from one pair would claim a certainty it lacks).
    The CIs and p-values of all of them come from one pass (``stats_many``: thousands of
    slices in a second, where one scipy call each took 10 s), the same numbers as one by one.
    """
    outs: list[dict[str, Any]] = []
    todo: list[tuple[dict[str, Any], str, Sequence[float], Sequence[float]]] = []
    for name, xs, ys in named:
        out: dict[str, Any] = dict.fromkeys(
            ("mean_a", "mean_b", "delta", "ci_low", "ci_high", "p_value", "method")
        )
        out["note"] = too_few(len(xs))
        outs.append(out)
        if not len(xs):
            continue
        # as the runs' own aggregates make them: 30 x 0.7 is 0.7, as summary.json says
        out["mean_a"], out["mean_b"] = (mean_of(np.asarray(v, dtype=float)) for v in (xs, ys))
        out["delta"] = mean_difference(xs, ys)  # a difference within TIE is a tie, counted as 0
        if out["note"] is None:
            todo.append((out, name, xs, ys))
            tied = _paired(xs, ys, "compare")
            out["method"] = "normal" if uses_normal(tied[1] - tied[0]) else "resampled"
    stats = paired_stats_many(
        [(xs, ys) for _, _, xs, ys in todo],
        [opts["seed"] ^ zlib.crc32(name.encode()) for _, name, _, _ in todo],
        confidence=opts["confidence"],
        n_resamples=opts["n_resamples"],
        permutations=opts["permutations"],
    )
    for (out, *_), (low, high, p) in zip(todo, stats, strict=True):
        out.update(ci_low=low, ci_high=high, p_value=p)
    return outs


def _side(run: Run, side: str) -> Run:
    """An in-memory run (no directory) named after its side, "run A (in-memory)": both were
    "in-memory result", so a message naming the ids only in one could not say which."""
    if run.source != IN_MEMORY:  # a directory's name says it already
        return run
    return replace(run, source=f"run {side} (in-memory)")


def compare(
    a: Any,
    b: Any,
    *,
    metrics: list[str] | None = None,
    by: str | None = None,
    intersect: bool = False,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    permutations: int | None = None,
    seed: int = 0,
    min_slice: int = SMALL_SLICE,
    max_drop: dict[str, float] | None = None,
) -> Comparison:
    """Compare run B against run A (EvaluationResults, Runs or run directories).

    Raises UnpairedRunsError naming the ids found in only one run unless ``intersect`` is
    set, in which case only the shared ids are compared (and the others are listed in the
    result). ``by`` adds per-slice deltas for that input column. ``permutations``: sign
    patterns of the permutation test (default 9999, fewer for runs over 2000 pairs); from
    ``stats.CLT_MIN_CHANGED`` changed pairs on, the CI and p are their normal limits and
    ``n_resamples`` and ``permutations`` are not used (``MetricDelta.method`` says which).
    ``max_drop``: {metric: DELTA} non-inferiority margins (``compare_margins``), checked first.
    """
    check_options(confidence, n_resamples, permutations, seed, min_slice, intersect)
    drops = parse_max_drop(max_drop)
    if metrics is not None and not isinstance(metrics, list | tuple):  # a str read by letter
        said = f"must be a list of metric names, not {metrics!r}"
        raise DataError([Problem(None, "metrics", said)])
    run_a, run_b = _side(as_run(a), "A"), _side(as_run(b), "B")
    ids, only_a, only_b = pair_ids(run_a, run_b, intersect)
    shared = [m for m in run_a.result.metrics if m in run_b.result.metrics]
    if metrics is not None:
        unknown = [m for m in metrics if m not in shared]
        if unknown:
            raise UnpairedRunsError.metrics(unknown, shared)
        shared = [m for m in shared if m in metrics]
    check_max_drop(drops, shared, lambda name: direction_of(name, (run_a, run_b)))
    warnings = [said for run in (run_a, run_b) if (said := run.unfinished())]
    if said := same_run(run_a, run_b) or question_mismatch(run_a, run_b, ids):
        warnings.append(said)
    warnings += manifest_differences(run_a, run_b, shared, uses_of=models_of)
    warnings += [w for w in (permutations_floor(permutations, len(shared), len(ids)),) if w]
    for run, other in ((run_a, run_b), (run_b, run_a)):
        extra = [m for m in run.result.metrics if m not in other.result.metrics]
        if extra:
            warnings.append(f"only in {run.name}, not compared: {', '.join(extra)}")
    if only_a or only_b:
        warnings.append(
            f"compared on the {len(ids)} shared ids; {len(only_a)} only in A, "
            f"{len(only_b)} only in B left out"
        )
    opts = {
        "seed": seed,
        "confidence": confidence,
        "n_resamples": n_resamples,
        "permutations": permutations,
    }
    rows: list[dict[str, Any]] = []
    pairing = Pairing(run_a, run_b, ids)
    for name in shared:
        column = pairing.column(name)
        ok = column.ok
        xs, ys = column.a[ok], column.b[ok]
        wins, losses = (int(np.count_nonzero(c)) for c in (ys - xs > TIE, ys - xs < -TIE))
        rows.append(
            {
                "metric": name,
                "n": len(xs),
                "n_excluded": len(ids) - len(xs),
                **_paired_stats([(name, xs, ys)], opts)[0],
                "wins": wins,
                "ties": len(xs) - wins - losses,
                "losses": losses,
                "direction": direction_of(name, (run_a, run_b)),
                **column.counts(pairing.once),
            }
        )
    adjusted = holm([r["p_value"] for r in rows])
    deltas = [MetricDelta(**r, p_holm=p) for r, p in zip(rows, adjusted, strict=True)]
    warnings += [said for m in deltas for said in failure_warnings(m)]
    out = Comparison(run_a, run_b, ids, deltas, [], warnings, only_a, only_b, confidence, by)
    out.margins = margins_of(deltas, drops, confidence)
    if by is not None:
        sources = (run_a.source, run_b.source)
        labels, differ = paired_labels(run_a.result.samples, run_b.result.samples, by, sources)
        if differ:
            out.warnings.append(
                f"slices by {by}: {len(differ)} id(s) have another value in B than in A "
                f"(e.g. {differ[0]}); sliced by A's"
            )
        out.slices = _slice_deltas(out, pairing, labels, opts, min_slice)
    if metrics is None:
        out.lost_metrics = [m for m in run_a.result.metrics if m not in run_b.result.metrics]
    return out


def _slice_deltas(
    cmp: Comparison, pairing: Pairing, label_of: dict[str, str], opts: dict[str, Any], min_n: int
) -> list[SliceDelta]:
    """Per metric and slice (the column's value in run A, else in B): delta, CI, p-value.

    Within a metric, slices are sorted by |delta|, largest first; small ones are flagged,
    and one of a single pair keeps its delta but has no CI or p (``note`` says why).
    """
    by = str(cmp.by)
    out: list[SliceDelta] = []
    groups = pairing.groups(label_of)
    for m in cmp.metrics:
        column = pairing.column(m.metric)
        ok = column.ok
        pairs = {label: (column.a[at[ok[at]]], column.b[at[ok[at]]]) for label, at in groups}
        named = [(f"{m.metric}/{label}", xs, ys) for label, (xs, ys) in pairs.items()]
        cells = [
            SliceDelta(m.metric, by, label, len(xs), small=len(xs) < min_n, **stats)
            for (label, (xs, _)), stats in zip(
                pairs.items(), _paired_stats(named, opts), strict=True
            )
        ]
        cells.sort(key=lambda c: (c.delta is None, -abs(c.delta or 0.0), c.value))
        out.extend(cells)
    return out
