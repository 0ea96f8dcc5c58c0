"""Would splitting a "both X and Y" yes/no question help the judge? (polar set, a probe)

Why: the judge is near chance on the polar set's yes/no comparison questions in every frame
tried (benchmarks/polar_frames.py) and says yes to "both X and Y" when one of the two holds.
Atomic claims are the usual cure: ask "Is X ...?" and "Is Y ...?" and combine (both hold: the
product, or the smaller). This probe asks the judge each question directly from the context
("Answer the question from the context alone. Answer yes or no.") for the 12 polar items of
that form, their sub-questions written by hand below (a parser would come only if this helped),
and counts the items whose right polarity gets more than 0.5: the whole question, the product
of the two, the smaller of the two.

    .venv/bin/python benchmarks/polar_decompose.py [--cache DIR]

Writes benchmarks/results/polar_decompose.json; ends with ``RESULT``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from _record import add_out, check_out, write_json  # noqa: E402
from faithfulness_visible import build_resources, load_set, settings_from_options  # noqa: E402
from ragmeter.metrics.context import ContextSentences  # noqa: E402
from ragmeter.metrics.judging import Calls, context_first, judge_of  # noqa: E402

OUT = ROOT / "results" / "polar_decompose.json"
DIRECT = "Answer the question from the context alone. Answer yes or no."
# the polar set's 'both' questions and their two halves
SUB = {
    "Are the Danube and the Rhine both longer than 1,000 kilometres?": [
        "Is the Danube longer than 1,000 kilometres?",
        "Is the Rhine longer than 1,000 kilometres?",
    ],
    "Were both Mozart and Haydn born in Vienna?": [
        "Was Mozart born in Vienna?",
        "Was Haydn born in Vienna?",
    ],
    "Did the Beatles and the Rolling Stones both form in Liverpool?": [
        "Did the Beatles form in Liverpool?",
        "Did the Rolling Stones form in Liverpool?",
    ],
    "Are both the okapi and the giraffe native to Africa?": [
        "Is the okapi native to Africa?",
        "Is the giraffe native to Africa?",
    ],
    "Do Norway and Sweden both use the euro?": [
        "Does Norway use the euro?",
        "Does Sweden use the euro?",
    ],
    "Were Agatha Christie and Arthur Conan Doyle both British writers?": [
        "Was Agatha Christie a British writer?",
        "Was Arthur Conan Doyle a British writer?",
    ],
    "Were penicillin and insulin both discovered in the 1920s?": [
        "Was penicillin discovered in the 1920s?",
        "Was insulin discovered in the 1920s?",
    ],
    "Do dolphins and sharks both breathe air?": [
        "Do dolphins breathe air?",
        "Do sharks breathe air?",
    ],
    "Are both the Sahara and the Gobi hot deserts?": [
        "Is the Sahara a hot desert?",
        "Is the Gobi a hot desert?",
    ],
    "Did Neil Armstrong and Buzz Aldrin both walk on the Moon during Apollo 11?": [
        "Did Neil Armstrong walk on the Moon during Apollo 11?",
        "Did Buzz Aldrin walk on the Moon during Apollo 11?",
    ],
    "Were Vincent van Gogh and Rembrandt both Dutch painters?": [
        "Was Vincent van Gogh a Dutch painter?",
        "Was Rembrandt a Dutch painter?",
    ],
    "Are bats and birds both mammals?": ["Are bats mammals?", "Are birds mammals?"],
}


async def probe(resources) -> list[dict]:  # type: ignore[no-untyped-def]
    calls = Calls(judge_of(resources))
    rows = [r for r in load_set("polar", 0) if r["metadata"]["variant"] == "right"]
    items = []
    for r in rows:
        if r["question"] not in SUB:
            continue
        truth = r["answer"].lower().strip(".")
        ctx = ContextSentences.of(r["contexts"])
        text = ctx.render(list(range(len(ctx.sentences))))
        whole = await calls.p_yes(context_first(text, r["question"], DIRECT), version="probe-1")
        halves = [
            await calls.p_yes(context_first(text, q, DIRECT), version="probe-1")
            for q in SUB[r["question"]]
        ]

        def right(p: float, truth: str = truth) -> float:
            return p if truth == "yes" else 1 - p

        items.append(
            {
                "item": r["metadata"]["item"],
                "question": r["question"],
                "right": truth,
                "p_yes_halves": [round(p, 4) for p in halves],
                "whole": round(right(whole), 4),
                "product": round(right(halves[0] * halves[1]), 4),
                "smaller": round(right(min(halves)), 4),
            }
        )
    return items


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", default="off", help="judge cache directory, or off")
    add_out(ap, OUT)
    args = ap.parse_args()
    check_out(args.out, args.force)
    built = build_resources(
        settings_from_options(None, judge="local", cache=args.cache, modes=[]), {"judge"}
    )
    if "judge" in built.unavailable:
        raise SystemExit(built.unavailable["judge"])

    async def run() -> list[dict]:
        try:
            return await probe(built.resources)
        finally:
            await built.aclose()

    items = asyncio.run(run())
    print(
        f"{'item':6s} {'right':5s} {'P(yes) halves':>16s} {'whole':>6s} "
        f"{'product':>8s} {'smaller':>8s}"
    )
    for it in items:
        halves = "/".join(f"{p:.2f}" for p in it["p_yes_halves"])
        print(
            f"{it['item']:6s} {it['right']:5s} {halves:>16s} {it['whole']:6.3f} "
            f"{it['product']:8.3f} {it['smaller']:8.3f}"
        )
    counts = {k: sum(it[k] > 0.5 for it in items) for k in ("whole", "product", "smaller")}
    write_json(args.out, {"n": len(items), "right_above_half": counts, "items": items}, indent=1)
    print(f"wrote {args.out}")
    print(
        f"RESULT n={len(items)} whole={counts['whole']} product={counts['product']} "
        f"smaller={counts['smaller']}"
    )


if __name__ == "__main__":
    main()
