"""Statement-level faithfulness verdicts against expert labels: SciFact claims vs their abstracts.

WikiEval alone is too small to choose a faithfulness design on (50 pairs). SciFact (Wadden et
al. 2020) has claims that experts labelled SUPPORT or CONTRADICT against a cited abstract, so
each (claim, abstract) pair is a statement with a known verdict, and contradicting claims are
close lexical edits of supported ones (K-Precision cannot tell them apart).

Each claim becomes a sample (answer = the claim, contexts = [title + abstract]) scored by the
``faithfulness`` metric in ``fast`` mode, once per evidence setting (``evidence_k``: context
sentences shown per statement; 0 = the whole abstract). Reported per setting: ROC AUC of the
score for SUPPORT over CONTRADICT claims, accuracy of the verdict at P(yes) >= 0.5, judge tokens
and wall time; K-Precision's AUC is the no-model baseline.

Usage: .venv/bin/python benchmarks/faithfulness_scifact.py [--n 60] [--evidence-k 3,0]
       [--judge local] [--data ../shared/datasets/scifact]
Takes the first N SUPPORT and N CONTRADICT claims by numeric id (the first cited abstract of
each). Prints a table, writes benchmarks/results/faithfulness_scifact.json, ends with RESULT.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from ragmeter.config import settings_from_options
from ragmeter.metrics.faithfulness import faithfulness
from ragmeter.metrics.lexical import k_precision
from ragmeter.resources import build_resources
from ragmeter.sample import Sample

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _record import add_out, check_out, require, write_json  # noqa: E402

DEFAULT_DATA = ROOT.parent.parent / "shared" / "datasets" / "scifact"
QUESTION = "What does the study find?"  # SciFact has claims, not questions; one neutral stand-in


def load_claims(data: Path, n: int) -> list[tuple[str, str, str, str]]:
    """(claim id, label, claim, title + abstract) for the first n SUPPORT and n CONTRADICT."""
    corpus = {}
    with open(data / "corpus.jsonl", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            corpus[d["_id"]] = f"{d['title']}. {d['text']}"
    rows = {"SUPPORT": [], "CONTRADICT": []}
    with open(data / "queries.jsonl", encoding="utf-8") as f:
        queries = [json.loads(line) for line in f]
    for q in sorted(queries, key=lambda q: int(q["_id"])):
        if not q.get("metadata"):
            continue
        doc, evidence = next(iter(q["metadata"].items()))
        label = evidence[0]["label"]
        if doc in corpus and label in rows:
            rows[label].append((q["_id"], label, q["text"], corpus[doc]))
    return rows["SUPPORT"][:n] + rows["CONTRADICT"][:n]


def auc(pos: list[float], neg: list[float]) -> float:
    """P(score of a SUPPORT claim > score of a CONTRADICT claim), ties counting one half."""
    p, q = np.asarray(pos)[:, None], np.asarray(neg)[None, :]
    return float(((p > q).sum() + 0.5 * (p == q).sum()) / (p.size * q.size))


async def score_all(claims, resources, k: int) -> list[dict]:
    resources.options["evidence_k"] = k
    out = []
    for cid, label, claim, abstract in claims:
        s = await faithfulness(
            Sample(question_id=cid, question=QUESTION, answer=claim, contexts=[abstract]),
            resources,
        )
        judge = s.details.get("judge") or {}
        out.append(
            {
                "id": cid,
                "label": label,
                "value": s.value,
                "status": s.status,
                "reason": s.reason,
                "evidence": (s.details.get("evidence") or {}).get("sentences"),
                "prompt_tokens": judge.get("prompt_tokens", 0),
            }
        )
    return out


def summarise(name: str, scored: list[dict], wall: float, stats, ev0: int) -> dict:
    ok = [r for r in scored if r["value"] is not None]
    pos = [r["value"] for r in ok if r["label"] == "SUPPORT"]
    neg = [r["value"] for r in ok if r["label"] != "SUPPORT"]
    acc = (sum(v >= 0.5 for v in pos) + sum(v < 0.5 for v in neg)) / max(len(ok), 1)
    return {
        "setting": name,
        "auc": auc(pos, neg),
        "accuracy": acc,
        "scored": len(ok),
        "not_scored": len(scored) - len(ok),
        "prompt_tokens_per_claim": sum(r["prompt_tokens"] for r in scored) / len(scored),
        "evaluated_tokens_per_claim": (
            (stats.prompt_tokens_evaluated - ev0) / len(scored) if stats is not None else None
        ),
        "wall_s": round(wall, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--data",
        type=Path,
        default=DEFAULT_DATA,
        help="the BEIR SciFact folder (default: ../shared/datasets/scifact)",
    )
    ap.add_argument("--n", type=int, default=60, help="claims per label (SUPPORT, CONTRADICT)")
    ap.add_argument(
        "--evidence-k",
        default="3,0",
        help="evidence sentences per claim, comma-separated; 0 = the whole abstract",
    )
    ap.add_argument(
        "--judge",
        default="local",
        help="the judge, as ragmeter --judge takes it (local = the embedded model)",
    )
    add_out(ap, ROOT / "results" / "faithfulness_scifact.json")
    args = ap.parse_args()
    check_out(args.out, args.force)
    for name in ("corpus.jsonl", "queries.jsonl"):
        require(args.data / name, "SciFact (BEIR layout, --data)")
    claims = load_claims(args.data, args.n)
    settings = settings_from_options(None, judge=args.judge, cache="off", modes=[])
    built = build_resources(settings, {"judge", "embedder"})
    if "judge" in built.unavailable:
        raise SystemExit(built.unavailable["judge"])
    stats = getattr(getattr(built.resources.judge, "inner", None), "stats", None)
    kp = [k_precision(c, [a]).value for _, _, c, a in claims]
    labels = [lab for _, lab, _, _ in claims]
    rows = [
        {
            "setting": "K-Precision (no model)",
            "auc": auc(
                [v for v, lab in zip(kp, labels, strict=True) if lab == "SUPPORT"],
                [v for v, lab in zip(kp, labels, strict=True) if lab != "SUPPORT"],
            ),
        }
    ]
    per_setting: dict[str, list[dict]] = {}

    async def run_settings() -> None:
        try:
            for k in [int(x) for x in args.evidence_k.split(",")]:
                t0 = time.perf_counter()
                ev0 = stats.prompt_tokens_evaluated if stats is not None else 0
                scored = await score_all(claims, built.resources, k)
                wall = time.perf_counter() - t0
                name = f"evidence_k={k}" + (" (whole abstract)" if k == 0 else "")
                rows.append(summarise(name, scored, wall, stats, ev0))
                per_setting[name] = scored
        finally:
            await built.aclose()

    asyncio.run(run_settings())
    print(
        f"SciFact claims: {labels.count('SUPPORT')} SUPPORT, {labels.count('CONTRADICT')} "
        f"CONTRADICT; judge {args.judge}"
    )
    print(f"{'setting':30s} {'AUC':>6s} {'acc':>6s} {'tok/claim':>10s} {'wall s':>8s}")
    for r in rows:
        acc = f"{r['accuracy']:.3f}" if "accuracy" in r else "—"
        per = r.get("evaluated_tokens_per_claim")
        tok = f"{per:.0f}" if per else "—"
        wall = str(r.get("wall_s", "—"))
        print(f"{r['setting']:30s} {r['auc']:6.3f} {acc:>6s} {tok:>10s} {wall:>8s}")
    write_json(
        args.out,
        {
            "data": str(args.data),
            "n_per_label": args.n,
            "judge": args.judge,
            "question": QUESTION,
            "cpu_count": os.cpu_count(),
            "rows": rows,
            "claims": per_setting,
        },
        indent=1,
    )
    print(f"wrote {args.out}")
    judged = [r for r in rows if "accuracy" in r]
    print(
        "RESULT "
        + " ".join(f"auc_k{r['setting'].split('=')[1].split()[0]}={r['auc']:.3f}" for r in judged)
        + f" auc_k_precision={rows[0]['auc']:.3f} n_claims={len(claims)}"
    )


if __name__ == "__main__":
    main()
