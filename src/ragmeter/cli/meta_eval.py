"""`ragmeter meta-eval DATASET --data PATH`: agreement of the metrics with human preferences."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ragmeter.cli._common import (
    EMBEDDER_HELP,
    EXIT_BAD_INPUT,
    JUDGE_HELP,
    OPTION_HELP,
    cell,
    console,
    err_console,
    literal,
    run_guarded,
    said,
    table_title,
)
from ragmeter.cli._fit_calibration import with_fit
from ragmeter.cli._long_tables import print_table as print_wide
from ragmeter.config import settings_from_options
from ragmeter.errors import OutputError
from ragmeter.meta_eval import (
    DIMENSIONS,
    LEXICAL_BASELINE,
    PAPER_TABLE1,
    LabelsReport,
    ScorerResult,
    check_out,
)
from ragmeter.meta_eval import run as run_meta_eval

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
        "question_overlap": "question word overlap (no LLM)",
        "context_overlap": "question-word sentences (no LLM)",
        "embedding_cosine": "cosine(q, answer) (embedder)",
        "context_relevance_perplexity": "perplexity CR (Unitxt, judge LM)",
    }.get(res.name.split(":")[0], res.name)


def print_table(results: list[ScorerResult], judge_name: str, modes: dict[str, str]) -> None:
    table = Table(
        title=table_title(f"meta-eval agreement with human preferences · judge {judge_name}")
    )
    table.add_column("method")
    for dim in DIMENSIONS:
        table.add_column(LABELS[dim], justify="right")
    table.add_column(
        "judge per item: calls sent, tokens billed | computed, +from cache (F · AR · CR)",
        justify="right",
    )
    table.add_column("wall s", justify="right")
    rows: dict[str, dict[str, ScorerResult]] = {}
    for r in results:
        rows.setdefault(_row_name(r), {})[r.dimension] = r
    for name, by_dim in rows.items():
        cells = []
        toks = []
        for dim in DIMENSIONS:
            r = by_dim.get(dim)
            if r is None:
                cells.append("—")
                toks.append("—")
                continue
            miss = f" ({r.n_missing} n/a)" if r.n_missing else ""
            miss += f" [red]({r.n_failed} failed)[/red]" if r.n_failed else ""
            cells.append(("—" if r.agreement is None else f"{r.agreement:.2f}") + miss)
            toks.append(_usage_cell(r))
        wall = sum(r.wall_s for r in by_dim.values())
        table.add_row(cell(name), *cells, " · ".join(toks), f"{wall:.0f}")
    for name, vals in PAPER_TABLE1.items():
        table.add_row(
            f"[dim]paper: {name} (gpt-3.5)[/dim]",
            *[f"[dim]{vals[d]:.2f}[/dim]" for d in DIMENSIONS],
            "",
            "",
        )
    print_wide(console, table)  # off a terminal as wide as it needs: no number cut
    console.print(_usage_line(results), highlight=False, soft_wrap=True)
    if modes:  # of the dimensions run (``meta_eval._checks.run_modes``)
        modes_line = "modes: " + ", ".join(f"{k}={v}" for k, v in modes.items())
        console.print(literal(modes_line), soft_wrap=True)
    print_calibration(results)


def _usage_cell(r: ScorerResult) -> str:
    """Per item: calls sent and tokens billed in this run (| computed by the local judge),
    then the calls answered from the cache, and the failed calls: a run served from the
    cache reads "0.0c 0 +3.0c cached", not a bare 0. "—": the scorer asked no judge."""
    facts = r.as_dict(with_pairs=False)
    if not (r.calls or r.cached_calls) or not r.n_samples:
        return "—"
    comp = facts["computed_tokens_per_item"]
    cell = f"{facts['judge_calls_per_item']:.1f}c {facts['judge_tokens_per_item']:.0f}"
    cell += f" | {comp:.0f}" if comp else ""
    cell += f" +{facts['judge_cached_calls_per_item']:.1f}c cached" if r.cached_calls else ""
    return cell + (f" [red]({r.failed_calls} calls failed)[/red]" if r.failed_calls else "")


def _usage_line(results: list[ScorerResult]) -> str:
    """Every scorer's judge usage in one line, in evaluate's terms (``judge tokens``)."""
    sent, tokens = sum(r.calls for r in results), sum(r.judge_tokens for r in results)
    cached, failed = sum(r.cached_calls for r in results), sum(r.failed_calls for r in results)
    return (
        f"judge calls: {sent} sent, {tokens} tokens billed; {cached} answered from the cache "
        f"(no tokens billed now); {failed} failed"
    )


def print_calibration(results: list[ScorerResult]) -> None:
    """Judged metric beside its no-model baseline: agreement, Brier, ECE; reliability tables.

    A scorer whose every pair failed keeps its row, its agreement "— (N failed)" as in the
    agreement table (``null`` in the JSON) and the calibration of any side that was scored.
    Why: its row was left out, and with no baseline beside it the table was printed empty,
    headers only, as if there were nothing to say. A table with no row is not printed."""
    by_name = {r.name: r for r in results}
    table = Table(
        title="judged metric vs no-model baseline · calibration (preferred = 1, other = 0)"
    )
    for col in ("dimension", "scorer", "agreement", "Brier", "ECE", "n scores"):
        table.add_column(col, justify="left" if col in ("dimension", "scorer") else "right")
    for r in (x for x in results if x.kind == "ragas"):
        for res in (r, by_name.get(LEXICAL_BASELINE[r.dimension])):
            if res is None:
                continue
            cal = res.calibration() or {}
            agreement = "—" if res.agreement is None else f"{res.agreement:.3f}"
            table.add_row(
                LABELS[r.dimension],
                cell(_row_name(res)),
                agreement + (f" [red]({res.n_failed} failed)[/red]" if res.n_failed else ""),
                f"{cal['brier']:.3f}" if cal else "—",
                f"{cal['ece']:.3f}" if cal else "—",
                str(cal.get("n", 0)),
            )
    if table.row_count:
        print_wide(console, table)
    for r in (x for x in results if x.kind == "ragas"):
        cal = r.calibration()
        if not cal:
            continue
        rel = Table(title=f"reliability · {LABELS[r.dimension]} (RAGAs, ragmeter)")
        for col in ("score bin", "n", "mean score", "share preferred"):
            rel.add_column(col, justify="right")
        for row in cal["reliability"]:
            rel.add_row(
                row["bin"], str(row["n"]), f"{row['mean_score']:.3f}", f"{row['positive_rate']:.3f}"
            )
        print_wide(console, rel)


def print_labels(report: LabelsReport) -> None:
    """Per dimension and scorer, against the user's labels: rows labelled (positive), AUROC
    with its 95% CI, Brier, ECE, accuracy at 0.5, scores left out; reliability tables."""
    table = Table(title=table_title(f"meta-eval against your labels · judge {report.judge}"))
    heads = ("dimension", "scorer", "n (pos)", "AUROC [95% CI]", "Brier", "ECE", "acc@0.5")
    for col in (*heads, "left out", "judge per item", "wall s"):
        table.add_column(col, justify="left" if col in heads[:2] else "right")
    order = {d: i for i, d in enumerate(DIMENSIONS)}  # each judged metric above its baselines
    for r in sorted(report.results, key=lambda x: (order[x.dimension], x.kind != "ragas")):
        facts, ci = r.as_dict(with_pairs=False), r.auroc_ci()
        cal = r.calibration() or {}
        auc = "—" if r.auroc is None else f"{r.auroc:.3f}"
        out = f"{r.n_undefined} n/a" if r.n_undefined else ""
        out += f" [red]{r.n_failed} failed[/red]" if r.n_failed else ""
        table.add_row(
            LABELS[r.dimension],
            cell(_row_name(r)),
            f"{r.n_labelled} ({r.n_positive})",
            auc + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else ""),
            f"{cal['brier']:.3f}" if cal else "—",
            f"{cal['ece']:.3f}" if cal else "—",
            "—" if facts["accuracy_at_0_5"] is None else f"{facts['accuracy_at_0_5']:.3f}",
            out.strip() or "0",
            _usage_cell(r),
            f"{r.wall_s:.0f}",
        )
    print_wide(console, table)
    console.print(_usage_line(list(report.results)), highlight=False, soft_wrap=True)
    if report.modes:
        modes_line = "modes: " + ", ".join(f"{k}={v}" for k, v in report.modes.items())
        console.print(literal(modes_line), soft_wrap=True)
    for r in (x for x in report.results if x.kind == "ragas" and x.calibration()):
        rel = Table(title=f"reliability · {LABELS[r.dimension]} (RAGAs, ragmeter)")
        for col in ("score bin", "n", "mean score", "share labelled 1"):
            rel.add_column(col, justify="right")
        for row in (r.calibration() or {})["reliability"]:
            rel.add_row(
                row["bin"], str(row["n"]), f"{row['mean_score']:.3f}", f"{row['positive_rate']:.3f}"
            )
        print_wide(console, rel)


def meta_eval_cmd(
    dataset: Annotated[
        str,
        typer.Argument(
            help="wikieval (pairwise preferences) or labels (your own per-answer labels)."
        ),
    ],
    data: Annotated[
        Path,
        typer.Option(
            help="The dataset file (WikiEval: wikieval.jsonl; labels: a sample file with "
            "label_faithfulness / label_answer_relevance / label_context_relevance columns)."
        ),
    ],
    judge: Annotated[
        str | None,
        typer.Option(help=JUDGE_HELP + " (none is refused: the metrics compared need one)"),
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option(help="OpenAI-compatible server URL."),
    ] = None,
    embedder: Annotated[
        str | None,
        typer.Option(help=EMBEDDER_HELP),
    ] = None,
    mode: Annotated[
        list[str] | None,
        typer.Option(help="Per-metric mode, e.g. --mode faithfulness=generate (repeatable)."),
    ] = None,
    option: Annotated[
        list[str] | None,
        typer.Option(help=OPTION_HELP, metavar="NAME=VALUE"),
    ] = None,
    baselines: Annotated[
        str,
        typer.Option(
            help="Comma-separated: k_precision, question_overlap, context_overlap, "
            "embedding_cosine, gpt_score, gpt_ranking, perplexity; 'none' for the RAGAS "
            "metrics only."
        ),
    ] = "k_precision,question_overlap,context_overlap,embedding_cosine,gpt_score,gpt_ranking",
    limit: Annotated[
        int | None,
        typer.Option(min=1, help="Only the first N rows (quick checks)."),
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
            help="Cache directory for judge calls, or 'off' (a cached re-run asks no verdict "
            "again)."
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(help="TOML or JSON settings file."),
    ] = None,
    out: Annotated[  # a str: Path drops the trailing "/" that says "a directory"
        str | None,
        typer.Option(
            "--out", "-o", help="Write the results as JSON to this file (not a directory)."
        ),
    ] = None,
    fit_calibration: Annotated[
        Path | None,
        typer.Option(
            help="labels: fit faithfulness's calibration to them, write it to this "
            "new JSON file, print cross-validated AUROC/Brier (docs/labels-meta-eval.md)."
        ),
    ] = None,
) -> None:
    """Agreement of the metrics with human pairwise preferences (RAGAS paper, Table 1).

    meta-eval labels --data FILE: AUROC (95% CI), Brier, ECE and accuracy against your
    own per-answer labels (label_faithfulness, label_answer_relevance,
    label_context_relevance columns: 1/0, true/false, yes/no; docs/labels-meta-eval.md).

    A pair whose score failed is left out of the agreement (a tie or a metric that does not
    apply counts 1/2). Exit codes: 0 every score computed; 1 some scores failed (one stderr
    line per scorer says how many pairs and why; all are in --out with their reasons); 2
    usage or configuration, before any work (or --out unwritable at the end, said after the
    results); 3 judge unreachable; 130 interrupted (3 and 130 say what the cache kept).
    """
    settings = run_guarded(
        settings_from_options,
        config,
        judge=judge,
        base_url=base_url,
        embedder=embedder,
        cache=cache,
        modes=mode,
        option_items=option,
    )
    if out is not None:
        run_guarded(check_out, out, data)  # before any work: a run's results are not lost to it
    started = time.perf_counter()

    last = [started]

    def progress(msg: str) -> None:  # on stderr, as evaluate's: stdout is the table and RESULT
        now = time.perf_counter()
        if not _progress_due(msg, now - last[0]):
            return
        last[0] = now
        err_console.print(literal(f"{msg} · {now - started:.0f}s", "dim"), soft_wrap=True)

    report = run_guarded(
        with_fit(run_meta_eval, fit_calibration, out),
        dataset,
        data,
        settings=settings,
        baselines=baselines.split(","),
        dimensions=dimensions.split(",") if dimensions is not None else None,
        limit=limit,
        progress=progress,
    )
    # The file first: a stdout closed early (`| head`) ends the process as it prints. A file
    # that cannot be written (the disk filled during the run) is said after the results are
    # shown, exit 2: it exited before the table, and the run's numbers were lost.
    written, unwritten = None, None
    if out is not None:
        try:
            written = report.write(out)
        except OutputError as exc:
            unwritten = exc
    if isinstance(report, LabelsReport):
        print_labels(report)
    else:
        print_table(report.results, report.judge, report.modes)
    if written is not None:
        console.print(literal(f"wrote {written}"), soft_wrap=True)  # one line in a CI log
    for line in report.failure_lines():
        err_console.print(literal(f"warning: {line}", "yellow"), soft_wrap=True)
    console.print(literal(report.result_line()), soft_wrap=True)
    if unwritten is not None:
        err_console.print(said("error:", "bold red", unwritten), soft_wrap=True)
        raise typer.Exit(EXIT_BAD_INPUT)
    code = report.exit_code()
    if code and not report.n_failed and getattr(report, "fit_error", None):
        # no score failed: the fit asked for is what was not made
        err_console.print(literal(f"exit {code}: --fit-calibration wrote nothing"), soft_wrap=True)
    elif code:
        err_console.print(
            f"exit {code}: {report.n_failed} "
            + (
                "labelled score(s) left out"
                if isinstance(report, LabelsReport)
                else "pair(s) left out of the agreement"
            )
            + ", a score failed",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    if code:
        raise typer.Exit(code)


_ROWS_DONE = re.compile(r"(\d+)/(\d+) rows$")


def _progress_due(msg: str, since_last_s: float) -> bool:
    """A "kind: i/n rows" line at each tenth of the rows, the last one, or after 30 s, as
    evaluate's plain progress: a line per row filled a CI log (60,000 lines for 30,000
    labelled rows). Any other message is always shown."""
    m = _ROWS_DONE.search(msg)
    if m is None:
        return True
    i, n = int(m.group(1)), int(m.group(2))
    step = max(1, -(-n // 10))
    return i >= n or i % step == 0 or since_last_s >= 30.0
