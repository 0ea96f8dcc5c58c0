"""ragmeter's retrieval metrics agree with trec_eval (pytrec_eval) per query within 1e-9."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest

from needs import missing, require_module

pytrec_eval = require_module("pytrec_eval")

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "retrieval_crosscheck.py"
_spec = importlib.util.spec_from_file_location("retrieval_crosscheck", BENCH)
assert _spec is not None and _spec.loader is not None
crosscheck = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(crosscheck)


def _max_diff(qrels, run) -> float:
    trec = crosscheck.score_pytrec(qrels, run)
    queries = {q: f"query {q}" for q in run}
    ours = crosscheck.score_ragmeter(qrels, run, queries)
    assert set(trec) == set(ours)
    return max(abs(trec[q][m] - ours[q][m]) for q in trec for m in crosscheck.MEASURES)


def test_trec_order_breaks_score_ties_by_descending_docid():
    scored = {"d1": 2.0, "d3": 1.0, "d2": 1.0, "d10": 1.0, "d0": 3.0}
    # strcmp order, descending: "d3" > "d2" > "d10"
    assert crosscheck.trec_order(scored) == ["d0", "d1", "d3", "d2", "d10"]


def test_tie_breaking_decides_the_score_and_we_follow_trec_eval():
    # All docs tied: trec_eval ranks z, y, x, so relevant "x" is at rank 3 (RR = 1/3).
    qrels = {"q": {"x": 1}}
    run = {"q": {"x": 1.0, "y": 1.0, "z": 1.0}}
    trec = crosscheck.score_pytrec(qrels, run)
    assert trec["q"]["recip_rank"] == pytest.approx(1 / 3)
    assert _max_diff(qrels, run) <= 1e-9


def test_random_runs_with_ties_agree_with_pytrec_eval():
    rng = random.Random(7)
    qrels, run = {}, {}
    for q in range(200):
        docs = [f"d{rng.randrange(60)}" for _ in range(rng.randint(1, 25))]
        # few distinct scores: many ties
        run[f"q{q}"] = {d: float(rng.randint(0, 4)) for d in docs}
        relevant = {f"d{rng.randrange(60)}" for _ in range(rng.randint(1, 12))}
        qrels[f"q{q}"] = dict.fromkeys(relevant, 1)
    assert _max_diff(qrels, run) <= 1e-9


@pytest.mark.slow
def test_bm25_on_scifact_agrees_with_pytrec_eval_per_query():
    if not (crosscheck.DATA / "corpus.jsonl").exists():
        missing(f"SciFact not found at {crosscheck.DATA}")
    require_module("bm25s")
    report = crosscheck.crosscheck(crosscheck.DATA, k=100)
    assert report["queries"] == 300
    for measure, row in report["measures"].items():
        assert row["n_over_tolerance"] == 0, (measure, row)
        assert row["mean_pytrec_eval"] > 0.05, measure  # BM25 retrieves something relevant
    assert report["max_abs_diff"] <= 1e-9
