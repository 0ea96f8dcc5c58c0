"""Talk about the speaker is not a claim about the world (metrics/speaker.py via claims_of)."""

from __future__ import annotations

import pytest

from judged_fakes import ScriptedJudge
from ragmeter.metrics.claims import claims_of, last_turn
from ragmeter.metrics.faithfulness import faithfulness
from ragmeter.protocols import Resources
from ragmeter.sample import Sample

CHAT = "User: I'm going to Paris next month!\nAssistant: Lucky you! What will you see first?"
FACT = "The Eiffel Tower was completed in 1889."


def judged(question: str, answer: str) -> list[str]:
    return claims_of(question, answer).judged


@pytest.mark.parametrize(
    "extra",
    [
        "Have you booked a visit?",
        "Isn't it wonderful?",
        "I adore Paris!",
        "Oh wow, I love stargazing!",
        "Thanks, I'm nervous!",
        "The Beatles, I just can't get enough of them.",
        "Yes, and it was stunning!",
        "What a memory to have!",
        "It's such a joy to share it with them.",
        "So adorable!",
        "Oh wow!",
    ],
)
def test_questions_feelings_evaluations_and_interjections_are_dropped_with_why(extra):
    for answer in (f"{extra} {FACT}", f"{FACT} {extra}"):
        c = claims_of(CHAT, answer)
        assert c.judged == [FACT], answer
        assert [d["text"] for d in c.dropped] == [extra]
        assert c.dropped[0]["why"]


def test_a_statement_in_question_form_keeps_its_claim():
    assert judged(CHAT, "Did you know that the tower was completed in 1889?") == [
        "The tower was completed in 1889."
    ]
    assert judged(CHAT, "The tower was completed in 1889, wasn't it?") == [
        "The tower was completed in 1889."
    ]


@pytest.mark.parametrize(
    "answer",
    [
        "I love that the tower was completed in 1889.",  # a feeling wrapping a claim
        "It's great, Rome is the capital of Italy.",  # an evaluation before a claim
        "I adore the 330 metre tower.",  # a number is a claim
        "It was completed in 1889 and it is stunning.",
        "My sister says the top floor closes every winter.",  # first person, a world claim
    ],
)
def test_feelings_and_evaluations_that_carry_a_claim_are_kept(answer):
    assert len(judged(CHAT, answer)) == 1


def test_short_answers_to_a_question_about_the_speaker_are_dropped_about_the_world_kept():
    about_you = "User: I made grilled cheese.\nAssistant: Yum, what cheese did you use?"
    c = claims_of(about_you, "Cheddar! It comes from Somerset.")
    assert c.judged == ["It comes from Somerset."]
    assert "about the speaker" in c.dropped[0]["why"]
    # "What do you call ...", "Did you know ..." ask about the world: the short answer is a claim
    assert judged("What do you call a baby kangaroo?", "A joey") == [
        "You call a baby kangaroo a joey."
    ]
    assert judged("Did you know who built it?", "Gustave Eiffel")[0].startswith("The answer")


def test_a_single_question_to_a_rag_system_about_you_is_about_the_business_not_the_speaker():
    # "you" / "your" in a one-turn question is the business whose documents are the context
    assert judged("What is your return policy?", "30 days") == ["30 days is your return policy."]
    assert judged("Do you ship to Canada?", "Yes.") == [
        'The answer to "Do you ship to Canada?" is Yes.'
    ]
    assert judged("User: hi\nAssistant: What is your favourite cheese?", "Cheddar") == []


def test_an_evaluation_is_the_speakers_taste_in_a_chat_but_judged_in_a_one_turn_answer():
    q = "Which bike should a beginner buy?"
    assert judged(q, "It's a great choice for beginners.") == ["It's a great choice for beginners."]
    assert judged(CHAT, "It's a great choice for beginners.") == []
    assert judged(q, "What a great question! The Model X.") == [
        "A beginner should buy the Model X."
    ]


def test_a_lone_yes_or_no_to_a_question_about_the_world_is_still_a_claim():
    q = "Is the Great Wall visible from the Moon?"
    assert judged(q, "No.") == [f'The answer to "{q}" is No.']
    no = "No, it is not visible from the Moon."
    assert judged(q, no) == [no]
    assert judged("User: hi\nAssistant: Have you been there?", "Yes.") == []
    # a one-turn "Yes." before the explanation is the claim that the answer is yes
    one_turn = "Can I carry over unused leave?"
    assert judged(one_turn, "Yes. Up to five days carry over.") == [
        f'The answer to "{one_turn}" is Yes.',
        "Up to five days carry over.",
    ]
    assert judged(one_turn, "Oh! Up to five days carry over.") == ["Up to five days carry over."]


def test_the_short_answer_rewrite_quotes_the_turn_without_its_speaker_label():
    assert last_turn(CHAT) == "Lucky you! What will you see first?"
    assert last_turn("User: hi\nAssistant: hello\nUser: Which city?") == "Which city?"


def test_question_form_and_exclamations_do_not_change_the_judged_text():
    assert judged(CHAT, f"{FACT}") == judged(CHAT, f"Oh nice! {FACT} Have you been?")


async def test_an_answer_with_only_talk_about_the_speaker_is_not_applicable():
    judge = ScriptedJudge(lambda _t: 0.9)
    s = Sample(
        question_id="c",
        question=CHAT,
        answer="I adore Paris! Have you booked a visit?",
        contexts=[FACT],
    )
    score = await faithfulness(s, Resources(judge=judge))
    assert score.status == "undefined"
    assert "no claim" in score.reason
    assert judge.log == []
    assert len(score.details["dropped"]) == 2
