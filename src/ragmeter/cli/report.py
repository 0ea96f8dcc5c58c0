"""`ragmeter report RUN [--compare RUN_B] -o report.html`: one self-contained HTML file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragmeter.cli._common import console, run_guarded
from ragmeter.reporting import report


def report_cmd(
    run: Annotated[Path, typer.Argument(help="Run directory (scores.jsonl + summary.json).")],
    compare_run: Annotated[
        Path | None, typer.Option("--compare", help="A second run (B) to compare with RUN (A).")
    ] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="HTML file to write.")] = Path(
        "report.html"
    ),
    by: Annotated[str | None, typer.Option(help="Slice by this input column.")] = None,
    worst: Annotated[int, typer.Option(help="Samples shown per metric in the lists.")] = 5,
    alpha: Annotated[float, typer.Option(help="Significance level for the comparison.")] = 0.05,
    title: Annotated[str | None, typer.Option(help="Page title.")] = None,
) -> None:
    """Write one self-contained HTML report (opens offline) of a run, or of two compared."""
    path = run_guarded(
        report, run, compare_run, out=out, by=by, worst=worst, alpha=alpha, title=title
    )
    console.print(f"wrote {path}")
