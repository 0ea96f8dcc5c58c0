"""Integration edge cases a demanding user meets: streamed LangChain runs, OpenInference
traces as the real OpenTelemetry SDK writes them, LlamaIndex engines that are not query
engines, and MLflow refusing part of a result."""

from __future__ import annotations

import asyncio

import pytest

from integration_pipelines import ANSWERS, QUESTIONS, langchain_chain
from ragmeter.integrations import langchain as rl


def test_streamed_chain_runs_keep_their_question():
    """``stream``/``astream`` start the run with the placeholder input ``{"input": ""}`` and
    give the real one only when it ends: the question must be the user's, not empty (before:
    a DataError "question must not be empty" for every streamed run)."""
    chain = langchain_chain(k=2)
    handler = rl.callback_handler()
    config = {"callbacks": [handler]}
    first, second = (q["question"] for q in QUESTIONS)
    assert "".join(chain.stream(first, config=config)) == ANSWERS[0]

    async def astream() -> str:
        return "".join([chunk async for chunk in chain.astream(second, config=config)])

    assert asyncio.run(astream()) == ANSWERS[1]
    samples = handler.samples()
    assert [(s.question, s.answer) for s in samples] == [(first, ANSWERS[0]), (second, ANSWERS[1])]
    assert all(len(s.contexts) == 2 for s in samples)


def test_a_streamed_run_that_raises_is_named_by_its_question():
    from langchain_core.runnables import RunnableLambda

    def fail(text: str) -> str:
        raise ValueError("the model is down")

    chain = RunnableLambda(lambda q: q) | RunnableLambda(fail)
    handler = rl.callback_handler()
    with pytest.raises(ValueError, match="the model is down"):
        list(chain.stream("Where is Paris?", config={"callbacks": [handler]}))
    assert [f["question"] for f in handler.failures()] == ["Where is Paris?"]
