"""`ragmeter compare RUN_A RUN_B`: paired deltas, CIs, p-values; a regression gate.

Exit codes: 0 ok, 1 ``--fail-on-regression`` and a metric got significantly worse (by its
direction; never one with no better direction, such as refusal_rate), B failed more of a
metric's scores than A, B has no score for samples A scored (failed, undefined or skipped
in B; --allow-lost-scores accepts the undefined or skipped), or B lacks a metric A computed
(unless --metrics), or ``--max-drop`` and a margin not shown (the CI of B - A reaches
past -DELTA on the worse side, or there is no CI), 2 runs that do not pair (the ids are
named), an output path (--markdown, --json) that is a directory or cannot be written
(checked before any run is read), a bad --max-drop, two outputs asked of stdout (``--json -``
beside ``--markdown -`` or another ``-f``) or other bad input.
"""

from __future__ import annotations

from itertools import takewhile
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from ragmeter.cli._common import (
    EXIT_BAD_INPUT,
    cell,
    console,
    echo,
    err_console,
    run_guarded,
    said,
)
from ragmeter.cli._fold import fold
from ragmeter.cli._gates import report_gate
from ragmeter.cli._long_tables import print_table as print_wide
from ragmeter.compare import compare
from ragmeter.compare_margins import parse_max_drop
from ragmeter.compare_options import MIN_RESAMPLES
from ragmeter.compare_render import to_markdown, to_rich
from ragmeter.gates import fail_on_regression as regressions
from ragmeter.md_escape import json_visible
from ragmeter.redact import public_text
from ragmeter.reporting import check_out, write_out

FORMATS = ("table", "markdown", "json")


def print_table(renderable: Any) -> None:
    """A renderable of the comparison on stdout, a table as wide as it needs off a terminal
    (_long_tables.print_table says why). On a terminal too narrow for a table, the table
    folded into parts that each lead with its metric (and slice) columns (_fold says why),
    the verdict (or the slice's flag) in the first part."""
    if not (console.is_terminal and isinstance(renderable, Table)):
        print_wide(console, renderable)
        return
    headers = [str(c.header) for c in renderable.columns]
    keep = len(list(takewhile(lambda h: h in ("metric", "slice"), headers)))
    for part in fold(console, renderable, console.width, keep, first=[len(headers) - 1]):
        print_wide(console, part)


def compare_cmd(
    run_a: Annotated[Path, typer.Argument(help="Baseline run directory (A).")],
    run_b: Annotated[Path, typer.Argument(help="Candidate run directory (B).")],
    metrics: Annotated[
        str | None, typer.Option("--metrics", "-m", help="Compare only these metrics.")
    ] = None,
    by: Annotated[str | None, typer.Option(help="Slice by this input column.")] = None,
    intersect: Annotated[
        bool, typer.Option("--intersect", help="Compare on the shared ids only.")
    ] = False,
    output: Annotated[
        str, typer.Option("--format", "-f", help="table | markdown | json (stdout).")
    ] = "table",
    markdown: Annotated[
        Path | None,
        typer.Option(help="Also write the Markdown (PR comment) here; - prints it instead."),
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Also write the JSON here; - prints it instead.")
    ] = None,
    alpha: Annotated[float, typer.Option(help="Significance level (Holm-adjusted).")] = 0.05,
    fail_on_regression: Annotated[
        bool,
        typer.Option(
            "--fail-on-regression",
            help="Exit 1 when a metric gets significantly worse (refusal_rate never does), "
            "B failed more of a metric's scores than A, B has no score for samples A scored, "
            "or B lacks a metric A computed.",
        ),
    ] = False,
    allow_lost_scores: Annotated[
        bool,
        typer.Option(
            "--allow-lost-scores",
            help="--fail-on-regression: samples A scored that B left undefined or skipped "
            "do not fail it (they are still counted and warned about; failed ones still fail).",
        ),
    ] = False,
    max_drop: Annotated[
        list[str] | None,
        typer.Option(
            "--max-drop",
            metavar="METRIC=DELTA",
            help="METRIC=DELTA[,...], repeatable: exit 1 unless B is shown not worse than A by "
            "more than DELTA (the CI of B - A stays above -DELTA; below +DELTA for a "
            "lower-is-better metric). No CI (too few pairs) fails.",
        ),
    ] = None,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the bootstrap and permutations.")] = 0,
    n_resamples: Annotated[
        int,
        typer.Option(
            min=MIN_RESAMPLES,
            help="Bootstrap resamples (from 20,000 changed pairs the normal CI is used).",
        ),
    ] = 2000,
    permutations: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Permutation-test resamples (default 9999; fewer over 2000 pairs; from "
            "20,000 changed pairs the normal limit of the test is used).",
        ),
    ] = None,
) -> None:
    """Compare run B with run A sample by sample: deltas, CIs, p-values, win/tie/loss."""
    if output not in FORMATS:
        err_console.print("[bold red]error:[/bold red] --format must be table, markdown or json")
        raise typer.Exit(EXIT_BAD_INPUT)
    if not 0 < alpha < 1:
        err_console.print("[bold red]error:[/bold red] --alpha must be between 0 and 1")
        raise typer.Exit(EXIT_BAD_INPUT)
    if allow_lost_scores and not fail_on_regression:  # else an option silently doing nothing
        err_console.print(
            "[bold red]error:[/bold red] --allow-lost-scores applies to --fail-on-regression "
            "only: add it, or leave the option out"
        )
        raise typer.Exit(EXIT_BAD_INPUT)
    markdown, json_out, output = _stdout_outputs(markdown, json_out, output)
    # Every output path before any work: a bad one found after the statistics was an
    # internal error (exit 1) and the comparison was lost.
    outputs = {"--markdown": (markdown, "comment.md"), "--json": (json_out, "compare.json")}
    runs = (run_a, run_b)  # a run's own files are never written over (it is read)
    checked = {o: run_guarded(check_out, p, o, e, runs) for o, (p, e) in outputs.items() if p}
    if len(checked) == 2 and checked["--markdown"].absolute() == checked["--json"].absolute():
        # the JSON was written over the Markdown: one of the two asked for was lost
        err_console.print(
            said("error:", "bold red", f"--markdown and --json are one file ({markdown}): give two")
        )
        raise typer.Exit(EXIT_BAD_INPUT)
    listed = [m.strip() for m in metrics.split(",") if m.strip()] if metrics else None
    # None when not given; [""] (an unset CI variable) is refused, not "no margin"
    drops = None if max_drop is None else run_guarded(parse_max_drop, max_drop, option="--max-drop")
    cmp = run_guarded(
        compare,
        run_a,
        run_b,
        metrics=listed,
        by=by,
        intersect=intersect,
        seed=seed,
        n_resamples=n_resamples,
        permutations=permutations,
        max_drop=drops,
    )
    # The files first: a stdout closed early (`| head`) ends the process as it prints.
    if "--markdown" in checked:
        run_guarded(write_out, checked["--markdown"], to_markdown(cmp, alpha=alpha), "--markdown")
    if "--json" in checked:
        # json_visible: the file is read with cat as often as with a parser (same values to it)
        json_text = json_visible(cmp.to_json(alpha))
        run_guarded(write_out, checked["--json"], json_text, "--json")
    for warning in cmp.warnings:
        err_console.print(cell(f"warning: {public_text(warning)}", "bold yellow"))
    if output == "json":
        echo(json_visible(cmp.to_json(alpha)))
    elif output == "markdown":
        echo(to_markdown(cmp, alpha=alpha), nl=False)
    else:
        for renderable in to_rich(cmp, alpha=alpha):
            print_table(renderable)
    failed: list[Any] = [g for g in cmp.margins if not g.passed]  # --max-drop's
    if fail_on_regression:
        failed = regressions(cmp, alpha=alpha, allow_lost_scores=allow_lost_scores) + failed
    report_gate(failed)


STDOUT = Path("-")


def _stdout_outputs(
    markdown: Path | None, json_out: Path | None, output: str
) -> tuple[Path | None, Path | None, str]:
    """``--json -`` / ``--markdown -``: that output on stdout, alone (as ``-f json`` /
    ``-f markdown``). Why: ``compare A B --json - | python -m json.tool`` wrote a file named
    "-" in the current directory and piped the table, which json.tool refused. Two outputs
    asked of stdout at once are refused (exit 2): mixed there, neither could be read."""
    asked = {"json": json_out == STDOUT, "markdown": markdown == STDOUT}
    on_stdout = [fmt for fmt, dash in asked.items() if dash]
    if not on_stdout:
        return markdown, json_out, output
    if len(on_stdout) == 2 or output not in ("table", on_stdout[0]):
        shown = [f"--{f} -" for f in on_stdout] + ([f"-f {output}"] if output != "table" else [])
        err_console.print(
            said(
                "error:",
                "bold red",
                f"{' and '.join(shown)} each print on stdout: give one of them (a file path "
                "for the other)",
            ),
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_BAD_INPUT)
    markdown = None if asked["markdown"] else markdown
    return markdown, None if asked["json"] else json_out, on_stdout[0]
