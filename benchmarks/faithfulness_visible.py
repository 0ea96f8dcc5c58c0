"""Faithfulness on the visible labelled sets: judge alone vs K-Precision vs the default metric.

Sets (``--sets``):
- ``qa``: benchmarks/data/qa_perturbed.jsonl: right vs perturbed answers (entity, number, date
  swaps, negations, wordy hallucinations; short 1-4 word answers and sentences) over one
  passage; pairs = (right, wrong) answers to the same question.
- ``dialogue``: benchmarks/data/dialogue.jsonl: grounded vs ungrounded / mixed replies to a
  dialogue over one knowledge sentence; pairs = (grounded, other) per item.
- ``chat``: benchmarks/data/chat.jsonl (written 2026-11-25, committed before any judge ran on
  it): chit-chat replies over one knowledge sentence; a near-copy (faithful) and a near-copy
  with one detail changed (``swap``), a paraphrase wrapped in feelings or a question back
  (``flourish``, faithful) and an on-topic reply resting on an unstated claim (``personal``);
  pairs = (copy, swap) and (flourish, personal).
- ``wikiqa``: data/items_wikiqa.py (written 2026-11-25, committed before any judge ran on it):
  20 single-hop questions over WikiEval contexts (98-1,275 words), a short right answer ("Cillian
  Murphy") vs a wordy hallucinated sentence with one fact swapped; pairs = (right, wrong).
- ``polar``: data/items_polar.py (written 2026-11-25, committed before any judge ran on it):
  20 yes/no comparison questions over one or two short passages, a bare "yes"/"no" vs a wordy
  hallucination of the other polarity; pairs = (right, wrong).
- ``distractor``: data/items_distractor.py (written 2026-11-26, committed before any judge ran
  on it): 22 questions over WikiEval contexts, the wrong answer naming another entity, date or
  number of the same kind that the context itself holds (every word of it is in the context);
  a short answer and a sentence each, right and wrong; pairs = (right, wrong) of each form.
- ``scifact``: SciFact claims SUPPORT vs CONTRADICT against the cited abstract (expert labels;
  the first N of each by id, as in faithfulness_scifact.py); no pairs.

Per set and scorer: AUROC (bootstrap 95% CI), pairwise accuracy (CI), Brier, ECE, accuracy at
0.5, reliability table. Scorers: ``judge`` (mean P(yes) over the statements, the judge alone),
``k_precision`` (no model) and ``default`` (the registered ``faithfulness`` metric). Each
sample's per-statement details are kept in the JSON (they are what the calibration is fitted
on: benchmarks/fit_faithfulness_calibration.py).

Usage: python benchmarks/faithfulness_visible.py
       [--sets qa,dialogue,chat,wikiqa,polar,distractor,scifact]
       [--limit N] [--judge local] [--scifact-n 60]
       [--out benchmarks/results/faithfulness_visible.json] [--option group_verdicts=on]
       [--glue-contexts] [--cite] [--frame]
       [--lower-tokenized answer|all] [--embedder none|local]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from _record import add_out, check_out, write_json  # noqa: E402
from _rewrites import (  # noqa: E402
    attributed,
    chatty,
    cited,
    framed,
    glue,
    it_is,
    item_of,
    lower_tokenized_row,
    polar_reply,
    reasoned,
    structured,
    wrapped,
)
from _stats import pairwise, summary  # noqa: E402
from _visible_sets import (  # noqa: E402, F401  (re-exported: other benchmarks import them here)
    DATA,
    SETS,
    WIKIEVAL,
    distractor_rows,
    load_jsonl,
    load_set,
    polar_rows,
    wikiqa_rows,
)
from faithfulness_scifact import DEFAULT_DATA  # noqa: E402, F401
from ragmeter.config import settings_from_options  # noqa: E402
from ragmeter.meta_eval import outcome  # noqa: E402
from ragmeter.metrics.base import Score  # noqa: E402
from ragmeter.metrics.lexical import k_precision  # noqa: E402
from ragmeter.metrics.registry import get_metric  # noqa: E402
from ragmeter.resources import build_resources  # noqa: E402
from ragmeter.sample import Sample  # noqa: E402

SCORERS = ("judge", "k_precision", "default")


def judge_value(score: Score) -> float | None:
    """The judge alone: mean P(yes) over the judged statements (today's fast score)."""
    if "judge_only" in score.details:
        return score.details["judge_only"]
    return score.value


async def score_rows(rows: list[dict], resources) -> list[dict]:
    metric = get_metric("faithfulness")
    out = []
    for n, r in enumerate(rows):
        if n % 30 == 0:
            print(f"  {n}/{len(rows)}", file=sys.stderr, flush=True)
        sample = Sample(
            question_id=r["question_id"],
            question=r["question"],
            contexts=r["contexts"],
            answer=r["answer"],
        )
        s = await metric.acompute(sample, resources)
        keep = dict(s.details)  # evidence (sentence numbers) kept: features can be recomputed
        out.append(
            {
                "id": r["question_id"],
                "label": r["metadata"]["label"],
                "item": r["metadata"].get("item"),
                "variant": r["metadata"].get("variant"),
                "pair": r["metadata"].get("pair"),
                "short": r["metadata"].get("short", False),
                "judge": judge_value(s),
                "default": s.value,
                "k_precision": k_precision(r["answer"], r["contexts"]).value,
                "status": s.status,
                "reason": s.reason,
                "details": keep,
            }
        )
    return out


def pair_outcomes(scored: list[dict], scorer: str, only_short: bool | None = None) -> list[float]:
    by = {(r["item"], r["variant"]): r for r in scored}
    outs = []
    for r in scored:
        if r["label"] == 1 or not r.get("pair") or (r["item"], r["pair"]) not in by:
            continue
        right = by[(r["item"], r["pair"])]
        if only_short is not None and right["short"] != only_short:
            continue
        a, b = right[scorer], r[scorer]
        outs.append(outcome(Score(a, "ok" if a is not None else "undefined"), Score(b)))
    return outs


def evaluate(scored: list[dict]) -> dict:
    res: dict = {}
    for sc in SCORERS:
        ok = [r for r in scored if r[sc] is not None]
        summ = summary([r[sc] for r in ok], [r["label"] for r in ok])
        summ["not_scored"] = len(scored) - len(ok)
        outs = pair_outcomes(scored, sc)
        if outs:
            acc, ci = pairwise(outs)
            summ.update(pairwise=acc, pairwise_ci=ci, n_pairs=len(outs))
            short = pair_outcomes(scored, sc, only_short=True)
            if short:
                summ["pairwise_short_right"] = pairwise(short)[0]
        res[sc] = summ
    return res


def print_table(name: str, res: dict) -> None:
    print(f"\n{name}")
    print(
        f"{'scorer':12s} {'AUROC [95% CI]':>22s} {'pairwise [95% CI]':>22s} "
        f"{'Brier':>6s} {'ECE':>6s} {'acc@.5':>6s} {'n':>4s}"
    )
    for sc, s in res.items():
        pw = (
            f"{s['pairwise']:.3f} [{s['pairwise_ci'][0]:.2f},{s['pairwise_ci'][1]:.2f}]"
            if "pairwise" in s
            else "—"
        )
        print(
            f"{sc:12s} {s['auroc']:.3f} [{s['auroc_ci'][0]:.2f},{s['auroc_ci'][1]:.2f}]"
            f"{'':4s} {pw:>22s} {s['brier']:6.3f} {s['ece']:6.3f} "
            f"{s['accuracy_at_0.5']:6.3f} {s['n']:4d}"
        )


def rewrite(rows: list[dict], args: argparse.Namespace) -> list[dict]:
    """The rows in the forms the robustness options ask for (benchmarks/_rewrites.py)."""
    if args.glue_contexts:
        rows = [{**r, "contexts": [glue(c) for c in r["contexts"]]} for r in rows]
    # a style per item, so the answers compared with each other share it
    item = {k: n for n, k in enumerate(dict.fromkeys(item_of(r) for r in rows))}
    if args.frame:
        rows = [{**r, "answer": framed(r["answer"], item[item_of(r)])} for r in rows]
    if args.cite:
        rows = [{**r, "answer": cited(r["answer"], item[item_of(r)])} for r in rows]
    if args.lower_tokenized:
        rows = [lower_tokenized_row(r, args.lower_tokenized) for r in rows]
    if args.reason:
        rows = [reasoned(r, item[item_of(r)]) for r in rows]
    if args.wrap:
        rows = [wrapped(r, item[item_of(r)]) for r in rows]
    if args.chatty:
        rows = [chatty(r, item[item_of(r)]) for r in rows]
    if args.structured:
        rows = [structured(r, item[item_of(r)]) for r in rows]
    if args.polar_replies:
        rows = [polar_reply(r, item[item_of(r)]) for r in rows]
    if args.it_is:
        rows = [it_is(r, item[item_of(r)]) for r in rows]
    if args.attributed:
        rows = [attributed(r, item[item_of(r)]) for r in rows]
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--sets",
        default=SETS,
        help="comma-separated visible sets",
    )
    ap.add_argument("--limit", type=int, default=0, help="first N rows per set (0 = all)")
    ap.add_argument("--skip", type=int, default=0, help="skip the first N rows of each set")
    ap.add_argument("--scifact-n", type=int, default=60, help="SciFact claims per label")
    ap.add_argument(
        "--judge",
        default="local",
        help="the judge, as ragmeter --judge takes it (local = the embedded model)",
    )
    ap.add_argument("--cache", default="off", help="judge cache directory, or off")
    add_out(ap, ROOT / "results" / "faithfulness_visible.json")
    ap.add_argument(
        "--glue-contexts",
        action="store_true",
        help="join each context's sentences without a space ('end.Next'), as text pasted from "
        "paragraphs often reads: a robustness check of the sentence splitter",
    )
    ap.add_argument(
        "--frame",
        action="store_true",
        help="put each answer inside an attribution frame ('According to the context, ...', "
        "'The passage states that ...'): a robustness check of the claims",
    )
    ap.add_argument(
        "--cite",
        action="store_true",
        help="add citation markers to the answers ('Rome [1].', '(Source 1)', '【1†source】') "
        "and, on every other row, a closing 'Sources:' list: a robustness check of the claims",
    )
    ap.add_argument(
        "--reason",
        action="store_true",
        help="put a reasoning model's working before each answer ('<think>...</think>', a "
        "closing tag only, or talk about answering then 'Final answer:'; a form per item): a "
        "robustness check of the claims",
    )
    ap.add_argument(
        "--wrap",
        action="store_true",
        help="deliver each answer as pipelines do (JSON '{\"answer\": ...}', HTML, a "
        "blockquote after 'TL;DR:', 'The answer is: ...'; a form per item): a robustness check "
        "of the claims",
    )
    ap.add_argument(
        "--chatty",
        action="store_true",
        help="wrap each answer as a chat assistant does ('Certainly! ... I hope this helps! "
        "Let me know ... 😊', a link to a source, a footnote, 'Disclaimer: I am an AI "
        "...', 'Have a great day!'; a form per item): a robustness check of the claims",
    )
    ap.add_argument(
        "--structured",
        action="store_true",
        help="write each answer in a structured prompt's sections ('**Answer:** ...' and "
        "'**Confidence:** high', '(confidence: 90%%)', 'Explanation: ...', a quotation; a form "
        "per item): a robustness check of the claims",
    )
    ap.add_argument(
        "--polar-replies",
        action="store_true",
        help="write each bare 'yes' / 'no' answer as chat assistants do ('Absolutely!', 'Yes, "
        "they are.', 'Of course not.', 'It is.'; a form per item): a robustness check of the "
        "claims",
    )
    ap.add_argument(
        "--it-is",
        action="store_true",
        help="frame each short answer to a wh-question by a dummy subject ('It's Rome.', 'That "
        "would be Rome.'; a form per item): a robustness check of the claims",
    )
    ap.add_argument(
        "--attributed",
        action="store_true",
        help="add the words LLMs put around a claim ('..., according to the provided context.', "
        "'I believe ...', '(as stated in the passage)', 'Most likely, ...', 'Rome is the correct "
        "answer.'; a form per item): a robustness check of the claims",
    )
    ap.add_argument(
        "--lower-tokenized",
        choices=["answer", "all"],
        default=None,
        help="rewrite the answers (and with 'all' the questions and contexts too) in lower case "
        "with punctuation and clitics split off ('i do n't know . it 's in paris !'), as "
        "dialogue corpora write them: a robustness check of the claim splitter",
    )
    ap.add_argument(
        "--embedder",
        default="none",
        help="none (default here: evidence by word overlap, as every result in "
        "docs/judged-metrics.md before 2026-11-26) or local (the product's default with the "
        "embedded judge: evidence sentences chosen by the local MiniLM embedder)",
    )
    ap.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a judge option, e.g. group_verdicts=on (repeatable)",
    )
    args = ap.parse_args()
    check_out(args.out, args.force)
    # every set is read before the judge loads: a missing data set or a mistyped name stops
    # the run now, not after hours of judge calls on the sets before it
    loaded = {name: load_set(name, args.scifact_n) for name in args.sets.split(",")}
    opts = dict(o.split("=", 1) for o in args.option)
    settings = settings_from_options(
        None,
        judge=args.judge,
        cache=args.cache,
        modes=[],
        options=opts or None,
        embedder=args.embedder,
    )
    needs = {"judge"} if args.embedder == "none" else {"judge", "embedder"}
    built = build_resources(settings, needs)
    for need in sorted(needs):
        if need in built.unavailable:
            raise SystemExit(built.unavailable[need])
    results: dict = {}

    async def run() -> None:
        try:
            for name in args.sets.split(","):
                rows = loaded[name][args.skip :]
                rows = rows[: args.limit] if args.limit else rows
                rows = rewrite(rows, args)
                t0 = time.perf_counter()
                scored = await score_rows(rows, built.resources)
                results[name] = {
                    "n_rows": len(rows),
                    "wall_s": round(time.perf_counter() - t0, 1),
                    "scores": evaluate(scored),
                    "rows": scored,
                }
                print_table(f"{name} (n={len(rows)})", results[name]["scores"])
        finally:
            await built.aclose()

    asyncio.run(run())
    write_json(
        args.out,
        {
            "judge": args.judge,
            "cpu_count": os.cpu_count(),
            "limit": args.limit,
            "options": opts,
            "embedder": args.embedder,
            "glue_contexts": args.glue_contexts,
            "lower_tokenized": args.lower_tokenized,
            "cite": args.cite,
            "frame": args.frame,
            "reason": args.reason,
            "wrap": args.wrap,
            "chatty": args.chatty,
            "structured": args.structured,
            "polar_replies": args.polar_replies,
            "it_is": args.it_is,
            "attributed": args.attributed,
            "sets": results,
        },
        indent=1,
    )
    print(f"wrote {args.out}")
    parts = []
    for name, r in results.items():
        for sc in SCORERS:
            s = r["scores"][sc]
            parts.append(f"{name}_{sc}_auroc={s['auroc']:.3f}")
            if "pairwise" in s:
                parts.append(f"{name}_{sc}_pairwise={s['pairwise']:.3f}")
            parts.append(f"{name}_{sc}_brier={s['brier']:.3f}")
    print("RESULT " + " ".join(parts))


if __name__ == "__main__":
    main()
