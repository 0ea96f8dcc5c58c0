"""Integration edge cases a demanding user meets: streamed LangChain runs, OpenInference
traces as the real OpenTelemetry SDK writes them, LlamaIndex engines that are not query
engines, and MLflow refusing part of a result."""

from __future__ import annotations

import asyncio
import json

import pytest

from integration_pipelines import ANSWERS, QUESTIONS, langchain_chain
from needs import require_module
from ragmeter.errors import ConfigError, DataError, OutputError
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


def test_a_handler_given_to_an_inner_runnable_says_so():
    """``retriever.with_config(callbacks=[handler])`` inside a chain: the handler sees the
    retrieval but never the top-level run. Before: ``samples()`` raised "no rows: the data is
    empty", though it had seen documents; a mixed use dropped those runs without a word."""
    from langchain_core.runnables import RunnableLambda

    handler = rl.callback_handler()
    retriever = langchain_chain().first.steps__["context"].first  # the vector store retriever
    inner = retriever.with_config(callbacks=[handler])
    chain = {"docs": inner, "question": RunnableLambda(lambda q: q)} | RunnableLambda(str)
    chain.invoke("Where is Paris?")
    with pytest.raises(ConfigError, match=r"attached to .*config=\{\"callbacks\": \[handler\]"):
        handler.samples()
    # given to the whole call as well, the turn it saw whole is kept and the others are said
    chain.invoke("Where is Berlin?", config={"callbacks": [handler]})
    with pytest.warns(RuntimeWarning, match="not attached to"):
        [sample] = handler.samples()
    assert sample.question == "Where is Berlin?" and len(sample.contexts) == 2


def test_a_failed_run_s_error_is_redacted_in_failures_and_the_warning():
    """A provider error echoing the API key: ``failures()`` and the warning of ``samples()``
    showed it verbatim (collect's PipelineFailed already redacted it)."""
    from langchain_core.runnables import RunnableLambda

    key = "sk-proj-abcdefghijklmnop1234567890"

    def reject(_: str) -> str:
        raise ValueError(f"Incorrect API key provided: {key}")

    handler = rl.callback_handler()
    chain = RunnableLambda(lambda q: q) | RunnableLambda(reject)
    with pytest.raises(ValueError):
        chain.invoke("Where is Paris?", config={"callbacks": [handler]})
    [failure] = handler.failures()
    assert key not in failure["error"] and "Incorrect API key provided" in failure["error"]
    with pytest.warns(RuntimeWarning) as said, pytest.raises(DataError):
        handler.samples()  # no run left to sample
    assert all(key not in str(w.message) for w in said)


def test_documents_of_which_only_some_have_ids_are_said():
    """An ensemble of a retriever with ids and one without: every context id was dropped (one
    missing spoils the list) and MRR/recall then skipped the sample, without a word."""
    from langchain_core.documents import Document
    from langchain_core.runnables import RunnableLambda

    docs = [Document(page_content="Paris.", id="paris"), Document(page_content="Lyon.")]
    retriever = _fixed(docs)
    chain = {"docs": retriever, "q": RunnableLambda(lambda q: q)} | RunnableLambda(lambda d: "P")
    with pytest.warns(RuntimeWarning, match="1 of 2 documents have no id"):
        [sample] = rl.collect(chain, ["Where is Paris?"])
    assert sample.contexts == ["Paris.", "Lyon."] and sample.context_ids is None


def _fixed(docs: list) -> object:
    from langchain_core.retrievers import BaseRetriever

    class Fixed(BaseRetriever):
        def _get_relevant_documents(self, query: str, *, run_manager: object) -> list:
            return list(docs)

    return Fixed()


def test_source_nodes_of_which_only_some_have_ids_are_said():
    require_module("llama_index.core")
    from llama_index.core.base.response.schema import Response
    from llama_index.core.schema import NodeRelationship, NodeWithScore, RelatedNodeInfo, TextNode

    from ragmeter.integrations import llamaindex as rli

    source = {NodeRelationship.SOURCE: RelatedNodeInfo(node_id="doc-paris")}
    nodes = [TextNode(text="Paris.", relationships=source), TextNode(text="Lyon.")]  # no source
    linked = Response(response="Paris", source_nodes=[NodeWithScore(node=n) for n in nodes])
    assert [n.ref_doc_id for n in nodes] == ["doc-paris", None]
    with pytest.warns(RuntimeWarning, match="1 of 2 source nodes have no ref_doc_id"):
        rec = rli.response_record(linked, "ref_doc_id", "Where is Paris?")
    assert "context_ids" not in rec


# ---- OpenInference traces --------------------------------------------------------------------

KIND = "openinference.span.kind"
TRACE = "ab" * 16


def _value(v: object) -> dict:
    """An OTLP AnyValue, as the OTLP JSON encoder writes it."""
    if isinstance(v, str):
        return {"stringValue": v}
    if isinstance(v, list):
        return {"arrayValue": {"values": [_value(x) for x in v]}}
    assert isinstance(v, dict)
    return {"kvlistValue": {"values": [{"key": k, "value": _value(x)} for k, x in v.items()]}}


def _span(span_id: str, parent: str | None, name: str, **attrs: object) -> dict:
    out = {
        "traceId": TRACE,
        "spanId": span_id * 8,
        "name": name,
        "attributes": [{"key": k, "value": _value(v)} for k, v in attrs.items()],
    }
    if parent:
        out["parentSpanId"] = parent * 8
    return out


def _otlp(*spans: dict) -> dict:
    return {"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]}


def _rag(retriever: dict) -> dict:
    root = {KIND: "CHAIN", "input.value": "Where is Zürich?", "output.value": "In Switzerland."}
    return _otlp(_span("01", None, "rag", **root), _span("02", "01", "retrieve", **retriever))


DOCS = [
    {"document.content": "Zürich is in Switzerland.", "document.id": "zh"},
    {"document": {"content": "Bern is the capital.", "metadata": {"id": "be"}}},
]


@pytest.mark.parametrize(
    "documents",
    [pytest.param(json.dumps(DOCS), id="json-string"), pytest.param(DOCS, id="otlp-kvlists")],
)
def test_retrieval_documents_given_whole_are_read_not_dropped(documents):
    """``retrieval.documents`` holding the list itself (a JSON string, or an array of kvlists)
    instead of flattened ``retrieval.documents.N.document.*`` attributes: before, the sample
    had no contexts and nothing said so."""
    from ragmeter.integrations import otel

    [sample] = otel.load_traces(_rag({KIND: "RETRIEVER", "retrieval.documents": documents}))
    assert sample.contexts == ["Zürich is in Switzerland.", "Bern is the capital."]
    assert sample.context_ids == ["zh", "be"]


def test_annotating_an_annotated_trace_replaces_the_earlier_scores():
    """Scores written back, the file evaluated again: the root span must hold the new verdict
    only (before: the old ``.status = failed`` and ``.reason`` stayed beside the new score)."""
    from ragmeter.integrations import otel
    from ragmeter.integrations.otel_export import annotate
    from ragmeter.integrations.otel_spans import read_spans
    from ragmeter.testing import Evaluator, ScriptedJudge

    doc = _rag({KIND: "RETRIEVER", "retrieval.documents.0.document.content": "In Switzerland."})
    failed = Evaluator(judge=ScriptedJudge(fail_on="Zürich")).evaluate(
        otel.load_traces(doc), ["faithfulness"]
    )
    first = annotate(failed, doc)
    scored = Evaluator(judge="scripted").evaluate(otel.load_traces(first), ["faithfulness"])
    assert scored.score("faithfulness", TRACE).status == "ok"
    [root] = [s for s in read_spans(annotate(scored, first)) if s.parent_id is None]
    mine = {k: v for k, v in root.attributes.items() if k.startswith("ragmeter.")}
    assert mine == {
        "ragmeter.faithfulness": pytest.approx(scored.score("faithfulness", TRACE).value)
    }
    assert len([e for e in root.events if e["name"] == "ragmeter.evaluation"]) == 2


def test_a_trace_whose_root_span_is_missing_is_said():
    """The root still running when a batch was exported: an LCEL chain's branches are left,
    each without its parent. Before, the retrieval branch's output (the joined passages) was
    taken as the answer without a word; faithfulness then scores the context against itself."""
    from ragmeter.integrations import otel

    branch = {KIND: "CHAIN", "input.value": "Where is Zürich?", "output.value": "Zürich is..."}
    parser = {KIND: "CHAIN", "input.value": "prompt", "output.value": "In Switzerland."}
    doc = _otlp(_span("02", "01", "context", **branch), _span("03", "01", "parser", **parser))
    with pytest.warns(RuntimeWarning, match=f"trace {TRACE}: 2 spans have no parent.*0101"):
        otel.load_traces(doc)


@pytest.mark.parametrize("parent", [None, "ff"], ids=["root", "remote-parent"])
def test_a_whole_trace_or_one_under_a_remote_parent_is_not_warned_about(parent, recwarn):
    from ragmeter.integrations import otel

    root = {KIND: "CHAIN", "input.value": "Where is Zürich?", "output.value": "In Switzerland."}
    leaf = {KIND: "RETRIEVER", "retrieval.documents.0.document.content": "Zürich is Swiss."}
    doc = _otlp(_span("01", parent, "rag", **root), _span("02", "01", "retrieve", **leaf))
    [sample] = otel.load_traces(doc)
    assert sample.answer == "In Switzerland." and sample.contexts == ["Zürich is Swiss."]
    assert not [w for w in recwarn if "no parent" in str(w.message)]


def test_an_error_span_keeps_its_description_when_written_back(tmp_path):
    """A span the SDK ended with ``Status(ERROR, "...")``, from live spans and from the
    ConsoleSpanExporter's JSON: annotate's OTLP kept code 2 but dropped the message."""
    require_module("opentelemetry.sdk")
    import io

    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.trace import Status, StatusCode

    from ragmeter.integrations.otel_spans import read_spans, to_otlp

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with provider.get_tracer("rag").start_as_current_span("rag") as span:
        span.set_status(Status(StatusCode.ERROR, "the model timed out"))
    spans = exporter.get_finished_spans()
    buf = io.StringIO()
    ConsoleSpanExporter(out=buf).export(spans)
    (tmp_path / "console.json").write_text(buf.getvalue())
    for source in (spans, tmp_path / "console.json"):
        [otlp] = to_otlp(read_spans(source))["resourceSpans"][0]["scopeSpans"][0]["spans"]
        assert otlp["status"] == {"code": 2, "message": "the model timed out"}


def test_annotating_traces_the_result_did_not_score_is_said():
    """Scores of one trace file written onto another: every trace was copied unchanged and
    the output looked annotated-but-empty, without a word (before: no warning)."""
    from ragmeter.integrations import otel
    from ragmeter.integrations.otel_export import annotate
    from ragmeter.testing import Evaluator

    doc = _rag({KIND: "RETRIEVER", "retrieval.documents.0.document.content": "In Switzerland."})
    result = Evaluator(judge="scripted").evaluate(otel.load_traces(doc), ["faithfulness"])
    other = json.loads(json.dumps(doc).replace(TRACE, "ef" * 16))
    with pytest.warns(RuntimeWarning, match=f"1 of the 1 samples .*first: '{TRACE}'"):
        annotate(result, other)


def test_a_sample_problem_in_a_trace_file_names_the_trace():
    """An empty question (``input.value = ""``): the sample check said "row 2, field
    'question': must not be empty", and a trace file has no row 2 to look at."""
    from ragmeter.integrations import otel

    root = {KIND: "CHAIN", "input.value": "", "output.value": "In Switzerland."}
    with pytest.raises(DataError, match=f"field 'question': trace {TRACE}: must not be empty"):
        otel.load_traces(_otlp(_span("01", None, "rag", **root)))


def test_a_text_plain_value_that_parses_as_json_is_kept_as_text():
    """``input.mime_type = text/plain`` says the value is text: a question that happens to be
    valid JSON (``[1, 2, 3]``) was parsed, found to hold no question, and the trace was a
    DataError; an answer ``{"city": "Paris", "country": "France"}`` was dropped with a
    warning."""
    from ragmeter.integrations import otel

    root = {
        KIND: "CHAIN",
        "input.value": "[1, 2, 3]",
        "input.mime_type": "text/plain",
        "output.value": '{"city": "Paris", "country": "France"}',
        "output.mime_type": "text/plain",
    }
    [sample] = otel.load_traces(_otlp(_span("01", None, "rag", **root)))
    assert (sample.question, sample.answer) == (root["input.value"], root["output.value"])


# ---- MLflow ----------------------------------------------------------------------------------


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A temporary SQLite tracking store (as in test_integrations_mlflow)."""
    require_module("mlflow")
    import mlflow

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    monkeypatch.chdir(tmp_path)
    mlflow.set_tracking_uri(uri)
    yield mlflow.MlflowClient(tracking_uri=uri)
    while mlflow.active_run() is not None:
        mlflow.end_run()
    mlflow.set_tracking_uri(None)


def _result():
    from conftest import make_row
    from ragmeter.testing import Evaluator

    rows = [make_row(i) for i in range(1, 4)]
    return Evaluator(judge="scripted").evaluate(rows, ["k_precision", "ndcg@10"], n_resamples=20)


@pytest.mark.parametrize("key", [".", "..", "..v2", "k" * 250])
def test_a_key_mlflow_would_refuse_is_refused_before_anything_is_logged(store, key):
    """``key=".."`` makes ``../n_samples``, which MLflow refuses after the params were logged
    (before: a raw MlflowException and a run holding the params only, which a retry is then
    refused into as 'already holds a ragmeter result')."""
    import mlflow

    from ragmeter.integrations import mlflow as rm

    with mlflow.start_run() as run, pytest.raises(ConfigError, match="MLflow refuses the key"):
        rm.log_result(_result(), key=key)
    data = store.get_run(run.info.run_id).data
    assert (data.params, data.metrics) == ({}, {})


def test_a_failure_half_way_is_a_ragmeter_error_and_marks_its_run_failed(
    store, tmp_path, monkeypatch
):
    """The artifact store refuses the files after params and metrics went in: the error says
    what is in the run, and the run ragmeter started is FAILED, not FINISHED (before: a raw
    NotADirectoryError and a FINISHED run with no table and no files)."""
    import mlflow

    from ragmeter.integrations import mlflow as rm

    (tmp_path / "a-file").write_text("not a directory")
    where = tmp_path / "a-file" / "artifacts"
    experiment = mlflow.create_experiment("broken", artifact_location=str(where))
    monkeypatch.setenv(
        "MLFLOW_EXPERIMENT_ID", experiment
    )  # not set_experiment: it outlives the test
    with pytest.raises(OutputError, match=r"after the params, the metrics .*marked FAILED"):
        rm.log_result(_result())
    [run] = store.search_runs([experiment])
    assert run.info.status == "FAILED"
    assert mlflow.active_run() is None


def test_two_metrics_logged_under_one_mlflow_key_are_refused():
    """``ndcg@10`` is logged as ``ndcg_at_10``: a custom metric of that name beside it would
    overwrite it in the metrics dict, one mean lost without a word (before: no error)."""
    require_module("mlflow")
    from types import SimpleNamespace

    from ragmeter.integrations import mlflow as rm

    both = SimpleNamespace(metrics=["ndcg@10", "ndcg_at_10"])
    with pytest.raises(ConfigError, match="'ndcg@10' and 'ndcg_at_10' are both logged"):
        rm.check_names(both, {}, None)  # type: ignore[arg-type]


# ---- LlamaIndex ------------------------------------------------------------------------------


def _index():
    require_module("llama_index.core")
    from llama_index.core import Document, VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding

    from integration_pipelines import FACTS

    docs = [Document(text=text, id_=doc_id) for doc_id, text in FACTS]
    return VectorStoreIndex.from_documents(docs, embed_model=MockEmbedding(embed_dim=8))


@pytest.mark.parametrize("on_error", ["raise", "skip"])
def test_a_chat_engine_is_a_config_error_up_front(on_error):
    """Before: every question "raised" AttributeError in "the query engine" (PipelineFailed;
    with on_error="skip" an empty list and a warning blaming the pipeline)."""
    from llama_index.core.llms import MockLLM

    from ragmeter.integrations import llamaindex as rli

    chat = _index().as_chat_engine(llm=MockLLM(max_tokens=8), chat_mode="context")
    with pytest.raises(ConfigError, match=r"ContextChatEngine is not a query engine.*chat engine"):
        rli.collect(chat, ["Where is Paris?"], on_error=on_error)


def test_response_record_reads_a_chat_response():
    """What the chat-engine error offers: an AgentChatResponse has a ``response_gen`` (a
    replay of its text) but no ``get_response``; before, it was taken for a stream and
    response_record raised AttributeError."""
    from llama_index.core.llms import MockLLM

    from ragmeter.integrations import llamaindex as rli

    chat = _index().as_chat_engine(llm=MockLLM(max_tokens=8), chat_mode="context")
    response = chat.chat("Where is Paris?")
    rec = rli.response_record(response, question="Where is Paris?")
    assert rec["answer"] == response.response and rec["answer"]
    assert len(rec["contexts"]) == len(rec["context_ids"]) == len(response.source_nodes) > 0


def test_a_bare_retriever_is_a_config_error_up_front():
    from ragmeter.integrations import llamaindex as rli

    with pytest.raises(ConfigError, match=r"VectorIndexRetriever is not a query engine.*retriever"):
        rli.collect(_index().as_retriever(), ["Where is Paris?"], on_error="skip")
