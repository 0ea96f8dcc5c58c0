"""A key given twice in OpenInference trace JSON is refused, as in every JSON ragmeter reads:
in an attribute value that holds JSON (``input.value``, ``output.value``, a document's
``document.metadata``), where ``json.loads`` kept the last of ``{"question": "a",
"question": "b"}`` and the sample was scored on "b"; and in the trace file itself. Text that
only starts like JSON is still text. Hand-written OTLP JSON files."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import ragmeter
from needs import require_module
from ragmeter.cli import app
from ragmeter.errors import DataError

TRACE, TRACE2 = "ab" * 16, "ef" * 16
ROOT, RETRIEVER = "cd" * 8, "12" * 8


@pytest.fixture(autouse=True)
def _otel():
    require_module("openinference.semconv")


def _span(trace: str, span: str, name: str, attrs: dict, parent: str | None = None) -> dict:
    out = {
        "traceId": trace,
        "spanId": span,
        "name": name,
        "startTimeUnixNano": "1" if parent else "0",
        "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()],
    }
    return {**out, "parentSpanId": parent} if parent else out


def _rag(trace: str = TRACE, question: str = "Q?", answer: str = "A.", meta: str = "") -> list:
    """One RAG turn: a CHAIN root with input/output values, a RETRIEVER with one document
    (its id only in ``document.metadata`` when ``meta`` is given)."""
    doc = {"retrieval.documents.0.document.content": "Paris is in France."}
    if meta:
        doc["retrieval.documents.0.document.metadata"] = meta
    else:
        doc["retrieval.documents.0.document.id"] = "d1"
    return [
        _span(
            trace,
            ROOT,
            "rag",
            {"openinference.span.kind": "CHAIN", "input.value": question, "output.value": answer},
        ),
        _span(trace, RETRIEVER, "retrieve", {"openinference.span.kind": "RETRIEVER", **doc}, ROOT),
    ]


def _write(tmp_path, spans: list, name: str = "traces.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}, indent=1))
    return path


def _problems(path) -> list[str]:
    with pytest.raises(DataError) as info:
        ragmeter.load(path, format="otel")
    assert info.value.source == str(path)
    return [str(p) for p in info.value.problems]


def test_a_repeated_key_in_input_value_names_trace_span_attribute_and_key(tmp_path):
    path = _write(tmp_path, _rag(question='{"question": "a", "question": "b"}'))
    [problem] = _problems(path)
    assert problem.startswith("row 1, field 'input.value': ")
    assert f"trace {TRACE}: span 'rag' (span id {ROOT})" in problem
    assert "the key 'question' is given twice" in problem
    assert "column 19 of the value" in problem  # where the second "question" starts


def test_a_repeated_key_in_output_value_or_in_json_inside_it(tmp_path):
    path = _write(tmp_path, _rag(answer='{"answer": "x", "answer": "y"}'))
    [problem] = _problems(path)
    assert "field 'output.value'" in problem and "the key 'answer' is given twice" in problem
    nested = json.dumps({"input": '{"query": "x", "query": "y"}'})  # JSON text in a field
    [problem] = _problems(_write(tmp_path, _rag(question=nested), "nested.json"))
    assert "field 'input.value'" in problem and "(in input)" in problem
    assert "the key 'query' is given twice" in problem


def test_a_repeated_key_in_a_documents_metadata(tmp_path):
    path = _write(tmp_path, _rag(meta='{"id": "d1", "source": "wiki", "id": "d2"}'))
    [problem] = _problems(path)
    assert "field 'retrieval.documents.0.document.metadata'" in problem
    assert f"span 'retrieve' (span id {RETRIEVER})" in problem
    assert "the key 'id' is given twice" in problem


def test_every_trace_with_a_repeated_key_is_named_at_once(tmp_path):
    spans = _rag(question='{"query": "a", "query": "b"}')
    spans += _rag(TRACE2, answer='{"text": "a", "text": "b"}')
    problems = _problems(_write(tmp_path, spans))
    assert [p.split(":")[0] for p in problems] == [
        "row 1, field 'input.value'",
        "row 2, field 'output.value'",
    ]
    assert TRACE in problems[0] and TRACE2 in problems[1]


def test_text_that_only_starts_like_json_is_still_text(tmp_path):
    question = "{not json} what is the capital of France?"
    [sample] = ragmeter.load(_write(tmp_path, _rag(question=question)), format="otel")
    assert sample.question == question
    meta = '{"id": "d7", "tags": ["a", "b"]}'  # valid JSON, no key repeated: read as before
    path = _write(tmp_path, _rag(question='{"question": "Q?"}', meta=meta), "ok.json")
    [sample] = ragmeter.load(path, format="otel")
    assert (sample.question, sample.context_ids) == ("Q?", ["d7"])


def test_the_cli_refuses_before_scoring(tmp_path):
    path = _write(tmp_path, _rag(question='{"question": "a", "question": "b"}'))
    res = CliRunner().invoke(app, ["evaluate", str(path), "--format", "otel", "-m", "k_precision"])
    assert res.exit_code == 2, res.output
    assert "the key 'question' is given twice" in " ".join(res.output.split())


def test_a_repeated_key_in_the_trace_file_itself(tmp_path):
    """OTLP JSON (one document) and one OTLP object a line: the key, where it is."""
    doc = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": _rag()}]}]}, indent=1)
    dup = doc.replace('"name": "rag"', '"name": "rag", "name": "other"')
    path = tmp_path / "dup.json"
    path.write_text(dup)
    [problem] = _problems(path)
    line = dup[: dup.index('"name": "other"')].count("\n") + 1
    assert "field 'resourceSpans[0].scopeSpans[0].spans[0].name'" in problem
    assert f"the key 'name' is given twice in one object (the second at line {line}," in problem
    one = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": _rag()}]}]})
    two = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": _rag(TRACE2)}]}]})
    lines = tmp_path / "lines.json"
    lines.write_text(one + "\n" + two.replace('"traceId"', '"traceId": "x", "traceId"', 1) + "\n")
    [problem] = _problems(lines)
    assert "the key 'traceId' is given twice in one object (the second at line 2, column" in (
        problem
    )
    lines.write_text(one + "\n" + two + "\n")  # no key repeated: both traces load
    assert [s.question_id for s in ragmeter.load(lines, format="otel")] == [TRACE, TRACE2]


def test_an_attribute_given_twice_in_one_list_is_refused(tmp_path):
    """OTLP attribute keys are unique; a list naming ``input.value`` twice was read as a dict
    that kept the last question without a word. From a file and from a dict alike."""
    spans = _rag(question="first?")
    spans[0]["attributes"].append({"key": "input.value", "value": {"stringValue": "second?"}})
    [problem] = _problems(_write(tmp_path, spans))
    assert (
        f"the attribute 'input.value' is given twice in the attributes of span 'rag' "
        f"(span id {ROOT})" in problem
    )
    with pytest.raises(DataError, match=r"'input\.value' is given twice"):
        ragmeter.load({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}, format="otel")
    spans = _rag()
    spans[1]["events"] = [
        {"name": "e", "attributes": [{"key": "k", "value": {}}, {"key": "k", "value": {}}]}
    ]
    [problem] = _problems(_write(tmp_path, spans, "event.json"))
    assert "'k' is given twice in an event's attributes in span 'retrieve'" in problem
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": "a"}}] * 2}
    doc = {"resourceSpans": [{"resource": resource, "scopeSpans": [{"spans": _rag()}]}]}
    path = tmp_path / "resource.json"
    path.write_text(json.dumps(doc))
    [problem] = _problems(path)
    assert "'service.name' is given twice in a resource's attributes" in problem
