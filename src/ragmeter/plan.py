"""Planning a run: which metrics, in which mode, needing which resources.

Pure: reads the metric registry and the samples, builds nothing, calls nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ragmeter.errors import DataError, MetricError, Problem
from ragmeter.metrics.base import Metric
from ragmeter.metrics.registry import default_metrics, resolve
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
    """
    if metrics is None or (isinstance(metrics, (list, tuple)) and not metrics):
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
