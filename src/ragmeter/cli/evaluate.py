"""`ragmeter evaluate DATA`: score a dataset and print aggregates with 95% CIs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from ragmeter.cli._common import (
    EMBEDDER_HELP,
    EXIT_BAD_INPUT,
    JUDGE_HELP,
    OPTION_HELP,
    cell,
    check_judge_form,
    console,
    err_console,
    fmt,
    literal,
    run_guarded,
    table_title,
)
from ragmeter.cli._gates import check_gate_on, check_paths, finish_evaluate, prepare_evaluate
from ragmeter.cli._long_tables import WHENEVER_CUT, print_table
from ragmeter.cli._plugins import PluginOption, load_cli_plugins
from ragmeter.cli._usage_lines import usage_lines
from ragmeter.compare_options import MAX_RESAMPLES, MIN_RESAMPLES
from ragmeter.config import settings_from_options
from ragmeter.dry_run import cost_text
from ragmeter.dry_run import dry_run as run_dry
from ragmeter.errors import ConfigError, RagmeterError
from ragmeter.executors.common import check_executor_options
from ragmeter.executors.streamed import StreamedResult
from ragmeter.integrations.mlflow import check as check_mlflow
from ragmeter.integrations.mlflow import log_result
from ragmeter.result import EvaluationResult
from ragmeter.runner import evaluate as run_evaluate


def evaluate(
    data: Annotated[
        Path, typer.Argument(help="JSONL, JSON, CSV or Parquet file of samples, or traces.")
    ],
    metrics: Annotated[
        str | None,
        typer.Option(
            "--metrics", "-m", help="Comma-separated metric names (default: all applicable)."
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Directory for scores.jsonl, summary.json and run.json."),
    ] = None,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the bootstrap CIs (0 or more).")] = 0,
    n_resamples: Annotated[  # one resample gave a zero-width "95% CI" off the mean
        int,
        typer.Option(
            min=MIN_RESAMPLES,
            max=MAX_RESAMPLES,
            help="Bootstrap resamples of the 95% CIs (2 or more).",
        ),
    ] = 1000,
    judge: Annotated[str | None, typer.Option(help=JUDGE_HELP)] = None,
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
        typer.Option(help=EMBEDDER_HELP),
    ] = None,
    concurrency: Annotated[
        int | None,
        typer.Option(min=1, max=1024, help="Judge calls in flight (default 8)."),
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(help="Seconds per HTTP call before a retry (default 120)."),
    ] = None,
    cache: Annotated[
        str | None,
        typer.Option(
            help="Cache directory for judge/embedding calls, or 'off' (default: the user "
            "cache dir)."
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(help="TOML or JSON settings file; options given here override it."),
    ] = None,
    mode: Annotated[
        list[str] | None,
        typer.Option(help="Per-metric mode, e.g. --mode faithfulness=generate (repeatable)."),
    ] = None,
    option: Annotated[
        list[str] | None,
        typer.Option(help=OPTION_HELP, metavar="NAME=VALUE"),
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
    overwrite: Annotated[
        bool,
        typer.Option(help="Replace a run in --out made with other settings (else exit 2)."),
    ] = False,
    max_failure_rate: Annotated[
        float,
        typer.Option(
            min=0.0, max=1.0, help="Exit 0 while at most this share of scores failed (default 0)."
        ),
    ] = 0.0,
    structured_output: Annotated[
        str | None,
        typer.Option(
            help="auto (default: found at preflight) | json_schema | json_object | none: the "
            "structured output a remote judge is asked for."
        ),
    ] = None,
    preflight: Annotated[
        bool | None,
        typer.Option(
            "--preflight/--no-preflight",
            help="One tiny request to a remote judge first (default: yes, or the --config's).",
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")] = False,
    data_format: Annotated[
        str | None,
        typer.Option(
            "--format",
            help="jsonl | json | csv | tsv | parquet (default: from the suffix) | otel: "
            "OpenInference traces (OTLP JSON or SDK span JSON; needs ragmeter[otel]).",
        ),
    ] = None,
    executor: Annotated[
        str,
        typer.Option(
            help="local (in memory) | stream (a .jsonl/.parquet file in batches, bounded "
            "memory; needs --out) | ray (a Ray Data pipeline with --actors judge actors; "
            "needs --out and ragmeter[ray]; docs/ray.md).",
        ),
    ] = "local",
    actors: Annotated[  # None: not given, so that --actors 2 without --executor ray is refused
        int | None,
        typer.Option(min=1, help="--executor ray: judge actors (one client each; default 2)."),
    ] = None,
    ray_address: Annotated[
        str | None,
        typer.Option(help="--executor ray: an existing cluster (ray://HOST:10001 or auto)."),
    ] = None,
    batch_size: Annotated[
        int | None,
        typer.Option(min=1, help="--executor stream/ray: rows per batch (default 10000 / 256)."),
    ] = None,
    mlflow: Annotated[
        bool,
        typer.Option(
            "--mlflow",
            help="Log metrics with CIs, the per-sample table and run.json to the active MLflow "
            "run (MLFLOW_TRACKING_URI; needs ragmeter[mlflow]).",
        ),
    ] = False,
    plugin: PluginOption = None,
) -> None:
    """Score a dataset and print aggregates with 95% CIs.

    Exit codes: 0 every requested score computed (or not applicable by definition); 1 some
    scores failed (see --max-failure-rate); 2 usage or configuration error; 3 judge
    unreachable, run aborted (computed calls stay cached: re-run to resume); 130 interrupted
    (Ctrl-C; likewise kept and resumed). A failed
    --fail-under gate exits 1 with one `gate failed:` line per metric.
    """
    on = check_gate_on(gate_on)
    check_paths(data, out)  # stdin, a pipe, -o -: before any work
    load_cli_plugins(plugin, config)  # before the settings: they check a plugin's options
    if structured_output is not None and structured_output not in STRUCTURED_MODES:
        # else Settings' pattern error, naming a field (structured_mode) nobody typed
        raise_usage(
            f"--structured-output (structured_mode) must be {', '.join(STRUCTURED_MODES)}, "
            f"not {structured_output!r}"
        )
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
        option_items=option,
        structured_mode=structured_output,
        preflight=preflight,
    )
    run_guarded(check_judge_form, settings.judge)  # a typo: refused with or without a judged -m
    checks = {"actors": actors, "ray_address": ray_address, "batch_size": batch_size}
    run_guarded(_check_executor_options, executor, by, **checks)  # before --by loads
    thresholds = prepare_evaluate(data, by, fail_under, metrics, data_format)
    if mlflow:
        run_guarded(check_mlflow)  # a missing extra is said before any scoring
    run_kw: dict[str, Any] = {"out": out, "overwrite": overwrite, "seed": seed}
    run_kw.update(n_resamples=n_resamples, format=data_format, gated=list(thresholds))
    if dry_run:  # refuses what the run would (exit 2), the gates included; writes nothing
        run_kw["ray_address"] = ray_address  # its form checked; nothing connected to
        print_estimate(run_guarded(run_dry, data, metrics, settings, executor=executor, **run_kw))
        return
    extra: dict[str, Any] = {}
    if executor != "local":
        extra = {"executor": executor, "actors": actors, "ray_address": ray_address}
        extra["batch_size"] = batch_size  # None: the executor's default (runner.BATCH_SIZE)
    # a gated metric the plan leaves out (run_kw's gated): exit 2 before any work
    result = run_guarded(
        run_evaluate, data, metrics, settings=settings, progress=not quiet, **run_kw, **extra
    )
    # Logged before printing: a stdout closed early (`| head`) ends the process as it prints.
    # A logging failure is said after the scores are shown: without -o they were lost.
    run_id, unlogged = None, None
    if mlflow:
        try:
            run_id = log_result(result, out_dir=out)
        except RagmeterError as exc:
            unlogged = exc
    print_result(result, title=str(data))
    if out is not None:
        wrote = f"wrote {out}/scores.jsonl, summary.json and run.json"
        console.print(literal(wrote), soft_wrap=True)  # soft_wrap: one line in a CI log
    if unlogged is not None:
        run_guarded(_reraise, unlogged)  # exit 2, said as every other error
    if run_id is not None:
        console.print(literal(f"logged to MLflow run {run_id}"), soft_wrap=True)
    finish_evaluate(result, by, thresholds, on)  # slices, then the --fail-under gate (exit 1)
    code = result.exit_code(max_failure_rate)
    if code:
        console.print(
            f"exit {code}: {result.n_failed} score(s) failed "
            f"({result.failure_rate():.1%} > --max-failure-rate {max_failure_rate:g})",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(code)


STRUCTURED_MODES = ("auto", "json_schema", "json_object", "none")


def raise_usage(message: str) -> None:
    err_console.print(literal(f"error: {message}"), soft_wrap=True)
    raise typer.Exit(EXIT_BAD_INPUT)


def _check_executor_options(executor: str, by: str | None, **options: Any) -> None:
    """--by needs the scores in memory; an executor's own options without it (ignored before:
    ``--ray-address`` without ``--executor ray`` ran locally) are refused, by the rule
    ``evaluate()`` refuses them with (``check_executor_options``), in the CLI's spelling."""
    check_executor_options(executor, cli=True, **options)
    if executor != "local" and by:
        raise ConfigError(  # the run's directory slices as well, afterwards
            f"--by needs the scores in memory: use it with --executor local, not {executor}; "
            f"or slice this run once written: ragmeter report OUT --by {by} (or compare --by)"
        )


def print_result(result: EvaluationResult | StreamedResult, title: str = "ragmeter") -> None:
    """The aggregates, then the failures; the title (the data path), metric names, ids and
    reasons are the user's or a server's text: shown literally, never read as markup."""
    n = result.n_samples if isinstance(result, StreamedResult) else len(result.samples)
    table = Table(title=table_title(title, f": {n} samples"))
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
            cell(name),
            fmt(agg.mean),
            ci,
            str(agg.n_ok),
            str(agg.n_undefined),
            str(agg.n_skipped),
            f"[red]{agg.n_failed}[/red]" if agg.n_failed else "0",
        )
    print_table(console, table, blocks_below=WHENEVER_CUT)  # a block a metric when cut
    failures = result.failures()
    counts = {
        s: sum(1 for f in failures if f["status"] == s) for s in ("failed", "undefined", "skipped")
    }
    console.print(
        f"failures: {counts['failed']} failed; not applicable: {counts['undefined']} undefined, "
        f"{counts['skipped']} skipped",
        soft_wrap=True,
    )
    # One line per (sample, status, reason), naming every metric it hit.
    grouped: dict[tuple[str, str, str], list[str]] = {}
    for f in failures:
        if f["status"] != "skipped":
            grouped.setdefault((f["question_id"], f["status"], f["reason"] or ""), []).append(
                f["metric"]
            )
    for (qid, status, reason), names in list(grouped.items())[:10]:
        console.print(  # soft_wrap: one line each, never broken at 80 columns in a CI log
            cell(f"  {qid} · {', '.join(names)} · {status}: {reason}"), soft_wrap=True
        )
    if len(grouped) > 10:
        console.print(f"  ... and {len(grouped) - 10} more (see summary.json)", soft_wrap=True)
    for note in _group_notes(result.notes, result.metrics):
        console.print(literal(f"note: {note}", "dim"), soft_wrap=True)
    for line in usage_lines(result.usage, result):  # judge, other models, per metric
        console.print(literal(line), soft_wrap=True)


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


def print_estimate(est: dict) -> None:  # type: ignore[type-arg]
    table = Table(title="dry run: estimated judge work (nothing was sent)")
    for col in ("metric", "new calls", "cached", "prompt tokens", "completion tokens"):
        table.add_column(col, justify="left" if col == "metric" else "right")
    for name, t in est["per_metric"].items():
        table.add_row(
            cell(name),
            str(t["calls"]),
            str(t["cache_hits"]),
            str(t["prompt_tokens"]),
            str(t["completion_tokens"]),
        )
    keys = ("calls", "cache_hits", "prompt_tokens", "completion_tokens")
    table.add_row("total", *(str(est[k]) for k in keys), style="bold")
    print_table(console, table)  # off a terminal as wide as it needs: no mean cut to '0.…'
    per = est.get("chars_per_token", 4)
    line = f"estimated cost: {cost_text(est)}; tokens at {per:g} characters a token"
    console.print(literal(line), highlight=False, soft_wrap=True)
    for line in est.get("caveats", []):
        console.print(literal(f"note: {line}", "dim"), soft_wrap=True)
    for need, why in est.get("unavailable", {}).items():
        console.print(literal(f"note: no {need}: {why}", "dim"), soft_wrap=True)
    for note in est.get("notes", []):
        if note != est.get("key_missing"):
            console.print(literal(f"note: {note}", "dim"), soft_wrap=True)
    if est.get("key_missing"):  # last, on stderr: the one line a reader must not miss
        err_console.print(literal(f"warning: {est['key_missing']}", "yellow"), soft_wrap=True)


def _reraise(exc: BaseException) -> None:
    raise exc
