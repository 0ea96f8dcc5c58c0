"""LlamaIndex: a real VectorStoreIndex query engine (MockEmbedding, MockLLM) run over
questions, its Response.source_nodes captured into samples and scored end to end."""

from __future__ import annotations

import pytest

from integration_pipelines import FACTS, QUESTIONS, llamaindex_engine
from ragmeter.errors import ConfigError
from ragmeter.integrations import llamaindex as rli
from ragmeter.testing import Evaluator

TEXTS = dict(FACTS)


def test_collect_captures_source_nodes_with_ids_and_scores():
    engine = llamaindex_engine(k=2)
    samples = rli.collect(engine, QUESTIONS)
    direct = engine.query(QUESTIONS[0]["question"])  # the same engine, asked by hand
    first = samples[0]
    assert first.answer == str(direct.response)
    assert first.contexts == [n.node.get_content() for n in direct.source_nodes]
    assert first.context_ids == [n.node.node_id for n in direct.source_nodes]
    assert first.metadata["context_scores"] == pytest.approx([n.score for n in direct.source_nodes])
    assert first.reference_answers == ["Paris"]


def test_ref_doc_ids_and_end_to_end_scores():
    """With document ids, retrieval metrics line up with the references; the MockLLM's
    filler answer ("text text ...") is judged unfaithful by the scripted judge."""
    samples = rli.collect(llamaindex_engine(k=2), QUESTIONS, id_source="ref_doc_id")
    for s in samples:
        assert [TEXTS[i] for i in s.context_ids] == s.contexts
    result = Evaluator(judge="scripted").evaluate(
        samples, ["faithfulness", "mrr", "k_precision"], n_resamples=50
    )
    assert result.n_failed == 0, result.failures()
    for s, mrr in zip(samples, result.scores["mrr"], strict=True):
        ref = s.reference_context_ids[0]
        expected = 1 / (s.context_ids.index(ref) + 1) if ref in s.context_ids else 0.0
        assert mrr.value == pytest.approx(expected)
    assert all(sc.value < 0.5 for sc in result.scores["faithfulness"])


def test_unknown_id_source_is_a_config_error():
    with pytest.raises(ConfigError, match="id_source"):
        rli.collect(llamaindex_engine(), ["q?"], id_source="nope")


def test_a_streaming_engine_gives_the_streamed_text_as_answer():
    """as_query_engine(streaming=True) returns a StreamingResponse: its stream is read."""
    plain = rli.collect(llamaindex_engine(k=2), QUESTIONS)
    streamed = rli.collect(llamaindex_engine(k=2, streaming=True), QUESTIONS)
    for s, p in zip(streamed, plain, strict=True):
        assert s.answer is not None and s.answer == p.answer
        assert len(s.contexts) == len(s.context_ids) == 2  # ties among MockEmbedding's
        assert all(text in TEXTS.values() for text in s.contexts)  # equal vectors vary


def test_an_answer_that_cannot_be_read_is_a_warning_naming_the_question():
    from llama_index.core.base.response.schema import AsyncStreamingResponse, Response

    engine = llamaindex_engine(k=1, streaming=True)
    read_elsewhere = engine.query("Capital?")
    for _token in read_elsewhere.response_gen:  # the user read the stream token by token
        pass
    with pytest.warns(RuntimeWarning, match=r"question 'Capital\?'.*the stream gave no text"):
        assert rli.response_record(read_elsewhere, question="Capital?")["answer"] is None

    async def tokens():  # type: ignore[no-untyped-def]
        yield "never read"

    not_awaited = AsyncStreamingResponse(response_gen=tokens())
    with pytest.warns(RuntimeWarning, match=r"question 'Async\?'.*async stream not consumed"):
        assert rli.response_record(not_awaited, question="Async?")["answer"] is None
    with pytest.warns(RuntimeWarning, match=r"question 'Empty\?'.*holds no text"):
        assert rli.response_record(Response(response=None), question="Empty?")["answer"] is None


def test_a_question_record_giving_an_answer_is_a_data_error_before_any_query():
    from ragmeter.errors import DataError

    class Engine:
        def query(self, question: str) -> None:
            raise AssertionError("no query may run")

    with pytest.raises(DataError, match=r"row 1, field 'answer'.*'reference_answers'"):
        rli.collect(Engine(), [{"question": "q?", "answer": "REF"}, "fine?"])
    with pytest.raises(DataError, match=r"row 2, field 'question'"):
        rli.collect(Engine(), ["fine?", {"query": "no question key"}])


def test_one_failing_query_loses_none_of_the_others():
    """Before, the first exception from .query ended collect and every answer already
    captured was lost; now every question is asked and the others' samples are kept."""
    from ragmeter.errors import PipelineFailed

    engine = llamaindex_engine(k=2)
    qs = [QUESTIONS[0]["question"], QUESTIONS[1]["question"], "Where is Madrid?"]

    class Flaky:
        def query(self, q):  # type: ignore[no-untyped-def]
            if q == qs[1]:
                raise TimeoutError("LLM timed out")
            return engine.query(q)

    with pytest.raises(PipelineFailed, match="1 of 3 questions raised in the query engine") as err:
        rli.collect(Flaky(), qs)
    assert [s.question for s in err.value.samples] == [qs[0], qs[2]]
    assert isinstance(err.value.__cause__, TimeoutError)
    with pytest.warns(RuntimeWarning, match="LLM timed out.*2 samples kept"):
        assert len(rli.collect(Flaky(), qs, on_error="skip")) == 2
