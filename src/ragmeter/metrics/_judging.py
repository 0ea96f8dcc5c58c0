"""Shared plumbing of the judged metrics: modes, prompts, context chunking, judge calls.

Metrics stay arithmetic: they build messages, ask the judge through ``Calls`` (which tallies
tokens and turns an error reply into ``JudgeFailed``) and compute their score. ``guarded``
turns ``JudgeFailed`` / ``Unavailable`` into failed Scores, so no exception and no NaN escapes.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel

from ragmeter.judges.base import Judge, JudgeReply, Message, Resources
from ragmeter.metrics.base import Score
from ragmeter.prompts import load_prompts
from ragmeter.sample import Sample
from ragmeter.text import split_sentences, tokens

M = TypeVar("M", bound=BaseModel)

DEFAULT_EVIDENCE_K = 3  # context sentences kept per statement (option ``evidence_k``)
CHARS_PER_TOKEN = 3.2  # conservative for English prose: chunks overestimate their tokens
DEFAULT_CONTEXT_TOKENS = 6000  # judges that do not say their window
RESERVED_TOKENS = 1600  # system prompt + question + statement + reply


class JudgeFailed(Exception):
    """A judge call came back with an error; the metric's Score becomes failed."""


class Unavailable(Exception):
    """A resource the metric needs is not configured; the message says how to configure it."""


@dataclass
class Calls:
    """Judge calls of one (metric, sample): tallies tokens, raises JudgeFailed on errors."""

    judge: Judge
    prompt_tokens: int = 0
    completion_tokens: int = 0
    n_calls: int = 0
    cached: int = 0

    def _take(self, reply: JudgeReply[Any], what: str) -> Any:
        self.n_calls += 1
        self.cached += int(reply.cached)
        self.prompt_tokens += reply.usage.prompt_tokens
        self.completion_tokens += reply.usage.completion_tokens
        if not reply.ok or reply.value is None:
            raw = f"; raw output: {reply.raw[:200]!r}" if reply.raw else ""
            raise JudgeFailed(f"judge error ({what}): {reply.error or 'no value'}{raw}")
        return reply.value

    async def p_yes(self, messages: Sequence[Message], *, version: str) -> float:
        """P("yes") among {"yes", "no"} for the first token of the reply."""
        reply = await self.judge.option_probs(messages, ("yes", "no"), prompt_version=version)
        probs = self._take(reply, "yes/no verdict")
        return float(probs["yes"])

    async def option(
        self, messages: Sequence[Message], options: Sequence[str], *, version: str
    ) -> dict[str, float]:
        reply = await self.judge.option_probs(messages, options, prompt_version=version)
        return dict(self._take(reply, "option probabilities"))

    async def structured(
        self, messages: Sequence[Message], schema: type[M], *, version: str, max_tokens: int = 512
    ) -> M:
        reply = await self.judge.structured(
            messages, schema, prompt_version=version, max_tokens=max_tokens
        )
        return self._take(reply, f"structured {schema.__name__}")

    def details(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "calls": self.n_calls,
            "cached_calls": self.cached,
        }


def judge_of(resources: Resources | None) -> Judge:
    judge = getattr(resources, "judge", None)
    if judge is None:
        raise Unavailable(
            "no judge configured: choose one with --judge (e.g. the embedded "
            "local judge, `--judge local`) or Settings(judge=...)"
        )
    return judge


def options_of(resources: Resources | None) -> dict[str, Any]:
    return dict(getattr(resources, "options", None) or {})


def mode_of(
    resources: Resources | None,
    metric: str,
    default: str,
    allowed: tuple[str, ...] = ("fast", "generate"),
) -> str:
    """The metric's mode: ``options["modes"][metric]``, else ``options["mode"]``, else default."""
    opts = options_of(resources)
    modes = opts.get("modes") or {}
    mode = modes.get(metric) or opts.get("mode") or default
    if mode not in allowed:
        raise Unavailable(f"{metric}: unknown mode {mode!r}; choose one of {', '.join(allowed)}")
    return str(mode)


def guarded(
    fn: Callable[[Sample, Resources], Awaitable[Score]],
) -> Callable[[Sample, Resources], Awaitable[Score]]:
    """Run a metric's acompute; a judge error or missing resource becomes a failed Score."""

    @functools.wraps(fn)
    async def wrapper(sample: Sample, resources: Resources) -> Score:
        try:
            return await fn(sample, resources)
        except (JudgeFailed, Unavailable) as exc:
            return Score.failed(str(exc))

    return wrapper


def chat(system: str, user: str, examples: Sequence[dict[str, Any]] = ()) -> list[Message]:
    """System message, few-shot turns (assistant JSON rendered compactly), then the user turn."""
    import json

    messages: list[Message] = [{"role": "system", "content": system}]
    for ex in examples:
        reply = ex["assistant"]
        messages.append({"role": "user", "content": ex["user"]})
        messages.append(
            {
                "role": "assistant",
                "content": reply
                if isinstance(reply, str)
                else json.dumps(reply, ensure_ascii=False),
            }
        )
    messages.append({"role": "user", "content": user})
    return messages


# ---- contexts: sentences, numbering, chunking ----------------------------------------------


@dataclass
class ContextSentences:
    """Every sentence of the contexts, numbered from 1 across contexts in rank order."""

    sentences: list[str] = field(default_factory=list)
    context_of: list[int] = field(default_factory=list)  # index of the context of each sentence

    @classmethod
    def of(cls, contexts: Sequence[str]) -> ContextSentences:
        out = cls()
        for i, ctx in enumerate(contexts):
            for s in split_sentences(ctx or ""):
                out.sentences.append(s)
                out.context_of.append(i)
        return out

    def render(self, indices: Sequence[int]) -> str:
        """``[n] sentence`` lines (1-based global numbers); a blank line between contexts."""
        lines: list[str] = []
        prev = None
        for i in indices:
            if prev is not None and self.context_of[i] != self.context_of[prev]:
                lines.append("")
            lines.append(f"[{i + 1}] {self.sentences[i]}")
            prev = i
        return "\n".join(lines)


def context_budget_tokens(judge: Any, resources: Resources | None) -> int:
    """Tokens of context one prompt may hold: the option, else the judge's window less room."""
    opts = options_of(resources)
    if opts.get("max_context_tokens"):
        return int(opts["max_context_tokens"])
    n_ctx = getattr(inner_model(judge), "n_ctx", None)
    if isinstance(n_ctx, int) and n_ctx > RESERVED_TOKENS + 256:
        return n_ctx - RESERVED_TOKENS
    return DEFAULT_CONTEXT_TOKENS


def inner_model(obj: Any) -> Any:
    """The backend under engine wrappers (CachedJudge.inner ...), for attributes like n_ctx."""
    seen = 0
    while hasattr(obj, "inner") and seen < 5 and not hasattr(obj, "n_ctx"):
        obj, seen = obj.inner, seen + 1
    return obj


def estimate_tokens(text: str) -> int:
    return int(len(text) / CHARS_PER_TOKEN) + 1


def chunk_indices(items: Sequence[str], budget_tokens: int) -> list[list[int]]:
    """Greedy packing of consecutive items into chunks of at most ``budget_tokens``.

    Deterministic and prefix-stable: two contexts that start alike get identical first chunks,
    so the judge's KV cache of one serves the other. An item longer than the budget is cut
    into its own chunk (the judge truncation check still guards the window).
    """
    chunks: list[list[int]] = []
    cur: list[int] = []
    used = 0
    for i, text in enumerate(items):
        n = estimate_tokens(text) + 4
        if cur and used + n > budget_tokens:
            chunks.append(cur)
            cur, used = [], 0
        cur.append(i)
        used += n
    if cur:
        chunks.append(cur)
    return chunks


def context_chunks(
    ctx: ContextSentences,
    judge: Any,
    resources: Resources | None,
    indices: Sequence[int] | None = None,
) -> list[list[int]]:
    """Chunks of global sentence indices (all sentences, or ``indices``) that fit the judge."""
    idx = list(range(len(ctx.sentences))) if indices is None else list(indices)
    local = chunk_indices([ctx.sentences[i] for i in idx], context_budget_tokens(judge, resources))
    return [[idx[j] for j in chunk] for chunk in local]


# ---- evidence selection ---------------------------------------------------------------------

_STOP_WORDS = (
    "what when where which who whom whose why how is are was were be been do does did of in "
    "on at to for from by with and or as it its this that these those there their they he "
    "she his her has have had will would can could should about into than then so such not"
)
_STOP = frozenset(_STOP_WORDS.split(" "))


def overlap_scores(queries: Sequence[str], sentences: Sequence[str]) -> list[list[float]]:
    """Per query, idf-weighted overlap of each sentence with its content words (no model).

    The sentences are tokenised and counted once for all queries.
    """
    toks = [set(tokens(s)) for s in sentences]
    n = len(sentences)
    df: dict[str, int] = {}
    for t in toks:
        for w in t:
            df[w] = df.get(w, 0) + 1
    out = []
    for query in queries:
        q = {w for w in tokens(query) if w not in _STOP}
        out.append([sum(math.log(1 + n / df[w]) for w in q & t) for t in toks])
    return out


def top_k(scores: Sequence[float], k: int) -> list[int]:
    """Indices of the k best scores (ties to the earlier index), in text order."""
    return sorted(sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:k])


@dataclass
class Evidence:
    """The context sentences a metric shows the judge, and how they were chosen."""

    indices: list[int]
    method: str  # "all", "embedding" or "lexical"
    note: str | None = None

    def details(self, ctx: ContextSentences) -> dict[str, Any]:
        out: dict[str, Any] = {
            "method": self.method,
            "sentences": [i + 1 for i in self.indices],
            "of": len(ctx.sentences),
        }
        if self.note:
            out["note"] = self.note
        return out


async def select_evidence(
    ctx: ContextSentences, queries: Sequence[str], resources: Resources | None, k: int
) -> Evidence:
    """The union over queries of each query's k most similar context sentences, in text order.

    A small judge checks a statement against 10 focused sentences better than against 50 (on
    WikiEval with the 1.5B judge: 49/50 pairs against 47/50), and reads far fewer tokens.
    Similarity is the embedder's cosine when one is configured, else lexical overlap.
    ``k <= 0`` keeps every sentence.
    """
    n = len(ctx.sentences)
    if k <= 0 or n <= k:
        return Evidence(list(range(n)), "all")
    embedder = getattr(resources, "embedder", None)
    note = None
    if embedder is not None:
        reply = await embedder.embed([*queries, *ctx.sentences])
        v = np.asarray(reply.value if reply.ok else [], dtype=np.float64)
        if v.ndim == 2 and v.shape[0] == len(queries) + n:
            v = v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
            sims = v[: len(queries)] @ v[len(queries) :].T
            keep: set[int] = set()
            for row in sims:
                keep.update(top_k(row.tolist(), k))
            return Evidence(sorted(keep), "embedding")
        why = reply.error if not reply.ok else f"{v.shape[0] if v.ndim else 0} vectors back"
        note = f"embedder error ({why}); chose by word overlap instead"
    keep = set()
    for scores in overlap_scores(queries, ctx.sentences):
        keep.update(top_k(scores, k))
    return Evidence(sorted(keep), "lexical", note)


def context_first(context_text: str, question: str, task: str) -> list[Message]:
    """The shared context-first chat: [common system][context][question][task].

    Every context-based fast prompt starts with the same system message and context block, so
    consecutive calls on one context (statements, sentence selection) reuse the judge's cache.
    """
    common = load_prompts("common")
    block = common["context_block"].format(context=context_text, question=question)
    return [
        {"role": "system", "content": common["system"]},
        {"role": "user", "content": block + task},
    ]


def version(*families: str) -> str:
    return "+".join(load_prompts(f)["version"] for f in families)


def statements_of(text: str) -> list[str]:
    """Local statement split for fast modes: sentences that contain a letter or digit."""
    return [s for s in split_sentences(text or "") if any(ch.isalnum() for ch in s)]
