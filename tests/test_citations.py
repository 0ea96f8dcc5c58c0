"""Citation markers and source lists are pointers, not claims (metrics/citations.py)."""

from __future__ import annotations

import pytest

from judged_fakes import ScriptedJudge, statement_in
from ragmeter.metrics.citations import strip_citations
from ragmeter.metrics.claims import claims_of
from ragmeter.metrics.faithfulness import faithfulness
from ragmeter.metrics.frames import unwrap_attribution
from ragmeter.metrics.support import missing_specific
from ragmeter.protocols import Resources
from ragmeter.sample import Sample

Q = "What is the capital of Italy?"
CTX = "Rome is the capital of Italy. It has been the capital since 1871."
PLAIN = "Rome is the capital of Italy. It has been the capital since 1871."


@pytest.mark.parametrize(
    "cited",
    [
        "Rome is the capital of Italy [1]. It has been the capital since 1871 [1][2].",
        "Rome is the capital of Italy.[1] It has been the capital since 1871.[2]",
        "Rome is the capital of Italy [1, 2]. It has been the capital since 1871 [2-4].",
        "Rome is the capital of Italy[^1]. It has been the capital since 1871[^2].",
        "Rome is the capital of Italy\u30101\u3011. It has been the capital since 1871"
        "\u30104:0\u2020source\u3011.",
        "Rome is the capital of Italy\u00b9. It has been the capital since 1871\u00b2.",
        "Rome is the capital of Italy [doc1]. It has been the capital since 1871 [Source 2].",
        "Rome is the capital of Italy (Source 1). It has been the capital since 1871 "
        "(see Document 2).",
        "Rome is the capital of Italy (Sources 1 and 3). It has been the capital since 1871.",
        "Rome is the capital of Italy [1]. It has been the capital since 1871 [2].\n\n"
        "Sources:\n[1] Wikipedia, Rome\n[2] Britannica",
        "Rome is the capital of Italy. It has been the capital since 1871.\n**References**\n"
        "- [1] Wikipedia",
        "Rome is the capital of Italy [1]. It has been the capital since 1871 [2]. Sources: [1] "
        "Wikipedia [2] Britannica",
    ],
)
def test_an_answer_citing_its_sources_has_the_claims_of_the_answer_without(cited):
    got = claims_of(Q, cited)
    assert got.judged == claims_of(Q, PLAIN).judged
    assert all(missing_specific(c, Q, [CTX]) == [] for c in got.original)  # "1" is no number
    assert {d["why"] for d in got.dropped} <= {
        "a citation marker points to a source",
        "a list of sources asserts nothing",
    }
    assert got.dropped  # listed in the details, not removed silently


@pytest.mark.parametrize(
    "text",
    [
        "It was founded (1871) and the bridge is (2 km) long.",
        "Read `array[1]` for the second item.",
        "Sources of the Nile are disputed.",  # a first line is never a sources list
        "See [[1]] for the wiki link.",
    ],
)
def test_numbers_that_are_content_stay(text):
    got = strip_citations(text)
    assert got.text == text and got.dropped == []


def test_a_fenced_code_block_is_left_as_written():
    text = "Index it so:\n```\nx = array[1]  # [2]\n```\nIt returns the second item [1]."
    got = strip_citations(text)
    assert "x = array[1]  # [2]" in got.text
    assert got.text.endswith("It returns the second item.")


async def test_a_cited_answer_scores_as_the_answer_without_citations():
    table = {"Rome is the capital of Italy.": 0.9, "It has been the capital since 1871.": 0.8}
    judge = ScriptedJudge(lambda t: table[statement_in(t)])

    def sample(answer: str) -> Sample:
        return Sample(question_id="q", question=Q, contexts=[CTX], answer=answer)

    plain = await faithfulness(sample(PLAIN), Resources(judge=judge))
    cited = await faithfulness(
        sample(
            "Rome is the capital of Italy [1]. It has been the capital since 1871 [1].\n"
            "Sources: [1] Wikipedia"
        ),
        Resources(judge=judge),
    )
    assert cited.value == pytest.approx(plain.value)
    assert [e["missing_specific"] for e in cited.details["statement_evidence"]] == [[], []]


@pytest.mark.parametrize(
    "framed",
    [
        "According to the context, Rome is the capital of Italy.",
        "Based on the provided documents, Rome is the capital of Italy.",
        "The passage states that Rome is the capital of Italy.",
        "As mentioned in Document 2, Rome is the capital of Italy.",
        "The context says Rome is the capital of Italy.",
    ],
)
def test_an_attribution_frame_is_unwrapped_to_its_claim(framed):
    assert claims_of(Q, framed).judged == ["Rome is the capital of Italy."]
    # a frame around a short answer leaves the short answer, judged against the question
    assert claims_of(Q, "According to the context, Rome.").judged == claims_of(Q, "Rome").judged


@pytest.mark.parametrize(
    "text",
    [
        "According to Livy, Rome was founded in 753 BC.",  # a source in the world, not the context
        "The context does not say.",
        "In 1871, Rome became the capital.",
        "In this context, the word means a city.",
    ],
)
def test_other_openings_are_not_frames(text):
    assert unwrap_attribution(text) == text
