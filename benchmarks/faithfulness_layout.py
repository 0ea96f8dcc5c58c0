"""Does faithfulness depend on an answer's layout? The same WikiEval answers as prose and as
markdown (headings, labels, lead-ins, numbered or bulleted lists, bold).

Generated answers are formatted; a metric that reads "1." or "## Overview" as a claim scores
the same content lower as a list than as prose, and a pipeline change that only adds markdown
looks like a loss of faithfulness. For the first ``--limit`` WikiEval rows, the grounded
answer and the ungrounded answer are each scored as written (prose; 8 of WikiEval's 50
ungrounded answers are already lists) and rendered as markdown by a fixed transform of their
sentences (``render``: three layouts by row number). Reported per form: the mean score, the
mean absolute change from prose to markdown for the same answer, how many answers lose more
than 0.05, and the pairwise agreement with WikiEval's preference (grounded above ungrounded)
when both are prose, both markdown, or only the grounded one is markdown.

No WikiEval text is stored here; rows are read from ../shared at run time. Evidence is chosen
by word overlap (no embedder) to keep the run short.

    python benchmarks/faithfulness_layout.py [--limit 20] [--cache DIR]
        [--out benchmarks/results/faithfulness_layout.json]

To measure an older revision of the metric, run this script with that revision's ``src`` first
on PYTHONPATH (a git worktree), as docs/judged-metrics.md records.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

from ragmeter.config import settings_from_options
from ragmeter.meta_eval import outcome
from ragmeter.metrics.base import Score
from ragmeter.metrics.registry import get_metric
from ragmeter.resources import build_resources
from ragmeter.sample import Sample
from ragmeter.text import split_sentences

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _record import add_out, check_out, write_json  # noqa: E402

WIKIEVAL = ROOT.parent.parent / "shared" / "datasets" / "wikieval" / "wikieval.jsonl"
OUT = ROOT / "results" / "faithfulness_layout.json"
LOSS = 0.05
TEXT_FIELDS = ("question", "contexts", "answer")


def render(answer: str, n: int) -> str:
    """The answer's sentences laid out as a chat assistant formats them (layout ``n % 3``)."""
    sentences = [s for line in answer.splitlines() for s in split_sentences(line)]
    if n % 3 == 0:
        items = "\n".join(f"{i}. {s}" for i, s in enumerate(sentences, start=1))
        return f"Here are the details:\n\n{items}"
    if n % 3 == 1:

        def bold(s: str) -> str:
            head, _, rest = s.partition(" ")
            return f"**{head}** {rest}".strip()

        items = "\n".join(f"- {bold(s)}" for s in sentences)
        return f"## Summary\n\n**Key points:**\n{items}"
    first, rest = sentences[0], sentences[1:]
    items = "\n".join(f"* {s}" for s in rest)
    return f"### Answer\n\n{first}\n\n{items}".strip()


def load_rows(limit: int) -> list[dict]:
    if not WIKIEVAL.exists():
        raise SystemExit(f"WikiEval is needed: {WIKIEVAL} does not exist")
    lines = WIKIEVAL.read_text(encoding="utf-8").splitlines()
    wiki = [json.loads(line) for line in lines if line.strip()][:limit]
    rows = []
    for n, w in enumerate(wiki):
        for kind, answer in (("grounded", w["answer"]), ("ungrounded", w["ungrounded_answer"])):
            for form, text in (("prose", answer), ("markdown", render(answer, n))):
                rows.append(
                    {
                        "id": f"wiki{n:02d}-{kind}-{form}",
                        "item": n,
                        "kind": kind,
                        "form": form,
                        "question": w["question"],
                        "contexts": list(w["context_v1"]),
                        "answer": text,
                    }
                )
    return rows


async def score(rows: list[dict], resources) -> None:
    metric = get_metric("faithfulness")
    for i, r in enumerate(rows):
        if i % 20 == 0:
            print(f"  {i}/{len(rows)}", file=sys.stderr, flush=True)
        sample = Sample(
            question_id=r["id"], question=r["question"], contexts=r["contexts"], answer=r["answer"]
        )
        s = await metric.acompute(sample, resources)
        r["score"] = s.value
        r["judge_only"] = s.details.get("judge_only")
        r["n_claims"] = len(s.details.get("statements", []))
        r["dropped"] = s.details.get("dropped", [])


def agreement(rows: list[dict], grounded_form: str, ungrounded_form: str) -> float:
    by = {(r["item"], r["kind"], r["form"]): r for r in rows}
    outs = []
    for item in sorted({r["item"] for r in rows}):
        g, u = by[(item, "grounded", grounded_form)], by[(item, "ungrounded", ungrounded_form)]
        outs.append(
            outcome(
                Score(g["score"], "ok" if g["score"] is not None else "undefined"),
                Score(u["score"], "ok" if u["score"] is not None else "undefined"),
            )
        )
    return sum(outs) / len(outs)


def summarise(rows: list[dict]) -> dict:
    by = {(r["item"], r["kind"], r["form"]): r for r in rows}
    res: dict = {}
    for kind in ("grounded", "ungrounded"):
        pairs = [
            (by[(i, kind, "prose")], by[(i, kind, "markdown")])
            for i in sorted({r["item"] for r in rows})
        ]
        pairs = [(p, m) for p, m in pairs if p["score"] is not None and m["score"] is not None]
        deltas = [m["score"] - p["score"] for p, m in pairs]
        res[kind] = {
            "n": len(pairs),
            "mean_prose": round(statistics.fmean(p["score"] for p, _ in pairs), 4),
            "mean_markdown": round(statistics.fmean(m["score"] for _, m in pairs), 4),
            "mean_abs_change": round(statistics.fmean(abs(d) for d in deltas), 4),
            "mean_change": round(statistics.fmean(deltas), 4),
            f"lose_more_than_{LOSS}": sum(d < -LOSS for d in deltas),
            "claims_prose": sum(p["n_claims"] for p, _ in pairs),
            "claims_markdown": sum(m["n_claims"] for _, m in pairs),
        }
    res["agreement"] = {
        "prose_vs_prose": agreement(rows, "prose", "prose"),
        "markdown_vs_markdown": agreement(rows, "markdown", "markdown"),
        "markdown_grounded_vs_prose_ungrounded": agreement(rows, "markdown", "prose"),
        "prose_grounded_vs_markdown_ungrounded": agreement(rows, "prose", "markdown"),
    }
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=20, help="first N WikiEval rows")
    ap.add_argument(
        "--judge",
        default="local",
        help="the judge, as ragmeter --judge takes it (local = the embedded model)",
    )
    ap.add_argument("--cache", default="off", help="judge cache directory, or off")
    add_out(ap, OUT)
    args = ap.parse_args()
    check_out(args.out, args.force)
    rows = load_rows(args.limit)
    settings = settings_from_options(
        None, judge=args.judge, cache=args.cache, modes=[], embedder="none"
    )
    built = build_resources(settings, {"judge"})
    if "judge" in built.unavailable:
        raise SystemExit(built.unavailable["judge"])

    async def run() -> None:
        try:
            await score(rows, built.resources)
        finally:
            await built.aclose()

    t0 = time.perf_counter()
    asyncio.run(run())
    wall = time.perf_counter() - t0
    res = summarise(rows)
    print(
        f"\n{'answers':11s} {'n':>3s} {'prose':>6s} {'markdown':>8s} {'|change|':>8s} "
        f"{'lose>' + str(LOSS):>9s} {'claims prose/md':>16s}"
    )
    for kind in ("grounded", "ungrounded"):
        s = res[kind]
        print(
            f"{kind:11s} {s['n']:3d} {s['mean_prose']:6.3f} {s['mean_markdown']:8.3f} "
            f"{s['mean_abs_change']:8.3f} {s[f'lose_more_than_{LOSS}']:9d} "
            f"{s['claims_prose']:>7d}/{s['claims_markdown']:<8d}"
        )
    print("\nagreement with WikiEval's preference (grounded above ungrounded):")
    for k, v in res["agreement"].items():
        print(f"  {k:40s} {v:.3f}")
    write_json(
        args.out,
        {
            "judge": args.judge,
            "limit": args.limit,
            "wall_s": round(wall, 1),
            **res,
            # no WikiEval text: ids, scores and what layout took out
            "rows": [{k: v for k, v in r.items() if k not in TEXT_FIELDS} for r in rows],
        },
        indent=1,
    )
    print(f"wrote {args.out} ({wall:.0f} s)")
    g, a = res["grounded"], res["agreement"]
    print(
        f"RESULT grounded_mean_abs_change={g['mean_abs_change']:.3f} "
        f"grounded_lose={g[f'lose_more_than_{LOSS}']} "
        f"agreement_prose={a['prose_vs_prose']:.3f} "
        f"agreement_markdown={a['markdown_vs_markdown']:.3f} "
        f"agreement_markdown_grounded={a['markdown_grounded_vs_prose_ungrounded']:.3f}"
    )


if __name__ == "__main__":
    main()
