"""LangChain: a real LCEL chain (FakeListLLM, DeterministicFakeEmbedding, InMemoryVectorStore)
run over questions, captured into samples and scored end to end with the scripted judge."""

from __future__ import annotations

import pytest

from integration_pipelines import ANSWERS, FACTS, QUESTIONS, langchain_chain
from ragmeter.integrations import langchain as rl
from ragmeter.testing import Evaluator

TEXTS = dict(FACTS)


def test_collect_captures_question_documents_ids_and_answer():
    samples = rl.collect(langchain_chain(k=2), QUESTIONS)
    assert [s.question_id for s in samples] == ["fr", "de"]
    for sample, answer, q in zip(samples, ANSWERS, QUESTIONS, strict=True):
        assert sample.question == q["question"]
        assert sample.answer == answer  # the FakeListLLM's reply, through the output parser
        assert len(sample.contexts) == 2 and len(sample.context_ids) == 2
        # each context is the page_content of the Document whose id is beside it
        for text, doc_id in zip(sample.contexts, sample.context_ids, strict=True):
            assert TEXTS[doc_id] == text
        assert sample.reference_context_ids == q["reference_context_ids"]
        assert sample.metadata["langchain_run_id"]


def test_chain_scored_end_to_end_with_the_scripted_judge():
    """All facts retrieved (k=3): the grounded answer is faithful, the invented one is not."""
    samples = rl.collect(langchain_chain(k=3), QUESTIONS)
    result = Evaluator(judge="scripted").evaluate(
        samples, ["faithfulness", "k_precision", "recall@5"], n_resamples=50
    )
    assert result.n_failed == 0, result.failures()
    scores = result.scores["faithfulness"]
    faith = {s.question_id: sc.value for s, sc in zip(samples, scores, strict=True)}
    assert faith["fr"] > 0.5 > faith["de"], faith
    assert [sc.value for sc in result.scores["recall@5"]] == [1.0, 1.0]
    assert result.aggregates["k_precision"].mean is not None


def test_handler_attached_by_the_user_records_each_top_level_call():
    chain = langchain_chain(k=1)
    handler = rl.RagmeterCallbackHandler()
    for q in QUESTIONS:
        chain.invoke(q["question"], config={"callbacks": [handler]})
    samples = handler.samples()
    assert [s.question for s in samples] == [q["question"] for q in QUESTIONS]
    assert [s.answer for s in samples] == ANSWERS
    assert all(len(s.contexts) == 1 and s.context_ids[0] in TEXTS for s in samples)


def test_dict_output_and_metadata_ids():
    """A chain returning {"answer": ..., "context": docs} (create_retrieval_chain's shape),
    documents without Document.id but with an id in their metadata."""
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import RunnableLambda, RunnablePassthrough

    class Fixed(BaseRetriever):
        def _get_relevant_documents(self, query, *, run_manager):  # type: ignore[no-untyped-def]
            return [Document(page_content=TEXTS["madrid"], metadata={"doc_key": "madrid"})]

    chain = {"docs": Fixed(), "question": RunnablePassthrough()} | RunnableLambda(
        lambda d: {"answer": "Madrid.", "context": d["docs"], "input": d["question"]}
    )
    [sample] = rl.collect(chain, ["Capital of Spain?"], id_key="doc_key")
    assert sample.answer == "Madrid."
    assert sample.contexts == [TEXTS["madrid"]] and sample.context_ids == ["madrid"]


def test_a_failing_chain_raises_its_own_error():
    from langchain_core.runnables import RunnableLambda

    def boom(_q: str) -> str:
        raise RuntimeError("pipeline broke")

    with pytest.raises(RuntimeError, match="pipeline broke"):
        rl.collect(RunnableLambda(boom), ["q?"])


def test_question_records_without_a_question_are_a_data_error_before_any_call():
    from ragmeter.errors import DataError

    with pytest.raises(DataError, match="row 2, field 'question'"):
        rl.collect(langchain_chain(), [{"question": "ok?"}, {"query": "no key"}])
