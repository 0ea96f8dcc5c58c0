"""A claim's words are compared with the context's as a reader reads them: "Italy's" is
"Italy", "Italy’s" (typographic apostrophe) too, and a dash is no word; words that only link
or hedge a claim ("Therefore,", "approximately") are not looked up (metrics/support.py)."""

from __future__ import annotations

import pytest

from ragmeter.metrics.support import lexical_support, missing_specific, plain_words

Q = "What is the capital of Italy?"
CTX = ["Rome is the capital of Italy.", "Milan is the largest city of Lombardy."]


@pytest.mark.parametrize(
    "claim",
    [
        "Rome is Italy's capital.",
        "Rome is Italy\u2019s capital.",
        "The capital is Rome \u2014 a city in Italy.",
        "The capital is \u201cRome\u201d.",
    ],
)
def test_possessives_and_typographic_punctuation_are_read_as_words(claim):
    # before: the name "s" (or "italy’s") was missing from the context, and the words
    # "italys" / "—" were new words the evidence lacks
    assert missing_specific(claim, Q, CTX) == []
    assert lexical_support(claim, Q, CTX, CTX) == 1.0


def test_a_word_the_context_lacks_is_still_missing():
    assert missing_specific("Rome is Milan\u2019s twin city, says Paolo.", Q, CTX) == ["paolo"]
    assert lexical_support("Rome is Italy's second city.", Q, CTX, CTX) < 1.0


def test_plain_words():
    assert plain_words("Italy\u2019s capital \u2014 Rome") == "Italy capital   Rome"
    assert plain_words("the parents' house, it's") == "the parents' house, it"


@pytest.mark.parametrize(
    "claim",
    [
        "Therefore, the capital is Rome.",
        "In summary, Rome is the capital.",
        "Additionally, Rome is the capital of Italy.",
        "Rome is also, however, the capital.",
        "The capital is approximately Rome.",
    ],
)
def test_words_that_link_or_hedge_a_claim_are_not_looked_up(claim):
    assert lexical_support(claim, Q, CTX, CTX) == 1.0  # before: 0.42 for "Therefore, ..."


def test_a_content_word_the_context_lacks_still_counts():
    assert lexical_support("Therefore, the capital is Rome, a port.", Q, CTX, CTX) < 1.0
