"""OpenInference traces into samples: ``ragmeter evaluate traces.json --format otel``.

One trace is one sample, its id the trace id. Following the OpenInference semantic
conventions (attribute names read from ``openinference.semconv``, as Arize Phoenix and the
``openinference-instrumentation-*`` packages write them):

- question and answer: the root span's ``input.value`` / ``output.value`` (a JSON value is
  searched for ``question``/``input``/``query`` and ``answer``/``output``/``result``...; one
  whose ``input.mime_type`` / ``output.mime_type`` is ``text/plain`` is text as it is); when
  the root holds none, the first CHAIN or AGENT span that does; an LLM root's answer is its
  ``llm.output_messages.0.message.content``;
- contexts: the documents the generation saw (``contexts_of``): those of the top-level
  RETRIEVER spans (``retrieval.documents.N.document.content``), in start order then rank
  order, unless a RERANKER span took them: then its ``reranker.output_documents`` replace
  them. A RETRIEVER or RERANKER span inside another one is inner (its documents are the outer
  one's input) and is not read. ``document.id`` (else ``id`` in ``document.metadata``) gives
  the context ids and ``document.score`` ``metadata["context_scores"]``.

Traces with no OpenInference span (no ``openinference.span.kind``) are not RAG turns and are
left out; a RAG trace without a question is a DataError naming its trace id, one without an
answer a warning naming it (the sample is kept, without an answer). A JSON attribute value
read here (``input.value``, ``output.value``, ``document.metadata``) that gives a key twice
is a DataError naming the trace, span, attribute and key, as every JSON ragmeter reads
(``_json_rows``): ``json.loads`` kept the last of ``{"question": "a", "question": "b"}``
and scored "b" without a word. Needs ``pip install 'ragmeter[otel]'``.
"""

from __future__ import annotations

import dataclasses
import json
import re
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from ragmeter._json_rows import DuplicateKey, dotted, parse_json
from ragmeter.errors import DataError, Problem
from ragmeter.integrations._extras import require
from ragmeter.integrations.otel_spans import Span, read_spans
from ragmeter.sample import Sample, validate_records

EXTRA = "otel"
QUESTION_KEYS = ("question", "input", "query", "user_input")
ANSWER_KEYS = ("answer", "output", "result", "response", "text")
RETRIEVAL_KINDS = ("RETRIEVER", "RERANKER")


def _conventions() -> dict[str, str]:
    trace = require("openinference.semconv.trace", EXTRA)
    sa, da, ra = trace.SpanAttributes, trace.DocumentAttributes, trace.RerankerAttributes
    return {
        "kind": sa.OPENINFERENCE_SPAN_KIND,
        "input": sa.INPUT_VALUE,
        "output": sa.OUTPUT_VALUE,
        "docs": sa.RETRIEVAL_DOCUMENTS,
        "rerank_in": ra.RERANKER_INPUT_DOCUMENTS,
        "rerank_out": ra.RERANKER_OUTPUT_DOCUMENTS,
        "content": da.DOCUMENT_CONTENT,
        "id": da.DOCUMENT_ID,
        "score": da.DOCUMENT_SCORE,
        "metadata": da.DOCUMENT_METADATA,
        "llm_out": f"{sa.LLM_OUTPUT_MESSAGES}.0.{trace.MessageAttributes.MESSAGE_CONTENT}",
    }


def load_traces(source: Any) -> list[Sample]:
    """Samples from OpenInference traces: a file (OTLP JSON, or the SDK's span JSON as
    ConsoleSpanExporter writes it), an OTLP JSON dict, or SDK ReadableSpans."""
    names = _conventions()
    spans = read_spans(source)
    label = str(source) if isinstance(source, str) or hasattr(source, "suffix") else "traces"
    records, problems = [], []
    for trace_id, members in group_traces(spans).items():
        if not any(names["kind"] in s.attributes for s in members):
            continue
        _warn_rootless(trace_id, members)
        try:
            rec = trace_record(trace_id, members, names)
        except _RepeatedKey as exc:
            problems.append(exc.problem(trace_id, len(records) + len(problems) + 1))
            continue
        if rec.get("question") is None:
            problems.append(
                Problem(
                    len(records) + len(problems) + 1,
                    "question",
                    f"trace {trace_id}: no span holds the question ({names['input']} on the root "
                    "span or on a CHAIN/AGENT span)",
                )
            )
            continue
        if rec.get("answer") is None:
            warnings.warn(
                f"trace {trace_id} (question {rec['question']!r}): no span holds the answer "
                f"({names['output']} on the root span or on a CHAIN/AGENT span); the sample "
                "has no answer, so answer-based metrics will skip it",
                RuntimeWarning,
                stacklevel=2,
            )
        records.append(rec)
    if problems:
        raise DataError(problems, label)
    if not records:
        raise DataError(
            [Problem(None, None, f"no OpenInference spans: no span has {names['kind']}")], label
        )
    try:
        return validate_records(records, label)
    except DataError as exc:  # its rows are samples: a trace file has none, so name the trace
        ids = [str(r["question_id"]) for r in records]
        raise DataError([_in_trace(p, ids) for p in exc.problems], label, total=exc.total) from None


def _in_trace(problem: Problem, trace_ids: Sequence[str]) -> Problem:
    """A sample's problem, its message starting with the trace id (as the problems found
    here do): "row 2" alone cannot be found in a trace file."""
    if problem.row is None or not 0 < problem.row <= len(trace_ids):
        return problem
    return dataclasses.replace(
        problem, message=f"trace {trace_ids[problem.row - 1]}: {problem.message}"
    )


def group_traces(spans: Sequence[Span]) -> dict[str, list[Span]]:
    """Spans by trace id, each trace's spans by start time; traces in order of first start."""
    traces: dict[str, list[Span]] = {}
    for s in sorted(spans, key=lambda s: s.start_ns):
        traces.setdefault(s.trace_id, []).append(s)
    return traces


def tops(members: Sequence[Span]) -> list[Span]:
    """The spans of a trace whose parent is not in it (by start): the root, and any span
    whose parent was not exported."""
    ids = {s.span_id for s in members}
    return [s for s in members if not s.parent_id or s.parent_id not in ids]


def root_span(members: Sequence[Span]) -> Span:
    return (tops(members) or list(members))[0]


def _warn_rootless(trace_id: str, members: Sequence[Span]) -> None:
    """Several spans without their parent: the trace's root is not in the file (a root still
    running when a batch was exported, a span dropped), and which span held the turn is a
    guess. Said, since the guess can be wrong: without the root of an LCEL chain, the first
    CHAIN span with an output is the retrieval branch, and its text became the answer."""
    orphans = tops(members)
    if len(orphans) < 2 or any(not s.parent_id for s in orphans):  # one, or the root is there
        return
    missing = sorted({s.parent_id for s in orphans if s.parent_id})
    warnings.warn(
        f"trace {trace_id}: {len(orphans)} spans have no parent in it "
        f"({', '.join(repr(s.name) for s in orphans[:3])}"
        f"{', ...' if len(orphans) > 3 else ''}; missing parent span ids "
        f"{', '.join(missing[:3]) or 'none'}): its root span was not exported, so the question "
        f"and answer are read from {orphans[0].name!r} and the trace's CHAIN/AGENT spans, "
        "which may not be the turn's; export the trace after its root span ends",
        RuntimeWarning,
        stacklevel=3,
    )


def trace_record(trace_id: str, members: Sequence[Span], names: Mapping[str, str]) -> dict:
    root = root_span(members)
    kinds = [str(s.attributes.get(names["kind"], "")).upper() for s in members]
    chains = [s for s, k in zip(members, kinds, strict=True) if k in ("CHAIN", "AGENT")]
    question = _text(root, names["input"], QUESTION_KEYS)
    answer = _text(root, names["output"], ANSWER_KEYS)
    if kinds[members.index(root)] == "LLM" and names["llm_out"] in root.attributes:
        answer = str(root.attributes[names["llm_out"]])
    for span in chains:
        if question is None:
            question = _text(span, names["input"], QUESTION_KEYS)
        if answer is None:
            answer = _text(span, names["output"], ANSWER_KEYS)
    docs = contexts_of(trace_id, members, kinds, names)
    texts = [d["content"] for d in docs]
    ids = [d["id"] for d in docs]
    scores = [d["score"] for d in docs]
    rec: dict[str, Any] = {
        "question_id": trace_id,
        "question": question,
        "answer": answer,
        "contexts": texts,
        "metadata": {
            "trace_id": trace_id,
            "root_span_id": root.span_id,
            "root_span_name": root.name,
            "context_scores": scores,
        },
    }
    if texts and all(i is not None for i in ids):
        rec["context_ids"] = ids
    return rec


def contexts_of(
    trace_id: str, members: Sequence[Span], kinds: Sequence[str], names: Mapping[str, str]
) -> list[dict[str, Any]]:
    """The documents the generation saw: what the outermost retrieval spans passed on.

    Top-level RETRIEVER and RERANKER spans (none of their ancestors is one) are read in start
    order. A retriever adds its documents as one group; a reranker replaces the groups it took
    as input (any document of a group among its ``reranker.input_documents``; all groups so far
    when it records no input) by its ``reranker.output_documents``. So retrieve -> rerank gives
    the reranked list, two rerankers in a row the second's output, and two retrieval steps
    each reranked both reranked lists. A reranker that records no output documents cannot be
    followed: its input is kept, with a warning.
    """
    spans = {s.span_id: k for s, k in zip(members, kinds, strict=True)}
    parents = {s.span_id: s.parent_id for s in members}
    groups: list[list[dict[str, Any]]] = []
    for span, kind in zip(members, kinds, strict=True):
        if kind not in RETRIEVAL_KINDS or _inside_retrieval(span, spans, parents):
            continue
        if kind == "RETRIEVER":
            groups.append(documents(span, names))
            continue
        output = documents(span, names, names["rerank_out"])
        if not output:
            warnings.warn(
                f"trace {trace_id}: RERANKER span {span.name!r} records no "
                f"{names['rerank_out']}; the contexts keep the order before it",
                RuntimeWarning,
                stacklevel=4,
            )
            continue
        taken = {d["content"] for d in documents(span, names, names["rerank_in"])}
        groups = [g for g in groups if taken and not any(d["content"] in taken for d in g)]
        groups.append(output)
    return [d for g in groups for d in g]


def _inside_retrieval(span: Span, kinds: Mapping[str, str], parents: Mapping[str, Any]) -> bool:
    """Whether an ancestor of ``span`` is a RETRIEVER or RERANKER span (then it is inner)."""
    parent, seen = span.parent_id, set()
    while parent in kinds and parent not in seen:
        if kinds[parent] in RETRIEVAL_KINDS:
            return True
        seen.add(parent)
        parent = parents[parent]
    return False


def documents(
    span: Span, names: Mapping[str, str], prefix: str | None = None
) -> list[dict[str, Any]]:
    """The documents under ``prefix`` (a RETRIEVER span's ``retrieval.documents`` by
    default; a RERANKER's ``reranker.input_documents`` / ``output_documents``), in rank order."""
    key = names["docs"] if prefix is None else prefix
    pattern = re.compile(rf"^{re.escape(key)}\.(\d+)\.(.+)$")
    found: dict[int, dict[str, Any]] = {}
    for name, value in span.attributes.items():
        m = pattern.match(name)
        if m:
            found.setdefault(int(m.group(1)), {})[m.group(2)] = value
    if not found and key in span.attributes:
        found = _listed(_json(span.attributes[key], span, key))
    docs = []
    for rank, fields in sorted(found.items()):
        if names["content"] not in fields:
            continue
        doc_id = fields.get(names["id"])
        if doc_id is None:
            attribute = f"{key}.{rank}.{names['metadata']}"
            meta = _json(fields.get(names["metadata"]), span, attribute)
            doc_id = meta.get("id") if isinstance(meta, Mapping) else None
        score = fields.get(names["score"])
        docs.append(
            {
                "content": str(fields[names["content"]]),
                "id": None if doc_id is None else str(doc_id),
                "score": float(score) if isinstance(score, (int, float)) else None,
            }
        )
    return docs


def _listed(value: Any) -> dict[int, dict[str, Any]]:
    """Documents given whole under ``retrieval.documents`` (a JSON string, or an OTLP array
    of kvlists) rather than flattened into ``retrieval.documents.N.*`` attributes, as some
    exporters and span dumps write them: ``[{"document.content": ...}]`` or ``[{"document":
    {"content": ...}}]``, by rank. Read too: skipping them gave a trace no contexts, silently."""
    if not isinstance(value, list):
        return {}
    found: dict[int, dict[str, Any]] = {}
    for rank, item in enumerate(value):
        if isinstance(item, Mapping):
            found[rank] = {
                f"{k}.{inner}" if isinstance(v, Mapping) else str(k): w
                for k, v in item.items()
                for inner, w in (v.items() if isinstance(v, Mapping) else [(None, v)])
            }
    return found


class _RepeatedKey(Exception):
    """A JSON attribute value that gives a key twice: in which span and attribute (``within``:
    the keys leading to it when the value is a JSON string inside another's field). Never
    leaves ``load_traces``, which makes it a DataError's Problem."""

    def __init__(
        self, span: Span, attribute: str, error: DuplicateKey, within: Sequence[str] = ()
    ) -> None:
        super().__init__(error.reason())
        self.span, self.attribute, self.error, self.within = span, attribute, error, within

    def problem(self, trace_id: str, row: int) -> Problem:
        """The Problem of the sample (trace) ``row``: the attribute as its field."""
        where = dotted([*self.within, *self.error.path])
        inside = f" (in {where})" if where else ""
        return Problem(
            row,
            self.attribute,
            f"trace {trace_id}: span {self.span.name!r} (span id {self.span.span_id}): its "
            f"JSON value{inside}: {self.error.reason('the value')}",
        )


def _json(value: Any, span: Span, attribute: str, within: Sequence[str] = ()) -> Any:
    """A JSON attribute value parsed, else the value itself (text that only starts like JSON
    stays text); a key given twice raises _RepeatedKey (``_json_rows.parse_json``)."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return parse_json(value)
        except json.JSONDecodeError:
            return value
        except DuplicateKey as exc:
            raise _RepeatedKey(span, attribute, exc, within) from None
    return value


def _text(span: Span, attribute: str, keys: Sequence[str]) -> str | None:
    """A string from a span's input/output value: itself, or a JSON object's likely field."""
    value = span.attributes.get(attribute)
    mime = span.attributes.get(f"{attribute.rsplit('.', 1)[0]}.mime_type")  # input.mime_type
    if isinstance(value, str) and mime == "text/plain":
        return value  # said to be text: a question or answer that parses as JSON stays itself
    return _value_text(value, keys, span, attribute, ())


def _value_text(
    value: Any, keys: Sequence[str], span: Span, attribute: str, within: tuple[str, ...]
) -> str | None:
    """``_text`` of ``value``, found in ``attribute`` under the keys ``within`` (a field
    holding JSON text is read as JSON again)."""
    value = _json(value, span, attribute, within)
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        for key in keys:
            if key in value:
                return _value_text(value[key], keys, span, attribute, (*within, key))
        strings = [v for v in value.values() if isinstance(v, str)]
        return strings[0] if len(strings) == 1 else None
    return None
