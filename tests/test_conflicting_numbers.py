"""faithfulness 40: a claim giving a number the context gives otherwise for the same unit is
at most CONFLICT_CAP supported, whatever the judge says.

The demo's "The half-life of carbon-14 is about 57,300 years." over a context giving 5,730
years scored 0.89: the judge said yes (0.85) and the missing-number weight of calibration 3
(-0.64) could not overrule it.
"""

from __future__ import annotations

import asyncio

import pytest

from judged_fakes import ScriptedJudge
from ragmeter.metrics.faithfulness import CONFLICT_CAP, faithfulness, faithfulness_judge
from ragmeter.metrics.numbers import conflicting, quantities
from ragmeter.protocols import Resources
from ragmeter.sample import Sample

C14 = (
    "Carbon-14 is a radioactive isotope of carbon with a half-life of about 5,730 years, "
    "which makes it useful for dating organic material up to around 50,000 years old."
)


def test_quantities_are_numbers_with_the_word_that_says_what_they_count():
    assert quantities("You climb 1,665 steps; 30% of them, 25 per cent, 2.8 million people.") == [
        ("1,665 steps", "1665", "step"),
        ("30%", "30", "%"),
        ("25 per cent", "25", "%"),
        ("2.8 million people", "2800000", "people"),
    ]
    # a word that does not say what is counted is no unit; neither is a glued "40mg"
    assert quantities("In 1994 the tunnel opened; 3 of them; 40mg.") == []
    # a plural is its singular: "metres" ~ "metre"
    assert quantities("6,210 metres") == [("6,210 metres", "6210", "metre")]
    assert quantities("1 metre")[0][2] == "metre"


@pytest.mark.parametrize(
    ("statement", "found"),
    [
        ("The half-life of carbon-14 is about 57,300 years.", ["57,300 years"]),
        ("It dates material up to 50,000 years old.", []),  # the context's own number
        ("Its half-life is about 5,700 years.", ["5,700 years"]),  # not a rounding of 5,730
        ("Its half-life is about 6,000 years long.", ["6,000 years"]),
        ("Its half-life is roughly 5.7 thousand years.", ["5.7 thousand years"]),
        ("About 12 grams of it decay.", []),  # a unit the context does not count
        ("It was found in 1940.", []),  # no unit: a missing number, not a conflicting one
    ],
)
def test_conflicting_numbers(statement, found):
    assert conflicting(statement, (C14,)) == found


def test_a_rounded_context_value_is_no_conflict():
    assert conflicting("Turnout was 76%.", ("Turnout was 76.3% in 2019.",)) == []
    assert conflicting("Turnout was 77%.", ("Turnout was 76.3% in 2019.",)) == ["77%"]


def _score(metric, answer: str, p_yes: float = 0.9):
    sample = Sample(
        question_id="q",
        question="What is the half-life of carbon-14?",
        answer=answer,
        contexts=[C14],
    )
    res = Resources(judge=ScriptedJudge(lambda _t: p_yes), options={"modes": {}})
    return asyncio.run(metric(sample, res))


def test_a_conflicting_claim_is_capped_whatever_the_judge_says():
    s = _score(faithfulness, "The half-life of carbon-14 is about 57,300 years.")
    (ev,) = s.details["statement_evidence"]
    assert ev["conflicting_numbers"] == ["57,300 years"]
    assert s.value == pytest.approx(CONFLICT_CAP) and ev["p_supported"] == CONFLICT_CAP
    assert s.details["p_yes"] == [0.9]  # the judge's view is still shown


def test_a_claim_with_the_contexts_number_is_not_capped():
    s = _score(faithfulness, "The half-life of carbon-14 is about 5,730 years.")
    (ev,) = s.details["statement_evidence"]
    assert "conflicting_numbers" not in ev and s.value > 0.9


def test_only_the_conflicting_claim_is_capped():
    s = _score(
        faithfulness,
        "Carbon-14 is radioactive. The half-life of carbon-14 is about 57,300 years.",
    )
    capped = [e["p_supported"] for e in s.details["statement_evidence"]]
    assert capped[1] == CONFLICT_CAP and capped[0] > 0.5


def test_the_judge_alone_is_not_capped():
    s = _score(faithfulness_judge, "The half-life of carbon-14 is about 57,300 years.")
    assert s.value == pytest.approx(0.9)


def test_the_questions_own_number_is_no_conflict():
    """The demo's hr-004, a faithful answer, was capped: 2,000 euros comes from the question,
    and the context gives thresholds (500, 5,000) in the same unit."""
    ctx = ("Expenses from 500 to 5,000 euros also need the budget owner's approval.",)
    claim = "An expense of 2,000 euros needs approval from the budget owner."
    assert conflicting(claim, ctx, "Who has to approve an expense of 2,000 euros?") == []
    assert conflicting(claim, ctx) == ["2,000 euros"]  # without the question it would be
