"""OpenInference traces: a real LCEL chain instrumented with openinference-instrumentation-
langchain and the OpenTelemetry SDK; its spans exported three ways (in memory, the SDK's
ConsoleSpanExporter JSON, OTLP JSON from the OTLP exporter's own encoder), loaded back into
samples and scored, through Python and through `ragmeter evaluate --format otel`."""

from __future__ import annotations

import io
import json

import pytest
from typer.testing import CliRunner

import ragmeter
from integration_pipelines import ANSWERS, FACTS, QUESTIONS, langchain_chain
from needs import require_module
from ragmeter.errors import DataError
from ragmeter.integrations import otel
from ragmeter.integrations.otel_export import annotate
from ragmeter.integrations.otel_spans import read_spans
from ragmeter.testing import Evaluator, ScriptedJudge

TEXTS = dict(FACTS)


@pytest.fixture(scope="module")
def spans():
    """Finished SDK spans of two chain calls, traced by OpenInference's LangChain instrumentor."""
    require_module("opentelemetry.sdk")
    instr = require_module("openinference.instrumentation.langchain")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor = instr.LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        chain = langchain_chain(k=2)
        for q in QUESTIONS:
            chain.invoke(q["question"])
    finally:
        instrumentor.uninstrument()
    return exporter.get_finished_spans()


def _console_json(spans, path):
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter

    buf = io.StringIO()
    ConsoleSpanExporter(out=buf).export(spans)  # pretty JSON objects one after another
    path.write_text(buf.getvalue())
    return path


def _otlp_json(spans, path):
    """OTLP JSON written by OpenTelemetry's own encoder (protobuf's JSON mapping)."""
    require_module("opentelemetry.exporter.otlp.proto.common")
    from google.protobuf.json_format import MessageToJson
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    path.write_text(MessageToJson(encode_spans(spans)))
    return path


def _check(samples, spans):
    trace_ids = {f"{s.context.trace_id:032x}" for s in spans}
    assert {s.question_id for s in samples} == trace_ids
    assert [s.question for s in samples] == [q["question"] for q in QUESTIONS]
    assert [s.answer for s in samples] == ANSWERS
    for s in samples:
        assert len(s.contexts) == 2
        assert [TEXTS[i] for i in s.context_ids] == s.contexts
        assert s.metadata["trace_id"] == s.question_id


def test_in_memory_spans_load_into_samples(spans):
    _check(otel.load_traces(spans), spans)


def test_console_exporter_json_and_otlp_json_give_the_same_samples(spans, tmp_path):
    console = ragmeter.load(_console_json(spans, tmp_path / "spans.json"), format="otel")
    otlp = ragmeter.load(_otlp_json(spans, tmp_path / "otlp.json"), format="otel")
    _check(console, spans)
    assert [s.model_dump() for s in otlp] == [s.model_dump() for s in console]


def test_cli_evaluate_format_otel_with_a_judge_on_the_fake_server(spans, tmp_path):
    import fake_server
    from ragmeter.cli import app

    path = _otlp_json(spans, tmp_path / "traces.json")
    out = tmp_path / "run"
    with fake_server.FakeOpenAIServer() as server:
        done = CliRunner().invoke(
            app,
            [
                "evaluate", str(path), "--format", "otel", "-m", "k_precision,faithfulness",
                "--judge", "openai:fake", "--base-url", server.url, "--embedder", "none",
                "--cache", "off", "-o", str(out), "-q",
            ],
            env={"OPENAI_API_KEY": "sk-test-not-a-real-key"},
        )  # fmt: skip
        assert server.calls > 0, "the judge was asked"
    assert done.exit_code == 0, done.output
    rows = [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]
    assert {r["question_id"] for r in rows} == {f"{s.context.trace_id:032x}" for s in spans}
    assert all(r["faithfulness"] is not None and r["k_precision"] is not None for r in rows)
    assert json.loads((out / "run.json").read_text())["input"]["file"] == "traces.json"


def test_without_format_an_otlp_file_says_to_use_it(spans, tmp_path):
    with pytest.raises(DataError, match="--format otel"):
        ragmeter.load(_otlp_json(spans, tmp_path / "otlp.json"))


def test_scores_written_back_onto_root_spans_and_read_again(spans, tmp_path):
    samples = otel.load_traces(spans)
    judge = ScriptedJudge(fail_on="Mars")  # the second turn's judge calls fail
    result = Evaluator(judge=judge).evaluate(samples, ["faithfulness", "k_precision"])
    out = tmp_path / "annotated.json"
    annotate(result, spans, out)
    back = read_spans(out)
    assert len(back) == len(spans)
    for sample in samples:
        members = [s for s in back if s.trace_id == sample.question_id]
        root = otel.root_span(members)
        assert root.name == "RunnableSequence" and root.parent_id is None
        want = result.score("k_precision", sample.question_id).value
        assert root.attributes["ragmeter.k_precision"] == pytest.approx(want)
        faith = result.score("faithfulness", sample.question_id)
        [event] = [e for e in root.events if e["name"] == "ragmeter.evaluation"]
        assert event["attributes"]["ragmeter.k_precision"] == pytest.approx(want)
        if "Mars" in sample.answer:
            assert root.attributes["ragmeter.faithfulness.status"] == faith.status == "failed"
            assert root.attributes["ragmeter.faithfulness.reason"] == faith.reason
        else:
            assert root.attributes["ragmeter.faithfulness"] == pytest.approx(faith.value)
    # the annotated export is still a trace file ragmeter (and any OTLP reader) can load
    again = ragmeter.load(out, format="otel")
    assert [s.model_dump() for s in again] == [s.model_dump() for s in samples]


def test_hand_made_spans_with_document_ids_and_scores():
    """Spans emitted by hand with the OpenInference attribute names (no instrumentor)."""
    require_module("opentelemetry.sdk")
    from openinference.semconv.trace import DocumentAttributes as D
    from openinference.semconv.trace import SpanAttributes as A
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("rag")
    with tracer.start_as_current_span("rag") as root:
        root.set_attributes({A.OPENINFERENCE_SPAN_KIND: "CHAIN", A.INPUT_VALUE: '{"query": "Q?"}'})
        with tracer.start_as_current_span("retrieve") as ret:
            ret.set_attribute(A.OPENINFERENCE_SPAN_KIND, "RETRIEVER")
            for i, (doc_id, score) in enumerate([("b", 0.9), ("a", 0.4)]):
                prefix = f"{A.RETRIEVAL_DOCUMENTS}.{i}."
                ret.set_attribute(prefix + D.DOCUMENT_ID, doc_id)
                ret.set_attribute(prefix + D.DOCUMENT_CONTENT, f"text {doc_id}")
                ret.set_attribute(prefix + D.DOCUMENT_SCORE, score)
        root.set_attribute(A.OUTPUT_VALUE, '{"answer": "A."}')
    with tracer.start_as_current_span("not-openinference"):
        pass  # a trace without OpenInference spans is not a RAG turn: left out
    [sample] = otel.load_traces(exporter.get_finished_spans())
    assert (sample.question, sample.answer) == ("Q?", "A.")
    assert sample.contexts == ["text b", "text a"] and sample.context_ids == ["b", "a"]
    assert sample.metadata["context_scores"] == [0.9, 0.4]


def test_a_rag_trace_without_a_question_is_a_data_error_naming_it():
    doc = {
        "resourceSpans": [
            {
                "scopeSpans": [
                    {
                        "spans": [
                            {
                                "traceId": "ab" * 16,
                                "spanId": "cd" * 8,
                                "name": "retrieve",
                                "attributes": [
                                    {
                                        "key": "openinference.span.kind",
                                        "value": {"stringValue": "RETRIEVER"},
                                    }
                                ],
                            }
                        ]
                    }
                ]
            }
        ]
    }
    with pytest.raises(DataError, match="trace abab"):
        otel.load_traces(doc)
