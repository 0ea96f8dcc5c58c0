"""What evaluate and compare share for slices and CI gates: checks, tables, exit code 1;
and evaluate's checks of its paths (DATA, --out) before any work.

Exit codes: 1 when a gate failed (one ``gate failed: ...`` line per failed gate on stderr,
after every output was written), 2 for a bad gate or slice column (before any scoring).
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from typing import Any

import typer
from rich import box
from rich.table import Table

from ragmeter.cli._common import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL,
    cell,
    console,
    err_console,
    literal,
    run_guarded,
    table_title,
)
from ragmeter.cli._long_tables import print_table
from ragmeter.compare_render import ci_header, label_shown
from ragmeter.gates import (
    check_metric_names,
    check_threshold_values,
    fail_under,
    parse_thresholds,
)
from ragmeter.io import load
from ragmeter.slices import check_column, recorded_bootstrap, slice_summary

EXIT_GATE = EXIT_INTERNAL  # 1: the run worked, the pipeline did not pass


def _fmt(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "—"
    return f"{x:+.3f}" if signed else f"{x:.3f}"


def check_gate_on(value: str) -> str:
    """'mean' or 'ci_low' from the --gate-on option; exit 2 otherwise."""
    on = value.replace("-", "_")
    if on not in ("mean", "ci_low"):
        err_console.print("[bold red]error:[/bold red] --gate-on must be mean or ci-low")
        raise typer.Exit(EXIT_BAD_INPUT)
    return on


def report_gate(failures: list[Any]) -> None:
    """One line per failed gate on stderr, then exit 1; nothing when every gate passed."""
    if not failures:
        return
    for f in failures:
        err_console.print(cell(f"gate failed: {f}"), soft_wrap=True)  # one line each
    raise typer.Exit(EXIT_GATE)


def print_slices(rows: list[Any], by: str, confidence: float = 0.95) -> None:
    """The slice table, its CIs at the run's ``confidence`` (a slice without one: "—").
    The column (--by) and its labels are the user's: literal Text, and never cut
    ("[bold]t[/bol…" was all a CI log showed of a label). Printed by
    ``_long_tables.print_table``: rich's own layout of 4,000 slices was 60% of the
    command's CPU."""
    table = Table(
        title=table_title(f"slices by {by} (sorted by difference from the overall mean)"),
        box=box.SIMPLE_HEAD,
    )
    for i, col in enumerate(("metric", by, "n", "mean", ci_header(confidence), "vs overall", "")):
        left = i in (0, 1, 6)  # by itself: a column named "n" is still the label column
        fold = "fold" if i < 2 else "ellipsis"
        table.add_column(cell(col), justify="left" if left else "right", overflow=fold)
    for r in rows:
        ci = "—" if r.ci_low is None else f"[{r.ci_low:.3f}, {r.ci_high:.3f}]"
        table.add_row(
            cell(r.metric),
            cell(label_shown(r.value)),
            str(r.n),
            _fmt(r.mean),
            ci,
            _fmt(r.effect, signed=True),
            "[yellow]small[/yellow]" if r.small else "",
        )
    print_table(console, table)


def check_paths(data: Path, out: Path | None) -> None:
    """DATA must be a file ragmeter can read more than once (its rows, then its sha256 for
    run.json and for resuming), and ``-o -`` names no directory. Why: ``evaluate -`` said
    "unsupported file type '-'"; ``/dev/stdin`` from a pipe, a FIFO or ``<(jq ...)`` said
    "row 1: invalid JSON", blaming good data (the second read found the pipe empty); ``-o -``
    wrote the run into a directory named "-"."""
    piped = "no regular file (a pipe: stdin, a FIFO, <(...))"
    if str(data) == "-":
        _usage(f"DATA - (stdin) cannot be read: {_READ_TWICE}")
    with contextlib.suppress(OSError):  # a missing file is the loader's to say
        if not stat.S_ISREG(mode := os.stat(data).st_mode) and not stat.S_ISDIR(mode):
            _usage(f"DATA {data} is {piped}: {_READ_TWICE}")
    if out is not None and str(out) == "-":
        _usage("-o - : --out is the directory the run is written into, not stdout")


_READ_TWICE = (
    "ragmeter reads its input more than once (rows, then its sha256 for run.json); "
    "save it to a file first (cmd > rows.jsonl) and give that path"
)


def _usage(message: str) -> None:
    err_console.print(literal(f"error: {message}"), soft_wrap=True)
    raise typer.Exit(EXIT_BAD_INPUT)


def prepare_evaluate(
    data: Path,
    by: str | None,
    gates: str | None,
    metrics: str | None,
    data_format: str | None = None,
) -> dict[str, float]:
    """Before any scoring: check the gated metric names and the slice column (--by).

    Returns the thresholds. evaluate() is then given the path, not the loaded rows, so its
    run.json records the input file's name and sha256.
    """
    thresholds = run_guarded(parse_thresholds, gates)
    listed = [m.strip() for m in metrics.split(",") if m.strip()] if metrics else None
    run_guarded(check_metric_names, thresholds, listed)
    run_guarded(check_threshold_values, thresholds)
    if by:
        run_guarded(check_column, run_guarded(load, data, format=data_format), by, str(data))
    return thresholds


def finish_evaluate(result: Any, by: str | None, thresholds: dict[str, float], on: str) -> None:
    """After the outputs are written: the slice table, then the --fail-under gate."""
    if by:  # the slices' CIs as the run's: its confidence, resamples (0: none) and seed
        recorded = run_guarded(recorded_bootstrap, result.config, result.manifest)
        print_slices(slice_summary(result, by, **recorded), by, recorded["confidence"])
    if thresholds:
        report_gate(fail_under(result, thresholds, on=on))  # type: ignore[arg-type]
