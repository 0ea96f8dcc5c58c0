"""`ragmeter metrics`: every metric with its required fields, needs per mode, and formula."""

from __future__ import annotations

from rich.text import Text

from ragmeter.cli._common import cell, console, literal
from ragmeter.cli._plugins import PluginOption, load_cli_plugins
from ragmeter.metric_options import declared_defaults
from ragmeter.metrics.base import Metric, Mode
from ragmeter.metrics.registry import list_metrics, template_default_ks
from ragmeter.plugins import origin_of


def _mode_text(spec: Mode) -> str:
    """``needs`` as required; ``uses`` as what the mode *can* use. Why not "uses X when
    configured": a Mode declares no condition, and the conditions differ. Faithfulness fast
    uses the embedder only with ``options.evidence = "embedding"`` (word overlap otherwise),
    though an embedder is configured by default; "when configured" sent users hunting for
    an embedder cost the run never paid. The README's metric table says when each one does."""
    text = ", ".join(sorted(spec.needs)) or "nothing (pure arithmetic)"
    if spec.uses:
        text += f" (can also use {', '.join(sorted(spec.uses))})"
    return text


def needs_text(m: Metric) -> str:
    """What the metric needs, per mode when it has modes (the default mode first)."""
    if not m.modes:
        return _mode_text(m.mode_spec())
    parts = [f"{m.default_mode} (default): {_mode_text(m.mode_spec())}"]
    parts += [f"{name}: {_mode_text(spec)}" for name, spec in m.modes if name != m.default_mode]
    return "; ".join(parts)


def list_metrics_cmd(plugin: PluginOption = None) -> None:
    """List every metric, its required fields and its definition.

    A plugin's metrics are listed with the built-ins, marked as its."""
    load_cli_plugins(plugin)
    # One block per metric rather than a table: definitions stay readable at 80 columns.
    # Text pieces, never markup: a custom metric's description, formula or needed fields are
    # its author's text ("[x]" in a formula vanished, "[/x]" raised MarkupError).
    default_ks = template_default_ks()
    for m in list_metrics():
        line = Text.assemble(  # a registered metric's name and formula are its author's text
            cell(m.name, "bold"),
            "  ",
            ("requires", "dim"),
            " ",
            m.required_text(),
            "  ",
            ("needs", "dim"),
            " ",
            needs_text(m),
        )
        if not m.default:
            line.append("  (on request only)", "dim")
        prefix = m.name[:-2] if m.name.endswith("@k") else None
        if prefix in default_ks:  # which k a run without -m uses: ndcg@k alone does not say
            runs = ", ".join(f"{prefix}@{k}" for k in default_ks[prefix])
            line.append(f"  (without -m: {runs})", "dim")
        if (origin := origin_of(m.name)) is not None:  # a team's metric, said as theirs
            line.append(cell(f"  (plugin {origin.name})", "dim"))
        console.print(line, soft_wrap=True)
        console.print(literal(f"    {m.description}"), soft_wrap=True)
        if options := declared_defaults(m.name):  # register_metric(..., options=...)
            said = ", ".join(f"{k}={v!r}" for k, v in options.items())
            console.print(literal(f"    options: {said}", "dim"), soft_wrap=True)
        if m.formula:
            console.print(Text.assemble("    ", literal(m.formula, "dim")), soft_wrap=True)
        console.print(literal(f"    better: {_BETTER[m.direction]}", "dim"))


# What compare calls better (Metric.direction): a rise of a descriptive metric is no verdict
_BETTER = {
    "higher": "higher",
    "lower": "lower",
    "none": "neither (descriptive: compare shows the change, never a regression)",
}
