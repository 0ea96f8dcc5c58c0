"""`ragmeter compare` and `ragmeter report`, and evaluate's slices and gate (thin wrappers).

Exit codes: 0 ok, 1 a gate failed (one line per failed gate on stderr), 2 bad input (runs
that do not pair, unknown column or metric).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from ragmeter.cli import EXIT_INTERNAL, app, console, err_console, run_guarded

EXIT_GATE = EXIT_INTERNAL  # 1: the run worked, the pipeline did not pass


def _fmt(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "—"
    return f"{x:+.3f}" if signed else f"{x:.3f}"


def print_slices(rows: list[Any], by: str) -> None:
    table = Table(title=f"slices by {by} (sorted by difference from the overall mean)")
    for col in ("metric", by, "n", "mean", "95% CI", "vs overall", ""):
        table.add_column(col, justify="left" if col in ("metric", by, "") else "right")
    for r in rows:
        ci = "—" if r.ci_low is None else f"[{r.ci_low:.3f}, {r.ci_high:.3f}]"
        table.add_row(
            r.metric,
            escape(r.value),
            str(r.n),
            _fmt(r.mean),
            ci,
            _fmt(r.effect, signed=True),
            "[yellow]small[/yellow]" if r.small else "",
        )
    console.print(table)


def report_gate(failures: list[Any]) -> None:
    """One line per failed gate on stderr, then exit 1; nothing when every gate passed."""
    if not failures:
        return
    for f in failures:
        err_console.print(f"gate failed: {f}", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(EXIT_GATE)


def prepare_evaluate(data: Path, by: str | None, fail_under: str | None, metrics: str | None):  # type: ignore[no-untyped-def]
    """Before any scoring: load the data, check the slice column and the gated metric names.

    Returns (samples, thresholds); the samples go to evaluate() so the file is read once.
    """
    from ragmeter.gates import check_metric_names, parse_thresholds
    from ragmeter.io import load
    from ragmeter.slices import check_column

    thresholds = run_guarded(parse_thresholds, fail_under)
    listed = [m.strip() for m in metrics.split(",") if m.strip()] if metrics else None
    run_guarded(check_metric_names, thresholds, listed)
    samples = run_guarded(load, data)
    if by:
        run_guarded(check_column, samples, by, str(data))
    return samples, thresholds


def finish_evaluate(
    result: Any, by: str | None, thresholds: dict[str, float], gate_on: str
) -> None:
    """After the outputs are written: the slice table, then the --fail-under gate."""
    from ragmeter.gates import fail_under

    if by:
        from ragmeter.slices import slice_summary

        print_slices(slice_summary(result, by, seed=result.config.get("seed", 0)), by)
    if thresholds:
        report_gate(fail_under(result, thresholds, on=gate_on.replace("-", "_")))  # type: ignore[arg-type]


@app.command("compare")
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
        Path | None, typer.Option(help="Also write the Markdown (PR comment) here.")
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Also write the JSON here.")
    ] = None,
    alpha: Annotated[float, typer.Option(help="Significance level (Holm-adjusted).")] = 0.05,
    fail_on_regression: Annotated[
        bool,
        typer.Option("--fail-on-regression", help="Exit 1 when a metric drops significantly."),
    ] = False,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap and permutations.")] = 0,
    n_resamples: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 2000,
    permutations: Annotated[int, typer.Option(help="Permutation-test resamples.")] = 9999,
) -> None:
    """Compare run B with run A sample by sample: deltas, CIs, p-values, win/tie/loss."""
    from ragmeter.compare import compare
    from ragmeter.compare_render import to_markdown, to_rich
    from ragmeter.gates import fail_on_regression as regressions

    if output not in ("table", "markdown", "json"):
        err_console.print("[bold red]error:[/bold red] --format must be table, markdown or json")
        raise typer.Exit(2)
    if not 0 < alpha < 1:
        err_console.print("[bold red]error:[/bold red] --alpha must be between 0 and 1")
        raise typer.Exit(2)
    listed = [m.strip() for m in metrics.split(",") if m.strip()] if metrics else None
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
    )
    for warning in cmp.warnings:
        err_console.print(f"warning: {warning}", style="bold yellow", markup=False)
    if output == "json":
        typer.echo(cmp.to_json())
    elif output == "markdown":
        typer.echo(to_markdown(cmp, alpha=alpha), nl=False)
    else:
        for renderable in to_rich(cmp, alpha=alpha):
            console.print(renderable)
    if markdown is not None:
        markdown.write_text(to_markdown(cmp, alpha=alpha), encoding="utf-8")
    if json_out is not None:
        json_out.write_text(cmp.to_json(), encoding="utf-8")
    if fail_on_regression:
        report_gate(regressions(cmp, alpha=alpha))


@app.command("report")
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
    from ragmeter.reporting import report

    path = run_guarded(
        report, run, compare_run, out=out, by=by, worst=worst, alpha=alpha, title=title
    )
    console.print(f"wrote {path}")
