"""LangChain capture edge cases, on real LangChain runnables built offline: nested
retrievers (rerank, ensemble), retrievers under tools, content-block answers, failed runs,
bare retrievers and question records that carry captured fields."""

from __future__ import annotations

import contextlib
import functools
import warnings
from types import SimpleNamespace
from typing import Any

import pytest

from needs import require_module
from ragmeter.integrations import langchain as rl
from ragmeter.testing import Evaluator


@functools.cache
def lc() -> SimpleNamespace:
    """LangChain's pieces and three tiny retrievers (built once LangChain is known to be there).

    ``Fixed`` returns its documents; ``Reverse`` reranks its base retriever's output (the last
    two, reversed); ``Ensemble`` interleaves its bases' outputs, as EnsembleRetriever does.
    """
    require_module("langchain_core")
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import RunnableLambda

    class Fixed(BaseRetriever):
        docs: list[Document]

        def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Document]:
            return list(self.docs)

    class Reverse(BaseRetriever):
        base: BaseRetriever

        def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Document]:
            docs = self.base.invoke(query, config={"callbacks": run_manager.get_child()})
            return docs[::-1][:2]

    class Ensemble(BaseRetriever):
        bases: list[BaseRetriever]

        def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Document]:
            child = {"callbacks": run_manager.get_child()}
            lists = [r.invoke(query, config=child) for r in self.bases]
            return [d for group in zip(*lists, strict=False) for d in group]

    docs = [Document(page_content=f"text {i}", id=f"d{i}") for i in range(4)]
    return SimpleNamespace(
        Fixed=Fixed, Reverse=Reverse, Ensemble=Ensemble, Lambda=RunnableLambda, DOCS=docs
    )


def _answer(_: Any) -> str:
    return "An answer."


def test_a_reranking_retriever_keeps_only_its_own_output_in_its_order():
    L = lc()
    chain = L.Reverse(base=L.Fixed(docs=L.DOCS)) | L.Lambda(_answer)
    [sample] = rl.collect(chain, [{"question": "q?", "reference_context_ids": ["d3"]}])
    assert sample.context_ids == ["d3", "d2"]  # not d0..d3 of the inner retriever too
    assert sample.contexts == ["text 3", "text 2"]
    result = Evaluator(judge="scripted").evaluate([sample], ["mrr"], n_resamples=10)
    assert result.scores["mrr"][0].value == 1.0


def test_an_ensemble_of_retrievers_nested_two_deep_is_one_ranking():
    L = lc()
    inner = L.Ensemble(bases=[L.Fixed(docs=L.DOCS[:2]), L.Reverse(base=L.Fixed(docs=L.DOCS[2:]))])
    [sample] = rl.collect(inner | L.Lambda(_answer), ["q?"])
    assert sample.context_ids == ["d0", "d3", "d1", "d2"]


def test_sibling_top_level_retrievers_are_all_kept_in_start_order():
    """Two retrieval steps of one call: both passed their documents on."""
    L = lc()
    chain = {"a": L.Fixed(docs=L.DOCS[2:]), "b": L.Fixed(docs=L.DOCS[:1])} | L.Lambda(_answer)
    [sample] = rl.collect(chain, ["q?"])
    assert sample.context_ids == ["d2", "d3", "d0"]


def test_a_retriever_called_by_a_tool_lands_in_the_call_that_ran_the_tool():
    L = lc()
    from langchain_core.tools import tool

    retriever = L.Fixed(docs=L.DOCS[:1])

    @tool
    def search(query: str) -> str:
        """Search the documents."""
        return "\n".join(d.page_content for d in retriever.invoke(query))

    chain = L.Lambda(lambda q: search.invoke(q)) | L.Lambda(_answer)
    [sample] = rl.collect(chain, ["q?"])
    assert sample.context_ids == ["d0"]


def _chat_chain(*replies: Any) -> Any:
    """retriever | prompt | a chat model replying ``replies`` (AIMessages), one per call."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.prompts import ChatPromptTemplate

    L = lc()
    prompt = ChatPromptTemplate.from_messages([("human", "{context}")])
    fmt = L.Lambda(lambda docs: {"context": " ".join(d.page_content for d in docs)})
    return L.Fixed(docs=L.DOCS[:1]) | fmt | prompt | GenericFakeChatModel(messages=iter(replies))


def test_an_answer_in_content_blocks_is_its_text_blocks_joined():
    """Anthropic and OpenAI's Responses API reply with a list of content blocks."""
    from langchain_core.messages import AIMessage

    blocks = [
        {"type": "text", "text": "Paris is "},
        {"type": "tool_use", "id": "t1", "name": "lookup", "input": {}},
        {"type": "text", "text": "the capital."},
    ]
    [sample] = rl.collect(_chat_chain(AIMessage(content=blocks)), ["Capital of France?"])
    assert sample.answer == "Paris is the capital."
    assert sample.context_ids == ["d0"]


def test_an_answer_that_cannot_be_captured_is_a_warning_naming_the_question():
    from langchain_core.messages import AIMessage

    only_tools = AIMessage(content=[{"type": "tool_use", "id": "t1", "name": "f", "input": {}}])
    with pytest.warns(RuntimeWarning, match=r"question 'Capital\?'.*no text.*tool_use"):
        [sample] = rl.collect(_chat_chain(only_tools), ["Capital?"])
    assert sample.answer is None
    with pytest.warns(RuntimeWarning, match=r"question 'Other\?'.*no answer among keys \['n'\]"):
        rl.collect(lc().Lambda(lambda q: {"n": 1}), ["Other?"])


def test_a_run_that_raised_is_left_out_of_the_handlers_samples_with_a_warning():
    def pipeline(question: str) -> str:
        if "bad" in question:
            raise RuntimeError("pipeline broke")
        return "fine"

    chain = lc().Lambda(pipeline)
    handler = rl.RagmeterCallbackHandler()
    for question in ("good?", "bad?"):
        with contextlib.suppress(RuntimeError):
            chain.invoke(question, config={"callbacks": [handler]})
    with pytest.warns(RuntimeWarning, match=r"question 'bad\?'\) raised RuntimeError: pipeline"):
        samples = handler.samples()
    assert [(s.question, s.answer) for s in samples] == [("good?", "fine")]
    [failed] = handler.failures()
    assert failed["question"] == "bad?" and failed["error"] == "RuntimeError: pipeline broke"


def test_a_question_record_giving_what_the_chain_produces_is_a_data_error_before_any_call():
    """A record's 'answer' would have replaced the captured one: neither may win silently."""
    from ragmeter.errors import DataError

    calls: list[str] = []
    chain = lc().Lambda(lambda q: calls.append(q) or "captured")
    records = [
        {"question": "ok?", "reference_answers": ["REF"]},
        {"question": "q?", "answer": "REF"},
        {"question": "r?", "response": "REF", "retrieved_contexts": ["c"]},
    ]
    with pytest.raises(DataError) as err:
        rl.collect(chain, records)
    message = str(err.value)
    assert "row 2, field 'answer'" in message and "'reference_answers'" in message
    assert "row 3, field 'response'" in message and "row 3, field 'retrieved_contexts'" in message
    assert "row 1" not in message and calls == []
    [sample] = rl.collect(chain, records[:1])
    assert (sample.answer, sample.reference_answers) == ("captured", ["REF"])


@pytest.mark.parametrize("workers", [1, 2])
def test_a_bare_retriever_gives_its_documents_and_no_answer(workers):
    """BaseRetriever.invoke ignores the run_id in its config (batch's only way to pass one)."""
    L = lc()
    retriever = L.Reverse(base=L.Fixed(docs=L.DOCS))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no answer is expected of a retriever: no warning
        samples = rl.collect(retriever, ["q1?", "q2?", "q3?"], max_concurrency=workers)
    assert [s.question for s in samples] == ["q1?", "q2?", "q3?"]
    assert all(s.context_ids == ["d3", "d2"] and s.answer is None for s in samples)


def test_a_runnable_ignoring_its_run_id_is_a_clear_error_not_empty_samples():
    from langchain_core.runnables import Runnable

    from ragmeter.errors import ConfigError

    L = lc()

    class Detached(Runnable):  # type: ignore[type-arg]
        def invoke(self, input: Any, config: Any = None, **kw: Any) -> Any:
            inner = L.Fixed(docs=L.DOCS) | L.Lambda(_answer)
            return inner.invoke(input, {"callbacks": config["callbacks"]})

    with pytest.raises(ConfigError, match=r"Detached did not start its run.*question 'q\?'"):
        rl.collect(Detached(), ["q?"])
    with pytest.raises(ConfigError, match="leave input_key out"):
        rl.collect(L.Fixed(docs=L.DOCS), ["q?"], input_key="query")
