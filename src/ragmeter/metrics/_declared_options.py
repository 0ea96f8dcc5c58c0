"""The options a user's metric reads (``register_metric(metric, options={...})``).

Why declared: ``Settings.options`` refuses a name no metric declares (a misspelt knob was
ignored while the judge was paid), so a metric of one's own could read no option at all.
Declared here, its options are checked where the built-ins' are (``metric_options``, when
the settings are built, before any work) and reach its ``acompute`` in
``resources.options``, each declared default filled in where the settings set none. A
module of its own to keep registry.py under 400 lines.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ragmeter.errors import MetricError
from ragmeter.metric_options import declare_options, declared_defaults, forget_options
from ragmeter.metrics.base import Metric


def declared(
    metric: Metric, options: Mapping[str, Any] | None, owner: str | None = None
) -> dict[str, Any]:
    """``options`` (name -> default) checked, without declaring them yet: MetricError before
    anything is registered. Why acompute only: ``compute(sample)`` is given no resources.
    ``owner``: the name they are declared under when not the metric's (a template's
    ``prefix@k``, ``metric`` being its ``factory(1)``)."""
    owner = metric.name if owner is None else owner
    if options is None or (isinstance(options, Mapping) and not options):
        return {}
    if not isinstance(options, Mapping):
        raise MetricError(
            f"metric {owner!r}: options takes a dict of option name -> default, "
            f"not {type(options).__name__}"
        )
    if metric.acompute is None:
        raise MetricError(
            f"metric {owner!r}: options reach acompute(sample, resources) as "
            "resources.options, and compute(sample) is given none: give the function as "
            "acompute (a plain function is fine)"
        )
    try:
        declare_options(owner, options, check_only=True)
    except ValueError as exc:
        raise MetricError(f"metric {owner!r}: {exc}") from None
    return dict(options)


def current(name: str) -> dict[str, Any]:
    """The options the metric ``name`` has declared, at their defaults."""
    return declared_defaults(name)


def declare(name: str, defaults: Mapping[str, Any]) -> None:
    """Make ``defaults`` (checked by ``declared``) the options of the metric ``name``."""
    forget_options(name)
    if defaults:
        declare_options(name, defaults)


def with_options(metric: Metric, defaults: Mapping[str, Any]) -> Metric:
    """``metric`` whose ``acompute`` finds its declared defaults in ``resources.options``
    where the settings set none (no options: ``metric`` itself)."""
    if not defaults or metric.acompute is None:
        return metric
    given, fixed = metric.acompute, dict(defaults)

    def acompute(sample: Any, resources: Any) -> Any:
        if dataclasses.is_dataclass(resources) and not isinstance(resources, type):
            options = {**fixed, **(getattr(resources, "options", None) or {})}
            resources = dataclasses.replace(resources, options=options)
        return given(sample, resources)

    return dataclasses.replace(metric, acompute=acompute)
