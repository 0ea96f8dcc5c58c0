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
