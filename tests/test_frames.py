"""Frames around a claim are not part of it: an attribution to the documents after the claim,
a hedge before it, the answer frame in its other forms (metrics/frames.py)."""

from __future__ import annotations

import pytest

from ragmeter.metrics.claims import claims_of
from ragmeter.metrics.frames import unwrap_answer, unwrap_attribution
from ragmeter.metrics.support import lexical_support

Q = "What is the capital of Italy?"
SHORT = "Rome is the capital of Italy."  # the short answer put back into Q (wh_claim.py)
SENTENCE = "The capital of Italy is Rome."
CTX = ["Rome is the capital of Italy.", "Milan is the largest city of Lombardy."]


@pytest.mark.parametrize(
    "answer",
    [
        "The capital of Italy is Rome, according to the context.",
        "The capital of Italy is Rome, according to the provided documents.",
        "The capital of Italy is Rome (according to Document 1).",
        "The capital of Italy is Rome, as stated in the passage.",
        "The capital of Italy is Rome (as mentioned in the retrieved context).",
        "The capital of Italy is Rome, per the sources.",
        "The capital of Italy is Rome according to the provided context.",
        "I believe the capital of Italy is Rome.",
        "I think that the capital of Italy is Rome.",
        "Most likely, the capital of Italy is Rome.",
        "It seems that the capital of Italy is Rome.",
        "According to the context, I think the capital of Italy is Rome.",
    ],
)
def test_an_attribution_or_a_hedge_around_a_sentence_is_no_part_of_its_claim(answer):
    c = claims_of(Q, answer)
    assert c.judged == [SENTENCE]
    # before: the frame's words were new words the evidence lacks (support 0.19-0.41)
    assert lexical_support(c.original[0], Q, CTX, CTX) == 1.0


@pytest.mark.parametrize(
    "answer",
    [
        "Rome, according to the context.",
        "Rome, per the provided documents.",
        "Probably Rome.",
        "Most likely Rome.",
        "I believe it's Rome.",
        "I think the answer is Rome.",
        "Rome is the correct answer.",
        "Rome is the answer.",
        "Rome would be the answer.",
        "My answer is Rome.",
        "The answer: Rome",
        "Answer - Rome",
    ],
)
def test_a_framed_short_answer_is_the_short_answer(answer):
    assert claims_of(Q, answer).judged == [SHORT]


@pytest.mark.parametrize(
    "text",
    [
        "He acted according to the documents.",  # not the retrieved documents
        "The decision was based on the documents.",
        "Rome is mentioned in the context.",
        "Rome is the capital, according to Livy.",  # a source in the world
        "Likely causes include smoking.",  # an adjective, not a hedge
        "It seems to be Rome.",
        "That is the answer.",
    ],
)
def test_words_that_only_look_like_a_frame_stay(text):
    assert unwrap_answer(unwrap_attribution(text)) == text


def test_after_a_hedge_that_may_be_the_subject():
    assert unwrap_attribution("I believe that is a good question.") == "That is a good question."


def test_a_framed_yes_or_no_keeps_its_case():
    assert unwrap_attribution("According to the context, yes") == "yes"
    assert unwrap_attribution("Probably yes.") == "yes."


def test_an_answer_the_context_lacks_is_a_remark_not_a_short_answer():
    q = "What is the capital of Italy, and how many people live there?"
    for remark in (
        "The answer to your second question is not in the context.",
        "Its population isn't mentioned in the context.",
    ):
        c = claims_of(q, f"Rome is the capital. {remark}")
        assert c.judged == ["Rome is the capital."]
        assert c.dropped == [{"text": remark, "why": "says what the context lacks"}]
