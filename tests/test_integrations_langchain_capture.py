"""LangChain capture edge cases, on real LangChain runnables built offline: nested
retrievers (rerank, ensemble), retrievers under tools, content-block answers, failed runs,
bare retrievers and question records that carry captured fields."""

from __future__ import annotations

import functools
from types import SimpleNamespace
from typing import Any

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
