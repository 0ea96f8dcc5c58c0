"""CachedScorer: teacher-forced log-probabilities (local models) with caching and accounting.
No retries: an in-process model fails the same way twice.
"""

from __future__ import annotations

from typing import Any

from ragmeter.engine.accounting import Accountant
from ragmeter.engine.cache import CallCache, call_key
from ragmeter.engine.calls import CallCore
from ragmeter.engine.retry import RetryPolicy
from ragmeter.errors import CallFailed
from ragmeter.protocols import JudgeReply, Scorer, TokenLogprobs, Usage
from ragmeter.redact import redact


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
        self.core = CallCore(
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
        if hit is not None:
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
