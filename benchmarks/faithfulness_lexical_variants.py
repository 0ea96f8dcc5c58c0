"""Which lexical evidence should the faithfulness combination use? Variants compared offline.

Why: with 120 SciFact claims (``faithfulness_visible.py --sets scifact --scifact-n 60``) the
default ``faithfulness`` (judge P(yes) + lexical support, then ``faithfulness-calibration-1``)
scored AUROC 0.681 against the judge alone's 0.701, below issue 12's floor "at least as good
as the better of judge alone and K-Precision". This script asks whether another lexical
feature or form of the combination would avoid that, without new judge calls: it reads a
results file of ``faithfulness_visible.py`` (written with the evidence sentence numbers, as
it does since this script exists), recomputes each statement's feature from the set's
contexts, refits the combination on the fit set (the first 90 QA rows, items 1-15, as
calibration 1 was) and scores every set.

Variants (per statement; P = sigmoid(b0 + b1 logit P(yes) + b2 feature ...)):

- ``shipped``: ``lexical_support`` as shipped (idf-weighted share of the statement's new
  content words found in its evidence sentences, SQuAD tokens);
- ``whole_context``: the same words looked up in every context sentence, not the evidence;
- ``split_punct``: tokens split at punctuation ("HIV-positive" -> hiv, positive) instead of
  SQuAD's deletion ("hivpositive"), whole context;
- ``specific``: only the statement's specific words (with a digit, or capitalised after its
  first word), 1 when it has none: lexical evidence only for swapped names and numbers;
- ``short_long``: the shipped feature with one weight for short answers judged as a claim
  about the question ("Rome") and another for sentences;
- ``hinge30``, ``hinge50``: the shipped feature capped at 0.3 / 0.5, so that lexical evidence
  can only lower a verdict (words missing from the evidence say "unsupported"; words found do
  not say "supported": a contradicted claim reuses its abstract's words);
- ``polar``: a leading "Yes," / "No," left out of the lookup, a bare "yes" / "no" looked up
  through its question's words; shipped since 2026-11-25, so ``shipped`` is the same now (run
  at an earlier revision for the comparison);
- ``judge_only``: no lexical term (b2 = 0), the judge's P(yes) through the fitted sigmoid.
- ``plus_specific``, ``plus_specific_any`` (2026-11-26): the shipped feature plus a third,
  the share of the statement's specific words (names, numbers; not in the question) absent
  from every context sentence, or whether any is: entity-level hallucination, as in
  source-precision metrics of summarisation (``_any`` is calibration 3's feature, the
  product's ``support.missing_specific``; the share uses SQuAD tokens);
- ``polarity_gate``, ``polarity_feature`` (2026-11-26): does the statement's polarity differ
  from its closest evidence sentence's (an odd number of negation words in one of them, or an
  antonym of one of its words, "increases" / "decreases", in the sentence only)? The gate
  counts lexical support only when it does not; the feature is a third term. Aimed at
  SciFact's contradicting claims, which copy their abstract's words.

Also, the shipped feature fitted on every other set and scored on the one left out
(``leave_one_set_out``): does a fit on more, and more varied, visible data do better than
calibration 1's QA-only fit?

``--shipped``: no refit; every set scored with calibration 1 and the shipped calibration.

Usage: python benchmarks/faithfulness_lexical_variants.py [--results FILE ...] [--fit-rows 90]
       [--shipped]
Prints a table, writes benchmarks/results/faithfulness_lexical_variants.json, ends with RESULT.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import string
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from _record import add_out, check_out, write_json  # noqa: E402
from _stats import summary  # noqa: E402
from faithfulness_visible import load_set  # noqa: E402
from fit_faithfulness_calibration import EPS, answer_scores, fit  # noqa: E402
from ragmeter.metrics.context import _STOP, ContextSentences  # noqa: E402
from ragmeter.metrics.support import (  # noqa: E402
    content_words,
    lexical_support,
    load_calibration,
    missing_specific,
)
from ragmeter.text import tokens  # noqa: E402

OUT = ROOT / "results" / "faithfulness_lexical_variants.json"
VARIANTS = (
    "shipped",
    "whole_context",
    "split_punct",
    "specific",
    "short_long",
    "hinge30",
    "hinge50",
    "polar",
    "judge_only",
    "plus_specific",
    "plus_specific_any",
    "polarity_gate",
    "polarity_feature",
)
HINGES = {"hinge30": 0.3, "hinge50": 0.5}
_SPLIT = str.maketrans(string.punctuation, " " * len(string.punctuation))


def _split_tokens(text: str) -> list[str]:
    return [w for w in text.lower().translate(_SPLIT).split() if w not in ("a", "an", "the")]


def _specific(statement: str) -> set[str]:
    out: set[str] = set()
    for j, raw in enumerate(statement.split()):
        for t in tokens(raw):
            if t not in _STOP and (any(c.isdigit() for c in t) or (j > 0 and raw[:1].isupper())):
                out.add(t)
    return out


_NEGATIONS = frozenset(
    [
        "not",
        "no",
        "never",
        "none",
        "nor",
        "without",
        "neither",
        "cannot",
        "cant",
        "dont",
        "doesnt",
        "didnt",
        "isnt",
        "arent",
        "wasnt",
        "werent",
        "fail",
        "fails",
        "failed",
        "lack",
        "lacks",
        "lacked",
        "absence",
        "absent",
        "unable",
        "nothing",
        "nobody",
    ]
)
_ANTONYMS = (
    "increase decrease, increases decreases, increased decreased, increasing decreasing, "
    "higher lower, more less, more fewer, greater smaller, larger smaller, positive negative, "
    "positively negatively, promotes inhibits, activates inhibits, upregulates downregulates, "
    "upregulated downregulated, enhances reduces, increase reduce, increases reduces, "
    "increased reduced, gain loss, raises lowers, improves worsens, improved worsened, "
    "before after, above below, longer shorter, rise fall, high low"
)
_OPPOSITE: dict[str, set[str]] = {}
for _pair in _ANTONYMS.split(", "):
    _a, _b = _pair.split()
    _OPPOSITE.setdefault(_a, set()).add(_b)
    _OPPOSITE.setdefault(_b, set()).add(_a)


def _polarity_mismatch(statement: str, seen: list[str]) -> float:
    """1 when the statement's polarity differs from the evidence sentence sharing most of its
    content words, else 0."""
    words = set(tokens(statement))
    best: set[str] | None = None
    best_n = -1
    for sentence in seen:
        toks = set(tokens(sentence))
        n = len((words - _STOP) & toks)
        if n > best_n:
            best, best_n = toks, n
    if best is None:
        return 0.0
    if len(words & _NEGATIONS) % 2 != len(best & _NEGATIONS) % 2:
        return 1.0
    return float(any(w not in best and _OPPOSITE.get(w, set()) & best for w in words))


def _missing_specific(variant: str, statement: str, question: str, ctx: list[str]) -> float:
    """Share of the statement's specific words absent from the context, or (``_any``, shipped
    as calibration 3 since 2026-11-26: the product's own function) whether any is."""
    if variant == "plus_specific_any":
        return float(bool(missing_specific(statement, question, ctx)))
    words = _specific(statement) - content_words(question)
    if not words:
        return 0.0
    known = set().union(*(tokens(c) for c in ctx))
    return sum(w not in known for w in words) / len(words)


def _idf_share(words: set[str], seen: set[str], sentences: list[set[str]]) -> float:
    if not words:
        return 1.0
    n = max(len(sentences), 1)
    df = {w: sum(w in s for s in sentences) for w in words}

    def idf(w: str) -> float:
        return math.log(1 + n / (df[w] or 0.5))

    return sum(idf(w) for w in words if w in seen) / sum(idf(w) for w in words)


_POLAR = re.compile(r"^\s*(?:yes|no|yeah|yep|yup|nope)\b(?:\s*[,.!;:]+|\s*$)", re.IGNORECASE)


def polar_support(statement: str, question: str, seen: list[str], ctx: list[str]) -> float:
    """Leading "Yes,"/"No," (the answer's polarity) carries no lexical evidence; a bare one
    claims the question's proposition, so the question's words are looked up."""
    rest = _POLAR.sub("", statement, count=1)
    if not content_words(rest):
        rest = question
    return lexical_support(rest, question, seen, ctx)


def feature(variant: str, statement: str, question: str, seen: list[str], ctx: list[str]) -> float:
    if variant in ("shipped", "short_long", "judge_only") or variant.startswith(
        ("plus_specific", "polarity")
    ):
        return lexical_support(statement, question, seen, ctx)
    if variant == "polar":
        return polar_support(statement, question, seen, ctx)
    if variant in HINGES:
        return min(lexical_support(statement, question, seen, ctx), HINGES[variant])
    if variant == "split_punct":
        words = {w for w in _split_tokens(statement) if w not in _STOP}
        q = {w for w in _split_tokens(question) if w not in _STOP}
        sets = [set(_split_tokens(s)) for s in ctx]
        return _idf_share((words - q) or words, set().union(*sets), sets)
    sets = [set(tokens(s)) for s in ctx]
    if variant == "whole_context":
        words = content_words(statement)
        return _idf_share((words - content_words(question)) or words, set().union(*sets), sets)
    if variant == "specific":
        return _idf_share(_specific(statement) - content_words(question), set().union(*sets), sets)
    raise ValueError(variant)


def features(results: dict, set_name: str, variant: str) -> tuple[list[np.ndarray], np.ndarray]:
    sources = {r["question_id"]: r for r in load_set(set_name, 10_000)}
    xs, ys = [], []
    for r in results["sets"][set_name]["rows"]:
        d = r["details"]
        ev = d.get("statement_evidence")
        if r["status"] != "ok" or not ev:
            continue
        if "evidence" not in d:
            raise SystemExit(
                f"{set_name}: rows lack their evidence: re-run faithfulness_visible.py"
            )
        src = sources[r["id"]]
        ctx = ContextSentences.of(src["contexts"]).without_instructions().sentences
        seen = [ctx[i - 1] for i in d["evidence"]["sentences"]]
        p = np.clip(np.array([e["p_yes"] for e in ev], dtype=float), EPS, 1 - EPS)
        cols = [np.log(p / (1 - p))]
        if variant != "judge_only":
            lex = np.array(
                [feature(variant, e["statement"], src["question"], seen, ctx) for e in ev]
            )
            if variant.startswith("polarity"):
                mismatch = np.array([_polarity_mismatch(e["statement"], seen) for e in ev])
                cols += [lex * (1 - mismatch)] if variant == "polarity_gate" else [lex, mismatch]
            elif variant.startswith("plus_specific"):
                spec = [
                    _missing_specific(variant, e["statement"], src["question"], ctx) for e in ev
                ]
                cols += [lex, np.array(spec)]
            elif variant == "short_long":
                short = np.array([float(e["judged_as"] != e["statement"]) for e in ev])
                cols += [lex * short, lex * (1 - short)]
            else:
                cols.append(lex)
        xs.append(np.stack(cols, axis=1))
        ys.append(r["label"])
    return xs, np.asarray(ys, dtype=float)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--results",
        type=Path,
        nargs="+",
        default=[ROOT / "results" / "faithfulness_visible_all.json"],
        help="faithfulness_visible.py outputs; a set in a later file replaces an earlier one's",
    )
    ap.add_argument("--fit-rows", type=int, default=90, help="first N QA rows are the fit set")
    ap.add_argument("--l2", type=float, default=0.02, help="L2 penalty of the refits")
    add_out(ap, OUT)
    ap.add_argument(
        "--shipped",
        action="store_true",
        help="no refit: score every set with calibration 1 and the shipped calibration",
    )
    args = ap.parse_args()
    check_out(args.out, args.force)
    results: dict = {"sets": {}}
    for path in args.results:
        results["sets"].update(json.loads(path.read_text())["sets"])
    if args.shipped:
        score_shipped(results, args)
        return
    sets = list(results["sets"])
    table: dict[str, dict] = {}
    print(f"{'variant':14s} " + " ".join(f"{s + ' AUROC/Brier':>22s}" for s in sets) + "  weights")
    for variant in VARIANTS:
        data = {s: features(results, s, variant) for s in sets}
        xs, y = data["qa"]
        xs, y = xs[: args.fit_rows], y[: args.fit_rows]
        w = fit(xs, y, args.l2) if len(xs[0][0]) == 2 else _fit_n(xs, y, args.l2)
        row: dict = {"weights": [round(float(v), 4) for v in w]}
        for s, (sx, sy) in data.items():
            summ = summary(answer_scores(w, sx), sy)
            row[s] = {"auroc": round(summ["auroc"], 4), "brier": round(summ["brier"], 4)}
        table[variant] = row
        cells = " ".join(f"{row[s]['auroc']:>13.3f}/{row[s]['brier']:.3f}" for s in sets)
        print(f"{variant:14s} {cells}  {row['weights']}")
    judge = {}
    for s in sets:
        rows = [r for r in results["sets"][s]["rows"] if r["judge"] is not None]
        judge[s] = round(
            summary([r["judge"] for r in rows], [r["label"] for r in rows])["auroc"], 4
        )
    print(f"{'judge alone':14s} " + " ".join(f"{judge[s]:>13.3f}      " for s in sets))
    loso = leave_one_set_out(results, sets, args.l2)
    print(
        f"{'leave-one-out':14s} "
        + " ".join(f"{loso[s]['auroc']:>13.3f}/{loso[s]['brier']:.3f}" for s in sets)
        + "  (shipped feature, fitted on every other set)"
    )
    write_json(
        args.out,
        {
            "results": [str(p) for p in args.results],
            "fit_rows": args.fit_rows,
            "l2": args.l2,
            "variants": table,
            "judge_alone_auroc": judge,
            "leave_one_set_out": loso,
        },
        indent=1,
    )
    print(f"wrote {args.out}")
    best = max(
        (v for v in VARIANTS if v != "judge_only"), key=lambda v: table[v]["scifact"]["auroc"]
    )
    print(
        "RESULT "
        + " ".join(f"{v}_scifact_auroc={table[v]['scifact']['auroc']:.3f}" for v in VARIANTS)
        + f" judge_alone_scifact_auroc={judge['scifact']:.3f} best_lexical_variant={best}"
        + f" best_lexical_below_judge={int(table[best]['scifact']['auroc'] < judge['scifact'])}"
    )


CALIBRATION_1 = np.array([-0.784, 1.7667, 1.0769])  # shipped until 2026-11-26


def score_shipped(results: dict, args: argparse.Namespace) -> None:
    """Each set scored with calibration 1 (lexical support) and the shipped calibration (plus
    the missing name or number), coefficients as stored, nothing refitted."""
    cal = load_calibration()
    shipped = np.array([cal.intercept, cal.w_judge, cal.w_lexical, cal.w_missing])
    table: dict[str, dict] = {}
    for s in results["sets"]:
        table[s] = {}
        for name, variant, w in (
            ("calibration_1", "shipped", CALIBRATION_1),
            (cal.version, "plus_specific_any", shipped),
        ):
            xs, y = features(results, s, variant)
            summ = summary(answer_scores(w, xs), y)
            table[s][name] = {k: round(summ[k], 4) for k in ("auroc", "brier", "ece")}
        print(s, json.dumps(table[s]))
    write_json(
        args.out,
        {
            "results": [str(p) for p in args.results],
            "weights": {"calibration_1": CALIBRATION_1.tolist(), cal.version: shipped.tolist()},
            "sets": table,
        },
        indent=1,
    )
    print(f"wrote {args.out}")
    print(
        "RESULT "
        + " ".join(f"{s}_auroc={table[s][cal.version]['auroc']:.3f}" for s in table)
        + " "
        + " ".join(f"{s}_brier={table[s][cal.version]['brier']:.3f}" for s in table)
    )


def leave_one_set_out(results: dict, sets: list[str], l2: float) -> dict:
    """Is the fit set the limit? The shipped feature fitted on all rows of every other set,
    scored on the one left out: an honest check of a pooled fit on each set."""
    data = {s: features(results, s, "shipped") for s in sets}
    out = {}
    for left in sets:
        xs: list[np.ndarray] = []
        ys: list[float] = []
        for s in sets:
            if s != left:
                xs += data[s][0]
                ys += list(data[s][1])
        w = fit(xs, np.asarray(ys), l2)
        summ = summary(answer_scores(w, data[left][0]), data[left][1])
        out[left] = {
            "weights": [round(float(v), 4) for v in w],
            "auroc": round(summ["auroc"], 4),
            "brier": round(summ["brier"], 4),
        }
    return out


def _fit_n(xs: list[np.ndarray], y: np.ndarray, l2: float) -> np.ndarray:
    """``fit`` for any number of features (``fit`` starts from [0, 1, 0]: two features)."""
    from scipy.optimize import minimize

    def loss(w: np.ndarray) -> float:
        s = np.clip(answer_scores(w, xs), EPS, 1 - EPS)
        return float(-np.mean(y * np.log(s) + (1 - y) * np.log(1 - s)) + l2 * np.sum(w[1:] ** 2))

    start = np.zeros(xs[0].shape[1] + 1)
    start[1] = 1.0
    res = minimize(loss, start, method="L-BFGS-B")
    return res.x


if __name__ == "__main__":
    main()
