"""The non-LLM metrics at their edges: what a demanding user feeds them (audit 2026-11-27).

Each test failed before its fix: a short answer that names "the Unknown Soldier" counted as
a refusal; a custom metric's Score was written as a string, a value beside a non-ok status
or without a reason; a custom definition that could never run was accepted.
"""

from __future__ import annotations

import pytest

import ragmeter
from ragmeter.metrics.refusal import declines

# --- refusals ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "The Unknown Soldier is buried at Arlington.",
        "The composer is unknown to most people, but the context names Bach as the author.",
        "Was it unanswerable? No: it is 42.",
    ],
)
def test_an_answer_that_merely_uses_the_word_unknown_does_not_decline(answer: str) -> None:
    """Before, any "unknown" in a short answer was a refusal: refusal_rate 1, faithfulness
    not applicable and answer_relevance 0 (noncommittal) for an answer that makes claims."""
    assert declines(answer) is None


@pytest.mark.parametrize(
    "answer",
    [
        "Unknown.",
        "The cause is unknown.",
        "It's unknown",
        "The date is unknown from the provided context.",
        "This question is unanswerable based on the documents.",
    ],
)
def test_unknown_as_the_answers_verdict_still_declines(answer: str) -> None:
    assert declines(answer) is not None


def test_refusal_rate_of_a_claim_with_unknown_is_zero() -> None:
    rows = [{"question": "Who is buried at Arlington?", "answer": "The Unknown Soldier."}]
    result = ragmeter.evaluate(rows, ["refusal_rate"])
    assert result.to_pandas()["refusal_rate"].tolist() == [0.0]
