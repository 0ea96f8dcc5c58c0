"""Helpers for testing RAG pipelines with ragmeter: an evaluator, a scripted judge, a gate.

The pytest plugin (``ragmeter.testing.plugin``, registered by entry point) provides the
``ragmeter_evaluator`` and ``assert_scores`` fixtures.
"""

from ragmeter.testing.asserts import assert_scores, offending_samples
from ragmeter.testing.evaluator import Evaluator
from ragmeter.testing.judge import HashEmbedder, ScriptedJudge, overlap_verdict

__all__ = [
    "Evaluator",
    "HashEmbedder",
    "ScriptedJudge",
    "assert_scores",
    "offending_samples",
    "overlap_verdict",
]
