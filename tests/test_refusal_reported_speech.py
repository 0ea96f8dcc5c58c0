"""Reported speech without quotation marks is a claim about what someone said, not a refusal.

Before: "I don't know" after a comma or colon counted as the speaker's own clause, so "He said,
I don't know." (an answer to "What did the suspect say?") declined: faithfulness called it not
applicable and never judged it, refusal_rate counted it. Quoted, it already answered
('He said, "I don't know."'). The speaker's own ("As I said, I don't know.") still declines.
"""

from __future__ import annotations

import pytest

from ragmeter.metrics.claims import claims_of
from ragmeter.metrics.refusal import declines

REPORTED = [
    "He said, I don't know.",
    "When asked, the minister said: I don't know.",
    "The witness answered, I don't know.",
    "She told reporters, I do not know where he is.",
    "The suspect replied: I dont know.",
    "They've said, I don't know.",
    "He said, I don't know. The context does not say more.",
]
OWN = [
    "I don't know.",
    "As I said, I don't know.",
    "As I've said, I don't know.",
    "We told you: I don't know.",
    "Sorry, I don't know.",
    "Honestly, I don't know.",
]


@pytest.mark.parametrize("answer", REPORTED)
def test_reported_speech_answers(answer: str) -> None:
    assert declines(answer) is None
    assert claims_of("What did he say when asked about the money?", answer).judged


@pytest.mark.parametrize("answer", OWN)
def test_the_speakers_own_i_dont_know_still_declines(answer: str) -> None:
    assert declines(answer) is not None
