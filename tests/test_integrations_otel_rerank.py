"""OpenInference traces with nested retrievers and rerankers, emitted by hand through the
OpenTelemetry SDK with the semantic conventions' attribute names: the contexts are what the
generation saw (the outer retriever's output, or the reranker's), not every retrieval."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from needs import require_module
from ragmeter.integrations import otel


class Tracer:
    """A tracer writing to memory, and the OpenInference names it uses."""

    def __init__(self) -> None:
        require_module("opentelemetry.sdk")
        from openinference.semconv import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        self.A, self.D, self.R = (
            trace.SpanAttributes,
            trace.DocumentAttributes,
            trace.RerankerAttributes,
        )
        self.exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.tracer = provider.get_tracer("rag")

    @contextlib.contextmanager
    def span(self, name: str, kind: str, **attrs: Any) -> Iterator[Any]:
        with self.tracer.start_as_current_span(name) as span:
            span.set_attribute(self.A.OPENINFERENCE_SPAN_KIND, kind)
            span.set_attributes(attrs)
            yield span

    def docs(self, span: Any, prefix: str, ids: list[str]) -> None:
        for i, doc_id in enumerate(ids):
            span.set_attribute(f"{prefix}.{i}.{self.D.DOCUMENT_ID}", doc_id)
            span.set_attribute(f"{prefix}.{i}.{self.D.DOCUMENT_CONTENT}", f"text {doc_id}")
            span.set_attribute(f"{prefix}.{i}.{self.D.DOCUMENT_SCORE}", 1.0 - i / 10)

    def chain(self, question: str = "Q?", answer: str | None = "A.") -> Any:
        attrs = {self.A.INPUT_VALUE: question}
        if answer is not None:
            attrs[self.A.OUTPUT_VALUE] = answer
        return self.span("rag", "CHAIN", **attrs)

    def load(self) -> list[Any]:
        return otel.load_traces(self.exporter.get_finished_spans())


def test_a_retriever_inside_a_retriever_is_inner():
    t = Tracer()
    with t.chain(), t.span("rerank-retriever", "RETRIEVER") as outer:
        with t.span("base-retriever", "RETRIEVER") as inner:
            t.docs(inner, t.A.RETRIEVAL_DOCUMENTS, ["d0", "d1", "d2", "d3"])
        t.docs(outer, t.A.RETRIEVAL_DOCUMENTS, ["d3", "d2"])
    [sample] = t.load()
    assert sample.context_ids == ["d3", "d2"]
    assert sample.contexts == ["text d3", "text d2"]


def test_a_reranker_span_gives_the_contexts_in_its_order():
    """retrieve -> rerank (LlamaIndex's node postprocessors): the reranked list, not the
    retrieved one; a second retrieval step that no reranker took is kept after it."""
    t = Tracer()
    with t.chain():
        with t.span("retrieve", "RETRIEVER") as ret:
            t.docs(ret, t.A.RETRIEVAL_DOCUMENTS, ["d0", "d1", "d2", "d3"])
        with t.span("rerank", "RERANKER") as rr:
            t.docs(rr, t.R.RERANKER_INPUT_DOCUMENTS, ["d0", "d1", "d2", "d3"])
            t.docs(rr, t.R.RERANKER_OUTPUT_DOCUMENTS, ["d3", "d2"])
        with t.span("retrieve-more", "RETRIEVER") as more:
            t.docs(more, t.A.RETRIEVAL_DOCUMENTS, ["e0"])
    [sample] = t.load()
    assert sample.context_ids == ["d3", "d2", "e0"]
    assert sample.metadata["context_scores"] == [1.0, 0.9, 1.0]  # the reranker's scores


def test_two_rerankers_in_a_row_give_the_second_ones_output():
    t = Tracer()
    with t.chain():
        with t.span("retrieve", "RETRIEVER") as ret:
            t.docs(ret, t.A.RETRIEVAL_DOCUMENTS, ["d0", "d1", "d2"])
        with t.span("cutoff", "RERANKER") as first:
            t.docs(first, t.R.RERANKER_INPUT_DOCUMENTS, ["d0", "d1", "d2"])
            t.docs(first, t.R.RERANKER_OUTPUT_DOCUMENTS, ["d0", "d1"])
        with t.span("cross-encoder", "RERANKER") as second:
            t.docs(second, t.R.RERANKER_INPUT_DOCUMENTS, ["d0", "d1"])
            t.docs(second, t.R.RERANKER_OUTPUT_DOCUMENTS, ["d1", "d0"])
    [sample] = t.load()
    assert sample.context_ids == ["d1", "d0"]


def test_a_reranker_without_output_documents_is_said_and_the_retrieval_kept():
    t = Tracer()
    with t.chain():
        with t.span("retrieve", "RETRIEVER") as ret:
            t.docs(ret, t.A.RETRIEVAL_DOCUMENTS, ["d0", "d1"])
        with t.span("hidden-rerank", "RERANKER"):
            pass
    with pytest.warns(RuntimeWarning, match="'hidden-rerank' records no reranker.output_documents"):
        [sample] = t.load()
    assert sample.context_ids == ["d0", "d1"]


def test_a_trace_without_an_answer_is_said_naming_the_question():
    t = Tracer()
    with t.chain(question="Where is it?", answer=None):
        pass
    with pytest.warns(RuntimeWarning, match="question 'Where is it\\?'.*no span holds the answer"):
        [sample] = t.load()
    assert sample.answer is None
