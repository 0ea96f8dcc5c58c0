"""A reasoning model's working is not its answer: traces, talk about answering, later labels."""

from __future__ import annotations

import pytest

from judged_fakes import ScriptedJudge, statement_in
from ragmeter.metrics.claims import claims_of
from ragmeter.metrics.faithfulness import faithfulness
from ragmeter.metrics.reasoning import final_answer, is_process_talk, no_final_answer
from ragmeter.metrics.refusal import declines
from ragmeter.metrics.relevance import answer_relevance
from ragmeter.protocols import Resources
from ragmeter.sample import Sample

Q = "What is the capital of Italy?"
CTX = "Rome is the capital of Italy. Milan is the largest city of Lombardy."
ANSWER = "The capital of Italy is Rome. It lies on the Tiber."
TRACE = (
    "Okay, the user asks about Italy. The context says Milan is the largest city of Lombardy. "
    "Maybe Milan? No. The context does not mention anything else."
)


def sample(answer: str) -> Sample:
    return Sample(question_id="q", question=Q, contexts=[CTX], answer=answer)


@pytest.mark.parametrize(
    "written",
    [
        f"<think>\n{TRACE}\n</think>\n\n{ANSWER}",
        f"<THINK>{TRACE}</THINK>{ANSWER}",
        f"<thinking>{TRACE}</thinking>\n{ANSWER}",
        f"<reasoning>{TRACE}</reasoning> {ANSWER}",
        f"{TRACE}\n</think>\n\n{ANSWER}",  # the chat template opened the block in the prompt
        f"<|begin_of_thought|>{TRACE}<|end_of_thought|>\n<|begin_of_solution|>{ANSWER}"
        "<|end_of_solution|>",
        f"[THINK]{TRACE}[/THINK]{ANSWER}",
        f"\u25c1think\u25b7{TRACE}\u25c1/think\u25b7{ANSWER}",
        f"<think>{TRACE}</think><think>Let me check once more.</think>{ANSWER}",
        f"<|channel|>analysis<|message|>{TRACE}<|end|><|start|>assistant<|channel|>final"
        f"<|message|>{ANSWER}<|return|>",
    ],
)
def test_the_reasoning_trace_is_not_part_of_the_answer(written):
    final = final_answer(written)
    assert final.text == ANSWER
    assert final.dropped and "reasoning" in final.dropped[0]["why"]
    as_written = claims_of(Q, ANSWER)
    claims = claims_of(Q, written)
    assert claims.judged == as_written.judged
    assert any("reasoning" in d["why"] for d in claims.dropped)


def test_answers_without_a_trace_are_left_as_written():
    for text in (ANSWER, "Use <b>bold</b> [sic] for emphasis.", "", "a < b and [1, 2]"):
        assert final_answer(text).text == text and final_answer(text).dropped == []
    assert no_final_answer(ANSWER) is None and no_final_answer("") is None


def test_a_trace_cut_off_by_the_token_limit_leaves_no_final_answer():
    written = f"<think>\n{TRACE} So the answer should be"
    final = final_answer(written)
    assert final.text == "" and "cut off" in final.dropped[0]["why"]
    assert "cut off" in (no_final_answer(written) or "")
    assert claims_of(Q, written).judged == []
    assert no_final_answer(f"<think>{TRACE}</think>") == (
        "no final answer: the answer is only the model's reasoning"
    )


def test_a_long_trace_is_shortened_in_the_details():
    written = "<think>" + "word " * 500 + "</think>Rome."
    shown = final_answer(written).dropped[0]["text"]
    assert len(shown) < 260 and shown.endswith("(500 words)")


@pytest.mark.parametrize(
    "talk",
    [
        "Let me check the context.",
        "Let me think step by step.",
        "Let's see.",
        "Okay, so the user is asking about the capital of Italy.",
        "The user wants to know the capital.",
        "I need to find the capital in the context.",
        "First, I'll look at the passage.",
        "Hmm, let me double-check that.",
    ],
)
def test_talk_about_answering_is_not_a_claim(talk):
    assert is_process_talk(talk)
    claims = claims_of(Q, f"{talk} Rome is the capital of Italy.")
    assert claims.judged == ["Rome is the capital of Italy."]
    assert claims.dropped[0] == {"text": talk, "why": "talks about answering, not the world"}


@pytest.mark.parametrize(
    "claim",
    [
        "Let me tell you that Rome is the capital.",
        "Let me check: Rome is the capital of Italy.",
        "The user manual says Rome is the capital.",
        "The question of Rome's status was settled in 1871.",
        "I need a visa to visit Rome.",
    ],
)
def test_claims_that_begin_like_talk_about_answering_are_kept(claim):
    assert not is_process_talk(claim)
    assert claims_of(Q, claim).original == [claim]


def test_a_final_answer_label_after_the_working_is_not_part_of_the_claim():
    claims = claims_of(Q, "Let me check the context. It names Rome.\n\n**Final answer:** Rome")
    assert claims.judged == ["It names Rome.", "Rome is the capital of Italy."]
    # a dialogue's "A:" on a later line is not an answer label
    dialogue = claims_of(Q, "Rome is the capital.\nA: and Milan is the largest city.")
    assert dialogue.original[-1].startswith("A:")


def test_a_refusal_inside_the_working_is_not_a_refusal_and_one_after_it_is():
    assert declines("<think>The context does not say much, but it names Rome.</think>Rome.") is None
    long_trace = "<think>" + "The context lists cities. " * 30 + "</think>"
    assert declines(long_trace + "I don't know.") == "I don't know"


async def test_faithfulness_and_relevance_read_the_final_answer_only():
    table = {
        "The capital of Italy is Rome.": 0.9,
        "It lies on the Tiber.": 0.2,
    }
    judge = ScriptedJudge(lambda t: table.get(statement_in(t), 0.5))
    plain = await faithfulness(sample(ANSWER), Resources(judge=judge))
    traced = await faithfulness(sample(f"<think>{TRACE}</think>{ANSWER}"), Resources(judge=judge))
    assert traced.value == pytest.approx(plain.value)
    assert traced.details["statements"] == plain.details["statements"]
    judge.log.clear()
    cut = await faithfulness(sample(f"<think>{TRACE}"), Resources(judge=judge))
    ar = await answer_relevance(sample(f"<think>{TRACE}"), Resources(judge=judge))
    assert cut.status == "undefined" and "no final answer" in cut.reason
    assert ar.status == "undefined" and "no final answer" in ar.reason
    assert judge.log == []  # decided before any judge call
