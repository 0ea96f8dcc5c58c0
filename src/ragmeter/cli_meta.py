"""`ragmeter meta-eval DATASET --data PATH`: agreement of the metrics with human preferences."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from ragmeter.cli import app, console, err_console, run_guarded
from ragmeter.meta_eval import (
    DATASETS,
    DIMENSIONS,
    PAPER_TABLE1,
    RAGAS_METRICS,
    ScorerResult,
    build_scorers,
    run_meta_eval,
)

LABELS = {
    "faithfulness": "faithfulness",
    "answer_relevance": "answer relevance",
    "context_relevance": "context relevance",
}


def _row_name(res: ScorerResult) -> str:
    if res.kind == "ragas":
        return "RAGAs (ragmeter)"
    return {
        "gpt_score": "GPT Score (same judge)",
        "gpt_ranking": "GPT Ranking (same judge)",
        "k_precision": "K-Precision (no LLM)",
        "embedding_cosine": "cosine(q, answer) (embedder)",
        "context_relevance_perplexity": "perplexity CR (Unitxt, judge LM)",
    }.get(res.name.split(":")[0], res.name)


def print_table(results: list[ScorerResult], judge_name: str, modes: dict[str, str]) -> None:
    table = Table(title=f"meta-eval agreement with human preferences · judge {judge_name}")
    table.add_column("method")
    for dim in DIMENSIONS:
        table.add_column(LABELS[dim], justify="right")
    table.add_column("judge tokens / item, billed | computed (F · AR · CR)", justify="right")
    table.add_column("wall s", justify="right")
    rows: dict[str, dict[str, ScorerResult]] = {}
    for r in results:
        rows.setdefault(_row_name(r), {})[r.dimension] = r
    for name, by_dim in rows.items():
        cells = []
        toks = []
        for dim in DIMENSIONS:
            r = by_dim.get(dim)
            if r is None or r.agreement is None:
                cells.append("—")
                toks.append("—")
                continue
            miss = f" ({r.n_missing} n/a)" if r.n_missing else ""
            cells.append(f"{r.agreement:.2f}{miss}")
            tps = r.tokens_per_sample()
            comp = r.as_dict(with_pairs=False)["computed_tokens_per_item"]
            toks.append("—" if not tps else f"{tps:.0f}" + (f" | {comp:.0f}" if comp else ""))
        wall = sum(r.wall_s for r in by_dim.values())
        table.add_row(name, *cells, " · ".join(toks), f"{wall:.0f}")
    for name, vals in PAPER_TABLE1.items():
        table.add_row(
            f"[dim]paper: {name} (gpt-3.5)[/dim]",
            *[f"[dim]{vals[d]:.2f}[/dim]" for d in DIMENSIONS],
            "",
            "",
        )
    console.print(table)
    console.print("modes: " + ", ".join(f"{k}={v}" for k, v in modes.items()))


@app.command("meta-eval")
def meta_eval_cmd(
    dataset: Annotated[str, typer.Argument(help="Pairwise preference set: wikieval.")],
    data: Annotated[Path, typer.Option(help="The dataset file (WikiEval: wikieval.jsonl).")],
    judge: Annotated[
        str | None,
        typer.Option(help="local (default) | openai:MODEL | litellm:MODEL | gguf:PATH"),
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option(help="OpenAI-compatible server URL."),
    ] = None,
    embedder: Annotated[
        str | None,
        typer.Option(help="local (default) | st:PATH | openai:MODEL | none"),
    ] = None,
    mode: Annotated[
        list[str] | None,
        typer.Option(help="Per-metric mode, e.g. --mode faithfulness=generate (repeatable)."),
    ] = None,
    baselines: Annotated[
        str,
        typer.Option(
            help="Comma-separated: k_precision, embedding_cosine, gpt_score, gpt_ranking, "
            "perplexity; 'none' for the RAGAS metrics only."
        ),
    ] = "k_precision,embedding_cosine,gpt_score,gpt_ranking",
    limit: Annotated[
        int | None,
        typer.Option(help="Only the first N rows (quick checks)."),
    ] = None,
    dimensions: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated subset of faithfulness, answer_relevance, context_relevance "
            "(default: all three)."
        ),
    ] = None,
    cache: Annotated[
        str | None,
        typer.Option(
            help="Cache directory for judge calls, or 'off' (a cached re-run costs nothing)."
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(help="TOML or JSON settings file."),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Write the results as JSON here."),
    ] = None,
) -> None:
    """Agreement of the metrics with human pairwise preferences (RAGAS paper, Table 1)."""
    from ragmeter.config import settings_from_options
    from ragmeter.errors import DataError, Problem
    from ragmeter.metrics.judged import MODES
    from ragmeter.metrics.registry import get_metric
    from ragmeter.model_runner import build_resources

    if dataset not in DATASETS:
        run_guarded(
            _raise,
            DataError(
                [
                    Problem(
                        None,
                        "dataset",
                        f"unknown dataset {dataset!r}; known: {', '.join(DATASETS)}",
                    )
                ]
            ),
        )
    dims = list(DIMENSIONS)
    if dimensions is not None:
        dims = [d.strip() for d in dimensions.split(",") if d.strip()]
        bad = [d for d in dims if d not in DIMENSIONS]
        if bad or not dims:
            run_guarded(
                _raise,
                DataError(
                    [
                        Problem(
                            None,
                            "dimensions",
                            f"unknown dimension(s) {bad or dimensions!r}; "
                            f"known: {', '.join(DIMENSIONS)}",
                        )
                    ]
                ),
            )
    pairs = [p for p in run_guarded(DATASETS[dataset], data) if p.dimension in dims]
    if limit is not None:
        groups = list(dict.fromkeys(p.group for p in pairs))[:limit]
        pairs = [p for p in pairs if p.group in set(groups)]
    wanted = [b.strip() for b in baselines.split(",") if b.strip() and b.strip() != "none"]
    scorers = [s for s in run_guarded(build_scorers, wanted) if s.dimension in dims]
    settings = run_guarded(
        settings_from_options,
        config,
        judge=judge,
        base_url=base_url,
        embedder=embedder,
        cache=cache,
        modes=mode,
    )
    needs = {"judge"}
    if "embedding_cosine" in wanted or settings.modes.get("answer_relevance") == "generate":
        needs.add("embedder")
    if "perplexity" in wanted:
        needs.add("scorer")
    # resources the judged metrics use when present (faithfulness: the evidence embedder)
    judged = [get_metric(RAGAS_METRICS[s.dimension]) for s in scorers if s.kind == "ragas"]
    uses = {u for m in judged for u in m.uses}
    built = build_resources(settings, needs | uses)
    for need, why in built.unavailable.items():
        if need in needs:
            err_console.print(f"[bold red]error:[/bold red] {why}", highlight=False)
            raise typer.Exit(2)
    modes = {**MODES, **settings.modes}
    inner = getattr(built.resources.judge, "inner", None)
    stats0 = _stats(inner)
    load0 = os.getloadavg()
    started = time.perf_counter()

    def progress(msg: str) -> None:
        console.print(f"[dim]{msg} · {time.perf_counter() - started:.0f}s[/dim]")

    try:
        results = asyncio.run(run_meta_eval(pairs, scorers, built.resources, progress=progress))
    finally:
        asyncio.run(built.aclose())
    wall = time.perf_counter() - started
    ragas = {r.dimension: r for r in results if r.kind == "ragas"}
    ragas_wall = sum(r.wall_s for r in ragas.values())
    ragas_tokens = sum(r.prompt_tokens + r.completion_tokens for r in ragas.values())
    judge_name = getattr(built.resources.judge, "name", str(settings.judge))
    print_table(results, judge_name, modes)
    stats1 = _stats(inner)
    payload: dict[str, Any] = {
        "dataset": dataset,
        "data": str(data),
        "dimensions": dims,
        "n_pairs_per_dimension": len(pairs) // len(dims),
        "judge": judge_name,
        "modes": modes,
        "settings": settings.public_dict(),
        "paper_table1": PAPER_TABLE1,
        "agreement": {d: (ragas[d].agreement if d in ragas else None) for d in DIMENSIONS},
        "ragas_wall_s": round(ragas_wall, 1),
        "total_wall_s": round(wall, 1),
        "ragas_judge_tokens": ragas_tokens,
        "ragas_computed_tokens": sum(r.computed_tokens or 0 for r in ragas.values()) or None,
        "local_judge_stats": {k: stats1[k] - stats0.get(k, 0) for k in stats1} or None,
        "loadavg_start_end": [round(x, 2) for x in (*load0, *os.getloadavg())],
        "cpu_count": os.cpu_count(),
        "results": [r.as_dict() for r in results],
    }
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(payload, indent=1, ensure_ascii=False), encoding="utf-8")
        console.print(f"wrote {out}")
    agree = {d: ragas[d].agreement for d in DIMENSIONS if d in ragas}
    console.print(
        "RESULT "
        + " ".join(f"{d}={agree[d]:.3f}" for d in agree)
        + f" wall_s={ragas_wall:.1f} judge_tokens={ragas_tokens}",
        highlight=False,
        soft_wrap=True,
    )


def _stats(inner: Any) -> dict[str, float]:
    stats = getattr(inner, "stats", None)
    return dict(stats.as_dict()) if stats is not None and hasattr(stats, "as_dict") else {}


def _raise(exc: Exception) -> None:
    raise exc
