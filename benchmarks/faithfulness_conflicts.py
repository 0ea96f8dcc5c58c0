"""faithfulness 40's conflicting-number cap, scored on stored verdicts (no judge call).

Why: the demo's "The half-life of carbon-14 is about 57,300 years." over a context giving
5,730 years scored 0.89: the judge said yes (P 0.85), and calibration 3's weight for a
missing name or number (-0.64) is too small to overrule it, being fitted on QA rows the judge
already gets right. faithfulness 40 caps such a claim's P(supported) at CONFLICT_CAP when the
context gives another number for the same unit (``numbers.conflicting``).

The judge's P(yes), the lexical support and the missing-name feature of each claim do not
change (the prompts, claims and evidence are the same), so this script re-scores the stored
results of ``faithfulness_visible.py`` (faithfulness 39) with the cap and compares AUROC and
Brier per set: the claims the cap touches and the answers whose score moves, by label.

Usage: python benchmarks/faithfulness_conflicts.py [--results FILE ...]
Prints a table, writes benchmarks/results/faithfulness_conflicts.json, ends with RESULT.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from _record import add_out, check_out, write_json  # noqa: E402
from _stats import auroc  # noqa: E402
from _visible_sets import load_set  # noqa: E402
from ragmeter.metrics.context import ContextSentences  # noqa: E402
from ragmeter.metrics.faithfulness import CONFLICT_CAP  # noqa: E402
from ragmeter.metrics.numbers import conflicting  # noqa: E402

RESULTS = [
    ROOT / "results" / "faithfulness_visible_seven_sets_wh_claims.json",
    ROOT / "results" / "faithfulness_visible_scifact_all.json",
]


def rescore(set_name: str, rows: list[dict]) -> dict:
    sources = {r["question_id"]: r for r in load_set(set_name, 10**6)}
    before, after, labels, touched = [], [], [], []
    for r in rows:
        ev = (r.get("details") or {}).get("statement_evidence")
        if r["status"] != "ok" or not ev:
            continue
        src = sources[r["id"]]
        ctx = ContextSentences.of(src["contexts"]).without_instructions()
        clash = [conflicting(e["statement"], tuple(ctx.sentences), src["question"]) for e in ev]
        probs = [
            min(e["p_supported"], CONFLICT_CAP) if k else e["p_supported"]
            for e, k in zip(ev, clash, strict=True)
        ]
        before.append(float(np.mean([e["p_supported"] for e in ev])))
        after.append(float(np.mean(probs)))
        labels.append(r["label"])
        for e, k in zip(ev, clash, strict=True):
            if k:
                touched.append(
                    {
                        "id": r["id"],
                        "label": r["label"],
                        "statement": e["statement"],
                        "conflicting": k,
                        "p_supported": e["p_supported"],
                    }
                )
    b, a, y = np.array(before), np.array(after), np.array(labels)
    return {
        "n": len(y),
        "auroc_before": auroc(b, y),
        "auroc_after": auroc(a, y),
        "brier_before": float(np.mean((b - y) ** 2)),
        "brier_after": float(np.mean((a - y) ** 2)),
        "claims_capped": {
            "faithful": sum(t["label"] == 1 for t in touched),
            "unfaithful": sum(t["label"] == 0 for t in touched),
        },
        "answers_moved": int(np.sum(np.abs(a - b) > 1e-12)),
        "touched": touched,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--results",
        type=Path,
        nargs="+",
        default=RESULTS,
        help="faithfulness_visible.py outputs; a set in a later file replaces an earlier one's",
    )
    add_out(ap, ROOT / "results" / "faithfulness_conflicts.json")
    args = ap.parse_args()
    check_out(args.out, args.force)
    sets: dict = {}
    for path in args.results:
        for name, data in json.loads(path.read_text())["sets"].items():
            sets[name if name != "scifact" or len(data["rows"]) <= 120 else "scifact_all"] = data[
                "rows"
            ]
    out = {}
    print(
        f"{'set':12s} {'n':>4s} {'AUROC before':>12s} {'after':>6s} {'Brier before':>12s} "
        f"{'after':>6s} {'capped (faithful/unfaithful)':>28s}"
    )
    for name, rows in sets.items():
        res = rescore("scifact" if name.startswith("scifact") else name, rows)
        out[name] = res
        c = res["claims_capped"]
        print(
            f"{name:12s} {res['n']:4d} {res['auroc_before']:12.3f} {res['auroc_after']:6.3f} "
            f"{res['brier_before']:12.3f} {res['brier_after']:6.3f} "
            f"{c['faithful']:>14d}/{c['unfaithful']}"
        )
    write_json(
        args.out, {"cap": CONFLICT_CAP, "results": [str(p) for p in args.results], "sets": out}
    )
    worse = [n for n, r in out.items() if r["auroc_after"] < r["auroc_before"]]
    print(f"wrote {args.out}")
    print(
        "RESULT "
        + " ".join(f"{n}_auroc={r['auroc_after']:.3f}" for n, r in out.items())
        + f" sets_worse={len(worse)} faithful_claims_capped="
        f"{sum(r['claims_capped']['faithful'] for r in out.values())}"
    )


if __name__ == "__main__":
    main()
