"""Planning a run: which metrics, in which mode, needing which resources.

Pure: reads the metric registry and the samples, builds nothing, calls nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ragmeter.errors import DataError, MetricError, Problem
from ragmeter.metrics.base import Metric
from ragmeter.metrics.registry import default_metrics, get_metric, list_metrics, resolve
from ragmeter.sample import Sample


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
    names = metrics.split(",") if isinstance(metrics, str) else list(metrics)
    if not any(str(n).strip() for n in names):
        raise MetricError(
            "no metric named: give at least one metric name (e.g. -m faithfulness,mrr; "
            "`ragmeter metrics` lists them), or leave the option out to run every applicable one"
        )


def plan_metrics(
    samples: Sequence[Sample],
    metrics: Sequence[str] | str | None,
    notes: list[str],
    available_needs: set[str] | None = None,
    options: Mapping[str, Any] | None = None,
) -> list[Metric]:
    """Pick the metrics to run and check that each requested one applies to some row.

    Without a list: every default metric that some row can feed and whose needs, in the
    chosen mode (``options``), are among ``available_needs``; each one left out is noted.
    An empty list, an unknown metric or an unknown mode raises MetricError.
    """
    check_metric_names(metrics)
    check_modes((options or {}).get("modes"))
    if metrics is None:
        chosen = []
        for m in default_metrics():
            if not any(m.missing(s) is None for s in samples):
                continue
            needs = m.needs_in(mode_of_metric(m, options))
            if available_needs is not None and not needs <= available_needs:
                lacking = ", ".join(sorted(needs - available_needs))
                notes.append(f"not run: {m.name} (no {lacking} available)")
                continue
            chosen.append(m)
        if not chosen:
            raise DataError(
                [
                    Problem(
                        None,
                        None,
                        "no metric applies: every metric needs fields "
                        "that no row has (see `ragmeter metrics`)",
                    )
                ]
            )
        return chosen
    try:
        chosen = resolve(metrics)
    except MetricError as exc:
        raise DataError([Problem(None, "metrics", str(exc))]) from None
    problems = []
    for m in chosen:
        if not any(m.missing(s) is None for s in samples):
            problems.append(
                Problem(
                    None,
                    m.required_text(),
                    f"metric '{m.name}' needs {m.required_text()}, but no row has these fields",
                )
            )
    if problems:
        raise DataError(problems)
    return chosen
