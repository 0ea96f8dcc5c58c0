"""A short answer to a wh-question framed by a dummy subject ("It's Rome.", "That would be
Cillian Murphy.") is the short answer: judged as the claim it makes about the question, not
as a sentence whose "it" no context can support (metrics/claims.py)."""

from __future__ import annotations

import pytest

from ragmeter.metrics.claims import claims_of

Q = "What is the capital of Italy?"
SHORT = "Rome is the capital of Italy."  # the short answer put back into Q (wh_claim.py)


@pytest.mark.parametrize(
    "answer",
    ["It's Rome.", "It is Rome", "That would be Rome!", "That's Rome.", "It\u2019s Rome.", "Rome."],
)
def test_a_framed_short_answer_is_the_short_answer(answer):
    c = claims_of(Q, answer)
    assert c.judged == [SHORT]
    assert c.original[0].rstrip(".!") == "Rome"  # shown as the answer it frames


def test_only_the_first_claim_and_only_a_name_number_or_noun_phrase():
    c = claims_of(Q, "It is Rome. It's the largest city too.")
    assert c.judged == [SHORT, "It's the largest city too."]
    when = "When was the tower completed?"
    assert claims_of(when, "It was 1896.").judged == ["The tower was completed in 1896."]
    # a clause, an adjective, a long phrase: sentences, judged as written
    for answer in (
        "It was completed in 1896.",
        "It's sunny.",
        "It was Christopher Nolan, who also wrote the screenplay.",
    ):
        assert claims_of(when, answer).judged == [answer]


def test_not_for_a_yes_no_question_nor_a_request():
    for question in ("Is the capital big?", "Tell me about Rome."):
        assert claims_of(question, "It's Rome.").judged == ["It's Rome."]
