"""The judged metrics on the embedded GGUF judge, end to end (slow: loads the 1.5B model)."""

from __future__ import annotations

import pytest

from ragmeter.metrics.faithfulness import faithfulness
from ragmeter.metrics.perplexity import context_relevance_perplexity
from ragmeter.metrics.relevance import answer_relevance, context_relevance
from ragmeter.protocols import Resources
from ragmeter.sample import Sample

pytestmark = [pytest.mark.slow, pytest.mark.local_judge]

CONTEXT = (
    "The Eiffel Tower is a wrought-iron lattice tower in Paris, France. It was designed "
    "by the engineering company of Gustave Eiffel and completed in 1889. The tower is "
    "330 metres tall. Paris is also home to the Louvre, the world's most-visited museum."
)
Q = "When was the Eiffel Tower completed and how tall is it?"


@pytest.fixture(scope="module")
def judge(embedded_judge):
    return embedded_judge


def s(answer: str, contexts: list[str] | None = None) -> Sample:
    return Sample(question=Q, question_id="q", answer=answer, contexts=contexts or [CONTEXT])


async def test_faithfulness_prefers_the_grounded_answer(judge):
    r = Resources(judge=judge)
    good = await faithfulness(s("It was completed in 1889. It is 330 metres tall."), r)
    bad = await faithfulness(s("It was completed in 1925. It is 120 metres tall."), r)
    assert good.status == bad.status == "ok"
    assert good.value > bad.value
    assert good.details["verdicts"] == ["yes", "yes"]


async def test_answer_and_context_relevance_rank_pairs(judge):
    r = Resources(judge=judge)
    full = await answer_relevance(s("It was completed in 1889 and is 330 metres tall."), r)
    evasive = await answer_relevance(s("Paris has many famous museums, such as the Louvre."), r)
    assert full.value > evasive.value
    extra = CONTEXT + " The Seine flows through Paris. Paris hosted the 2024 Summer Olympics."
    focused = await context_relevance(s("x"), r)
    padded = await context_relevance(s("x", [extra]), r)
    assert focused.value > padded.value
    assert focused.details["total_sentences"] == 4


async def test_perplexity_on_the_gguf_judge(judge):
    r = Resources(scorer=judge)
    got = await context_relevance_perplexity(
        Sample(question=Q, question_id="q", contexts=[CONTEXT, "Bananas are rich in potassium."]), r
    )
    assert got.status == "ok" and 0 < got.value < 1
    assert got.details["best_context"] == 0


async def test_verdicts_are_deterministic_across_runs_and_thread_counts(judge):
    """Same sample and judge -> the same verdicts on a re-run and with 1 thread instead of 2.

    P(yes) itself may move by about 0.01: llama.cpp's numerics depend on how many tokens are
    evaluated per batch, and a re-run reuses the KV prefix of the first run (measured: 0.8606
    then 0.8695). The verdicts and the score's rounding to 0.02 are what is guaranteed here.
    """
    from ragmeter.backends.llamacpp import LocalJudge

    sample = s("It was completed in 1889. It is 120 metres tall.")
    first = await faithfulness(sample, Resources(judge=judge))
    again = await faithfulness(sample, Resources(judge=judge))
    one = LocalJudge(n_ctx=2048, n_threads=1)
    one.load()
    try:
        single = await faithfulness(sample, Resources(judge=one))
    finally:
        one.close()
    probs = first.details["p_yes"]
    for other in (again, single):
        assert other.details["verdicts"] == first.details["verdicts"]
        assert other.details["p_yes"] == pytest.approx(probs, abs=0.02)
        assert other.value == pytest.approx(first.value, abs=0.02)
