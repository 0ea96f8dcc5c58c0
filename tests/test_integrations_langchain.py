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

    from ragmeter.errors import PipelineFailed

    def boom(_q: str) -> str:
        raise RuntimeError("pipeline broke")

    with pytest.raises(PipelineFailed, match=r"1 of 1 questions raised.*pipeline broke") as err:
        rl.collect(RunnableLambda(boom), ["q?"])
    assert isinstance(err.value.__cause__, RuntimeError)  # the chain's own error, kept
    assert err.value.samples == [] and err.value.failures[0][0] == "q?"


def _flaky_chain():
    """A real chain (retriever -> answer) whose answer step raises on one question."""
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import RunnableLambda, RunnablePassthrough

    class Fixed(BaseRetriever):
        def _get_relevant_documents(self, query, *, run_manager):  # type: ignore[no-untyped-def]
            return [Document(page_content=TEXTS["paris"], metadata={"id": "paris"})]

    def answer(d):  # type: ignore[no-untyped-def]
        if "Spain" in d["question"]:
            raise RuntimeError("model timed out")
        return {"answer": "Paris.", "context": d["docs"], "input": d["question"]}

    return {"docs": Fixed(), "question": RunnablePassthrough()} | RunnableLambda(answer)


@pytest.mark.parametrize("concurrency", [1, 3])
def test_one_failing_question_loses_none_of_the_others(concurrency):
    """Before, the first exception was re-raised from chain.batch and every answer already
    captured was lost; now every question is asked and the others' samples are kept."""
    from ragmeter.errors import PipelineFailed

    qs = ["Capital of France?", "Capital of Spain?", "Where is Paris?"]
    with pytest.raises(
        PipelineFailed,
        match=r"1 of 3 questions raised in the chain: "
        r"'Capital of Spain\?': RuntimeError: model timed out",
    ) as err:
        rl.collect(_flaky_chain(), qs, max_concurrency=concurrency)
    assert [s.question for s in err.value.samples] == [qs[0], qs[2]]
    assert all(s.answer == "Paris." and s.contexts for s in err.value.samples)
    assert [q for q, _ in err.value.failures] == [qs[1]]
    with pytest.warns(RuntimeWarning, match=r"1 of 3 questions raised.*2 samples kept"):
        kept = rl.collect(_flaky_chain(), qs, on_error="skip", max_concurrency=concurrency)
    assert [s.question for s in kept] == [qs[0], qs[2]]


def test_a_failing_retriever_keeps_the_other_questions():
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever

    from ragmeter.errors import PipelineFailed

    class Flaky(BaseRetriever):
        def _get_relevant_documents(self, query, *, run_manager):  # type: ignore[no-untyped-def]
            if query == "bad?":
                raise ConnectionError("index down")
            return [Document(page_content=TEXTS["madrid"], metadata={"id": "madrid"})]

    with pytest.raises(PipelineFailed, match=r"raised in the retriever.*index down") as err:
        rl.collect(Flaky(), ["ok?", "bad?", "fine?"], max_concurrency=2)
    assert [s.question for s in err.value.samples] == ["ok?", "fine?"]


def test_on_error_must_be_raise_or_skip():
    from ragmeter.errors import ConfigError

    with pytest.raises(ConfigError, match="on_error must be 'raise' or 'skip'"):
        rl.collect(langchain_chain(), ["q?"], on_error="ignore")  # type: ignore[arg-type]


def test_question_records_without_a_question_are_a_data_error_before_any_call():
    from ragmeter.errors import DataError

    with pytest.raises(DataError, match="row 2, field 'question'"):
        rl.collect(langchain_chain(), [{"question": "ok?"}, {"query": "no key"}])
