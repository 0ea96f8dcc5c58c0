"""Cross-check ragmeter's retrieval metrics against trec_eval (pytrec_eval) on real data.

BM25 (bm25s) retrieves the top 100 SciFact abstracts (title + text) for each of the 300 test
queries with relevance judgements. The run is scored twice, per query: by pytrec_eval
(recip_rank, map, ndcg_cut_10, P_10, recall_10) and by ragmeter.evaluate (mrr, map, ndcg@10,
precision@10, recall@10). Every per-query value must agree within 1e-9.

trec_eval ignores the order of the run file: it re-sorts each query's documents by score,
descending, and breaks ties by document id, descending (strcmp). BM25 ties are common, so
ragmeter receives the documents in exactly that order.

    .venv/bin/python benchmarks/retrieval_crosscheck.py [--data DIR] [--k 100]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _record import add_out, check_out, require, write_json

DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "scifact"
OUT = Path(__file__).parent / "results" / "retrieval_crosscheck.json"
TOLERANCE = 1e-9
# trec_eval measure -> ragmeter metric
MEASURES = {
    "recip_rank": "mrr",
    "map": "map",
    "ndcg_cut_10": "ndcg@10",
    "P_10": "precision@10",
    "recall_10": "recall@10",
}

Run = dict[str, dict[str, float]]
Qrels = dict[str, dict[str, int]]


def load_scifact(root: Path) -> tuple[list[str], list[str], dict[str, str], Qrels]:
    """Corpus ids and texts (title + text), test query texts, and test qrels."""
    ids, texts = [], []
    with (root / "corpus.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            doc = json.loads(line)
            ids.append(str(doc["_id"]))
            texts.append(f"{doc.get('title', '')} {doc.get('text', '')}".strip())
    qrels: Qrels = {}
    with (root / "qrels" / "test.tsv").open(encoding="utf-8") as fh:
        next(fh)  # header: query-id corpus-id score
        for line in fh:
            parts = line.strip().split("\t")
            if len(parts) == 3 and int(parts[2]) > 0:
                qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    queries: dict[str, str] = {}
    with (root / "queries.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            q = json.loads(line)
            if str(q["_id"]) in qrels:
                queries[str(q["_id"])] = q["text"]
    return ids, texts, queries, qrels


def bm25_run(doc_ids: list[str], texts: list[str], queries: dict[str, str], k: int) -> Run:
    """Top-k BM25 documents per query with their scores (float32 widened to float)."""
    import bm25s

    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    qids = list(queries)
    tokens = bm25s.tokenize([queries[q] for q in qids], stopwords="en", show_progress=False)
    docs, scores = retriever.retrieve(tokens, k=k, show_progress=False, n_threads=1)
    return {
        qid: {doc_ids[int(d)]: float(s) for d, s in zip(docs[i], scores[i], strict=True)}
        for i, qid in enumerate(qids)
    }


def trec_order(scored: dict[str, float]) -> list[str]:
    """Document ids in trec_eval's order: score descending, then docid descending."""
    by_id = sorted(scored, reverse=True)  # secondary key first; the sort below is stable
    return sorted(by_id, key=lambda d: -scored[d])


def score_pytrec(qrels: Qrels, run: Run) -> dict[str, dict[str, float]]:
    import pytrec_eval

    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES))
    return evaluator.evaluate(run)


def score_ragmeter(qrels: Qrels, run: Run, queries: dict[str, str]) -> dict[str, dict[str, float]]:
    """Through the public path: ragmeter.evaluate on samples with ids."""
    import ragmeter

    rows = [
        {
            "question_id": qid,
            "question": queries[qid],
            "context_ids": trec_order(run[qid]),
            "reference_context_ids": sorted(qrels[qid]),
        }
        for qid in run
    ]
    result = ragmeter.evaluate(rows, list(MEASURES.values()), n_resamples=0)
    out: dict[str, dict[str, float]] = {}
    for i, sample in enumerate(result.samples):
        values = {}
        for measure, metric in MEASURES.items():
            sc = result.scores[metric][i]
            if sc.status != "ok" or sc.value is None:
                raise AssertionError(f"{sample.question_id} {metric}: {sc.status} {sc.reason}")
            values[measure] = sc.value
        out[sample.question_id] = values
    return out


def crosscheck(data: Path = DATA, k: int = 100) -> dict:
    """Run BM25, score both ways, return the comparison (per measure and overall)."""
    t0 = time.perf_counter()
    doc_ids, texts, queries, qrels = load_scifact(data)
    run = bm25_run(doc_ids, texts, queries, k)
    t_bm25 = time.perf_counter() - t0
    trec = score_pytrec(qrels, run)
    ours = score_ragmeter(qrels, run, queries)
    if set(trec) != set(ours):
        raise AssertionError(f"query sets differ: {sorted(set(trec) ^ set(ours))[:5]}")
    per_measure = {}
    worst: tuple[float, str, str] = (0.0, "", "")
    for measure in MEASURES:
        diffs = {q: abs(trec[q][measure] - ours[q][measure]) for q in trec}
        q_max = max(diffs, key=diffs.__getitem__)
        per_measure[measure] = {
            "ragmeter_metric": MEASURES[measure],
            "mean_pytrec_eval": sum(trec[q][measure] for q in trec) / len(trec),
            "mean_ragmeter": sum(ours[q][measure] for q in ours) / len(ours),
            "max_abs_diff": diffs[q_max],
            "n_over_tolerance": sum(1 for d in diffs.values() if d > TOLERANCE),
        }
        worst = max(worst, (diffs[q_max], measure, q_max))
    ties = sum(1 for q in run if len(set(run[q].values())) < len(run[q]))
    # Ties that decide a relevant document's rank: where trec_eval's tie-break matters.
    relevant_ties = sum(
        1
        for q in run
        if any(list(run[q].values()).count(s) > 1 for d, s in run[q].items() if d in qrels[q])
    )
    return {
        "dataset": str(data),
        "queries": len(trec),
        "depth": k,
        "queries_with_score_ties": ties,
        "queries_with_relevant_doc_in_tie": relevant_ties,
        "tolerance": TOLERANCE,
        "measures": per_measure,
        "max_abs_diff": worst[0],
        "worst": {"measure": worst[1], "query": worst[2]},
        "per_query": {q: {"pytrec_eval": trec[q], "ragmeter": ours[q]} for q in sorted(trec)},
        "seconds": {"bm25": round(t_bm25, 2), "total": round(time.perf_counter() - t0, 2)},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, default=DATA, help=f"the BEIR SciFact folder (default: {DATA})"
    )
    parser.add_argument("--k", type=int, default=100, help="BM25 documents kept per query")
    add_out(parser, OUT)
    args = parser.parse_args()
    check_out(args.out, args.force)
    for name in ("corpus.jsonl", "queries.jsonl", "qrels/test.tsv"):
        require(args.data / name, "SciFact (BEIR layout)")
    report = crosscheck(args.data, args.k)
    print(
        f"BM25 top-{report['depth']} on {report['dataset']}: {report['queries']} queries, "
        f"{report['queries_with_score_ties']} with tied scores "
        f"({report['queries_with_relevant_doc_in_tie']} where a relevant doc is tied)"
    )
    print(
        f"{'trec_eval':<12} {'ragmeter':<13} {'mean trec':>10} {'mean ours':>10} "
        f"{'max |diff|':>11} {'> 1e-9':>7}"
    )
    for measure, row in report["measures"].items():
        print(
            f"{measure:<12} {row['ragmeter_metric']:<13} {row['mean_pytrec_eval']:>10.6f} "
            f"{row['mean_ragmeter']:>10.6f} {row['max_abs_diff']:>11.3g} "
            f"{row['n_over_tolerance']:>7}"
        )
    write_json(args.out, report)
    print(f"wrote {args.out} ({report['seconds']['total']} s)")
    print(f"RESULT queries={report['queries']} max_abs_diff={report['max_abs_diff']:.3g}")


if __name__ == "__main__":
    main()
