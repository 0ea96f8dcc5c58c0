"""faithfulness of lean answers: correct answers that do not restate their question.

Why: answer_relevance scored such answers 0 until version 34 (docs/judged-metrics.md,
"Answers that do not repeat the question"). The same answers test faithfulness's claim step:
a lean answer is often a short answer with an aside ("Warsaw, though she later worked in
Paris."), which is longer than the short answers put back into their question ("Warsaw" ->
'The answer to "In which city was Marie Curie born?" is Warsaw.'), so the judge reads a
fragment without its subject. Each lean answer of benchmarks/data/answer_relevance_lean.jsonl
(supported by its passage unless it says more than the passage) is scored beside the direct
answer of the same item (answer_relevance.jsonl), the default and the judge alone.

Usage: python benchmarks/faithfulness_lean.py [--judge local] [--cache DIR]
Prints a row per answer, writes benchmarks/results/faithfulness_lean.json, ends with RESULT.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from _record import add_out, check_out, write_json  # noqa: E402
from ragmeter.config import settings_from_options  # noqa: E402
from ragmeter.metrics.registry import get_metric  # noqa: E402
from ragmeter.resources import build_resources  # noqa: E402
from ragmeter.sample import Sample  # noqa: E402

DATA = ROOT / "data"


def _rows(name: str, variant: str) -> list[dict]:
    rows = [json.loads(x) for x in (DATA / name).read_text(encoding="utf-8").splitlines() if x]
    return [r for r in rows if r["metadata"]["variant"] == variant]


async def run(resources) -> list[dict]:
    faith = get_metric("faithfulness").acompute
    direct = {r["metadata"]["item"]: r for r in _rows("answer_relevance.jsonl", "direct")}
    out = []
    for lean in _rows("answer_relevance_lean.jsonl", "lean"):
        item = lean["metadata"]["item"]
        for kind, r in (("lean", lean), ("direct", direct.get(item))):
            if r is None:
                continue
            s = await faith(
                Sample(
                    question_id=r["question_id"],
                    question=r["question"],
                    contexts=r["contexts"],
                    answer=r["answer"],
                ),
                resources,
            )
            ev = s.details.get("statement_evidence") or []
            out.append(
                {
                    "item": item,
                    "kind": kind,
                    "answer": r["answer"],
                    "value": s.value,
                    "judge_only": s.details.get("judge_only"),
                    "judged_as": [e["judged_as"] for e in ev],
                    "p_yes": [e["p_yes"] for e in ev],
                    "missing_specific": [e["missing_specific"] for e in ev],
                }
            )
            print(f"{item:6s} {kind:6s} {s.value:.3f}  {r['answer'][:70]}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--judge", default="local", help="as ragmeter --judge takes it")
    ap.add_argument("--cache", default="off", help="judge cache directory, or off")
    add_out(ap, ROOT / "results" / "faithfulness_lean.json")
    args = ap.parse_args()
    check_out(args.out, args.force)
    built = build_resources(
        settings_from_options(None, judge=args.judge, cache=args.cache, modes=[]), {"judge"}
    )
    if "judge" in built.unavailable:
        raise SystemExit(built.unavailable["judge"])

    async def go() -> list[dict]:
        try:
            return await run(built.resources)
        finally:
            await built.aclose()

    rows = asyncio.run(go())
    summary = {}
    for kind in ("lean", "direct"):
        vals = [r["value"] for r in rows if r["kind"] == kind and r["value"] is not None]
        judge = [r["judge_only"] for r in rows if r["kind"] == kind and r["judge_only"] is not None]
        summary[kind] = {
            "n": len(vals),
            "mean": statistics.mean(vals),
            "judge_mean": statistics.mean(judge),
            "below_0.5": sum(v < 0.5 for v in vals),
        }
        print(
            f"{kind}: n={len(vals)} mean {summary[kind]['mean']:.3f} (judge alone "
            f"{summary[kind]['judge_mean']:.3f}), below 0.5: {summary[kind]['below_0.5']}"
        )
    write_json(args.out, {"judge": args.judge, "summary": summary, "rows": rows})
    print(f"wrote {args.out}")
    print(
        f"RESULT lean_mean={summary['lean']['mean']:.3f}"
        f" direct_mean={summary['direct']['mean']:.3f}"
        f" lean_judge_mean={summary['lean']['judge_mean']:.3f}"
        f" direct_judge_mean={summary['direct']['judge_mean']:.3f}"
        f" lean_below_half={summary['lean']['below_0.5']}"
    )


if __name__ == "__main__":
    main()
