"""Command line: thin wrappers over the library. Exit codes: 0 ok, 2 bad input, 1 internal."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table

from ragmeter.errors import DataError, RagmeterError
from ragmeter.result import EvaluationResult

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Measure the quality of RAG pipelines.")
console = Console()
err_console = Console(stderr=True)

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT = 0, 1, 2


def _fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def print_result(result: EvaluationResult, title: str = "ragmeter") -> None:
    table = Table(title=f"{title}: {len(result.samples)} samples")
    table.add_column("metric")
    table.add_column("mean", justify="right")
    table.add_column("95% CI", justify="right")
    table.add_column("n ok", justify="right")
    table.add_column("undefined", justify="right")
    table.add_column("skipped", justify="right")
    table.add_column("failed", justify="right")
    for name in result.metrics:
        agg = result.aggregates[name]
        ci = "—" if agg.ci_low is None else f"[{agg.ci_low:.3f}, {agg.ci_high:.3f}]"
        table.add_row(name, _fmt(agg.mean), ci, str(agg.n_ok), str(agg.n_undefined),
                      str(agg.n_skipped), f"[red]{agg.n_failed}[/red]" if agg.n_failed
                      else "0")
    console.print(table)
    failures = result.failures()
    n_failed = sum(1 for f in failures if f["status"] == "failed")
    console.print(f"failures: {n_failed} failed, "
                  f"{sum(1 for f in failures if f['status'] == 'undefined')} undefined, "
                  f"{sum(1 for f in failures if f['status'] == 'skipped')} skipped")
    for f in [f for f in failures if f["status"] != "skipped"][:10]:
        console.print(f"  {f['question_id']} · {f['metric']} · {f['status']}: {f['reason']}")
    for note in result.notes:
        console.print(f"[dim]note: {note}[/dim]")
    usage = result.usage
    if usage.get("judge_tokens"):
        console.print(f"judge tokens: {usage['judge_tokens']}  calls: {usage.get('calls', 0)}  "
                      f"cached: {usage.get('cache_hits', 0)}")


def report_data_error(exc: DataError) -> None:
    err_console.print(f"[bold red]error:[/bold red] {len(exc.problems)} problem(s) in "
                      f"{exc.source or 'the input'}")
    for p in exc.problems[:200]:
        err_console.print(f"  - {p}", markup=False, highlight=False)
    if len(exc.problems) > 200:
        err_console.print(f"  ... and {len(exc.problems) - 200} more")


def run_guarded(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    """Map errors to exit codes: bad input 2 (no traceback), internal 1."""
    try:
        return fn(*args, **kwargs)
    except DataError as exc:
        report_data_error(exc)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    except RagmeterError as exc:
        err_console.print(f"[bold red]error:[/bold red] {exc}", highlight=False)
        raise typer.Exit(EXIT_BAD_INPUT) from None


@app.command()
def evaluate(
    data: Annotated[Path, typer.Argument(help="JSONL, JSON, CSV or Parquet file of samples.")],
    metrics: Annotated[Optional[str], typer.Option(  # noqa: UP007 - typer needs Optional
        "--metrics", "-m", help="Comma-separated metric names (default: all applicable).")] = None,
    out: Annotated[Optional[Path], typer.Option(  # noqa: UP007
        "--out", "-o", help="Directory for scores.jsonl and summary.json.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap CIs.")] = 0,
    n_resamples: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 1000,
) -> None:
    """Score a dataset and print aggregates with 95% CIs."""
    from ragmeter.runner import evaluate as run_evaluate

    result = run_guarded(run_evaluate, data, metrics, seed=seed, n_resamples=n_resamples,
                         progress=True)
    print_result(result, title=str(data))
    if out is not None:
        scores_path, summary_path = result.write(out)
        console.print(f"wrote {scores_path} and {summary_path}")


@app.command("metrics")
def list_metrics_cmd() -> None:
    """List metrics with their required fields and definitions."""
    from ragmeter.metrics.registry import list_metrics

    table = Table(title="ragmeter metrics")
    table.add_column("name")
    table.add_column("requires")
    table.add_column("needs")
    table.add_column("definition")
    for m in list_metrics():
        table.add_row(m.name, m.required_text(), ", ".join(sorted(m.needs)) or "—",
                      m.description)
    console.print(table)


def main() -> None:
    try:
        app()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        err_console.print("interrupted")
        sys.exit(130)
    except Exception as exc:  # an internal error: say so, keep the traceback short
        err_console.print(f"[bold red]internal error:[/bold red] {type(exc).__name__}: {exc}",
                          highlight=False)
        sys.exit(EXIT_INTERNAL)


if __name__ == "__main__":
    main()
