"""Can the judge tell a right yes/no from a wrong one in any prompt frame? (polar set, offline)

Why: on the polar set (``faithfulness_visible.py --sets polar``: 20 yes/no comparison
questions over short passages) the judge alone ranks the bare right "yes"/"no" above a wordy
hallucination of the other polarity in only 14 of 20 pairs. This script asks whether another
way of putting a bare polar answer to the judge would do better, per item, with the right
answer known:

- ``rewrite``: the shipped claim, ``The answer to "Q" is yes.`` (statement check), for both
  polarities; the right one's P(yes) normalised over the two;
- ``direct``: the judge answers the question itself from the context ("Answer yes or no"):
  P(the right polarity);
- ``proposed``: "Proposed answer: yes / no. Is it correct according to the context?", both
  polarities, normalised;
- ``stripped``: the wrong answers' statements without their leading "Yes," / "No," (does the
  word prime the verdict token?), against the shipped statements.

Per frame: the number of items whose right polarity gets more than 0.5, and the mean. Uses the
embedded judge (``--cache DIR`` makes a re-run free).

    .venv/bin/python benchmarks/polar_frames.py [--cache DIR]

Writes benchmarks/results/polar_frames.json; ends with ``RESULT``.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from _record import add_out, check_out, write_json  # noqa: E402
from faithfulness_visible import (  # noqa: E402
    build_resources,
    load_set,
    score_rows,
    settings_from_options,
)
from ragmeter.metrics.context import ContextSentences  # noqa: E402
from ragmeter.metrics.judging import Calls, context_first, judge_of  # noqa: E402

OUT = ROOT / "results" / "polar_frames.json"
DIRECT = "Answer the question from the context alone. Answer yes or no."
PROPOSED = (
    "Proposed answer: <data>{a}</data>\nIs the proposed answer to the question correct "
    "according to the context? Answer yes or no."
)
_POLARITY = re.compile(r"^\s*(?:yes|no)\b\s*[,.!;:]+\s*", re.I)


def _with(row: dict, suffix: str, answer: str) -> dict:
    return {**row, "question_id": f"{row['question_id']}-{suffix}", "answer": answer}


async def frames(resources) -> dict:  # type: ignore[no-untyped-def]
    rows = load_set("polar", 0)
    right = [r for r in rows if r["metadata"]["variant"] == "right"]
    wrong = [r for r in rows if r["metadata"]["variant"] == "wrong"]
    polar = [_with(r, p, p) for r in right for p in ("yes", "no")]
    rewrite = await score_rows(polar, resources)
    stripped_rows = []
    for r in wrong:
        rest = _POLARITY.sub("", r["answer"], count=1)
        stripped_rows.append(_with(r, "stripped", rest[:1].upper() + rest[1:]))
    stripped = await score_rows(stripped_rows, resources)
    shipped = await score_rows(rows, resources)
    calls = Calls(judge_of(resources))
    items = []
    for n, r in enumerate(right):
        truth = r["answer"].lower().strip(".")
        ctx = ContextSentences.of(r["contexts"])
        text = ctx.render(list(range(len(ctx.sentences))))
        p_direct = await calls.p_yes(context_first(text, r["question"], DIRECT), version="probe-1")
        prop = {
            a: await calls.p_yes(
                context_first(text, r["question"], PROPOSED.format(a=a)), version="probe-1"
            )
            for a in ("yes", "no")
        }
        rw = {"yes": rewrite[2 * n]["judge"], "no": rewrite[2 * n + 1]["judge"]}
        items.append(
            {
                "item": r["metadata"]["item"],
                "right": truth,
                "rewrite": rw[truth] / (rw["yes"] + rw["no"]),
                "direct": p_direct if truth == "yes" else 1 - p_direct,
                "proposed": prop[truth] / (prop["yes"] + prop["no"]),
                "shipped_right": shipped[2 * n]["judge"],
                "shipped_wrong": shipped[2 * n + 1]["judge"],
                "stripped_wrong": stripped[n]["judge"],
            }
        )
    return {"items": items}


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
    got = asyncio.run(frames(built.resources))
    items = got["items"]
    summary = {
        f: {
            "right_above_half": sum(i[f] > 0.5 for i in items),
            "mean": round(sum(i[f] for i in items) / len(items), 3),
        }
        for f in ("rewrite", "direct", "proposed")
    }
    summary["shipped_pairs_won"] = sum(i["shipped_right"] > i["shipped_wrong"] for i in items)
    summary["stripped_pairs_won"] = sum(i["shipped_right"] > i["stripped_wrong"] for i in items)
    print(f"{'frame':10s} {'right > 0.5':>12s} {'mean P(right)':>14s}   (n={len(items)})")
    for f in ("rewrite", "direct", "proposed"):
        print(f"{f:10s} {summary[f]['right_above_half']:>12d} {summary[f]['mean']:>14.3f}")
    print(
        f"pairs won by the judge: shipped statements {summary['shipped_pairs_won']}, "
        f"wrong answers without their leading Yes/No {summary['stripped_pairs_won']}"
    )
    write_json(args.out, {"summary": summary, **got}, indent=1)
    print(f"wrote {args.out}")
    print(
        "RESULT "
        + " ".join(
            f"{f}_right={summary[f]['right_above_half']}" for f in ("rewrite", "direct", "proposed")
        )
        + f" shipped_pairs={summary['shipped_pairs_won']}"
        + f" stripped_pairs={summary['stripped_pairs_won']} n={len(items)}"
    )


if __name__ == "__main__":
    main()
