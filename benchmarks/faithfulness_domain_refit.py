"""Does a calibration refitted on a domain's own labels beat the shipped one and the judge alone?

Why: on SciFact claims the default ``faithfulness`` (calibration 3, fitted on general QA)
ranks right from wrong slightly worse than the judge's P(yes) alone (issue 12's "never below
the floor": 0.729 against 0.746 on 474 claims): there the lexical terms are noise (contradicting
claims copy their abstract's words, supported ones paraphrase it, names are abbreviated as the
abstract does not), and every positive lexical weight costs a little. No fixed combination
found was at least as good as the judge on SciFact without losing on the other sets
(``faithfulness_lexical_variants.py``, docs/judged-metrics.md). The remedy offered to a user in
such a domain is ``ragmeter meta-eval labels --fit-calibration`` on a few hundred of their own
labels, then ``--option faithfulness_calibration=FILE``. This script measures that remedy with
the product's own fit (``ragmeter.meta_eval.fit_calibration``) on the stored verdicts of a
``faithfulness_visible.py`` run, no judge call:

- grouped 5-fold cross-validation (claims on one abstract stay in one fold): out-of-fold AUROC
  and Brier of the refit against the shipped calibration, the judge alone and K-Precision on
  the same claims;
- two halves by abstract: fitted on one half, scored on the other, both ways.

Usage: python benchmarks/faithfulness_domain_refit.py [--results FILE] [--set scifact]
Prints a table, writes benchmarks/results/faithfulness_domain_refit.json, ends with RESULT.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from _record import add_out, check_out, provenance, require, write_json  # noqa: E402
from _stats import summary  # noqa: E402
from faithfulness_visible import load_set  # noqa: E402
from ragmeter.meta_eval import fit_calibration  # noqa: E402
from ragmeter.metrics.support import load_calibration, parse_calibration  # noqa: E402

OUT = ROOT / "results" / "faithfulness_domain_refit.json"
DEFAULT_RESULTS = ROOT / "results" / "faithfulness_visible_scifact_all.json"


def _rows(results: Path, set_name: str) -> tuple[list, list[int], list[str], dict]:
    """Claims' features, labels, the abstract of each row, and the stored scores."""
    data = json.loads(results.read_text())
    rows = [
        r
        for r in data["sets"][set_name]["rows"]
        if r["status"] == "ok" and r["details"].get("statement_evidence")
    ]
    sources = {r["question_id"]: r for r in load_set(set_name, 100_000)}
    claims = [r["details"]["statement_evidence"] for r in rows]
    labels = [int(r["label"]) for r in rows]
    groups = [" ".join(sources[r["id"]]["contexts"]) for r in rows]
    stored = {k: [r[k] for r in rows] for k in ("default", "judge", "k_precision")}
    return claims, labels, groups, stored


def _half(groups: list[str]) -> np.ndarray:
    """0 or 1 per row from a digest of its abstract: a fixed split that keeps an abstract whole."""
    return np.array([int(hashlib.sha256(g.encode()).hexdigest(), 16) % 2 for g in groups])


def _scores(cal: dict, claims: list) -> list[float]:
    c = parse_calibration(cal, "refit")
    return [
        float(np.mean([c.p_supported(e["p_yes"], e["lexical"], float(bool(e["missing_specific"])))
                       for e in row]))
        for row in claims
    ]  # fmt: skip


def _brief(scores: list[float], labels: list[int]) -> dict:
    s = summary(scores, labels)
    return {k: s[k] for k in ("n", "auroc", "auroc_ci", "brier")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--results",
        type=Path,
        default=DEFAULT_RESULTS,
        help="a faithfulness_visible.py result with the set's rows (their stored verdicts)",
    )
    ap.add_argument("--set", default="scifact", help="the visible set to refit on (scifact)")
    add_out(ap, OUT)
    args = ap.parse_args()
    check_out(args.out, args.force)
    require(args.results, "faithfulness_visible.py results")
    claims, labels, groups, stored = _rows(args.results, args.set)
    shipped = load_calibration()
    n_abstracts = len(set(groups))
    print(f"{args.set}: {len(labels)} claims, {sum(labels)} supported, {n_abstracts} abstracts")

    _, cv = fit_calibration(claims, labels, groups)
    table = {
        "refit (out-of-fold)": cv["refit"],
        f"shipped ({shipped.version})": cv["shipped"],
        "judge alone": cv["judge_alone"],
        "K-Precision": _brief(stored["k_precision"], labels),
    }
    print(f"\ngrouped {cv['folds']}-fold cross-validation ({cv['n_groups']} abstracts)")
    print(f"{'scorer':34s} {'AUROC':>7s} {'Brier':>7s}")
    for name, m in table.items():
        print(f"{name:34s} {m['auroc']:7.3f} {m['brier']:7.3f}")

    half = _half(groups)
    halves = {}
    for fit_on in (0, 1):
        fit_idx = np.flatnonzero(half == fit_on)
        chk_idx = np.flatnonzero(half != fit_on)
        cal, _ = fit_calibration(
            [claims[i] for i in fit_idx], [labels[i] for i in fit_idx],
            [groups[i] for i in fit_idx],
        )  # fmt: skip
        chk_claims, chk_y = [claims[i] for i in chk_idx], [labels[i] for i in chk_idx]
        judge = [float(np.mean([e["p_yes"] for e in row])) for row in chk_claims]
        halves[f"fit_{fit_on}_check_{1 - fit_on}"] = {
            "coefficients": cal["coefficients"],
            "refit": _brief(_scores(cal, chk_claims), chk_y),
            "shipped": _brief([stored["default"][i] for i in chk_idx], chk_y),
            "judge_alone": _brief(judge, chk_y),
            "k_precision": _brief([stored["k_precision"][i] for i in chk_idx], chk_y),
        }
    print("\nfitted on one half of the abstracts, scored on the other")
    print(f"{'split':18s} {'refit':>7s} {'shipped':>8s} {'judge':>7s} {'K-Prec':>7s}  (AUROC)")
    for name, h in halves.items():
        cells = [h[k]["auroc"] for k in ("refit", "shipped", "judge_alone", "k_precision")]
        print(f"{name:18s} {cells[0]:7.3f} {cells[1]:8.3f} {cells[2]:7.3f} {cells[3]:7.3f}")

    write_json(
        args.out,
        {
            "results": str(args.results),
            "set": args.set,
            "n": len(labels),
            "cross_validation": cv,
            "k_precision": table["K-Precision"],
            "halves": halves,
            "provenance": provenance(),
        },
    )
    print(f"wrote {args.out}")
    beats = cv["refit"]["auroc"] >= max(cv["judge_alone"]["auroc"], table["K-Precision"]["auroc"])
    print(
        f"RESULT set={args.set} n={len(labels)} refit_auroc={cv['refit']['auroc']:.3f} "
        f"shipped_auroc={cv['shipped']['auroc']:.3f} judge_auroc={cv['judge_alone']['auroc']:.3f} "
        f"k_precision_auroc={table['K-Precision']['auroc']:.3f} "
        f"refit_brier={cv['refit']['brier']:.3f} shipped_brier={cv['shipped']['brier']:.3f} "
        f"refit_at_least_judge_and_k_precision={int(beats)}"
    )


if __name__ == "__main__":
    main()
