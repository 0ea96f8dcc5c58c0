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


def _forget(judge) -> None:
    """Empty the judge's KV cache, as a new process would have it."""
    judge._llm._ctx.kv_cache_seq_rm(-1, 0, -1)
    judge._llm.n_tokens = 0
    judge._kv_clean = 0


async def test_scores_do_not_depend_on_earlier_calls(judge):
    """The same sample scores bit-identically from an empty KV cache, re-run (its own prefix
    reused) and after other prompts sharing prefixes of other lengths: prompts are decoded in
    KV blocks aligned to absolute positions (backends/llama_kv.py). Before, a reused prefix
    moved P(yes) by up to 0.042 on WikiEval statements (benchmarks/kv_blocks.py)."""
    sample = s("It was completed in 1889. It is 120 metres tall.")
    r = Resources(judge=judge)
    _forget(judge)
    first = await faithfulness(sample, r)
    again = await faithfulness(sample, r)
    await faithfulness(s("It was designed by Gustave Eiffel's company. It is in Paris."), r)
    await answer_relevance(sample, r)
    after = await faithfulness(sample, r)
    assert first.details["verdicts"] == ["yes", "no"]
    for other in (again, after):
        assert other.details["p_yes"] == first.details["p_yes"]
        assert other.value == first.value


async def test_verdicts_are_deterministic_across_thread_counts(judge):
    """1 thread instead of 2: the same verdicts and P(yes) (llama.cpp splits a matrix product
    over threads by output rows, so the sums are the same)."""
    from ragmeter.backends.llamacpp import LocalJudge

    sample = s("It was completed in 1889. It is 120 metres tall.")
    _forget(judge)
    first = await faithfulness(sample, Resources(judge=judge))
    one = LocalJudge(n_ctx=2048, n_threads=1)
    one.load()
    try:
        single = await faithfulness(sample, Resources(judge=one))
    finally:
        one.close()
    assert single.details["verdicts"] == first.details["verdicts"]
    assert single.details["p_yes"] == first.details["p_yes"]


async def test_generation_neither_depends_on_nor_disturbs_the_cache(judge):
    """Grammar generation and greedy top-k replies start from an aligned prompt and leave
    later verdicts on a shared prefix unchanged."""
    from pydantic import BaseModel

    class Verdict(BaseModel):
        supported: bool

    def msgs(statement: str) -> list[dict[str, str]]:
        return [
            {"role": "system", "content": "Judge the statement against the context."},
            {"role": "user", "content": f"Context: {CONTEXT}\nStatement: {statement}"},
        ]

    ask = msgs("The tower is 330 metres tall.")
    _forget(judge)
    base = await judge.option_probs(ask, ["yes", "no"], prompt_version="t")
    tops = await judge.token_tops(msgs("It opened in 1925."), 6, prompt_version="t")
    made = await judge.structured(msgs("It opened in 1925."), Verdict, prompt_version="t")
    after = await judge.option_probs(ask, ["yes", "no"], prompt_version="t")
    assert after.value == base.value
    _forget(judge)
    assert (await judge.token_tops(msgs("It opened in 1925."), 6, prompt_version="t")).value == (
        tops.value
    )
    _forget(judge)
    again = await judge.structured(msgs("It opened in 1925."), Verdict, prompt_version="t")
    assert again.raw == made.raw and again.error is None
