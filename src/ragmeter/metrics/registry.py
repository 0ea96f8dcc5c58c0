"""Metric names -> Metric objects, including parametrised ones such as ``ndcg@10``.

One way: this module imports the metric modules and registers what they declare; no metric
module imports it. ``register`` is also how a user adds a metric of their own.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ragmeter.errors import MetricError
from ragmeter.metrics import (
    faithfulness,
    lexical_batch,
    perplexity,
    reference,
    refusal,
    relevance,
    retrieval,
    reward,
)
from ragmeter.metrics.base import Metric

_FIXED: dict[str, Metric] = {}
_TEMPLATES: dict[str, tuple[Callable[[int], Metric], tuple[int, ...]]] = {}
_TEMPLATE_RE = re.compile(r"^([a-z_]+)@(\S+)$")


def register(metric: Metric) -> Metric:
    if metric.name in _FIXED:
        raise ValueError(f"metric {metric.name!r} registered twice")
    _FIXED[metric.name] = metric
    return metric


def register_template(
    prefix: str, factory: Callable[[int], Metric], default_ks: tuple[int, ...]
) -> None:
    """Register ``prefix@k``; ``default_ks`` are the k run when no metrics are named."""
    _TEMPLATES[prefix] = (factory, default_ks)


# Built-in metrics, model-based first (the order of default runs and listings).
for _metric in (
    faithfulness.METRIC,
    faithfulness.JUDGE_METRIC,
    relevance.AR_METRIC,
    relevance.CR_METRIC,
    reference.CP_METRIC,
    reference.CREC_METRIC,
    reference.AC_METRIC,
    perplexity.METRIC,
    reward.METRIC,
    *refusal.METRICS,
    *lexical_batch.METRICS,
    *retrieval.METRICS,
):
    register(_metric)
for _prefix, _factory, _ks in retrieval.TEMPLATES:
    register_template(_prefix, _factory, _ks)


def default_modes() -> dict[str, str]:
    """Each metric with modes -> its default mode (``--mode metric=mode`` overrides)."""
    return {m.name: m.default_mode for m in _FIXED.values() if m.default_mode is not None}


def get_metric(name: str) -> Metric:
    name = name.strip()
    if name in _FIXED:
        return _FIXED[name]
    match = _TEMPLATE_RE.match(name)
    if match and match.group(1) in _TEMPLATES:
        prefix, k_text = match.groups()
        if not k_text.isdigit() or int(k_text) < 1:
            raise MetricError(f"metric {name!r}: k must be a positive integer, e.g. {prefix}@10")
        return _TEMPLATES[prefix][0](int(k_text))
    if name in (f"{p}@k" for p in _TEMPLATES):
        raise MetricError(f"metric {name!r}: give k as a number, e.g. {name[:-1]}10")
    known = ", ".join(sorted([*_FIXED, *(f"{p}@k" for p in _TEMPLATES)]))
    raise MetricError(f"unknown metric {name!r}; known metrics: {known}")


def resolve(names: list[str] | str) -> list[Metric]:
    """Resolve names (a list or a comma-separated string); every bad name is reported."""
    if isinstance(names, str):
        names = [n for n in names.split(",") if n.strip()]
    metrics: list[Metric] = []
    errors: list[str] = []
    seen: set[str] = set()
    for name in names:
        try:
            metric = get_metric(name)
        except MetricError as exc:
            errors.append(str(exc))
            continue
        if metric.name not in seen:
            seen.add(metric.name)
            metrics.append(metric)
    if errors:
        raise MetricError("; ".join(errors))
    return metrics


def default_metrics() -> list[Metric]:
    out = [m for m in _FIXED.values() if m.default]
    for factory, ks in _TEMPLATES.values():
        out.extend(factory(k) for k in ks)
    return out


def list_metrics() -> list[Metric]:
    """Every metric, templates shown with their symbolic k."""
    out = list(_FIXED.values())
    for prefix, (factory, _ks) in _TEMPLATES.items():
        template = factory(1)
        text = getattr(factory, "description_template", template.description)
        out.append(
            Metric(
                name=f"{prefix}@k",
                description=text.replace("{k}", "k"),
                requires=template.requires,
                compute=template.compute,
                needs=template.needs,
                reference_based=template.reference_based,
                formula=template.formula.replace("@1", "@k"),
                direction=template.direction,
            )
        )
    return out
