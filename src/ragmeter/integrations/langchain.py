"""LangChain: run questions through a user's chain and capture what ragmeter scores.

A callback handler sees the chain from inside, whatever its shape: every top-level retriever
that runs under a top-level run adds its documents (``page_content``; ``Document.id``, else
``metadata[id_key]``) to that run's contexts, and the top-level run's output is the answer.
So a plain LCEL chain (``{"context": retriever | fmt, "question": ...} | prompt | llm``), a
``create_retrieval_chain`` dict chain or an agent (retrievers under tools) all give the same
samples, with no change to the user's code. Needs ``pip install 'ragmeter[langchain]'``.

A retriever running inside another retriever (the base retriever of a reranking, contextual
compression, multi-query or ensemble retriever) is inner: the outer one's output is what the
pipeline passed on, in its order, so only that is kept. Several top-level retrievers in one
call (two retrieval steps) are all kept, in the order they started.

    from ragmeter.integrations import langchain as rl
    samples = rl.collect(chain, ["What is the capital of France?", ...])
    result = ragmeter.evaluate(samples, ["faithfulness", "mrr"])
"""

from __future__ import annotations

import functools
import uuid
import warnings
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ragmeter.errors import ConfigError
from ragmeter.integrations._extras import require
from ragmeter.integrations._questions import OnError, check_on_error, finish, question_records
from ragmeter.redact import describe
from ragmeter.sample import Sample, validate_records

EXTRA = "langchain"
ANSWER_KEYS = ("answer", "result", "output", "text", "response")
QUESTION_KEYS = ("question", "input", "query")


@dataclass
class _Turn:
    """What one top-level run showed: its input, top-level retrievals, output."""

    inputs: Any = None
    outputs: Any = None
    # top-level retriever run id -> its documents (None until it ends), in start order
    retrievals: dict[uuid.UUID, list[Any] | None] = field(default_factory=dict)
    error: str | None = None  # the exception the top-level run raised
    retriever: bool = False  # a bare retriever's run: documents, no answer to capture

    @property
    def documents(self) -> list[Any]:
        return [d for docs in self.retrievals.values() if docs for d in docs]


class Recorder:
    """The handler's state, kept apart from LangChain so it can be read without it.

    ``turns`` maps a top-level run id to its turn; ``roots`` maps every run seen to its
    top-level run, so a retriever nested at any depth lands in the right turn;
    ``in_retriever`` holds the retriever runs and every run below one, so a retriever inside
    another retriever is known to be inner (its documents are the outer one's input).
    """

    def __init__(self, id_key: str = "id") -> None:
        self.id_key = id_key
        self.turns: dict[uuid.UUID, _Turn] = {}
        self.roots: dict[uuid.UUID, uuid.UUID] = {}
        self.in_retriever: set[uuid.UUID] = set()
        # parents never seen: the handler was attached below the top-level run (see samples)
        self.unseen_parents: set[uuid.UUID] = set()

    def link(self, run_id: uuid.UUID, parent_run_id: uuid.UUID | None) -> uuid.UUID:
        """Remember a run's top-level run (returned) and whether it runs inside a retriever."""
        if parent_run_id is not None and parent_run_id not in self.roots:
            self.unseen_parents.add(parent_run_id)
        root = run_id if parent_run_id is None else self.roots.get(parent_run_id, parent_run_id)
        self.roots[run_id] = root
        if parent_run_id in self.in_retriever:
            self.in_retriever.add(run_id)
        return root

    def start(self, inputs: Any, run_id: uuid.UUID, parent_run_id: uuid.UUID | None) -> None:
        if self.link(run_id, parent_run_id) == run_id:
            self.turns[run_id] = _Turn(inputs=inputs)

    def end(self, outputs: Any, run_id: uuid.UUID, inputs: Any = None) -> None:
        """A run's output. A streamed run (``stream``/``astream``) starts with the placeholder
        input ``{"input": ""}`` and gives its real input only here: it replaces the start's."""
        turn = self.turns.get(run_id)
        if turn is not None:
            turn.outputs = outputs
            if inputs is not None:
                turn.inputs = inputs

    def retriever_start(self, query: Any, run_id: uuid.UUID, parent: uuid.UUID | None) -> None:
        root = self.link(run_id, parent)
        inner = run_id in self.in_retriever
        self.in_retriever.add(run_id)
        if root == run_id:  # a bare retriever called on its own is a turn too
            self.turns[run_id] = _Turn(inputs=query, retriever=True)
        if not inner:
            self.turns.setdefault(root, _Turn()).retrievals[run_id] = None

    def error(self, error: BaseException, run_id: uuid.UUID, inputs: Any = None) -> None:
        """A top-level run raised: its turn has no output to read (see ``samples``); a
        streamed run's real input comes with the error (as with ``end``)."""
        turn = self.turns.get(run_id)
        if turn is not None:
            turn.error = describe(error)  # redacted: a provider's error may echo the API key
            if inputs is not None:
                turn.inputs = inputs

    def documents(self, documents: Sequence[Any], run_id: uuid.UUID) -> None:
        """A retriever's result: kept when it is a top-level retriever of its turn."""
        turn = self.turns.get(self.roots.get(run_id, run_id))
        if turn is not None and run_id in turn.retrievals:
            turn.retrievals[run_id] = list(documents)

    def record(self, run_id: uuid.UUID, question: str | None = None, **extra: Any) -> dict:
        """The sample record of one top-level run (``extra``: references, question_id...)."""
        turn = self.turns.get(run_id, _Turn())
        texts = [str(getattr(d, "page_content", d)) for d in turn.documents]
        ids = [_doc_id(d, self.id_key) for d in turn.documents]
        if question is None:
            question = _pick(turn.inputs, QUESTION_KEYS)
        answer = _answer(turn.outputs)
        if answer is None and not turn.retriever:
            warnings.warn(
                f"LangChain run {run_id} (question {question!r}): {_no_answer(turn.outputs)}; "
                "the sample has no answer, so answer-based metrics will skip it",
                RuntimeWarning,
                stacklevel=3,
            )
        rec: dict[str, Any] = {
            **extra,
            "question": question,
            "answer": answer,
            "contexts": texts,
        }
        if texts and all(i is not None for i in ids):
            rec["context_ids"] = ids
        elif any(i is not None for i in ids):  # e.g. an ensemble of a BM25 and a vector store
            warnings.warn(
                f"LangChain run {run_id} (question {question!r}): {ids.count(None)} of "
                f"{len(ids)} documents have no id, so the sample has no context_ids and "
                "id-based retrieval metrics will skip it",
                RuntimeWarning,
                stacklevel=3,
            )
        meta = dict(rec.get("metadata") or {})
        meta["langchain_run_id"] = str(run_id)
        rec["metadata"] = meta
        return rec

    def failures(self) -> list[dict[str, str]]:
        """The top-level runs that raised: run id, question, error (``samples`` leaves them out)."""
        return [
            {"run_id": str(rid), "question": str(_pick(t.inputs, QUESTION_KEYS)), "error": t.error}
            for rid, t in self.turns.items()
            if t.error is not None
        ]

    def samples(self) -> list[Sample]:
        """Every top-level run seen so far, as validated samples (in the order they started).

        A run that raised has no answer to score: it is left out with a warning naming its
        question and error (and listed by ``failures``), not kept as a sample without an
        answer that retrieval metrics would score as if the pipeline had worked.
        """
        for failed in self.failures():
            warnings.warn(
                f"LangChain run {failed['run_id']} (question {failed['question']!r}) raised "
                f"{failed['error']}; left out of the samples",
                RuntimeWarning,
                stacklevel=3,
            )
        ids = [rid for rid, t in self.turns.items() if t.inputs is not None and t.error is None]
        if self.unseen_parents:
            said = (
                f"the handler saw runs inside {len(self.unseen_parents)} run(s) it was not "
                "attached to (it was given to an inner runnable, e.g. with_config(callbacks="
                "...)), whose question and answer it cannot see; give it to the whole call: "
                'chain.invoke(q, config={"callbacks": [handler]})'
            )
            if not ids:
                raise ConfigError(said)
            warnings.warn(f"{said}; those runs are left out", RuntimeWarning, stacklevel=3)
        return validate_records([self.record(rid) for rid in ids], "LangChain callback handler")


def _doc_id(doc: Any, id_key: str) -> str | None:
    value = getattr(doc, "id", None)
    if value is None:
        value = (getattr(doc, "metadata", None) or {}).get(id_key)
    return None if value is None else str(value)


def _pick(value: Any, keys: Sequence[str]) -> Any:
    if isinstance(value, Mapping):
        for key in keys:
            if isinstance(value.get(key), str):
                return value[key]
        strings = [v for v in value.values() if isinstance(v, str)]
        return strings[0] if len(strings) == 1 else None
    return value if isinstance(value, str) else None


def _text(content: Any) -> str | None:
    """A message's text: its content string, or its text blocks joined, as LangChain's own
    ``BaseMessage.text`` does (Anthropic and OpenAI Responses reply in content blocks:
    ``[{"type": "text", "text": ...}, {"type": "tool_use", ...}]``). None: no text block."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    parts = [
        b if isinstance(b, str) else b["text"]
        for b in content
        if isinstance(b, str)
        or (isinstance(b, Mapping) and b.get("type") == "text" and isinstance(b.get("text"), str))
    ]
    return "".join(parts) if parts else None


def _answer(outputs: Any) -> str | None:
    """The answer in a chain's output: a string, a message's text, or a dict's answer."""
    if hasattr(outputs, "content") and not isinstance(outputs, Mapping):
        return _text(outputs.content)
    if isinstance(outputs, Mapping):
        for key in ANSWER_KEYS:
            if key in outputs:
                return _answer(outputs[key])
    return _pick(outputs, ANSWER_KEYS)


def _no_answer(outputs: Any) -> str:
    """Why ``_answer`` found nothing in ``outputs``, for the warning."""
    if outputs is None:
        return "the run recorded no output"
    if hasattr(outputs, "content") and not isinstance(outputs, Mapping):
        kinds = [b.get("type") for b in outputs.content if isinstance(b, Mapping)]
        return f"its message holds no text (content blocks: {kinds})"
    if isinstance(outputs, Mapping):
        return f"its output dict has no answer among keys {sorted(map(str, outputs))}"
    return f"its output is a {type(outputs).__name__}, not text"


def _handler_class() -> type:
    callbacks = require("langchain_core.callbacks", EXTRA)

    class RagmeterCallbackHandler(callbacks.BaseCallbackHandler):  # type: ignore[misc,name-defined]
        """Attach to any chain call (``config={"callbacks": [handler]}``); read
        ``handler.samples()`` afterwards."""

        raise_error = True  # a bug here must not pass silently inside LangChain

        def __init__(self, id_key: str = "id") -> None:
            super().__init__()
            self.recorder = Recorder(id_key)

        def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kw):  # type: ignore[no-untyped-def]
            self.recorder.start(inputs, run_id, parent_run_id)

        def on_chain_end(self, outputs, *, run_id, parent_run_id=None, **kw):  # type: ignore[no-untyped-def]
            self.recorder.end(outputs, run_id, kw.get("inputs"))

        def on_chain_error(self, error, *, run_id, parent_run_id=None, **kw):  # type: ignore[no-untyped-def]
            self.recorder.error(error, run_id, kw.get("inputs"))

        def on_retriever_error(self, error, *, run_id, parent_run_id=None, **kw):  # type: ignore[no-untyped-def]
            self.recorder.error(error, run_id)

        def on_retriever_start(self, serialized, query, *, run_id, parent_run_id=None, **kw):  # type: ignore[no-untyped-def]
            self.recorder.retriever_start(query, run_id, parent_run_id)

        def on_retriever_end(self, documents, *, run_id, parent_run_id=None, **kw):  # type: ignore[no-untyped-def]
            self.recorder.documents(documents, run_id)

        # Tools and models are linked too, so a retriever below them finds its turn.
        def on_tool_start(self, serialized, input_str, *, run_id, parent_run_id=None, **kw):  # type: ignore[no-untyped-def]
            self.recorder.link(run_id, parent_run_id)

        def on_llm_start(self, serialized, prompts, *, run_id, parent_run_id=None, **kw):  # type: ignore[no-untyped-def]
            self.recorder.link(run_id, parent_run_id)

        def on_chat_model_start(self, serialized, messages, *, run_id, parent_run_id=None, **kw):  # type: ignore[no-untyped-def]
            self.recorder.link(run_id, parent_run_id)

        def samples(self) -> list[Sample]:
            return self.recorder.samples()

        def failures(self) -> list[dict[str, str]]:
            return self.recorder.failures()

    return RagmeterCallbackHandler


def callback_handler(id_key: str = "id") -> Any:
    """A LangChain callback handler that records samples (see ``RagmeterCallbackHandler``)."""
    return _handler_class()(id_key)


def __getattr__(name: str) -> Any:
    if name == "RagmeterCallbackHandler":
        return _handler_class()
    raise AttributeError(name)


def collect(
    chain: Any,
    questions: Sequence[str | Mapping[str, Any]],
    *,
    input_key: str | None = None,
    id_key: str = "id",
    max_concurrency: int = 1,
    on_error: OnError = "raise",
) -> list[Sample]:
    """Run every question through ``chain`` (any Runnable) and return one Sample each.

    ``questions`` are strings, or records holding ``question`` and whatever else the
    sample should carry (``question_id``, ``reference_answers``, ``reference_context_ids``,
    ``metadata``...); not what the chain produces (``answer``, ``contexts``, ``context_ids``:
    a DataError, see ``_questions``). The chain is called with the question string, or with
    ``{input_key: question}`` when ``input_key`` is given. Runs go through ``chain.batch``
    with ``max_concurrency`` (1 by default: one after another, in order). A bare retriever
    is a pipeline too: its samples hold its documents and no answer (retrieval metrics).

    Every question is asked even when some raise: ``on_error="raise"`` (default) then raises
    ``PipelineFailed`` holding the other questions' samples (``.samples``) and each failure
    (``.failures``); ``"skip"`` returns those samples with a warning naming the failures.
    """
    check_on_error(on_error)
    retriever_class = require("langchain_core.retrievers", EXTRA).BaseRetriever
    is_retriever = isinstance(chain, retriever_class)
    if is_retriever and input_key is not None:
        raise ConfigError("a retriever is called with the question string: leave input_key out")
    handler = callback_handler(id_key)
    records = question_records(questions, "the retriever" if is_retriever else "the chain")
    inputs = [r["question"] if input_key is None else {input_key: r["question"]} for r in records]
    run_ids = [uuid.uuid4() for _ in records]
    configs = [
        {"callbacks": [handler], "run_id": rid, "max_concurrency": max_concurrency}
        for rid in run_ids
    ]
    outcomes: list[Any] = []
    if is_retriever:
        outcomes = _invoke_retriever(chain, inputs, configs, run_ids, max_concurrency)
    elif records:
        outcomes = chain.batch(inputs, config=configs, return_exceptions=True)
    raised = [o if isinstance(o, Exception) else None for o in outcomes] or [None] * len(records)
    unmatched = [
        r["question"]
        for rid, r, exc in zip(run_ids, records, raised, strict=True)
        if exc is None and rid not in handler.recorder.turns
    ]
    if unmatched:
        raise ConfigError(
            f"{type(chain).__name__} did not start its run with the run_id given in its config "
            f"(question {unmatched[0]!r}{' and more' if len(unmatched) > 1 else ''}), so what "
            "it retrieved and answered cannot be matched to the questions: wrap it, "
            "RunnableLambda(lambda q: pipeline.invoke(q)), or attach RagmeterCallbackHandler "
            "yourself"
        )
    rows = [
        handler.recorder.record(rid, **rec)
        for rid, rec, exc in zip(run_ids, records, raised, strict=True)
        if exc is None
    ]
    failures = [(r["question"], e) for r, e in zip(records, raised, strict=True) if e is not None]
    samples = validate_records(rows, "LangChain chain") if rows or not records else []
    what = "the retriever" if is_retriever else "the chain"
    return finish(samples, failures, len(records), what, on_error)


def _invoke_retriever(
    retriever: Any, inputs: list[Any], configs: list[Any], run_ids: list[Any], workers: int
) -> list[Any]:
    """``BaseRetriever.invoke`` takes its run id as a keyword and ignores the one in the
    config (which ``batch`` passes), so each question is invoked with its own ``run_id``.
    Each question's documents, or the exception it raised (as ``batch(return_exceptions=True)``)."""
    calls = [
        functools.partial(_outcome, retriever.invoke, q, config=c, run_id=rid)
        for q, c, rid in zip(inputs, configs, run_ids, strict=True)
    ]
    if workers <= 1:
        return [call() for call in calls]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return [future.result() for future in [pool.submit(call) for call in calls]]


def _outcome(fn: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return fn(*args, **kwargs)
    except Exception as exc:  # the caller's pipeline: kept and reported, not raised here
        return exc
