"""CachedJudge and CachedEmbedder: what metrics actually call.

They wrap a raw backend (``ChatBackend``) or any object already speaking the Judge /
Embedder protocol, and add, in this order: a persistent cache lookup, bounded concurrency,
a per-call time-out, retries with backoff on transient faults, validation of structured
output with one repair retry that shows the model its error, accounting, and a cache write
committed as soon as the model has answered. Model faults come back as error replies with
the raw output kept; nothing raises into metric code.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel, ValidationError

from ragmeter.engine.accounting import Accountant
from ragmeter.engine.backend import ChatBackend, ChatCompletion, ChatRequest
from ragmeter.engine.cache import CallCache, call_key, embedding_key
from ragmeter.engine.redact import describe, redact
from ragmeter.engine.retry import RetryPolicy, classify
from ragmeter.judges.base import (
    Embedder,
    Judge,
    JudgeReply,
    Message,
    Scorer,
    TokenLogprobs,
    Usage,
)

M = TypeVar("M", bound=BaseModel)
R = TypeVar("R")
TOP_LOGPROBS = 20
_timeout_cm = getattr(asyncio, "timeout", None)  # Python >= 3.11
_FORWARDED = frozenset({"n_ctx", "count_tokens", "count_chat_tokens", "max_concurrency"})
_USERINFO = re.compile(r"(//)[^/@\s]+@")


def safe_name(name: str) -> str:
    """A backend name fit for cache rows and reports: no credentials in URLs, no keys."""
    return redact(_USERINFO.sub(r"\1", name))


_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")


class CallFailed(Exception):
    """A call that did not produce model output, after all retries."""

    def __init__(self, reason: str, attempts: int, transient: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.attempts = attempts
        self.transient = transient


@dataclass
class _Attempt:
    """One model answer: a validated value, or the error with the model's raw text."""

    value: Any
    error: str | None
    raw: str | None
    usage: Usage


class _Limiter:
    """A semaphore re-created per event loop, so one wrapper survives several asyncio.run."""

    def __init__(self, limit: int) -> None:
        self.limit = max(1, int(limit))
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sem: asyncio.Semaphore | None = None

    def get(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._sem is None or self._loop is not loop:
            self._loop, self._sem = loop, asyncio.Semaphore(self.limit)
        return self._sem


class _Core:
    """Shared machinery: limiter, time-out, retries, accounting, cache handle."""

    def __init__(
        self,
        name: str,
        *,
        cache: CallCache | None,
        policy: RetryPolicy | None,
        timeout: float | None,
        concurrency: int,
        accountant: Accountant | None,
    ) -> None:
        self.name = safe_name(name)
        self.cache = cache
        self.policy = policy or RetryPolicy()
        self.timeout = timeout if timeout and timeout > 0 else None
        self.limiter = _Limiter(concurrency)
        self.accountant = accountant or Accountant()

    async def retrying(self, fn: Callable[[], Awaitable[R]]) -> tuple[R, int]:
        """(result, attempts); raises CallFailed once retries are spent or hopeless."""
        attempt = 0
        while True:
            attempt += 1
            try:
                async with self.limiter.get():
                    if self.timeout is None:
                        return await fn(), attempt
                    if _timeout_cm is not None:  # no extra task per call, unlike wait_for
                        async with _timeout_cm(self.timeout):
                            return await fn(), attempt
                    return await asyncio.wait_for(fn(), self.timeout), attempt
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                retryable, retry_after = classify(exc)
                if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
                    reason = f"time-out after {self.timeout}s"
                else:
                    reason = describe(exc)
                if not retryable or attempt > self.policy.max_retries:
                    tries = f" after {attempt} attempts" if attempt > 1 else ""
                    raise CallFailed(f"{reason}{tries}", attempt, retryable) from None
                await asyncio.sleep(self.policy.delay(attempt, retry_after))


def parse_structured(text: str, schema: type[M]) -> tuple[M | None, str | None]:
    """Validate a model's text against ``schema``: (value, None) or (None, what is wrong)."""
    body = _FENCE.sub("", text.strip())
    try:
        obj = json.loads(body)
    except json.JSONDecodeError as exc:
        start, end = body.find("{"), body.rfind("}")
        try:
            obj = json.loads(body[start : end + 1]) if 0 <= start < end else None
        except json.JSONDecodeError:
            obj = None
        if obj is None:
            return None, f"malformed JSON: {exc.msg} at char {exc.pos}"
    try:
        return schema.model_validate(obj), None
    except ValidationError as exc:
        parts = [
            f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in exc.errors()[:5]
        ]
        return None, "schema violation: " + "; ".join(parts)


def option_probs_from_top(
    top: Sequence[tuple[str, float]], options: Sequence[str]
) -> tuple[dict[str, float] | None, str | None]:
    """Renormalise the first token's top-k probabilities over ``options``.

    Tokens match an option case-insensitively after stripping spaces; a token that is a
    strict prefix of exactly one option ("Ye" for "yes") counts for it.
    """
    wanted = [o.strip().lower() for o in options]
    mass = dict.fromkeys(options, 0.0)
    for token, logprob in top:
        norm = token.strip().lower()
        if not norm:
            continue
        hits = [o for o, w in zip(options, wanted, strict=True) if w == norm]
        if not hits:
            hits = [o for o, w in zip(options, wanted, strict=True) if w.startswith(norm)]
            if len(hits) != 1:
                continue
        mass[hits[0]] += float(np.exp(logprob))
    total = sum(mass.values())
    if total <= 0:
        seen = ", ".join(repr(t) for t, _ in list(top)[:10])
        return None, f"none of the options {list(options)} among the top tokens ({seen})"
    return {o: p / total for o, p in mass.items()}, None


def _repair_messages(
    messages: list[Message], raw: str, error: str, schema_json: dict[str, Any]
) -> list[Message]:
    return [
        *messages,
        {"role": "assistant", "content": raw},
        {
            "role": "user",
            "content": (
                f"Your reply was not valid: {error}. Reply again with only a JSON object that "
                f"matches this JSON schema:\n{json.dumps(schema_json)}"
            ),
        },
    ]


class CachedJudge:
    """A Judge over a ChatBackend (or another Judge) with caching, retries and repair."""

    def __init__(
        self,
        inner: ChatBackend | Judge,
        *,
        cache: CallCache | None = None,
        policy: RetryPolicy | None = None,
        timeout: float | None = 60.0,
        concurrency: int = 8,
        accountant: Accountant | None = None,
        repair: bool = True,
    ) -> None:
        self.inner = inner
        self._raw = isinstance(inner, ChatBackend) and hasattr(inner, "complete")
        self.core = _Core(
            inner.name,
            cache=cache,
            policy=policy,
            timeout=timeout,
            concurrency=concurrency,
            accountant=accountant,
        )
        self.name = self.core.name
        self.repair = repair
        self._schemas: dict[type[BaseModel], dict[str, Any]] = {}
        params = getattr(inner, "cache_params", None)
        self._params: dict[str, Any] = dict(params()) if callable(params) else {}

    @property
    def accountant(self) -> Accountant:
        return self.core.accountant

    def __getattr__(self, attr: str) -> Any:
        # Metrics may size prompts by the judge's window; forward only such read-only facts.
        if attr in _FORWARDED:
            return getattr(self.inner, attr)
        raise AttributeError(attr)

    def _schema_json(self, schema: type[BaseModel]) -> dict[str, Any]:
        found = self._schemas.get(schema)
        if found is None:
            found = self._schemas[schema] = schema.model_json_schema()
        return found

    def structured_key(
        self,
        messages: Sequence[Message],
        schema: type[BaseModel],
        *,
        prompt_version: str,
        max_tokens: int = 512,
    ) -> str:
        params = {**self._params, "max_tokens": max_tokens, "schema": self._schema_json(schema)}
        return call_key(
            backend=self.name,
            kind="structured",
            messages=list(messages),
            params=params,
            prompt_version=prompt_version,
        )

    def option_probs_key(
        self, messages: Sequence[Message], options: Sequence[str], *, prompt_version: str
    ) -> str:
        params = {
            **self._params,
            "options": list(options),
            "top_logprobs": TOP_LOGPROBS,
            "max_tokens": 1,
        }
        return call_key(
            backend=self.name,
            kind="option_probs",
            messages=list(messages),
            params=params,
            prompt_version=prompt_version,
        )

    # -- structured output ---------------------------------------------------------------
    async def structured(
        self,
        messages: Sequence[Message],
        schema: type[M],
        *,
        prompt_version: str,
        max_tokens: int = 512,
    ) -> JudgeReply[M]:
        msgs = [dict(m) for m in messages]
        key = self.structured_key(
            msgs, schema, prompt_version=prompt_version, max_tokens=max_tokens
        )
        hit = self.core.cache.get(key) if self.core.cache else None
        if hit is not None:
            value, error = (None, hit.error)
            if hit.ok:
                value, error = parse_structured(json.dumps(hit.value), schema)
            if value is not None or not hit.ok:
                self.accountant.record(self.name, cached=True, failed=not hit.ok)
                return JudgeReply(
                    value, error, hit.raw, Usage(), cached=True, attempts=hit.attempts
                )
        reply = await self._structured_uncached(msgs, schema, prompt_version, max_tokens)
        return self._finish(
            "structured", key, prompt_version, reply, lambda v: v.model_dump(mode="json")
        )

    async def _structured_once(
        self, msgs: list[Message], schema: type[M], prompt_version: str, max_tokens: int
    ) -> _Attempt:
        if self._raw:
            schema_json = self._schema_json(schema)
            request = ChatRequest(
                msgs, max_tokens, json_schema=schema_json, schema_name=schema.__name__
            )
            comp: ChatCompletion = await self.inner.complete(request)  # type: ignore[union-attr]
            value, error = parse_structured(comp.text, schema)
            return _Attempt(value, error, comp.text, comp.usage)
        reply = await self.inner.structured(
            msgs, schema, prompt_version=prompt_version, max_tokens=max_tokens
        )
        if reply.ok:
            return _Attempt(reply.value, None, reply.raw, reply.usage)
        if reply.raw is None:  # no model output: a backend fault, not something to repair
            raise _NoOutput(reply.error or "judge returned no output")
        return _Attempt(None, reply.error, reply.raw, reply.usage)

    async def _structured_uncached(
        self, msgs: list[Message], schema: type[M], prompt_version: str, max_tokens: int
    ) -> JudgeReply[M]:
        usage, attempts, current = Usage(), 0, msgs
        for round_ in range(2 if self.repair else 1):
            try:
                att, n = await self.core.retrying(
                    lambda m=current: self._structured_once(m, schema, prompt_version, max_tokens)
                )
            except CallFailed as exc:
                return _transport_failure(exc, attempts, usage)
            attempts += n
            usage += att.usage
            if att.error is None:
                return JudgeReply(att.value, None, att.raw, usage, attempts=attempts)
            if round_ == 0 and self.repair and att.raw is not None:
                current = _repair_messages(msgs, att.raw, att.error, self._schema_json(schema))
                continue
            break
        suffix = " (after a repair retry)" if self.repair else ""
        return JudgeReply(None, redact(f"{att.error}{suffix}"), att.raw, usage, attempts=attempts)

    # -- verdict probabilities -----------------------------------------------------------
    async def option_probs(
        self, messages: Sequence[Message], options: Sequence[str], *, prompt_version: str
    ) -> JudgeReply[dict[str, float]]:
        msgs = [dict(m) for m in messages]
        key = self.option_probs_key(msgs, options, prompt_version=prompt_version)
        hit = self.core.cache.get(key) if self.core.cache else None
        if hit is not None:
            self.accountant.record(self.name, cached=True, failed=not hit.ok)
            return JudgeReply(
                hit.value if hit.ok else None,
                hit.error,
                hit.raw,
                Usage(),
                cached=True,
                attempts=hit.attempts,
            )
        try:
            att, n = await self.core.retrying(
                lambda: self._probs_once(msgs, list(options), prompt_version)
            )
        except CallFailed as exc:
            reply: JudgeReply[dict[str, float]] = _transport_failure(exc, 0, Usage())
        else:
            reply = JudgeReply(att.value, att.error, att.raw, att.usage, attempts=n)
        return self._finish("option_probs", key, prompt_version, reply, lambda v: v)

    async def _probs_once(
        self, msgs: list[Message], options: list[str], prompt_version: str
    ) -> _Attempt:
        if self._raw:
            request = ChatRequest(msgs, 1, top_logprobs=TOP_LOGPROBS)
            comp: ChatCompletion = await self.inner.complete(request)  # type: ignore[union-attr]
            if not comp.top_logprobs:
                return _Attempt(
                    None,
                    "the server returned no logprobs (does it support logprobs/top_logprobs?)",
                    comp.text,
                    comp.usage,
                )
            value, error = option_probs_from_top(comp.top_logprobs, options)
            raw = json.dumps(comp.top_logprobs) if error else comp.text
            return _Attempt(value, error, raw, comp.usage)
        reply = await self.inner.option_probs(msgs, options, prompt_version=prompt_version)
        if not reply.ok and reply.raw is None:
            raise _NoOutput(reply.error or "judge returned no probabilities")
        return _Attempt(reply.value, reply.error, reply.raw, reply.usage)

    # -- bookkeeping ---------------------------------------------------------------------
    def _finish(
        self,
        kind: str,
        key: str,
        prompt_version: str,
        reply: JudgeReply[Any],
        encode: Callable[[Any], Any],
    ) -> JudgeReply[Any]:
        transient = getattr(reply, "_transient", False)
        self.accountant.record(
            self.name,
            prompt_tokens=reply.usage.prompt_tokens,
            completion_tokens=reply.usage.completion_tokens,
            failed=not reply.ok,
            retries=max(0, reply.attempts - 1),
        )
        # Cache what the model answered (a value, or output that failed validation); a
        # transport failure is not an answer, so a later run tries it again.
        if self.core.cache is not None and not transient and (reply.ok or reply.raw is not None):
            self.core.cache.put(
                key,
                kind=kind,
                backend=self.name,
                prompt_version=prompt_version,
                ok=reply.ok,
                value=encode(reply.value) if reply.ok else None,
                error=reply.error,
                raw=reply.raw,
                prompt_tokens=reply.usage.prompt_tokens,
                completion_tokens=reply.usage.completion_tokens,
                attempts=reply.attempts,
            )
        return reply


class _NoOutput(Exception):
    """A wrapped Judge reported an error without model output; not retried, not cached."""


def _transport_failure(exc: CallFailed, attempts: int, usage: Usage) -> JudgeReply[Any]:
    reply: JudgeReply[Any] = JudgeReply(
        None, redact(exc.reason), None, usage, attempts=attempts + exc.attempts
    )
    reply._transient = True  # type: ignore[attr-defined]
    return reply


class CachedEmbedder:
    """An Embedder with a per-text vector cache, batching, retries and bounded concurrency."""

    def __init__(
        self,
        inner: Embedder,
        *,
        cache: CallCache | None = None,
        policy: RetryPolicy | None = None,
        timeout: float | None = 60.0,
        concurrency: int = 8,
        accountant: Accountant | None = None,
        batch_size: int = 64,
    ) -> None:
        self.inner = inner
        self.core = _Core(
            inner.name,
            cache=cache,
            policy=policy,
            timeout=timeout,
            concurrency=concurrency,
            accountant=accountant,
        )
        self.name = self.core.name
        self.batch_size = max(1, batch_size)

    async def _embed_batch(self, batch: list[str]) -> tuple[np.ndarray, Usage, int]:
        async def once() -> JudgeReply[np.ndarray]:
            reply = await self.inner.embed(batch)
            if not reply.ok:
                raise _NoOutput(reply.error or "embedder returned no vectors")
            return reply

        reply, attempts = await self.core.retrying(once)
        matrix = np.asarray(reply.value, dtype=np.float32)
        if matrix.shape[0] != len(batch):
            raise _NoOutput(f"embedder returned {matrix.shape[0]} vectors for {len(batch)} texts")
        return matrix, reply.usage, attempts

    async def embed(self, texts: Sequence[str]) -> JudgeReply[np.ndarray]:
        texts = list(texts)
        keys = [embedding_key(self.name, t) for t in texts]
        found = self.core.cache.get_vectors(sorted(set(keys))) if self.core.cache else {}
        todo: dict[str, str] = {}
        for k, t in zip(keys, texts, strict=True):
            if k not in found:
                todo.setdefault(k, t)
        usage, attempts = Usage(), 0
        if todo:
            items = list(todo.items())
            batches = [
                items[i : i + self.batch_size] for i in range(0, len(items), self.batch_size)
            ]
            results = await asyncio.gather(
                *(self._embed_batch([t for _, t in b]) for b in batches), return_exceptions=True
            )
            fresh: list[tuple[str, np.ndarray]] = []
            error: str | None = None
            for batch, res in zip(batches, results, strict=True):
                if isinstance(res, BaseException):
                    if isinstance(res, asyncio.CancelledError):
                        raise res
                    error = res.reason if isinstance(res, CallFailed) else describe(res)
                    continue
                matrix, u, n = res
                usage += u
                attempts += n
                fresh.extend((k, row) for (k, _), row in zip(batch, matrix, strict=True))
            if self.core.cache is not None and fresh:
                self.core.cache.put_vectors(self.name, fresh)
            found.update(fresh)
            self.core.accountant.record(
                self.name,
                prompt_tokens=usage.prompt_tokens,
                failed=error is not None,
                retries=max(0, attempts - len(batches)),
            )
            if error is not None:
                return JudgeReply(None, redact(error), None, usage, attempts=attempts)
        else:
            self.core.accountant.record(self.name, cached=True)
        matrix = np.stack([found[k] for k in keys]) if keys else np.zeros((0, 0), np.float32)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True) if keys else None
        if norms is not None:
            matrix = matrix / np.where(norms == 0, 1.0, norms)
        return JudgeReply(matrix, None, None, usage, cached=not todo, attempts=max(attempts, 1))


class CachedScorer:
    """A Scorer (teacher-forced log-probabilities, local models) with caching and accounting."""

    def __init__(
        self,
        inner: Scorer,
        *,
        cache: CallCache | None = None,
        timeout: float | None = None,
        concurrency: int = 1,
        accountant: Accountant | None = None,
    ) -> None:
        self.inner = inner
        self.core = _Core(
            inner.name,
            cache=cache,
            policy=RetryPolicy(max_retries=0),
            timeout=timeout,
            concurrency=concurrency,
            accountant=accountant,
        )
        self.name = self.core.name
        params = getattr(inner, "cache_params", None)
        self._params: dict[str, Any] = dict(params()) if callable(params) else {}

    def key(self, prompt: str, target: str, *, prompt_version: str) -> str:
        return call_key(
            backend=self.name,
            kind="target_logprobs",
            messages={"prompt": prompt, "target": target},
            params=self._params,
            prompt_version=prompt_version,
        )

    async def target_logprobs(
        self, prompt: str, target: str, *, prompt_version: str
    ) -> JudgeReply[TokenLogprobs]:
        key = self.key(prompt, target, prompt_version=prompt_version)
        hit = self.core.cache.get(key) if self.core.cache else None
        if hit is not None and hit.ok:
            self.core.accountant.record(self.name, cached=True)
            return JudgeReply(TokenLogprobs(**hit.value), None, hit.raw, Usage(), cached=True)
        try:
            reply, _ = await self.core.retrying(
                lambda: self.inner.target_logprobs(prompt, target, prompt_version=prompt_version)
            )
        except CallFailed as exc:
            reply = JudgeReply(None, redact(exc.reason), None)
        self.core.accountant.record(
            self.name,
            prompt_tokens=reply.usage.prompt_tokens,
            completion_tokens=reply.usage.completion_tokens,
            failed=not reply.ok,
        )
        if reply.ok and reply.value is not None and self.core.cache is not None:
            value = {
                "tokens": list(reply.value.tokens),
                "logprobs": [float(x) for x in reply.value.logprobs],
            }
            self.core.cache.put(
                key,
                kind="target_logprobs",
                backend=self.name,
                prompt_version=prompt_version,
                ok=True,
                value=value,
                prompt_tokens=reply.usage.prompt_tokens,
                completion_tokens=reply.usage.completion_tokens,
            )
        return reply
