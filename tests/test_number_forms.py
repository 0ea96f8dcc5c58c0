"""A number the context writes otherwise is not missing from it: "2.8 million" against
"2,800,000", "1998-03-03" against "3 March 1998" (support.number_values, used by
missing_specific, a feature of the default faithfulness)."""

from __future__ import annotations

import pytest

from ragmeter.metrics.support import missing_specific, number_values

CTX = [
    "Rome has 2,800,000 inhabitants and covers 1,285 km2.",
    "It opened on 3 March 1998 with three lines.",
    "About 12.5% of residents were born abroad; the budget is 1.5 billion euros.",
    "It is the 11th largest city.",
]


@pytest.mark.parametrize(
    "claim",
    [
        "Rome has 2.8 million inhabitants.",
        "Rome has 2800000 inhabitants.",
        "It opened on 1998-03-03.",
        "It covers 1.285 thousand km2.",
        "The budget is 1,500,000,000 euros.",
        "The budget is 1500 million euros.",
    ],
)
def test_the_same_number_written_otherwise_is_held(claim):
    assert missing_specific(claim, "Q?", CTX) == []


@pytest.mark.parametrize(
    ("claim", "missing"),
    [
        ("Rome has 2.9 million inhabitants.", ["29"]),
        ("Rome has 28 inhabitants.", ["28"]),  # "2,800,000" holds no 28
        ("It opened on 1998-04-03.", ["04"]),
        ("It is 11 km long.", ["11"]),  # "11th" is an ordinal, not the number 11
        ("The budget is 1.5 million euros.", ["15"]),
    ],
)
def test_other_numbers_are_still_missing(claim, missing):
    assert missing_specific(claim, "Q?", CTX) == missing


def test_number_values_are_exact_decimals():
    assert number_values("2.8 million") == {"28": {"2800000"}}
    assert number_values("2,800,000 people") == {"2800000": {"2800000"}}
    assert number_values("0.75 and 2.80 and 03") == {"075": {"0.75"}, "280": {"2.8"}, "03": {"3"}}
    assert number_values("11th, 40mg, x2") == {}


@pytest.mark.parametrize(
    "claim",
    [
        "About 13% of residents were born abroad.",  # 12.5 rounded half up
        "12.5% of residents were born abroad.",
        "76-85% of people receive no treatment.",  # over "76.3% to 85.4%"
        "A capsule held 40mg of folic acid and 2mg/day of B12.",  # units glued to the number
    ],
)
def test_a_rounded_number_or_a_glued_unit_is_held(claim):
    ctx = [*CTX, "76.3% to 85.4% received no treatment; 40 mg of folic acid and 2 mg of B12."]
    assert missing_specific(claim, "Q?", ctx) == []


@pytest.mark.parametrize(
    ("claim", "missing"),
    [
        ("About 12% of residents were born abroad.", ["12"]),  # 12.5 rounds to 13
        ("77-85% of people receive no treatment.", ["77"]),
        ("Rome has 3 million inhabitants.", ["3"]),  # "2,800,000" is not rounded to millions
        ("The capsule held 45mg of folic acid.", ["45"]),
    ],
)
def test_rounding_holds_only_the_context_values_rounded(claim, missing):
    ctx = [*CTX, "76.3% to 85.4% received no treatment; 40 mg of folic acid and 2 mg of B12."]
    assert missing_specific(claim, "Q?", ctx) == missing


def test_lower_case_pieces_of_a_name_are_no_names():
    ctx = ["The gene is homologous to RecQ helicases and infects HIV-infected people."]
    assert (
        missing_specific("BLM encodes a RecQ-class helicase for HIV-positive people.", "Q?", ctx)
        == []
    )
    assert missing_specific("BLM encodes a RecX-class helicase.", "Q?", ctx) == ["recx"]
    # a word in brackets stays no name: an abbreviation the claim defines
    assert missing_specific("It slows chronic kidney disease (CKD).", "Q?", ctx) == []


def test_units_glued_to_numbers_split_but_not_decades_or_ordinals():
    from ragmeter.metrics.support import split_words

    assert split_words("40mg/day 5km 24h 3x") == ["40", "mg", "day", "5", "km", "24", "h", "3", "x"]
    assert split_words("the 1990s, 11th, CD44v6, M2") == ["the", "1990s", "11th", "cd44v6", "m2"]
