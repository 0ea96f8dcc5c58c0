"""Planning a run: which metrics, in which mode, needing which resources.

Pure: reads the metric registry and the samples, builds nothing, calls nothing.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragmeter.availability import CHECKED, a_need, need_noun
from ragmeter.errors import DataError, MetricError, Problem
from ragmeter.metrics.base import Metric
from ragmeter.metrics.registry import (
    default_metrics,
    get_metric,
    list_metrics,
    metric_list,
    resolve,
)
from ragmeter.sample import Sample

_FIELDS = tuple(Sample.model_fields)
GATE_FIELD = "--fail-under"  # what a gate's problems are filed under (the CLI's option)
NOT_DEFAULT = (
    "a run without a metric list does not choose it: name the metrics to run (-m / --metrics)"
)


@dataclass
class FieldPresence:
    """Which of a file's fields each row has, counted by combination: what planning needs to
    know of rows a run does not keep (a streamed run validates every row, then lets it go).

    Why combinations and not per-field counts: a metric may need two fields together
    (``contexts+reference_context_ids``), which per-field counts cannot tell apart from two
    sets of rows each holding one. There are at most 2**fields combinations, a few in practice,
    so memory stays bounded whatever the number of rows.
    """

    counts: dict[frozenset[str], int] = field(default_factory=dict)

    def add(self, sample: Sample) -> None:
        """Count the sample's present (non-None) fields."""
        present = frozenset(f for f in _FIELDS if getattr(sample, f) is not None)
        self.counts[present] = self.counts.get(present, 0) + 1


def fields_feed(metric: Metric, present: frozenset[str]) -> bool:
    """Whether a row holding (non-None) exactly ``present`` can be scored by ``metric``: the
    test of ``Metric.missing`` on field names (tests/test_stream_planning.py checks they agree
    for every metric and every combination of fields)."""
    return any(all(f in present for f in group) for group in metric.requires)


def _near_columns(rows: Sequence[Sample] | FieldPresence, needed: str) -> str:
    """Pass-through columns whose names are close to a needed field ('context' for
    'contexts'), said with "no row has these fields". Why: such a column is kept as
    metadata without a word, and the metric it was meant for was refused naming only the
    field. (Not an alias: DeepEval's ``context`` is the reference contexts, not ours.)"""
    if isinstance(rows, FieldPresence):  # a streamed file counts fields, not column names
        return ""
    names = sorted({key for s in rows[:1000] for key in s.metadata})
    found = []
    for wanted in sorted(set(re.split(r"[+| ]+", needed)) - {""}):
        if close := difflib.get_close_matches(wanted, names, n=1, cutoff=0.8):
            found.append(f"column '{close[0]}' is kept as metadata: rename it '{wanted}'")
    return f" ({'; '.join(found)})" if found else ""


def _feeder(rows: Sequence[Sample] | FieldPresence) -> Callable[[Metric], bool]:
    """Whether some row can feed a metric: from the samples, or from a file's field counts."""
    if isinstance(rows, FieldPresence):
        present = list(rows.counts)
        return lambda m: any(fields_feed(m, p) for p in present)
    return lambda m: any(m.missing(s) is None for s in rows)


def mode_of_metric(metric: Metric, options: Mapping[str, Any] | None) -> str | None:
    """The mode a run uses for ``metric``: ``options["modes"][name]``, else
    ``options["mode"]``, else the metric's default (None for metrics without modes)."""
    opts = options or {}
    return metric.mode_in(opts.get("modes") or {}, opts.get("mode"))


def needs_of(metrics: Sequence[Metric], options: Mapping[str, Any] | None = None) -> set[str]:
    """Every resource the metrics need or use in the modes the run chose."""
    out: set[str] = set()
    for m in metrics:
        mode = mode_of_metric(m, options)
        out |= set(m.needs_in(mode)) | set(m.uses_in(mode))
    return out


def check_modes(modes: Mapping[str, str] | None) -> None:
    """Every ``metric=mode`` names a known metric that has that mode; MetricError otherwise.

    Checked before any work, for every entry (not only the metrics this run chose), so a
    typo in ``--mode`` is an error rather than a silently ignored option.
    """
    problems: list[str] = []
    with_modes = sorted(m.name for m in list_metrics() if m.mode_names)
    for name, mode in (modes or {}).items():
        try:
            metric = get_metric(name)
        except MetricError:
            problems.append(
                f"--mode {name}={mode}: unknown metric {name!r}; metrics with modes: "
                + ", ".join(with_modes)
            )
            continue
        if not metric.mode_names:
            problems.append(
                f"--mode {name}={mode}: {name} has no modes; metrics with modes: "
                + ", ".join(with_modes)
            )
        elif mode not in metric.mode_names:
            problems.append(
                f"--mode {name}={mode}: unknown mode {mode!r} for {name}; choose one of "
                + ", ".join(metric.mode_names)
            )
    if problems:
        raise MetricError("; ".join(problems))


def check_metric_names(metrics: Sequence[str] | str | None) -> None:
    """An explicit metric list must name at least one metric (``-m ","`` is a mistake)."""
    if metrics is None:
        return
    names = metric_list(metrics)  # MetricError for what is no list of names (a number)
    if not any(str(n).strip() for n in names):
        raise MetricError(
            "no metric named: give at least one metric name (e.g. -m faithfulness,mrr; "
            "`ragmeter metrics` lists them), or leave the option out to run every applicable one"
        )


def gate_problems(
    gated: Iterable[str],
    planned: Collection[str] | None,
    left_out: Mapping[str, str] | None = None,
) -> list[Problem]:
    """What is wrong with gating these metric names, before any work: the one check the CLI's
    ``--fail-under`` and ``evaluate(gated=...)`` share.

    Each name must be a metric. With ``planned`` (the metrics the run will compute), each must
    be among them: ``left_out`` gives the plan's reason for a metric it left out (missing
    input fields, no judge available); without it the metrics were listed by the caller, and a
    gated one outside the list is "not among the metrics run". Why before the run: a gate on a
    metric the plan will not run can only fail, and it failed after every score was computed.
    """
    problems = []
    for name in gated:
        try:
            get_metric(name)
        except (MetricError, KeyError) as exc:
            problems.append(Problem(None, GATE_FIELD, str(exc).strip("'\"")))
            continue
        if planned is None or name in planned:
            continue
        why = (
            "not among the metrics run"
            if left_out is None
            else f"will not run: {left_out.get(name, NOT_DEFAULT)}"
        )
        problems.append(Problem(None, GATE_FIELD, f"'{name}' is gated but {why}"))
    return problems


def _other_modes(metric: Metric, mode: str | None, need: str) -> list[str]:
    """The metric's modes that do without ``need`` (a fix when the chosen one needs it)."""
    return [name for name, spec in metric.modes if name != mode and need not in spec.needs]


def needs_problems(
    chosen: Sequence[Metric],
    unavailable: Mapping[str, str] | None,
    options: Mapping[str, Any] | None = None,
) -> list[Problem]:
    """One Problem per resource (judge, scorer, embedder, reward model) that metrics the
    caller listed need in their chosen modes and that cannot be had, naming them, why and the
    fixes (get one; another mode of the metric that does without it; drop the metric): the
    one check every executor, the dry run and the library share. A metric lacking two
    resources is named under each.

    Why before the run: such a run scored every sample of them as failed ("no judge
    configured (--judge none)", "answer_relevance (generate) needs an embedder", "no reward
    model configured") and exited 1 after all its other work; the user had asked for
    something the settings cannot give, a configuration error (exit 2).
    """
    if not unavailable:
        return []
    needing: dict[str, list[tuple[Metric, str | None]]] = {}
    for m in chosen:
        mode = mode_of_metric(m, options)
        for need in sorted(m.needs_in(mode), key=_need_order):
            if need in unavailable:
                needing.setdefault(need, []).append((m, mode))
    return [_needs_problem(need, lacking, unavailable[need]) for need, lacking in needing.items()]


def _need_order(need: str) -> tuple[int, str]:
    return (CHECKED.index(need) if need in CHECKED else len(CHECKED), need)


def _needs_problem(need: str, lacking: list[tuple[Metric, str | None]], why: str) -> Problem:
    """The line for one resource: "'a', 'b' need a judge, and there is no judge available:
    ..., or drop them from the metrics (-m)", with another mode as a fix where one does
    without it ("'answer_relevance' in its generate mode needs an embedder ...")."""
    them, verb = ("it", "needs") if len(lacking) == 1 else ("them", "need")
    named, modes = [], []
    for m, mode in lacking:
        others = _other_modes(m, mode, need)
        named.append(f"'{m.name}' in its {mode} mode" if others else f"'{m.name}'")
        if others:
            modes.append(f"--mode {m.name}={others[0]}")
    in_modes = f"run {them} in another mode ({', '.join(modes)}), or " if modes else ""
    return Problem(
        None,
        "metrics",
        f"{', '.join(named)} {verb} {a_need(need)}, and there is {why}, or {in_modes}drop "
        f"{them} from the metrics (-m)",
    )


def plan_metrics(
    samples: Sequence[Sample] | FieldPresence,
    metrics: Sequence[str] | str | None,
    notes: list[str],
    available_needs: set[str] | None = None,
    options: Mapping[str, Any] | None = None,
    *,
    gated: Collection[str] = (),
    unavailable: Mapping[str, str] | None = None,
) -> list[Metric]:
    """Pick the metrics to run and check that each requested one applies to some row.

    Without a list: every default metric that some row can feed and whose needs, in the
    chosen mode (``options``), are among ``available_needs``; each one left out is noted,
    with ``unavailable``'s reason for a resource it lacks ("no judge available: --judge none
    ..."; ``availability.unavailable_needs``). With a list and ``unavailable``: a listed metric
    needing a resource (judge, scorer, embedder, reward model) that cannot be had is a
    DataError naming it, the resource, the case and the fixes (``needs_problems``), as is a
    listed metric no row can feed. An empty list, an unknown metric or an unknown mode raises
    MetricError. ``samples`` may be a file's ``FieldPresence`` (every row counted, none
    kept): the same choice as on the samples themselves. ``gated``: metrics a gate will
    check after the run; one the plan leaves out is a DataError naming the plan's reason
    (``gate_problems``).
    """
    fed = _feeder(samples)
    check_metric_names(metrics)
    check_modes((options or {}).get("modes"))
    if metrics is None:
        chosen = []
        unbuilt = []  # fed by some row, but a model it needs is not available
        misnamed: dict[str, list[str]] = {}  # left out, a column's name close to a field's
        left_out: dict[str, str] = {}  # why each default metric is not run, for gate_problems
        for m in default_metrics():
            if not fed(m):
                left_out[m.name] = f"it needs {m.required_text()}, and no row has these fields"
                if near := _near_columns(samples, m.required_text()):
                    misnamed.setdefault(near, []).append(m.name)
                continue
            needs = m.needs_in(mode_of_metric(m, options))
            lacking = needs - available_needs if available_needs is not None else set()
            lacking |= needs & set(unavailable or {})
            if lacking:
                reasons = unavailable or {}
                why = "; ".join(
                    reasons.get(n, f"no {need_noun(n)} available")
                    for n in sorted(lacking, key=_need_order)
                )
                unbuilt.append(f"{m.name} ({why})")
                left_out[m.name] = why
                continue
            chosen.append(m)
        if problems := gate_problems(gated, [m.name for m in chosen], left_out):
            raise DataError(problems)
        notes.extend(f"not run: {why}" for why in unbuilt)
        notes.extend(
            f"not run: {', '.join(names)}: no row has the fields they need{near}"
            for near, names in misnamed.items()
        )
        if not chosen:
            why = (
                "every metric the rows' fields feed needs a model that is not available: "
                + "; ".join(unbuilt)
                + " (configure one, e.g. --judge openai:MODEL, or name metrics with -m)"
                if unbuilt
                else "every metric needs fields that no row has (see `ragmeter metrics`)"
            )
            raise DataError([Problem(None, None, f"no metric applies: {why}")])
        return chosen
    try:
        chosen = resolve(metrics)
    except MetricError as exc:
        raise DataError([Problem(None, "metrics", str(exc))]) from None
    problems = []
    for m in chosen:
        try:  # a mode options.mode gives every metric, which this one may not have
            m.mode_spec(mode_of_metric(m, options))
        except MetricError as exc:
            problems.append(Problem(None, "options.mode", str(exc)))
        if not fed(m):
            problems.append(
                Problem(
                    None,
                    m.required_text(),
                    f"metric '{m.name}' needs {m.required_text()}, but no row has these "
                    f"fields{_near_columns(samples, m.required_text())}",
                )
            )
    problems += needs_problems(chosen, unavailable, options)
    problems += gate_problems(gated, [m.name for m in chosen])
    if problems:
        raise DataError(problems)
    return chosen
