"""No-model baselines, one per judged dimension, printed beside the judged metric.

Why: a judged metric is worth its cost only when it beats what word overlap gives for free.
- faithfulness: K-Precision (Unitxt), the share of answer tokens found in the contexts.
- answer relevance: ``question_overlap``, the share of the question's content words (stop
  words removed) that the answer repeats. "When did X open?" / "X opened in 1937." -> {x,
  open}: "open" is not "opened", so 1/2 = 0.5.
- context relevance: ``context_overlap``, the share of context sentences that share a
  content word with the question.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from ragmeter.metrics.base import Score
from ragmeter.metrics.context import _STOP
from ragmeter.protocols import Resources
from ragmeter.sample import Sample
from ragmeter.text import split_sentences, tokens

ScoreFn = Callable[[Sample, Resources], Awaitable[Score]]

# The no-model baseline printed beside each judged metric (RESULT: ``<dimension>_lexical``).
LEXICAL_BASELINE = {
    "faithfulness": "k_precision",
    "answer_relevance": "question_overlap",
    "context_relevance": "context_overlap",
}


def _content(text: str) -> set[str]:
    return {w for w in tokens(text) if w not in _STOP}


def question_overlap() -> ScoreFn:
    """No-model answer relevance: share of the question's content words the answer repeats."""

    async def run(sample: Sample, resources: Resources) -> Score:
        q = _content(sample.question)
        if not q:
            return Score.undefined("the question has no content words")
        return Score.ok(len(q & _content(sample.answer or "")) / len(q))

    return run


def context_overlap() -> ScoreFn:
    """No-model context relevance: share of context sentences sharing a question content word."""

    async def run(sample: Sample, resources: Resources) -> Score:
        q = _content(sample.question)
        sents = [s for c in sample.contexts or [] for s in split_sentences(c or "")]
        if not sents or not q:
            return Score.undefined("no context sentences or no question content words")
        return Score.ok(sum(bool(q & _content(s)) for s in sents) / len(sents))

    return run
