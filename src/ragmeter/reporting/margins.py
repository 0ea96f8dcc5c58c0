"""The report's rows for compare's non-inferiority margins (``--max-drop``).

A module of its own: ``build.py`` (the page's context) imports it, and the package's
``__init__`` imports ``build``, so the rows could not live in ``__init__`` (an import cycle).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragmeter.compare_render import fmt_ci


def margin_rows(margins: Sequence[Any]) -> list[dict[str, Any]]:
    """The report's rows of ``compare_margins.Margin`` objects: metric, the change allowed
    (a drop, or a rise where lower is better), the CI of B - A, met or FAILED, and the
    margin's own one-line verdict. Why text here, not in the template: the page must read
    what ``compare --max-drop`` prints, number for number; the template escapes it all."""
    rows = []
    for g in margins:
        allowed = "drop" if g.direction == "higher" else "rise (lower is better)"
        ci = fmt_ci(g.ci_low, g.ci_high)
        rows.append(
            {
                "metric": g.metric,
                "allowed": f"{allowed} {g.max_drop:g}",
                "ci": ci if ci != "—" else f"— ({g.note or 'no CI'})",
                "passed": bool(g.passed),
                "verdict": "met" if g.passed else "FAILED",
                "reason": str(g),
            }
        )
    return rows
