"""Run the "Ask Kettleford" pipeline twice and write what ragmeter evaluates.

The pipeline: retrieve the top 6 documents for the question, then answer with the sentence
of those documents that shares the most content words with the question (an extractive
reader that reads all six, ties going to the higher-ranked document).

- baseline.jsonl: the retriever ranks documents by raw word overlap with the question
  (every word counts, "the" and "is" as much as "rubbish");
- reranked.jsonl: the same six documents, reranked by BM25 (the bm25s library), which
  weighs rare words up and long documents down.

Only the order of the retrieved documents changes, so a ranking metric (mrr, ndcg@10)
should see it; the reader reads the same six documents, so the answers (token_f1) should
barely move. Reproduce from the repository root (`make examples` runs all of it):

    python examples/compare/make_inputs.py      # [OUT_DIR]; default: next to this file
    ragmeter evaluate examples/compare/baseline.jsonl -m mrr,ndcg@10,token_f1 \
        -o examples/compare/runs/baseline
    ragmeter evaluate examples/compare/reranked.jsonl -m mrr,ndcg@10,token_f1 \
        -o examples/compare/runs/reranked
    ragmeter compare examples/compare/runs/baseline examples/compare/runs/reranked --by topic
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from kettleford import DOCS, QUESTIONS  # noqa: E402

from ragmeter.text import split_sentences, tokens  # noqa: E402

TOP_K = 6
STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "do",
        "does",
        "i",
        "my",
        "what",
        "how",
        "when",
        "where",
        "which",
        "who",
        "can",
        "of",
        "to",
        "for",
        "in",
        "on",
        "at",
    ]
)

Retriever = Callable[[str], list[str]]


def words(text: str) -> list[str]:
    """Lowercased words, nothing dropped: the baseline's naive tokenizer."""
    return re.findall(r"\w+", text.lower())


def overlap_retriever() -> Retriever:
    """Baseline: documents ordered by the number of question words they contain (ties: id)."""
    doc_tokens = {doc_id: words(text) for doc_id, (_, text) in DOCS.items()}

    def retrieve(question: str) -> list[str]:
        q = words(question)
        scored = [(sum(t.count(w) for w in q), doc_id) for doc_id, t in doc_tokens.items()]
        scored.sort(key=lambda x: (-x[0], x[1]))
        return [doc_id for _, doc_id in scored[:TOP_K]]

    return retrieve


def reranked_retriever() -> Retriever:
    """Changed: the same four documents, reordered by their BM25 score (bm25s, k1=1.5, b=0.75).

    BM25 weighs rare words up and long documents down; as a reranker it changes the order of
    what the baseline found, never the set.
    """
    import bm25s

    ids = list(DOCS)
    index = bm25s.BM25()
    corpus = bm25s.tokenize([DOCS[i][1] for i in ids], stopwords=None, show_progress=False)
    index.index(corpus, show_progress=False)
    first_stage = overlap_retriever()

    def retrieve(question: str) -> list[str]:
        found = first_stage(question)
        known = [w for w in words(question) if w in corpus.vocab]
        scores = index.get_scores(known) if known else [0.0] * len(ids)
        return sorted(found, key=lambda d: -float(scores[ids.index(d)]))

    return retrieve


def read(question: str, doc_ids: list[str]) -> str:
    """The sentence of the retrieved documents sharing most content words with the question."""
    q = {w for w in tokens(question) if w not in STOP}
    best, best_score = "", -1
    for doc_id in doc_ids:
        for sentence in split_sentences(DOCS[doc_id][1]):
            score = len(q & set(tokens(sentence)))
            if score > best_score:
                best, best_score = sentence, score
    return best


def run(retrieve: Retriever, path: Path) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for qid, question, gold, reference in QUESTIONS:
            ranked = retrieve(question)
            row = {
                "question_id": qid,
                "question": question,
                "topic": DOCS[gold][0],
                "contexts": [DOCS[d][1] for d in ranked],
                "context_ids": ranked,
                "answer": read(question, ranked),
                "reference_answers": [reference],
                "reference_context_ids": [gold],
            }
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    out.mkdir(parents=True, exist_ok=True)
    run(overlap_retriever(), out / "baseline.jsonl")
    run(reranked_retriever(), out / "reranked.jsonl")
