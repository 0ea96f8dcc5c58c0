"""LlamaIndex: run questions through a query engine and capture what ragmeter scores.

A query engine's ``Response`` already holds everything: ``str(response)`` is the answer and
``response.source_nodes`` the retrieved nodes, in rank order, each with its node id, text
and retrieval score. The ids become ``context_ids`` (so retrieval metrics such as MRR work
against ``reference_context_ids``) and the scores go to ``metadata["context_scores"]``.
A streaming engine (``as_query_engine(streaming=True)``) returns a ``StreamingResponse``:
its token stream is read to the end (``get_response()``, which keeps the text on the
response) and that text is the answer. An answer that cannot be had (an async stream not
consumed yet, a stream already read elsewhere, a Response without text) leaves the sample
without one, with a warning naming the question. Needs ``pip install 'ragmeter[llamaindex]'``.

    from ragmeter.integrations import llamaindex as rli
    samples = rli.collect(index.as_query_engine(), ["What is the capital of France?"])
    result = ragmeter.evaluate(samples, ["faithfulness", "mrr"])
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from ragmeter.errors import ConfigError
from ragmeter.integrations._extras import require
from ragmeter.integrations._questions import OnError, check_on_error, finish, question_records
from ragmeter.sample import Sample, validate_records

EXTRA = "llamaindex"


ID_SOURCES = ("node_id", "ref_doc_id")


def response_record(
    response: Any, id_source: str = "node_id", question: str | None = None
) -> dict[str, Any]:
    """The answer, contexts, context ids and retrieval scores of one LlamaIndex Response.

    ``id_source``: ``node_id`` (the chunk, the default) or ``ref_doc_id`` (the document the
    chunk came from, when the references name documents rather than chunks). ``question``
    names the turn in the warning given when the answer cannot be read.
    """
    nodes = list(getattr(response, "source_nodes", None) or [])
    texts, ids, scores = [], [], []
    for item in nodes:
        node = getattr(item, "node", item)  # NodeWithScore, or a bare node
        texts.append(node.get_content())
        ids.append(getattr(node, id_source, None))
        scores.append(getattr(item, "score", None))
    answer, why = answer_of(response)
    if answer is None:
        warnings.warn(
            f"LlamaIndex {type(response).__name__} (question {question!r}): {why}; the sample "
            "has no answer, so answer-based metrics will skip it",
            RuntimeWarning,
            stacklevel=2,
        )
    rec: dict[str, Any] = {
        "answer": answer,
        "contexts": texts,
        "metadata": {"context_scores": scores},
    }
    if texts and all(i is not None for i in ids):
        rec["context_ids"] = [str(i) for i in ids]
    elif any(i is not None for i in ids):
        warnings.warn(
            f"LlamaIndex {type(response).__name__} (question {question!r}): {ids.count(None)} "
            f"of {len(ids)} source nodes have no {id_source}, so the sample has no context_ids "
            "and id-based retrieval metrics will skip it",
            RuntimeWarning,
            stacklevel=2,
        )
    return rec


def answer_of(response: Any) -> tuple[str | None, str]:
    """The answer text of a Response, StreamingResponse or PydanticResponse, or None and why."""
    # A chat response (AgentChatResponse) has a response_gen too, replaying its text, but no
    # get_response: its text is in .response, as a Response's.
    stream = getattr(response, "response_gen", None) if hasattr(response, "get_response") else None
    if stream is not None and getattr(response, "response_txt", None) is None:
        if hasattr(stream, "__anext__"):
            return None, "an async stream not consumed yet (await response.get_response() first)"
        text = response.get_response().response  # reads the stream to its end, keeps the text
        if not text:
            return None, "the stream gave no text (was response_gen read elsewhere first?)"
        return str(text), ""
    if stream is not None:  # a stream already read: its text is kept on the response
        return str(response.response_txt), ""
    answer = getattr(response, "response", None)
    if answer is None:
        return None, "the response holds no text (response.response is None)"
    if hasattr(answer, "model_dump_json"):  # PydanticResponse: the structured output as JSON
        return str(answer.model_dump_json()), ""
    return str(answer), ""


def _check_engine(engine: Any) -> None:
    """A chat engine or a bare retriever has no ``query``: said once, up front, rather than as
    every question "raising" AttributeError in the engine (``on_error="skip"`` then returned
    no samples, with a warning that blamed the pipeline)."""
    if callable(getattr(engine, "query", None)):
        return
    name = type(engine).__name__
    hint = ""
    if callable(getattr(engine, "chat", None)):
        hint = (
            ": a chat engine keeps each question's history for the next; evaluate the "
            "index's query engine (index.as_query_engine(...)), or call response_record on "
            "each engine.chat(question) response"
        )
    elif callable(getattr(engine, "retrieve", None)):
        hint = ": a retriever gives no answer; wrap it, RetrieverQueryEngine.from_args(retriever)"
    raise ConfigError(f"{name} is not a query engine (it has no query method){hint}")


def collect(
    query_engine: Any,
    questions: Sequence[str | Mapping[str, Any]],
    *,
    id_source: str = "node_id",
    on_error: OnError = "raise",
) -> list[Sample]:
    """Ask ``query_engine`` every question (``.query``) and return one Sample each.

    ``questions`` are strings, or records holding ``question`` and whatever else the sample
    should carry (``question_id``, ``reference_answers``, ``reference_context_ids``,
    ``metadata``...); not what the engine produces (``answer``, ``contexts``,
    ``context_ids``: a DataError before any query, see ``_questions``). Questions run one
    after another, in order. ``id_source``: see ``response_record``. Every question is
    asked even when some raise: ``on_error="raise"`` (default) then raises
    ``PipelineFailed`` holding the other questions' samples (``.samples``) and each failure
    (``.failures``); ``"skip"`` returns those samples with a warning naming the failures.
    """
    require("llama_index.core", EXTRA)
    if id_source not in ID_SOURCES:
        raise ConfigError(f"id_source must be one of {', '.join(ID_SOURCES)}, not {id_source!r}")
    check_on_error(on_error)
    _check_engine(query_engine)
    records = question_records(questions, "the query engine")
    rows, failures = [], []
    for rec in records:
        try:
            response = query_engine.query(rec["question"])
        except Exception as exc:  # the caller's engine: kept and reported, not raised here
            failures.append((rec["question"], exc))
            continue
        got = response_record(response, id_source, rec["question"])
        meta = {**dict(rec.get("metadata") or {}), **got.pop("metadata")}
        rows.append({**rec, **got, "metadata": meta})
    samples = validate_records(rows, "LlamaIndex query engine") if rows or not records else []
    return finish(samples, failures, len(records), "the query engine", on_error)
