"""Cross-check ragmeter's Unitxt-named metrics against the real unitxt package, row by row.

Generated rows (seeded) with every edge case the definitions disagree on when done loosely:
duplicate retrieved ids (the same document retrieved twice), empty context strings, no
contexts at all, empty answers and answers of articles and punctuation only, integer ids,
rows with no relevant id or nothing retrieved, reference answers with no tokens, and
unicode and punctuation (Greek final sigma, typographic apostrophes, ligatures, CJK).

Each row is scored by unitxt 1.26.10's own metric classes from its catalog, fed as its RAG
catalog entries feed them (``metrics.rag.external_rag.*``: the answer as prediction; the
contexts, reference answers or ``[reference ids]`` as references), and by
``ragmeter.evaluate``:

- ``k_precision``: ``metrics.token_overlap`` precision, references = contexts
  (faithfulness.token_k_precision);
- ``token_recall``: ``metrics.token_overlap`` recall, references = reference answers
  (answer_correctness.token_recall);
- ``unitxt_mrr`` / ``unitxt_map``: ``metrics.mrr`` / ``metrics.map``, prediction = context
  ids, references = [reference ids] (context_correctness.mrr / .map).

Values must be equal (``==``, no tolerance). Where unitxt raises (an empty list of contexts
or of references: ``max()`` of nothing) ragmeter must say ``undefined``. Also counted: the
rows where ragmeter's own variants (``k_precision_union``, TREC ``mrr`` / ``map``) differ
from Unitxt's, which is why they carry other names.

One known difference is outside these rows by design: ragmeter reads ids as strings, so a row
whose retrieved ids are integers and reference ids strings (``[1, 2]`` vs ``["2"]``) matches
in ragmeter, while unitxt compares ``2 == "2"`` and finds nothing.

    .venv/bin/python benchmarks/unitxt_crosscheck.py [--n 10000]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _record import add_out, check_out, write_json

OUT = Path(__file__).parent / "results" / "unitxt_crosscheck.json"
RAISES = "raises"
# ragmeter metric -> (unitxt catalog metric, score key, what the references are)
PAIRS = {
    "k_precision": ("metrics.token_overlap", "precision", "contexts"),
    "token_recall": ("metrics.token_overlap", "recall", "reference_answers"),
    "unitxt_mrr": ("metrics.mrr", "mrr", "ids"),
    "unitxt_map": ("metrics.map", "map", "ids"),
}
# ragmeter's own variants, compared with the Unitxt metric they differ from
VARIANTS = {"k_precision_union": "k_precision", "mrr": "unitxt_mrr", "map": "unitxt_map"}

_WORDS = [
    "paris",
    "capital",
    "france",
    "river",
    "seine",
    "tower",
    "museum",
    "louvre",
    "art",
    "history",
    "the",
    "a",
    "an",
    "of",
    "in",
    "is",
    "was",
    "built",
    "1889",
    "eiffel",
    "gustave",
    "engineer",
    "iron",
    "lattice",
    "visitors",
    "year",
    "million",
    "height",
    "metres",
]
_ODD = [
    "ΟΔΟΣ ΣΟΦΟΣ",  # Greek capitals: final sigma on lower()
    "l’eau",  # typographic apostrophe: not ASCII punctuation
    "naïve café",
    "ﬁsh",  # ligature
    "東京タワー",
    "e-mail",
    "don't",
    "U.S.A.",
    "rock’n’roll",
    "50%",
    "—",
    "a.b",
    "The",
    "  \t ",
]


def _text(rng: random.Random, n_words: int) -> str:
    out = []
    for _ in range(n_words):
        w = rng.choice(_ODD) if rng.random() < 0.08 else rng.choice(_WORDS)
        if rng.random() < 0.15:
            w = w.capitalize()
        if rng.random() < 0.1:
            w += rng.choice([",", ".", "!", "?", ";", "'s", ")"])
        out.append(w)
    return " ".join(out)


def _retrieval(rng: random.Random, i: int) -> tuple[list[Any], list[Any], list[str]]:
    """Retrieved ids (duplicates allowed), reference ids, and one context text per id."""
    pool = [f"d{i}-{j}" for j in range(6)] if rng.random() < 0.7 else list(range(100, 106))
    kind = rng.random()
    if kind < 0.05:
        retrieved: list[Any] = []
    elif kind < 0.35:
        retrieved = rng.choices(pool, k=rng.randint(1, 6))  # duplicates likely
    else:
        retrieved = rng.sample(pool, rng.randint(1, 5))
    kind = rng.random()
    relevant: list[Any] = [] if kind < 0.1 else rng.sample(pool, rng.randint(1, 3))
    texts = {doc: _text(rng, rng.randint(0, 25)) if rng.random() > 0.1 else "" for doc in pool}
    return retrieved, relevant, [texts[d] for d in retrieved]


def _answer(rng: random.Random, contexts: list[str]) -> str:
    kind = rng.random()
    if kind < 0.05:
        return ""
    if kind < 0.08:
        return rng.choice(["The!", "a an the", "...", "—"])
    words: list[str] = []
    for ctx in rng.sample(contexts, min(len(contexts), 2)):  # often combines two contexts
        toks = ctx.split()
        start = rng.randrange(max(1, len(toks)))
        words += toks[start : start + rng.randint(1, 5)]
    return " ".join(words + _text(rng, rng.randint(0, 6)).split())


def make_rows(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """n sample dicts in ragmeter's schema, with the edge cases above mixed in."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        retrieved, relevant, contexts = _retrieval(rng, i)
        kind = rng.random()
        if kind < 0.05:
            refs: list[str] = []
        elif kind < 0.12:
            refs = [rng.choice(["", "the", "!!"]) for _ in range(rng.randint(1, 2))]
        else:
            refs = [_text(rng, rng.randint(1, 10)) for _ in range(rng.randint(1, 3))]
        rows.append(
            {
                "question_id": f"q{i}",
                "question": f"Question {i}?",
                "answer": _answer(rng, contexts),
                "contexts": contexts,
                "context_ids": retrieved,
                "reference_answers": refs,
                "reference_context_ids": relevant,
            }
        )
    return rows


def _unitxt_inputs(row: dict[str, Any], refs: str) -> tuple[list[Any], Any]:
    if refs == "ids":
        return [list(row["reference_context_ids"])], list(row["context_ids"])
    return list(row[refs]), row["answer"]


def score_unitxt(rows: list[dict[str, Any]], *, stream: bool = False) -> dict[str, list[Any]]:
    """Per ragmeter metric, unitxt's value per row, or ``RAISES``.

    ``stream=False`` calls each catalog metric's per-instance ``compute`` (what unitxt's
    stream runs for every instance, without its bootstrap CIs); ``stream=True`` runs the whole
    ``apply_metric`` stream (slower: it also computes the CIs) on the rows that do not raise.
    """
    from unitxt.artifact import fetch_artifact
    from unitxt.test_utils.metrics import apply_metric

    out: dict[str, list[Any]] = {}
    for name, (artifact, key, refs) in PAIRS.items():
        metric, _ = fetch_artifact(artifact)
        values: list[Any] = []
        for row in rows:
            references, prediction = _unitxt_inputs(row, refs)
            try:
                values.append(metric.compute(references, prediction, {})[key])
            except ValueError:
                values.append(RAISES)
        if stream:
            keep = [i for i, v in enumerate(values) if v != RAISES]
            inputs = [_unitxt_inputs(rows[i], refs) for i in keep]
            fresh, _ = fetch_artifact(artifact)
            streamed = apply_metric(
                fresh, [p for _, p in inputs], [r for r, _ in inputs], [{} for _ in inputs]
            )
            for i, instance in zip(keep, streamed, strict=True):
                values[i] = instance["score"]["instance"][key]
        out[name] = values
    return out


def score_ragmeter(rows: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Per metric, ragmeter's value per row, or ``"undefined: reason"`` / ``"skipped: ..."``."""
    import ragmeter

    names = [*PAIRS, *VARIANTS]
    result = ragmeter.evaluate(rows, names, n_resamples=0)
    return {
        name: [
            s.value if s.status == "ok" else f"{s.status}: {s.reason}" for s in result.scores[name]
        ]
        for name in names
    }


def compare(rows: list[dict[str, Any]], unitxt: dict[str, list[Any]], ours: dict[str, list[Any]]):
    """Per metric: rows, equal values, raise/undefined pairs, and the first mismatches."""
    report: dict[str, Any] = {}
    for name in PAIRS:
        equal = undefined = 0
        mismatches = []
        for i, (u, r) in enumerate(zip(unitxt[name], ours[name], strict=True)):
            if u == RAISES and isinstance(r, str) and r.startswith("undefined"):
                undefined += 1
            elif u != RAISES and not isinstance(r, str) and float(u) == r:
                equal += 1
            else:
                mismatches.append({"row": i, "unitxt": u, "ragmeter": r, "input": rows[i]})
        report[name] = {
            "rows": len(rows),
            "equal": equal,
            "unitxt_raises_ragmeter_undefined": undefined,
            "mismatches": len(mismatches),
            "first_mismatches": mismatches[:5],
        }
    return report


def variant_differences(ours: dict[str, list[Any]]) -> dict[str, dict[str, Any]]:
    """How often ragmeter's own variants differ from the Unitxt metric of the same family."""
    out = {}
    for variant, base in VARIANTS.items():
        pairs = [
            (v, b)
            for v, b in zip(ours[variant], ours[base], strict=True)
            if not isinstance(v, str) and not isinstance(b, str)
        ]
        diffs = [v - b for v, b in pairs if v != b]
        out[variant] = {
            "versus": base,
            "rows_both_ok": len(pairs),
            "rows_differing": len(diffs),
            "mean_difference_where_differing": sum(diffs) / len(diffs) if diffs else 0.0,
            "rows_undefined_in_variant": sum(1 for v in ours[variant] if isinstance(v, str)),
        }
    return out


def edge_counts(rows: list[dict[str, Any]]) -> dict[str, int]:
    return {
        "duplicate_retrieved_ids": sum(
            len(set(r["context_ids"])) < len(r["context_ids"]) for r in rows
        ),
        "integer_ids": sum(any(isinstance(x, int) for x in r["context_ids"]) for r in rows),
        "no_contexts": sum(not r["contexts"] for r in rows),
        "empty_context_strings": sum("" in r["contexts"] for r in rows),
        "empty_answer": sum(not r["answer"] for r in rows),
        "no_relevant_ids": sum(not r["reference_context_ids"] for r in rows),
        "no_reference_answers": sum(not r["reference_answers"] for r in rows),
        "reference_without_tokens": sum(
            any(x in ("", "the", "!!") for x in r["reference_answers"]) for r in rows
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="generated rows")
    add_out(parser, OUT)
    args = parser.parse_args()
    check_out(args.out, args.force)
    rows = make_rows(args.n)
    t0 = time.perf_counter()
    theirs = score_unitxt(rows)
    t_unitxt = time.perf_counter() - t0
    t0 = time.perf_counter()
    ours = score_ragmeter(rows)
    t_ours = time.perf_counter() - t0
    report = compare(rows, theirs, ours)
    variants = variant_differences(ours)
    edges = edge_counts(rows)
    print(f"{args.n} generated rows; edge cases: {edges}")
    print(f"{'ragmeter':<13} {'rows':>6} {'equal':>6} {'raise=undef':>12} {'mismatch':>9}")
    for name, r in report.items():
        print(
            f"{name:<13} {r['rows']:>6} {r['equal']:>6} "
            f"{r['unitxt_raises_ragmeter_undefined']:>12} {r['mismatches']:>9}"
        )
    print(f"{'variant':<18} {'vs':<11} {'differ':>7} {'mean diff':>10} {'undefined':>10}")
    for name, v in variants.items():
        print(
            f"{name:<18} {v['versus']:<11} {v['rows_differing']:>7} "
            f"{v['mean_difference_where_differing']:>+10.4f} {v['rows_undefined_in_variant']:>10}"
        )
    total = sum(r["mismatches"] for r in report.values())
    out = {
        "n_rows": args.n,
        "edge_cases": edges,
        "metrics": report,
        "variants": variants,
        "seconds": {"unitxt_compute": t_unitxt, "ragmeter_evaluate": t_ours},
    }
    write_json(args.out, out)
    print(f"wrote {args.out}")
    print(f"RESULT rows={args.n} metrics={len(report)} mismatches={total}")


if __name__ == "__main__":
    main()
