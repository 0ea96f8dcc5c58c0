"""Fit the faithfulness combination (judge P(yes) + lexical support) on one visible set.

Reads the per-statement evidence that benchmarks/faithfulness_visible.py stored for each
sample (``details.statement_evidence``: P(yes) and lexical support per statement) and fits

    P(statement supported) = sigmoid(b0 + b1 * logit(P(yes)) + b2 * lexical_support)

so that the answer score, the mean of P over its statements (the expected share of supported
statements, RAGAS's definition), minimises the log loss against the answer labels of the FIT
set (scipy.optimize.minimize, L-BFGS-B, L2 penalty ``--l2`` on b1, b2). The other sets in the
results file are the CHECK sets: their AUROC, Brier and ECE with the fitted coefficients are
written into the calibration's provenance. The output JSON is the versioned calibration the
metric loads (src/ragmeter/prompts/faithfulness_calibration.json).

Since calibration 2 (2026-11-26: a third feature, a name or number absent from the context)
the shipped faithfulness calibration is fitted by benchmarks/faithfulness_lexical_variants.py;
this script fits the two-feature form (calibration 1, written only with ``--out``) and
answer relevance's calibration.

Usage: python benchmarks/fit_faithfulness_calibration.py --results
       benchmarks/results/faithfulness_visible_features.json --fit qa --version 1
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from _record import add_out, check_out, require  # noqa: E402
from _stats import summary  # noqa: E402

ABOUT = {
    "faithfulness": "P = sigmoid(intercept + logit_p_yes * logit(P(yes)) + lexical_support * "
    "lexical). Fitted by benchmarks/fit_faithfulness_calibration.py; see "
    "docs/judged-metrics.md.",
    "answer_relevance": "P = sigmoid(intercept + logit_p_yes * logit(P(yes)) + lexical_support "
    "* related), related = 1 when a claim of the answer shares a content word with the "
    "question; the metric scores 0 when related = 0 (the relation gate; the fit's check "
    "numbers are of the sigmoid alone). Fitted by benchmarks/fit_faithfulness_calibration.py; "
    "see docs/judged-metrics.md.",
}
OUT = ROOT.parent / "src" / "ragmeter" / "prompts" / "faithfulness_calibration.json"
EPS = 1e-4


def features(rows: list[dict]) -> tuple[list[np.ndarray], np.ndarray]:
    """Per sample: an (n_statements, 2) array of [logit P(yes), lexical]; the labels."""
    xs, ys = [], []
    for r in rows:
        ev = (r.get("details") or {}).get("statement_evidence")
        if r["status"] != "ok" or not ev:
            continue
        p = np.clip(np.array([e["p_yes"] for e in ev], dtype=float), EPS, 1 - EPS)
        lex = np.array([e["lexical"] for e in ev], dtype=float)
        xs.append(np.stack([np.log(p / (1 - p)), lex], axis=1))
        ys.append(r["label"])
    return xs, np.asarray(ys, dtype=float)


def relevance_features(rows: list[dict], items: set[str] | None) -> tuple[list, np.ndarray]:
    """answer_relevance rows (relevance_refusals.json): [logit P(yes), related] per answer
    (``related``: a claim of the answer shares a content word with the question; 1 in files
    written before it was recorded)."""
    xs, ys = [], []
    for r in rows:
        if r["p_yes"] is None or (items is not None and r["item"] not in items):
            continue
        if r.get("variant") not in (None, "direct", "evasive", "off_topic"):  # not fitted on
            continue
        p = min(max(float(r["p_yes"]), EPS), 1 - EPS)
        xs.append(np.array([[np.log(p / (1 - p)), float(r.get("related", True))]]))
        ys.append(r["label"])
    return xs, np.asarray(ys, dtype=float)


def answer_scores(w: np.ndarray, xs: list[np.ndarray]) -> np.ndarray:
    return np.array([np.mean(1 / (1 + np.exp(-(w[0] + x @ w[1:])))) for x in xs])


def fit(xs: list[np.ndarray], y: np.ndarray, l2: float) -> np.ndarray:
    def loss(w: np.ndarray) -> float:
        s = np.clip(answer_scores(w, xs), EPS, 1 - EPS)
        return float(-np.mean(y * np.log(s) + (1 - y) * np.log(1 - s)) + l2 * np.sum(w[1:] ** 2))

    res = minimize(loss, np.array([0.0, 1.0, 0.0]), method="L-BFGS-B")
    if not res.success:
        raise SystemExit(f"fit did not converge: {res.message}")
    return res.x


def brief(s: dict) -> dict:
    keys = ("n", "auroc", "brier", "ece", "accuracy_at_0.5", "mean_pos", "mean_neg")
    return {k: (round(s[k], 4) if isinstance(s[k], float) else s[k]) for k in keys}


def fit_relevance(args: argparse.Namespace, data: dict) -> tuple[np.ndarray, dict, int]:
    """answer_relevance: fit on the first half of the items, check on the second half."""
    rows = data["relevance"]
    items = sorted({r["item"] for r in rows})
    half = len(items) // 2
    fit_items, check_items = set(items[:half]), set(items[half:])
    xs, y = relevance_features(rows, fit_items)
    w = fit(xs, y, args.l2)
    report = {}
    for role, its in (("fit", fit_items), ("check", check_items)):
        fx, fy = relevance_features(rows, its)
        report[f"answer_relevance_{role}"] = {
            "role": role,
            "items": sorted(its),
            **brief(summary(answer_scores(w, fx), fy)),
        }
    return w, report, len(y)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--results",
        type=Path,
        required=True,
        help="a faithfulness_visible.py or relevance_refusals.py JSON",
    )
    ap.add_argument(
        "--metric",
        default="faithfulness",
        choices=["faithfulness", "answer_relevance"],
        help="whose calibration is fitted (answer_relevance without --out writes the shipped one)",
    )
    ap.add_argument("--fit", default="qa", help="the set the coefficients are fitted on")
    ap.add_argument(
        "--l2", type=float, default=0.001, help="L2 penalty on the judge and lexical coefficients"
    )
    ap.add_argument(
        "--version", default="1", help="the calibration version written into the output"
    )
    add_out(ap, None)
    args = ap.parse_args()
    require(args.results, "--results file")
    data = json.loads(args.results.read_text(encoding="utf-8"))
    prefix = "faithfulness" if args.metric == "faithfulness" else "answer-relevance"
    out_path = args.out or OUT.with_name(f"{args.metric}_calibration.json")
    if args.metric == "faithfulness" and args.out is None:
        # calibration 2 (2026-11-26) has a third feature this two-feature fit would drop
        raise SystemExit(
            "the shipped faithfulness calibration is fitted by "
            "benchmarks/faithfulness_lexical_variants.py (row plus_specific_any); give --out "
            "to write this two-feature fit elsewhere"
        )
    check_out(out_path, args.force)
    if args.metric == "answer_relevance":
        w, report, n_fit = fit_relevance(args, data)
        fit_set, prompt_versions = "answer_relevance.jsonl, first half of the items", None
    else:
        sets = data["sets"]
        xs, y = features(sets[args.fit]["rows"])
        w, n_fit, fit_set = fit(xs, y, args.l2), len(y), args.fit
        prompt_versions = sets[args.fit]["rows"][0]["details"].get("prompt_version")
        report = {}
        for name, s in sets.items():
            fx, fy = features(s["rows"])
            role = "fit" if name == args.fit else "check"
            report[name] = {"role": role, **brief(summary(answer_scores(w, fx), fy))}
    print(
        f"{args.metric}: fitted on {fit_set} (n={n_fit}): b0={w[0]:.3f} b_judge={w[1]:.3f} "
        f"b_lex={w[2]:.3f}"
    )
    print(f"{'set':24s} {'role':6s} {'AUROC':>6s} {'Brier':>6s} {'ECE':>6s} {'n':>4s}")
    for name, r in report.items():
        print(
            f"{name:24s} {r['role']:6s} {r['auroc']:6.3f} {r['brier']:6.3f} {r['ece']:6.3f} "
            f"{r['n']:4d}"
        )
    try:
        rel = str(args.results.resolve().relative_to(ROOT.parent))
    except ValueError:  # a results file outside the repository (a reviewer's /tmp run)
        rel = str(args.results.resolve())
    out = {
        "version": f"{prefix}-calibration-{args.version}",
        "about": ABOUT[args.metric],
        "coefficients": {
            "intercept": round(float(w[0]), 4),
            "logit_p_yes": round(float(w[1]), 4),
            "lexical_support": round(float(w[2]), 4),
        },
        "provenance": {
            "metric": args.metric,
            "fit_set": fit_set,
            "fit_n": n_fit,
            "l2": args.l2,
            "results_file": rel,
            "judge": data.get("judge"),
            "prompt_versions": prompt_versions,
            "fitted_on": dt.date.today().isoformat(),
            "command": f"python benchmarks/fit_faithfulness_calibration.py --results {rel} "
            f"--metric {args.metric} --fit {args.fit} --l2 {args.l2} --version {args.version}",
            "sets": report,
        },
    }
    out_path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out_path}")
    checks = " ".join(f"{k}_brier={v['brier']:.3f}" for k, v in report.items())
    print(f"RESULT b0={w[0]:.3f} b_judge={w[1]:.3f} b_lex={w[2]:.3f} {checks}")


if __name__ == "__main__":
    main()
