"""A list written on one line of an answer is judged as the same list written a line per item
(metrics/inline_list.py); numbers that only name things ("steps 1) and 2)") stay as written."""

from __future__ import annotations

import pytest

from ragmeter.metrics.claims import claims_of
from ragmeter.metrics.inline_list import inline_items
from ragmeter.metrics.layout import plain_text

Q = "What are the two largest cities of Italy?"
AS_LINES = "1) Rome\n2) Milan"


@pytest.mark.parametrize(
    "answer",
    [
        "1) Rome 2) Milan",
        "(1) Rome (2) Milan",
        "1. Rome 2. Milan",
        "(a) Rome (b) Milan",
        "a) Rome, b) Milan",
        "1) Rome, and 2) Milan",
        "1) Rome; 2) Milan.",
        "Here they are: 1) Rome 2) Milan",
        "Cities: 1) Rome 2) Milan",
        "**Cities:** (1) Rome (2) Milan",
    ],
)
def test_an_inline_list_is_judged_as_the_list_on_lines(answer: str) -> None:
    want = claims_of(Q, AS_LINES).judged
    assert want == [
        'The answer to "What are the two largest cities of Italy?" is Rome.',
        'The answer to "What are the two largest cities of Italy?" is Milan.',
    ]
    assert claims_of(Q, answer).judged == want


def test_the_lead_in_or_label_before_an_inline_list_is_dropped_with_why() -> None:
    dropped = claims_of(Q, "Here they are: 1) Rome 2) Milan").dropped
    assert dropped == [
        {"text": "Here they are:", "why": "a lead-in to what follows asserts nothing"}
    ]
    dropped = claims_of(Q, "Cities: 1) Rome 2) Milan").dropped
    assert dropped == [{"text": "Cities:", "why": "a label asserts nothing"}]


def test_sentences_listed_inline_are_the_sentences() -> None:
    inline = claims_of(Q, "1) Rome is the largest. 2) Milan is the second largest.").judged
    assert inline == ["Rome is the largest.", "Milan is the second largest."]


@pytest.mark.parametrize(
    ("answer", "claim"),
    [
        ("The cities are 1) Rome and 2) Milan.", "The cities are Rome and Milan."),
        ("The largest are: 1) Rome, 2) Milan.", "The largest are: Rome, Milan."),
        ("They are (a) Rome (b) Milan.", "They are Rome, Milan."),
        (
            "The study found (1) lower mortality and (2) fewer admissions.",
            "The study found lower mortality and fewer admissions.",
        ),
    ],
)
def test_a_list_inside_a_sentence_loses_its_markers_only(answer: str, claim: str) -> None:
    assert claims_of(Q, answer).judged == [claim]


@pytest.mark.parametrize(
    "line",
    [
        "Steps 1) and 2) are optional.",  # numbers that name steps, no items
        "Rome 1) is large.",  # one marker: left to the start-of-line rule
        "It opened in 1. May 2. June",  # "1." inside a sentence: too like a full stop
        "It was founded in 1990. 2. Milan",  # no "1." at all
        "Items 2) Rome 3) Milan",  # not numbered from 1
        "1) Rome 3) Milan",  # not in order
        "1) Rome (2) Milan",  # two styles
        "Version 1.2 and 2.0",
    ],
)
def test_numbers_that_are_not_an_inline_list_stay(line: str) -> None:
    assert inline_items(line) is None


def test_contexts_keep_their_inline_numbers() -> None:
    """Contexts are evidence, read as written: only an answer's lists become lines."""
    text = "The trial had (1) 20 patients and (2) 3 sites."
    assert plain_text(text).text == text
    assert plain_text(text, answer=True).text == "The trial had 20 patients and 3 sites."
