"""CachedJudge: what metrics actually call to ask a judge.

It wraps a raw backend (``ChatBackend``) or any object already speaking the Judge protocol,
and adds, in this order: a persistent cache lookup, bounded concurrency, a per-call time-out,
retries with backoff on transient faults, validation of structured output with one repair
retry that shows the model its error, accounting, and a cache write committed as soon as the
model has answered. Model faults come back as error replies with the raw output kept;
nothing raises into metric code.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel

from ragmeter.engine.accounting import Accountant
from ragmeter.engine.cache import CallCache, call_key, fits_options
from ragmeter.engine.calls import CallCore
from ragmeter.engine.grouped import GroupedVerdicts
from ragmeter.engine.parsing import (
    TOP_LOGPROBS,
    option_probs_from_top,
    parse_structured,
    repair_messages,
)
from ragmeter.engine.retry import RetryPolicy
from ragmeter.errors import CallFailed, NoModelOutput
from ragmeter.protocols import (
    ChatBackend,
    ChatCompletion,
    ChatRequest,
    Judge,
    JudgeReply,
    Message,
    Usage,
)
from ragmeter.redact import redact

M = TypeVar("M", bound=BaseModel)
# Read-only facts about the model that metrics may use to size prompts.
_FORWARDED = frozenset({"n_ctx", "count_tokens", "count_chat_tokens", "max_concurrency"})


@dataclass
class _Attempt:
    """One model answer: a validated value, or the error with the model's raw text."""

    value: Any
    error: str | None
    raw: str | None
    usage: Usage


class CachedJudge(GroupedVerdicts):
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
        self.core = CallCore(
            inner.name,
            cache=cache,
            policy=policy,
            timeout=timeout,
            concurrency=concurrency,
            accountant=accountant,
            endpoint=getattr(inner, "base_url", None),
        )
        self.name = self.core.name
        self.repair = repair
        self._schemas: dict[type[BaseModel], dict[str, Any]] = {}

    @property
    def concurrency(self) -> int:
        """Calls this judge takes in flight at once (1 for the embedded model)."""
        return self.core.limiter.limit

    @property
    def _params(self) -> dict[str, Any]:
        # Read per call: preflight may settle the backend's structured-output mode.
        params = getattr(self.inner, "cache_params", None)
        return dict(params()) if callable(params) else {}

    async def preflight(self) -> dict[str, Any]:
        """One tiny request before the run (for backends that offer ``preflight``), retried
        on transient faults (time-out, 429, 5xx, dropped connection) with the calls' policy.

        Raises JudgeUnreachable when the endpoint refuses us (refused, DNS, TLS, 401/403/404)
        so the run stops before its first row, and also when the faults outlast the retries
        while the backend needs the preflight's answer (``preflight_required``: the
        structured-output mode of ``auto``): settling on a guess would fix a weaker mode for
        the run and key its cache on it. Otherwise a fault is only noted, as the per-call
        retries will deal with it. Returns what it found out.
        """
        probe = getattr(self.inner, "preflight", None)
        if probe is None:
            return {}
        try:
            found, _ = await self.core.retrying(probe)
        except CallFailed as exc:
            if exc.unreachable:
                raise self.core.breaker.unreachable(exc.reason, "preflight request") from None
            if getattr(self.inner, "preflight_required", False):
                raise self.core.breaker.unreachable(
                    exc.reason,
                    "preflight: the structured-output mode could not be found out; "
                    "--structured-output json_schema|json_object|none skips the detection",
                ) from None
            return {"preflight": f"no answer ({redact(exc.reason)}); going on with retries"}
        found = {k: redact(v) if isinstance(v, str) else v for k, v in dict(found or {}).items()}
        return {"preflight": "ok", **found}

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
        key = (  # only a cache reads it: hashing the prompt cost ~25 us a call without one
            self.structured_key(msgs, schema, prompt_version=prompt_version, max_tokens=max_tokens)
            if self.core.cache is not None
            else ""
        )
        hit = self.core.cache.get(key) if self.core.cache else None
        if hit is not None:  # a stored answer (the cache serves no failure)
            value, _ = parse_structured(json.dumps(hit.value), schema)
            if value is not None:  # else the schema no longer takes it: ask again
                self.accountant.record(self.name, cached=True)
                return JudgeReply(value, None, hit.raw, Usage(), cached=True, attempts=hit.attempts)
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
            if error is not None and comp.finish_reason == "length":
                # else "Unterminated string" sent users hunting a broken model or server
                error = f"the reply was cut off at max_tokens={max_tokens}: {error}"
            return _Attempt(value, error, comp.text, comp.usage)
        reply = await self.inner.structured(
            msgs, schema, prompt_version=prompt_version, max_tokens=max_tokens
        )
        if reply.ok:
            return _Attempt(reply.value, None, reply.raw, reply.usage)
        if reply.raw is None:  # no model output: a backend fault, not something to repair
            raise NoModelOutput(reply.error or "judge returned no output")
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
                return _transport_failure(exc, attempts, usage, self._structured_hint(exc))
            attempts += n
            usage += att.usage
            if att.error is None:
                return JudgeReply(att.value, None, att.raw, usage, attempts=attempts)
            if round_ == 0 and self.repair and att.raw is not None:
                current = repair_messages(msgs, att.raw, att.error, self._schema_json(schema))
                continue
            break
        suffix = " (after a repair retry)" if self.repair else ""
        return JudgeReply(None, redact(f"{att.error}{suffix}"), att.raw, usage, attempts=attempts)

    def _structured_hint(self, exc: CallFailed) -> str | None:
        """What to change when a server refuses the structured-output format we asked for."""
        if exc.unreachable or "Error code: " not in exc.reason:
            return None  # only an HTTP status error can be a refused response_format
        return _HINTS.get(str(self._params.get("structured_mode")))

    # -- verdict probabilities -----------------------------------------------------------
    async def option_probs(
        self, messages: Sequence[Message], options: Sequence[str], *, prompt_version: str
    ) -> JudgeReply[dict[str, float]]:
        msgs = [dict(m) for m in messages]
        key = (  # only a cache reads it (``_finish`` writes nothing without one)
            self.option_probs_key(msgs, options, prompt_version=prompt_version)
            if self.core.cache is not None
            else ""
        )
        hit = self.core.cache.get(key) if self.core.cache else None
        if hit is not None and fits_options(hit.value, options):  # else damaged: ask again
            self.accountant.record(self.name, cached=True)
            return JudgeReply(hit.value, None, hit.raw, Usage(), cached=True, attempts=hit.attempts)
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
            raise NoModelOutput(reply.error or "judge returned no probabilities")
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
            computed_tokens=reply.usage.computed_tokens,
            failed=not reply.ok,
            retries=max(0, reply.attempts - 1),
        )
        # Store what the model answered: a value, served to later runs, or output that
        # failed validation, kept for diagnosis but never served (cache.py), so a later run
        # asks again. A transport failure has no output to keep.
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


_HINTS = {
    "json_schema": "if the server does not take response_format json_schema (llama.cpp's "
    "server answers HTTP 500), use --structured-output json_object or none "
    "(Settings(structured_mode=...)), or auto with the preflight on",
    "json_object": "if the server does not take response_format json_object, use "
    "--structured-output none (the schema is then written into the prompt)",
}


def _transport_failure(
    exc: CallFailed, attempts: int, usage: Usage, hint: str | None = None
) -> JudgeReply[Any]:
    reason = f"{exc.reason}; {hint}" if hint else exc.reason
    reply: JudgeReply[Any] = JudgeReply(
        None, redact(reason), None, usage, attempts=attempts + exc.attempts
    )
    reply._transient = True  # type: ignore[attr-defined]
    return reply
