"""Would judging each claim's relevance make answer_relevance tell redundant answers apart?

Why (2026-11-26): WikiEval's poorer answers are "incomplete or redundant" (RAGAS paper, section
5), and the default ``answer_relevance`` (one verdict: "does the answer directly and completely
answer the question?") scores them within 0.03 of the preferred answer in 6 of 50 pairs
(agreement 0.90). DeepEval's answer relevancy judges each statement of the answer instead
(relevant statements / statements), which a redundant sentence lowers. This script measures
that design on the embedded judge without changing the product: per claim of the answer
(``claims_of``), P(yes) of context relevance's sentence task ("needed to answer the
question?", ``prompts/relevance.json`` ``context_fast``) after the question, no context.

Scores compared per answer:
- ``shipped``: ``answer_relevance`` as registered (the single verdict, calibrated);
- ``claims``: mean P(needed) over the answer's claims (DeepEval's form, expected share);
- ``product``: shipped x claims (complete and not padded).

Sets: WikiEval (answer vs poor_answer, pairwise agreement as in meta-eval) and
benchmarks/data/answer_relevance.jsonl (20 direct, 20 evasive, 20 off-topic, 17 on-topic
non-answers: mean per variant; issue 12 asks direct >= 0.8, evasive and off-topic <= 0.3).

Result (2026-11-26, AMD EPYC, ``--limit 10``,
benchmarks/results/answer_relevance_claims_first10.json): WikiEval's first 10 pairs shipped
0.70, claims 0.40, product 0.50; direct answers shipped 0.836, claims 0.568 (below issue 12's
0.8). The 1.5B judge calls most claims of a right answer "not needed" (P 0.3-0.6 for the
background sentences WikiEval's grounded answers carry), so the design loses on both sets; not
built into the product, not run on all 50 pairs.

Usage: python benchmarks/answer_relevance_claims.py [--cache DIR] [--limit N]
Prints tables, writes benchmarks/results/answer_relevance_claims.json, ends with RESULT.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from _record import add_out, check_out, require, write_json  # noqa: E402
from ragmeter.config import settings_from_options  # noqa: E402
from ragmeter.meta_eval import wikieval_pairs  # noqa: E402
from ragmeter.metrics.claims import claims_of, neutralise  # noqa: E402
from ragmeter.metrics.judging import Calls, version  # noqa: E402
from ragmeter.metrics.registry import get_metric  # noqa: E402
from ragmeter.prompts import load_prompts  # noqa: E402
from ragmeter.resources import build_resources  # noqa: E402
from ragmeter.sample import Sample  # noqa: E402

OUT = ROOT / "results" / "answer_relevance_claims.json"
WIKIEVAL = ROOT.parent.parent / "shared" / "datasets" / "wikieval" / "wikieval.jsonl"


async def score(question: str, answer: str, resources) -> dict:  # type: ignore[no-untyped-def]
    ar = get_metric("answer_relevance").acompute
    shipped = await ar(Sample(question_id="x", question=question, answer=answer), resources)
    claims = claims_of(question, answer).original
    common = load_prompts("common")
    task = load_prompts("relevance")["context_fast"]["task"]
    calls = Calls(resources.judge)
    probs = []
    for c in claims:
        user = f"Question: <data>{neutralise(question)}</data>\n\n" + task.format(
            sentence=neutralise(c)
        )
        probs.append(
            await calls.p_yes(
                [
                    {"role": "system", "content": common["system"]},
                    {"role": "user", "content": user},
                ],
                version=version("common", "relevance") + "+claims-experiment-1",
            )
        )
    share = sum(probs) / len(probs) if probs else 0.0
    value = shipped.value if shipped.value is not None else 0.0
    return {
        "shipped": value,
        "claims": share,
        "product": value * share,
        "claim_p": [round(p, 4) for p in probs],
        "n_claims": len(claims),
    }


def agreement(pairs: list[tuple[dict, dict]], key: str) -> float:
    won = [1.0 if a[key] > b[key] else 0.5 if a[key] == b[key] else 0.0 for a, b in pairs]
    return sum(won) / len(won)


async def run(resources, limit: int) -> dict:  # type: ignore[no-untyped-def]
    # the meta-eval's own pairs ("Question:" / "Answer:" prefixes stripped, as it scores them)
    pairs = [p for p in wikieval_pairs(WIKIEVAL) if p.dimension == "answer_relevance"]
    pairs = pairs[:limit] if limit else pairs
    wiki = []
    t0 = time.perf_counter()
    for i, p in enumerate(pairs):
        good = await score(p.preferred.question, p.preferred.answer or "", resources)
        poor = await score(p.other.question, p.other.answer or "", resources)
        wiki.append({"row": i, "preferred": good, "poor": poor})
        print(f"  wikieval {i + 1}/{len(pairs)} {time.perf_counter() - t0:.0f}s", flush=True)
    rel = []
    data = ROOT / "data" / "answer_relevance.jsonl"
    for line in data.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        s = await score(r["question"], r["answer"], resources)
        rel.append({"id": r["question_id"], "variant": r["metadata"]["variant"], **s})
    return {"wikieval": wiki, "relevance": rel, "wall_s": round(time.perf_counter() - t0, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--judge",
        default="local",
        help="the judge, as ragmeter --judge takes it (local = the embedded model)",
    )
    ap.add_argument("--cache", default="off", help="judge cache directory, or off")
    ap.add_argument("--limit", type=int, default=0, help="first N WikiEval rows (0 = all)")
    add_out(ap, OUT)
    args = ap.parse_args()
    check_out(args.out, args.force)
    require(WIKIEVAL, "WikiEval")
    settings = settings_from_options(None, judge=args.judge, cache=args.cache, modes=[])
    built = build_resources(settings, {"judge"})
    if "judge" in built.unavailable:
        raise SystemExit(built.unavailable["judge"])

    async def go() -> dict:
        try:
            return await run(built.resources, args.limit)
        finally:
            await built.aclose()

    res = asyncio.run(go())
    pairs = [(w["preferred"], w["poor"]) for w in res["wikieval"]]
    keys = ("shipped", "claims", "product")
    summary: dict = {"wikieval_agreement": {k: agreement(pairs, k) for k in keys}}
    variants = sorted({r["variant"] for r in res["relevance"]})
    summary["relevance_means"] = {
        k: {
            v: statistics.mean(r[k] for r in res["relevance"] if r["variant"] == v)
            for v in variants
        }
        for k in keys
    }
    print(f"{'score':10s} {'WikiEval':>9s} " + " ".join(f"{v:>10s}" for v in variants))
    for k in keys:
        means = summary["relevance_means"][k]
        print(
            f"{k:10s} {summary['wikieval_agreement'][k]:9.3f} "
            + " ".join(f"{means[v]:10.3f}" for v in variants)
        )
    write_json(args.out, {"summary": summary, **res}, indent=1)
    print(f"wrote {args.out}")
    print(
        "RESULT "
        + " ".join(f"wikieval_{k}={summary['wikieval_agreement'][k]:.3f}" for k in keys)
        + " "
        + " ".join(
            f"{k}_{v}={summary['relevance_means'][k][v]:.3f}" for k in keys for v in variants
        )
    )


if __name__ == "__main__":
    main()
