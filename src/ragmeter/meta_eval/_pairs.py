"""Pairwise human-preference sets: (dimension, preferred sample, other sample).

WikiEval (RAGAS paper, section 4) is the first adapter; another pairwise set only needs a
function returning ``PreferencePair``s, registered in ``DATASETS``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ragmeter.errors import DataError, Problem
from ragmeter.sample import Sample

DIMENSIONS = ("faithfulness", "answer_relevance", "context_relevance")

# RAGAS paper (Es et al. 2023), Table 1, gpt-3.5-turbo-16k on WikiEval.
PAPER_TABLE1 = {
    "RAGAs": {"faithfulness": 0.95, "answer_relevance": 0.78, "context_relevance": 0.70},
    "GPT Score": {"faithfulness": 0.72, "answer_relevance": 0.52, "context_relevance": 0.63},
    "GPT Ranking": {"faithfulness": 0.54, "answer_relevance": 0.40, "context_relevance": 0.52},
}


@dataclass(frozen=True)
class PreferencePair:
    pair_id: str
    group: str  # source row: pairs of one group share texts, so they run together
    dimension: str
    preferred: Sample
    other: Sample


def _strip(text: str, prefix: str) -> str:
    text = (text or "").strip()
    return text[len(prefix) :].strip() if text.startswith(prefix) else text


def wikieval_pairs(path: str | Path) -> list[PreferencePair]:
    """WikiEval (RAGAS paper section 4): 50 rows, three pairs each."""
    path = Path(path)
    if not path.is_file():
        raise DataError([Problem(None, "data", f"file not found: {path}")])
    pairs: list[PreferencePair] = []
    problems: list[Problem] = []
    needed = ("question", "answer", "ungrounded_answer", "poor_answer", "context_v1", "context_v2")
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(Problem(i, None, f"not JSON: {exc}"))
            continue
        missing = [k for k in needed if not row.get(k)]
        if missing:
            problems.extend(Problem(i, k, "missing or empty") for k in missing)
            continue
        q = _strip(row["question"], "Question:")
        qid = f"wikieval-{i}"

        def sample(
            answer: str, contexts: list[str], side: str, q: str = q, qid: str = qid
        ) -> Sample:
            return Sample(
                question=q,
                question_id=f"{qid}-{side}",
                answer=_strip(answer, "Answer:"),
                contexts=list(contexts),
            )

        v1, v2 = list(row["context_v1"]), list(row["context_v2"])
        pairs += [
            PreferencePair(
                f"{qid}-faithfulness",
                qid,
                "faithfulness",
                sample(row["answer"], v1, "answer"),
                sample(row["ungrounded_answer"], v1, "ungrounded"),
            ),
            PreferencePair(
                f"{qid}-context_relevance",
                qid,
                "context_relevance",
                sample(row["answer"], v1, "answer"),
                sample(row["answer"], v2, "context_v2"),
            ),
            PreferencePair(
                f"{qid}-answer_relevance",
                qid,
                "answer_relevance",
                sample(row["answer"], v1, "answer"),
                sample(row["poor_answer"], v1, "poor"),
            ),
        ]
    if problems:
        raise DataError(problems, source=str(path))
    return pairs


DATASETS: dict[str, Callable[[str | Path], list[PreferencePair]]] = {"wikieval": wikieval_pairs}
