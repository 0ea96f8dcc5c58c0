"""`ragmeter report RUN [--compare RUN_B] -o report.html`: one self-contained HTML file.

Exit codes: 0 written (a failed ``--max-drop`` margin too: the page shows it; the gate that
exits 1 is ``compare --max-drop``); 2 bad input (an -o that is a directory or cannot be
written, checked before any work; runs that are no run directories or do not pair without
--intersect; a bad --max-drop, or one without --compare).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ragmeter.cli._common import EXIT_BAD_INPUT, cell, console, err_console, literal, run_guarded
from ragmeter.compare import compare
from ragmeter.compare_margins import parse_max_drop
from ragmeter.compare_render import public_text
from ragmeter.reporting import check_out, report
from ragmeter.runs import as_run


def report_cmd(
    run: Annotated[Path, typer.Argument(help="Run directory (scores.jsonl + summary.json).")],
    compare_run: Annotated[
        Path | None, typer.Option("--compare", help="A second run (B) to compare with RUN (A).")
    ] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="HTML file to write.")] = Path(
        "report.html"
    ),
    by: Annotated[str | None, typer.Option(help="Slice by this input column.")] = None,
    intersect: Annotated[
        bool,
        typer.Option("--intersect", help="With --compare: compare on the shared ids only."),
    ] = False,
    worst: Annotated[int, typer.Option(min=0, help="Samples shown per metric in the lists.")] = 5,
    alpha: Annotated[float, typer.Option(help="Significance level for the comparison.")] = 0.05,
    title: Annotated[str | None, typer.Option(help="Page title.")] = None,
    max_drop: Annotated[
        list[str] | None,
        typer.Option(
            "--max-drop",
            metavar="METRIC=DELTA",
            help="With --compare: METRIC=DELTA[,...], repeatable, as compare's: the page shows "
            "each non-inferiority margin met or FAILED. The exit code stays 0 (the page is "
            "written); gate with `ragmeter compare --max-drop`.",
        ),
    ] = None,
) -> None:
    """Write one self-contained HTML report (opens offline) of a run, or of two compared."""
    if not 0 < alpha < 1:
        err_console.print("[bold red]error:[/bold red] --alpha must be between 0 and 1")
        raise typer.Exit(EXIT_BAD_INPUT)
    if intersect and compare_run is None:
        err_console.print("[bold red]error:[/bold red] --intersect needs --compare RUN_B")
        raise typer.Exit(EXIT_BAD_INPUT)
    if max_drop is not None and compare_run is None:  # a margin of B - A needs a B
        err_console.print("[bold red]error:[/bold red] --max-drop needs --compare RUN_B")
        raise typer.Exit(EXIT_BAD_INPUT)
    # None when not given; [""] (an unset CI variable) is refused, not "no margin"
    drops = None if max_drop is None else run_guarded(parse_max_drop, max_drop, option="--max-drop")
    if str(out) == "-":  # else a file named "-" in the current directory
        err_console.print(
            "[bold red]error:[/bold red] -o - : the report is written to a file, not stdout: "
            "give its path (-o report.html)"
        )
        raise typer.Exit(EXIT_BAD_INPUT)
    run_guarded(check_out, out, runs=(run, compare_run))
    comparison = None
    base: Any = run
    if compare_run is None:  # compare's warnings say it of either run; alone, say it here
        base = run_guarded(as_run, run)
        if said := base.unfinished():
            err_console.print(cell(f"warning: {public_text(said)}", "bold yellow"))
    else:
        comparison = run_guarded(
            compare, run, compare_run, by=by, intersect=intersect, max_drop=drops
        )
        for warning in comparison.warnings:
            err_console.print(cell(f"warning: {public_text(warning)}", "bold yellow"))
    path = run_guarded(
        report, base, comparison, out=out, by=by, worst=worst, alpha=alpha, title=title
    )
    console.print(literal(f"wrote {path}"))
