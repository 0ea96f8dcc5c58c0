"""One self-contained static HTML report of a run, optionally compared with a second run.

The page opens with no network: styles are inline, charts are SVG rendered at report time,
sample evidence expands with HTML's own <details> element (no script). Needs the ``report``
extra (jinja2, matplotlib).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragmeter.errors import ReportUnavailable

__all__ = ["render_report", "report"]


def _require() -> None:
    missing = []
    for mod in ("jinja2", "matplotlib"):
        try:
            __import__(mod)
        except ImportError:
            missing.append(mod)
    if missing:
        raise ReportUnavailable(
            f"the HTML report needs {', '.join(missing)}: pip install 'ragmeter[report]'"
        )


def render_report(
    run: Any,
    compare: Any = None,
    *,
    by: str | None = None,
    worst: int = 5,
    alpha: float = 0.05,
    title: str | None = None,
    seed: int = 0,
) -> str:
    """The report's HTML as a string.

    ``run``: an EvaluationResult or run directory. ``compare``: a second run (B; ``run`` is
    A) or a ready ``Comparison``. ``by``: a column to slice by. ``worst``: samples shown per
    metric in the worst / biggest-change lists.
    """
    _require()
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    from ragmeter.compare import Comparison
    from ragmeter.compare import compare as run_compare
    from ragmeter.reporting.build import report_context
    from ragmeter.runs import as_run
    from ragmeter.slices import slice_summary

    comparison = None
    if isinstance(compare, Comparison):
        comparison = compare
        base = compare.a
    else:
        base = as_run(run)
        if compare is not None:
            comparison = run_compare(base, compare, by=by, seed=seed)
    slices = slice_summary(base.result, by, seed=seed) if by else None
    context = report_context(
        base, comparison=comparison, slices=slices, by=by, worst=worst, alpha=alpha, title=title
    )
    env = Environment(
        loader=PackageLoader("ragmeter.reporting", "templates"),
        autoescape=select_autoescape(default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template("report.html.j2").render(**context)


def report(
    run: Any,
    compare: Any = None,
    *,
    out: str | Path = "report.html",
    **options: Any,
) -> Path:
    """Write the report (see render_report for the options) to ``out``; returns its path."""
    html = render_report(run, compare, **options)
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html, encoding="utf-8")
    return path
