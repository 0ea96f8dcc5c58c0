"""`ragmeter metrics`: every metric with its required fields, needs per mode, and formula."""

from __future__ import annotations

from rich.markup import escape

from ragmeter.cli._common import console
from ragmeter.metrics.base import Metric, Mode
from ragmeter.metrics.registry import list_metrics, template_default_ks


def _mode_text(spec: Mode) -> str:
    text = ", ".join(sorted(spec.needs)) or "nothing (pure arithmetic)"
    if spec.uses:
        text += f" (uses {', '.join(sorted(spec.uses))} when configured)"
    return text


def needs_text(m: Metric) -> str:
    """What the metric needs, per mode when it has modes (the default mode first)."""
    if not m.modes:
        return _mode_text(m.mode_spec())
    parts = [f"{m.default_mode} (default): {_mode_text(m.mode_spec())}"]
    parts += [f"{name}: {_mode_text(spec)}" for name, spec in m.modes if name != m.default_mode]
    return "; ".join(parts)


def list_metrics_cmd() -> None:
    """List metrics with their required fields and definitions."""
    # One block per metric rather than a table: definitions stay readable at 80 columns.
    default_ks = template_default_ks()
    for m in list_metrics():
        needs = needs_text(m)
        if not m.default:
            needs += "  [dim](on request only)[/dim]"
        prefix = m.name[:-2] if m.name.endswith("@k") else None
        if prefix in default_ks:  # which k a run without -m uses: ndcg@k alone does not say
            runs = ", ".join(f"{prefix}@{k}" for k in default_ks[prefix])
            needs += f"  [dim](without -m: {escape(runs)})[/dim]"
        console.print(
            f"[bold]{escape(m.name)}[/bold]  [dim]requires[/dim] "
            f"{escape(m.required_text())}  [dim]needs[/dim] {needs}",
            highlight=False,
            soft_wrap=True,
        )
        console.print(f"    {escape(m.description)}", highlight=False, soft_wrap=True)
        if m.formula:
            console.print(f"    [dim]{escape(m.formula)}[/dim]", highlight=False, soft_wrap=True)
        console.print(f"    [dim]better: {_BETTER[m.direction]}[/dim]", highlight=False)


# What compare calls better (Metric.direction): a rise of a descriptive metric is no verdict
_BETTER = {
    "higher": "higher",
    "lower": "lower",
    "none": "neither (descriptive: compare shows the change, never a regression)",
}
