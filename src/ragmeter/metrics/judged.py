"""Registers the metrics that need a model: RAGAS judged metrics and Unitxt's model metrics.

Modes (``Resources.options["modes"][name]``): faithfulness, answer_relevance,
context_relevance, context_precision, context_recall, answer_correctness take ``fast`` (verdicts
from next-token probabilities, the default, chosen from the WikiEval measurements in
benchmarks/results/) or ``generate`` (the RAGAS paper's generated-text procedure).
"""

from __future__ import annotations

from ragmeter.metrics import faithfulness, perplexity, reference, relevance, reward
from ragmeter.metrics.registry import register

for _metric in (
    faithfulness.METRIC,
    relevance.AR_METRIC,
    relevance.CR_METRIC,
    reference.CP_METRIC,
    reference.CREC_METRIC,
    reference.AC_METRIC,
    perplexity.METRIC,
    reward.METRIC,
):
    register(_metric)

MODES = {
    "faithfulness": faithfulness.DEFAULT_MODE,
    "answer_relevance": relevance.DEFAULT_AR_MODE,
    "context_relevance": relevance.DEFAULT_CR_MODE,
    "context_precision": reference.DEFAULT_MODE,
    "context_recall": reference.DEFAULT_MODE,
    "answer_correctness": reference.DEFAULT_MODE,
}
