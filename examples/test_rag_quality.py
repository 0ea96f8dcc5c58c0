"""A quality gate for a RAG pipeline as a pytest test: copy it into your test suite.

ragmeter's pytest plugin (installed with ragmeter) provides the ``ragmeter_evaluator``
fixture: an evaluator whose judge comes from ``--ragmeter-judge`` or ``RAGMETER_JUDGE``
(default: the embedded local judge; ``scripted`` = a word-overlap stand-in for fast unit
tests). Point ``RAGMETER_EXAMPLE_DATA`` at your pipeline's outputs, or build them in a
fixture. Run:

    RAGMETER_JUDGE=scripted pytest examples/test_rag_quality.py
    RAGMETER_EXAMPLE_DATA=examples/compare/baseline.jsonl RAGMETER_JUDGE=scripted \
        pytest examples/test_rag_quality.py     # the weaker retriever: fails, naming samples
"""

from __future__ import annotations

import os
from pathlib import Path

from ragmeter.testing import assert_scores

DATA = Path(
    os.environ.get("RAGMETER_EXAMPLE_DATA", Path(__file__).parent / "compare" / "reranked.jsonl")
)


def test_pipeline_meets_the_quality_bar(ragmeter_evaluator):
    result = ragmeter_evaluator.evaluate(DATA, ["mrr", "token_recall", "faithfulness"])
    # Retrieval must put the answering document near the top, answers must cover the
    # reference and say nothing the contexts do not support.
    assert_scores(result, {"mrr": 0.7, "token_recall": 0.5, "faithfulness": 0.8})
