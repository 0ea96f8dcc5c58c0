"""Refusal detection, audited with realistic answers (2026-11-27): each case here was wrong.

A false positive removes a real (maybe hallucinated) answer from faithfulness; a false negative
scores a refusal as an unfaithful answer. The full table of the audit (199 answers) is in the
report of branch fix-refusal; these are the ones the fix changed.
"""

from __future__ import annotations

import pytest

from judged_fakes import ScriptedJudge
from ragmeter.metrics.faithfulness import faithfulness
from ragmeter.metrics.refusal import declines
from ragmeter.protocols import Resources
from ragmeter.sample import Sample

# Answers that make a claim besides (or instead of) a refusal phrase: judged, never "declined".
CLAIMS = [
    # a partial refusal followed by "but" / "however" and a claim
    "I don't know why, but Rome is the capital.",
    "The context does not mention the date, but the treaty was signed by France and Spain.",
    "I'm not sure, but I think it was 1492.",
    "I'm not certain, but it is probably Paris.",
    "The context doesn't say exactly, but it suggests the company was founded in 1998.",
    "I couldn't find the exact date; however, the war ended in 1945.",
    "The provided text does not mention a price, but the product launched in March 2021.",
    "I cannot answer that fully, but Paris is the largest city.",
    "I'm not sure about the year, but the capital is Rome.",
    "I do not know the exact year, though it was in the 1990s.",
    "While the documents don't say directly, the meeting was held in Geneva.",
    # a claim in a sentence of its own, before or after the refusal
    "The context does not state his age. He was born in 1950.",
    "The context does not say explicitly; it was 1776.",
    "Rome is the capital. I don't know its population.",
    # a sentence after the refusal that looks like advice or an apology but claims something
    "I don't know. Contact lenses were invented in 1888.",
    "I don't know. You should take two pills a day.",
    "I don't know the date. Unfortunately, the city was destroyed.",
    "I don't know. Check-in starts at 3 pm.",
    # WikiEval's poor answers of rows 24 and 35 (declined before)
    "Moud Goba has been involved with various organizations, but her current role at UK Black "
    "Pride is not mentioned.Moud Goba is a well-known activist in the LGBTQ+ community.",
    "I'm sorry, but I couldn't find any information about a mass shooting during the parade in "
    "Highland Park.The Independence Day parade in Highland Park is a popular event.",
    # the phrase only quoted
    'She said: "I don\'t know."',
    'The song "I Don\'t Know" was released by Ozzy Osbourne in 1980.',
    '"No Idea" is a 2019 album by the band.',
    # somebody else's inability or lack of data, not the answer's verdict
    "The court was unable to determine the cause of death.",
    "There was not enough data to publish the study in 2020.",
    "The surveyors had insufficient information to map the region.",
]

# Refusals that were scored as answers.
REFUSALS = [
    "Based on the documents, it's not possible to determine when the bridge was built.",
    "Based on the provided context, it is not possible to determine the answer.",
    "There is no mention of the treaty in the provided documents.",
    "That information isn't included in the documents I have.",
    "Sorry, I don't have that information.",
    "I don't have information about that.",
    "I do not have access to that information.",
    "Neither document mentions the author's name.",
    "None of the documents mention the author's name.",
    "None of the provided passages mention the release date.",
    "The documents make no mention of the merger.",
    "The context doesn't have that information.",
    "Cannot answer.",
    "Can't answer based on the context.",
    "No answer found.",
    "No answer.",  # the whole answer: was judged as the claim "No answer is the capital of Italy."
    "I don't see any information about that in the context.",
    # markdown and emoji around a refusal
    "*Not mentioned in the context.*",
    "**Answer:** Not specified in the context.",
    "`N/A`",
    "Unknown \U0001f914",
]

# Refusals with talk around them, which must keep declining under the stricter rules above.
STILL_REFUSALS = [
    "I'm sorry, but I couldn't find that information in the provided documents.",
    "I'm sorry. I don't know.",
    "I don't know. Could you provide more context?",
    "Unfortunately, the provided documents do not contain that information. You may want to "
    "check the official website.",
    "I couldn't find that in the documents; please check the annual report.",
    "The context mentions the company, but it does not say when it was founded.",
    "I don't know, but you could check the city's website.",
    "I don't know. Try searching the archive.",
    "I'm sorry for the confusion. The context does not say.",
    "I don't know, but the context does not say either.",
    "Thanks for asking! Unfortunately, the documents don't say.",
    "I'm sorry, but the context doesn't say. Let me know if you have other questions.",
    "There is not enough information in the context to answer that.",
    "Insufficient information.",
    "I was unable to find this information.",
    "Unable to determine.",
    "> The context does not say.",
    '"I don\'t know."',
]


@pytest.mark.parametrize("answer", CLAIMS)
def test_an_answer_that_claims_something_does_not_decline(answer: str) -> None:
    assert declines(answer) is None


@pytest.mark.parametrize("answer", REFUSALS + STILL_REFUSALS)
def test_a_refusal_declines(answer: str) -> None:
    assert declines(answer) is not None


async def test_a_partial_refusal_is_judged_by_faithfulness() -> None:
    """Before, faithfulness called it "not applicable" and the claim was never checked."""
    sample = Sample(
        question="Who signed the treaty?",
        question_id="q",
        answer="The context does not mention the date, but the treaty was signed by France and "
        "Spain.",
        contexts=["The treaty was signed in 1659."],
    )
    judge = ScriptedJudge(lambda t: 0.1)
    score = await faithfulness(sample, Resources(judge=judge))
    assert score.status == "ok" and not score.details.get("declined")
    assert judge.log  # the claim went to the judge


@pytest.mark.parametrize("answer", ["No lo sé.", "Je ne sais pas.", "Keine Angabe im Kontext."])
def test_other_languages_decline_too(answer: str) -> None:
    """Were out of scope (judged as answers) until refusal v9: tests/test_refusal_i18n.py."""
    assert declines(answer) is not None
