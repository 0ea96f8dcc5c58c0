"""Command line: thin wrappers over the library. Exit codes: 0 ok, 2 bad input, 1 internal."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ragmeter.errors import DataError, RagmeterError
from ragmeter.result import EvaluationResult

app = typer.Typer(
    add_completion=False, no_args_is_help=True, help="Measure the quality of RAG pipelines."
)
console = Console()
err_console = Console(stderr=True)

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT = 0, 1, 2


def _fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def print_result(result: EvaluationResult, title: str = "ragmeter") -> None:
    table = Table(title=f"{title}: {len(result.samples)} samples")
    table.add_column("metric", no_wrap=True)
    table.add_column("mean", justify="right", no_wrap=True)
    table.add_column("95% CI", justify="right", no_wrap=True)
    table.add_column("ok", justify="right")
    table.add_column("undef", justify="right")
    table.add_column("skip", justify="right")
    table.add_column("fail", justify="right")
    for name in result.metrics:
        agg = result.aggregates[name]
        ci = "—" if agg.ci_low is None else f"[{agg.ci_low:.3f}, {agg.ci_high:.3f}]"
        table.add_row(
            name,
            _fmt(agg.mean),
            ci,
            str(agg.n_ok),
            str(agg.n_undefined),
            str(agg.n_skipped),
            f"[red]{agg.n_failed}[/red]" if agg.n_failed else "0",
        )
    console.print(table)
    failures = result.failures()
    counts = {
        s: sum(1 for f in failures if f["status"] == s) for s in ("failed", "undefined", "skipped")
    }
    console.print(
        f"failures: {counts['failed']} failed, {counts['undefined']} undefined, "
        f"{counts['skipped']} skipped"
    )
    # One line per (sample, status, reason), naming every metric it hit.
    grouped: dict[tuple[str, str, str], list[str]] = {}
    for f in failures:
        if f["status"] != "skipped":
            grouped.setdefault((f["question_id"], f["status"], f["reason"] or ""), []).append(
                f["metric"]
            )
    for (qid, status, reason), names in list(grouped.items())[:10]:
        console.print(
            f"  {qid} · {', '.join(names)} · {status}: {reason}", markup=False, highlight=False
        )
    if len(grouped) > 10:
        console.print(f"  ... and {len(grouped) - 10} more (see summary.json)")
    for note in _group_notes(result.notes, result.metrics):
        console.print(f"note: {note}", style="dim", markup=False, highlight=False)
    usage = result.usage
    if usage.get("judge_tokens"):
        console.print(
            f"judge tokens: {usage['judge_tokens']}  calls: {usage.get('calls', 0)}  "
            f"cached: {usage.get('cache_hits', 0)}"
        )


def _group_notes(notes: list[str], metrics: list[str]) -> list[str]:
    """Merge notes 'metric: text' that repeat the same text for several metrics."""
    known = set(metrics)
    grouped: dict[str, list[str]] = {}
    for note in notes:
        name, sep, text = note.partition(": ")
        key = text if sep and name in known else note
        grouped.setdefault(key, [])
        if sep and name in known:
            grouped[key].append(name)
    return [f"{', '.join(names)}: {text}" if names else text for text, names in grouped.items()]


def report_data_error(exc: DataError) -> None:
    err_console.print(
        f"[bold red]error:[/bold red] {len(exc.problems)} problem(s) in "
        f"{escape(str(exc.source or 'the input'))}",
        soft_wrap=True,
    )
    for p in exc.problems[:200]:
        err_console.print(f"  - {p}", markup=False, highlight=False, soft_wrap=True)
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
        err_console.print(f"[bold red]error:[/bold red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(EXIT_BAD_INPUT) from None


@app.command()
def evaluate(
    data: Annotated[Path, typer.Argument(help="JSONL, JSON, CSV or Parquet file of samples.")],
    metrics: Annotated[
        str | None,
        typer.Option(
            "--metrics", "-m", help="Comma-separated metric names (default: all applicable)."
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Directory for scores.jsonl and summary.json."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap CIs.")] = 0,
    n_resamples: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 1000,
    judge: Annotated[
        str | None,
        typer.Option(help="local (default) | openai:MODEL | litellm:MODEL | gguf:PATH | none"),
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option(help="OpenAI-compatible server URL (vLLM, Ollama, llama.cpp, TGI, LiteLLM)."),
    ] = None,
    api_key_env: Annotated[
        str | None,
        typer.Option(help="Environment variable holding the API key (default OPENAI_API_KEY)."),
    ] = None,
    embedder: Annotated[
        str | None,
        typer.Option(help="local (default) | st:PATH | openai:MODEL | none"),
    ] = None,
    concurrency: Annotated[
        int | None,
        typer.Option(help="Judge calls in flight (default 8)."),
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(help="Seconds per HTTP call before a retry (default 120)."),
    ] = None,
    cache: Annotated[
        str | None,
        typer.Option(help="Cache directory for judge/embedding calls, or 'off'."),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(help="TOML or JSON settings file; options given here override it."),
    ] = None,
    mode: Annotated[
        list[str] | None,
        typer.Option(help="Per-metric mode, e.g. --mode faithfulness=generate (repeatable)."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Estimate judge calls and tokens; send nothing.")
    ] = False,
    by: Annotated[
        str | None, typer.Option(help="Also summarise per slice of this input column.")
    ] = None,
    fail_under: Annotated[
        str | None,
        typer.Option(help="Gate, e.g. faithfulness=0.8,mrr=0.6: exit 1 when a metric is below."),
    ] = None,
    gate_on: Annotated[
        str, typer.Option(help="What --fail-under checks: mean | ci-low (the CI's lower bound).")
    ] = "mean",
) -> None:
    """Score a dataset and print aggregates with 95% CIs."""
    from ragmeter.cli_compare import finish_evaluate, prepare_evaluate
    from ragmeter.config import settings_from_options
    from ragmeter.runner import evaluate as run_evaluate

    if gate_on not in ("mean", "ci-low", "ci_low"):
        err_console.print("[bold red]error:[/bold red] --gate-on must be mean or ci-low")
        raise typer.Exit(EXIT_BAD_INPUT)

    settings = run_guarded(
        settings_from_options,
        config,
        judge=judge,
        base_url=base_url,
        api_key_env=api_key_env,
        embedder=embedder,
        concurrency=concurrency,
        timeout=timeout,
        cache=cache,
        modes=mode,
    )
    if dry_run:
        from ragmeter.model_runner import dry_run as run_dry

        print_estimate(run_guarded(run_dry, data, metrics, settings))
        return
    samples, thresholds = prepare_evaluate(data, by, fail_under, metrics)
    result = run_guarded(
        run_evaluate,
        samples,
        metrics,
        seed=seed,
        n_resamples=n_resamples,
        settings=settings,
        progress=True,
    )
    print_result(result, title=str(data))
    if out is not None:
        scores_path, summary_path = result.write(out)
        console.print(f"wrote {scores_path} and {summary_path}")
    finish_evaluate(result, by, thresholds, gate_on)


def print_estimate(est: dict) -> None:  # type: ignore[type-arg]
    table = Table(title="dry run: estimated judge work (nothing was sent)")
    for col in ("metric", "new calls", "cached", "prompt tokens", "completion tokens"):
        table.add_column(col, justify="left" if col == "metric" else "right")
    for name, t in est["per_metric"].items():
        table.add_row(
            name,
            str(t["calls"]),
            str(t["cache_hits"]),
            str(t["prompt_tokens"]),
            str(t["completion_tokens"]),
        )
    table.add_row(
        "total",
        str(est["calls"]),
        str(est["cache_hits"]),
        str(est["prompt_tokens"]),
        str(est["completion_tokens"]),
        style="bold",
    )
    console.print(table)
    cost = est.get("cost_usd")
    cost_text = "unknown (no price configured)" if cost is None else f"${cost:.4f}"
    console.print(
        f"estimated cost: {cost_text}; lists assumed to hold {est['list_items_assumed']} items",
        highlight=False,
    )
    for need, why in est.get("unavailable", {}).items():
        console.print(f"note: no {need}: {why}", style="dim", markup=False, highlight=False)


@app.command("metrics")
def list_metrics_cmd() -> None:
    """List metrics with their required fields and definitions."""
    from ragmeter.metrics.registry import list_metrics

    # One block per metric rather than a table: definitions stay readable at 80 columns.
    for m in list_metrics():
        needs = ", ".join(sorted(m.needs)) or "nothing (pure arithmetic)"
        if m.uses:
            needs += f" (uses {', '.join(sorted(m.uses))} when configured)"
        if not m.default:
            needs += "  [dim](on request only)[/dim]"
        console.print(
            f"[bold]{escape(m.name)}[/bold]  [dim]requires[/dim] "
            f"{escape(m.required_text())}  [dim]needs[/dim] {needs}",
            highlight=False,
            soft_wrap=True,
        )
        console.print(f"    {escape(m.description)}", highlight=False, soft_wrap=True)
        if m.formula:
            console.print(f"    [dim]{escape(m.formula)}[/dim]", highlight=False, soft_wrap=True)


def main() -> None:
    try:
        app()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        err_console.print("interrupted")
        sys.exit(130)
    except Exception as exc:  # an internal error: say so, keep the traceback short
        err_console.print(
            f"[bold red]internal error:[/bold red] {type(exc).__name__}: {exc}", highlight=False
        )
        sys.exit(EXIT_INTERNAL)


from ragmeter.cli_models import models_app  # noqa: E402  (sub-app: ragmeter models ...)

app.add_typer(models_app, name="models")

# Sub-modules that register commands on `app`: `compare`, `report` and `meta-eval`.
from ragmeter import cli_compare, cli_meta  # noqa: E402, F401

if __name__ == "__main__":
    main()
