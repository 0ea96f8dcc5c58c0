"""answer_relevance on direct vs evasive / off-topic answers; refusal handling on labelled rows.

Data (benchmarks/data, make_visible_sets.py):
- answer_relevance.jsonl: 20 direct correct answers to their questions, 20 evasive answers,
  20 off-topic answers (another item's correct answer). Targets: direct mean >= 0.8, evasive
  and off-topic means <= 0.3. Plus 17 on-topic non-answers (a context sentence about the
  question's subject without the answer), a check added in issue 12b, never fitted on.
- answer_relevance_lean.jsonl (added 2026-11-28, never fitted on): 26 direct answers that
  repeat no content word of their question ("Angel Falls, 979 metres high" style; 6 of them
  to why / how questions), and each given to another item's question as an off-topic answer.
- dialogue.jsonl's 72 replies (grounded, mixed, ungrounded): each answers the user's last
  turn, so its relevance should be high whatever its faithfulness; reported, no label.
- refusals.jsonl: 30 questions, half answerable from their context, half given another
  passage; each answered or declined. Reported: refusal detection against the ``declined``
  truth, refusal precision / recall (declined exactly when ``is_answerable`` is false),
  faithfulness status on declined answers (expected: undefined, not applicable), and
  answer_relevance on declined answers (expected: 0, noncommittal).

Usage: python benchmarks/relevance_refusals.py [--judge local] [--chatty --no-refusals]
Prints tables, writes benchmarks/results/relevance_refusals.json, ends with RESULT.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from _record import add_out, check_out, write_json  # noqa: E402
from _rewrites import chatty  # noqa: E402
from _stats import auroc  # noqa: E402
from ragmeter.config import settings_from_options  # noqa: E402
from ragmeter.metrics.refusal import declines, refusal_confusion  # noqa: E402
from ragmeter.metrics.registry import get_metric  # noqa: E402
from ragmeter.resources import build_resources  # noqa: E402
from ragmeter.sample import Sample  # noqa: E402

DATA = ROOT / "data"


def rows_of(name: str) -> list[dict]:
    return [json.loads(x) for x in (DATA / name).read_text(encoding="utf-8").splitlines() if x]


def sample_of(r: dict) -> Sample:
    return Sample(
        question_id=r["question_id"],
        question=r["question"],
        contexts=r["contexts"],
        answer=r["answer"],
        is_answerable=r.get("is_answerable"),
    )


async def run(resources, *, chat: bool = False, refusals: bool = True) -> dict:
    ar = get_metric("answer_relevance").acompute
    faith = get_metric("faithfulness").acompute
    rel = []
    rows = rows_of("answer_relevance.jsonl")
    if chat:  # as a chat assistant wraps them, a form per item (benchmarks/_rewrites.py)
        items = {k: n for n, k in enumerate(dict.fromkeys(r["metadata"]["item"] for r in rows))}
        rows = [chatty(r, items[r["metadata"]["item"]]) for r in rows]
    rows += rows_of("answer_relevance_lean.jsonl")
    for r in rows_of("dialogue.jsonl"):  # every reply answers the last turn: label 1
        meta = {**r["metadata"], "variant": "dialogue_" + r["metadata"]["variant"], "label": 1}
        rows.append({**r, "metadata": meta})
    for r in rows:
        s = await ar(sample_of(r), resources)
        rel.append(
            {
                "id": r["question_id"],
                "item": r["metadata"]["item"],
                "variant": r["metadata"]["variant"],
                "label": r["metadata"]["label"],
                "value": s.value,
                "p_yes": s.details.get("p_yes", s.value),
                "related": s.details.get("related", True),
                "status": s.status,
            }
        )
    ref = []
    for r in rows_of("refusals.jsonl") if refusals else []:
        smp = sample_of(r)
        f = await faith(smp, resources)
        a = await ar(smp, resources)
        declined = declines(r["answer"]) is not None
        ref.append(
            {
                "id": r["question_id"],
                "answerable": r["is_answerable"],
                "declined_truth": r["metadata"]["declined"],
                "declined_detected": declined,
                "faithfulness_status": f.status,
                "faithfulness_value": f.value,
                "answer_relevance": a.value,
                "cell": get_metric("refusal_accuracy").compute(smp).details["cell"],
            }
        )
    return {"relevance": rel, "refusals": ref}


def refusal_summary(ref: list[dict]) -> dict:
    """Refusal detection, precision / recall, and what the metrics do with declined answers."""
    det_acc = sum(r["declined_truth"] == r["declined_detected"] for r in ref) / len(ref)
    conf = refusal_confusion(r["cell"] for r in ref)
    declined = [r for r in ref if r["declined_detected"]]
    faith_na = sum(r["faithfulness_status"] == "undefined" for r in declined)
    ar_zero = sum(r["answer_relevance"] == 0.0 for r in declined)
    print(f"refusal detection accuracy vs truth: {det_acc:.3f} ({len(ref)} answers)")
    print(f"refusal precision {conf['precision']}, recall {conf['recall']}, confusion {conf}")
    print(
        f"declined answers: faithfulness not applicable {faith_na}/{len(declined)}, "
        f"answer_relevance 0 {ar_zero}/{len(declined)}"
    )
    return {
        "refusal_detection_accuracy": det_acc,
        "refusal_confusion": conf,
        "declined_faithfulness_undefined": f"{faith_na}/{len(declined)}",
        "declined_answer_relevance_zero": f"{ar_zero}/{len(declined)}",
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--judge",
        default="local",
        help="the judge, as ragmeter --judge takes it (local = the embedded model)",
    )
    ap.add_argument("--cache", default="off", help="judge cache directory, or off")
    add_out(ap, ROOT / "results" / "relevance_refusals.json")
    ap.add_argument(
        "--chatty",
        action="store_true",
        help="wrap the answer_relevance rows' answers as a chat assistant does ('Certainly! ... "
        "I hope this helps!', links, a footnote, 'Have a great day!'): a robustness check",
    )
    ap.add_argument("--no-refusals", action="store_true", help="the answer_relevance part only")
    args = ap.parse_args()
    check_out(args.out, args.force)
    settings = settings_from_options(None, judge=args.judge, cache=args.cache, modes=[])
    built = build_resources(settings, {"judge"})
    if "judge" in built.unavailable:
        raise SystemExit(built.unavailable["judge"])

    async def go() -> dict:
        try:
            return await run(built.resources, chat=args.chatty, refusals=not args.no_refusals)
        finally:
            await built.aclose()

    res = asyncio.run(go())
    rel = res["relevance"]
    means = {}
    print(f"{'answer_relevance':18s} {'n':>3s} {'mean':>6s} {'min':>6s} {'max':>6s}")
    variants = ("direct", "evasive", "off_topic", "on_topic", "lean", "lean_off_topic")
    dialogue = ("dialogue_grounded", "dialogue_mixed", "dialogue_ungrounded")
    for v in variants + dialogue:
        vals = [r["value"] for r in rel if r["variant"] == v and r["value"] is not None]
        if not vals:
            continue
        means[v] = sum(vals) / len(vals)
        print(f"{v:18s} {len(vals):3d} {means[v]:6.3f} {min(vals):6.3f} {max(vals):6.3f}")
    base = ("direct", "evasive", "off_topic")
    ok = [r for r in rel if r["value"] is not None and r["variant"] in base]
    ar_auc = auroc([r["value"] for r in ok], [r["label"] for r in ok])
    on = [r for r in rel if r["value"] is not None and r["variant"] in ("direct", "on_topic")]
    on_auc = auroc([r["value"] for r in on], [r["label"] for r in on]) if len(on) > 20 else None
    lean = [r for r in rel if r["value"] is not None and r["variant"].startswith("lean")]
    lean_auc = auroc([r["value"] for r in lean], [r["label"] for r in lean])
    gated = {
        v: sum(not r["related"] for r in rel if r["variant"] == v) for v in variants + dialogue
    }
    summary = {
        "ar_mean": means,
        "ar_auroc": ar_auc,
        "ar_auroc_on_topic": on_auc,
        "ar_auroc_lean": lean_auc,
        "gated_unrelated": gated,
    }
    print(f"answer_relevance AUROC lean direct vs lean off-topic: {lean_auc:.3f}")
    print(f"scored 0 by the relation gate, per variant: {gated}")
    print(f"answer_relevance AUROC direct vs evasive and off-topic: {ar_auc:.3f}")
    print(f"answer_relevance AUROC direct vs on-topic non-answers: {on_auc}")
    result = (
        f"RESULT ar_direct={means['direct']:.3f} ar_evasive={means['evasive']:.3f} "
        f"ar_off_topic={means['off_topic']:.3f} ar_auroc={ar_auc:.3f} "
        + (f"ar_on_topic={means['on_topic']:.3f} ar_auroc_on_topic={on_auc:.3f} " if on_auc else "")
        + f"ar_lean={means['lean']:.3f} ar_lean_off_topic={means['lean_off_topic']:.3f} "
        f"ar_auroc_lean={lean_auc:.3f} ar_dialogue_grounded={means['dialogue_grounded']:.3f} "
    )
    if res["refusals"]:
        summary.update(refusal_summary(res["refusals"]))
        conf = summary["refusal_confusion"]
        result += (
            f"refusal_precision={conf['precision']:.3f} refusal_recall={conf['recall']:.3f} "
            f"refusal_detection={summary['refusal_detection_accuracy']:.3f}"
        )
    write_json(
        args.out,
        {"judge": args.judge, "cpu_count": os.cpu_count(), "summary": summary, **res},
        indent=1,
    )
    print(f"wrote {args.out}")
    print(result.strip())


if __name__ == "__main__":
    main()
