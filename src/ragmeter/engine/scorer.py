"""CachedScorer (teacher-forced log-probabilities) and CachedRewardModel (a reward model's
score of an answer): local models with caching and accounting, as the judge has. Why: the
Hugging Face scorer and reward model were used raw, so a re-run with the same cache computed
every perplexity and reward again, and the run's usage said nothing of their calls.
No retries: an in-process model fails the same way twice.
"""

from __future__ import annotations

from typing import Any, Protocol

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

    def prompt_cut(self, prompt: str, target: str) -> bool:
        """Whether the inner scorer reads only part of ``prompt`` (a Hugging Face scorer cuts
        it to its token limit); False for one that says nothing of it."""
        cut = getattr(self.inner, "prompt_cut", None)
        return bool(cut(prompt, target)) if callable(cut) else False

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


class RewardModel(Protocol):
    """What answer_reward calls: a reward of (question, answer) in [0, 1], the logit as raw."""

    name: str

    async def score(self, question: str, answer: str) -> JudgeReply[float]: ...


REWARD_VERSION = "sigmoid-logit-1"  # how a reward is made from the model: in the cache key


class CachedRewardModel:
    """A reward model (``score(question, answer) -> JudgeReply[float]``: sigmoid of a logit,
    the logit's repr as ``raw``) with caching and accounting. The value and the raw logit are
    stored as given, so a cached score is bit-identical to the computed one; a failure is not
    stored. ``store=False`` (a dry run, whose cache is read only) only reads the cache."""

    def __init__(
        self,
        inner: RewardModel,
        *,
        cache: CallCache | None = None,
        concurrency: int = 1,
        accountant: Accountant | None = None,
        store: bool = True,
    ) -> None:
        self.inner = inner
        self.core = CallCore(
            inner.name,
            cache=cache,
            policy=RetryPolicy(max_retries=0),
            timeout=None,
            concurrency=concurrency,
            accountant=accountant,
        )
        self.name = self.core.name
        self.store = store
        params = getattr(inner, "cache_params", None)
        self._params: dict[str, Any] = dict(params()) if callable(params) else {}

    def key(self, question: str, answer: str) -> str:
        return call_key(
            backend=self.name,
            kind="reward",
            messages={"question": question, "answer": answer},
            params=self._params,
            prompt_version=REWARD_VERSION,
        )

    def cached(self, key: str) -> JudgeReply[float] | None:
        """The stored reply under ``key``; None when there is none or the row is damaged (a
        value that is no probability, a raw that is no number): that one is asked again."""
        hit = self.core.cache.get(key) if self.core.cache is not None else None
        if hit is None or type(hit.value) is not float or not 0.0 <= hit.value <= 1.0:
            return None
        try:
            float(hit.raw) if hit.raw is not None else None
        except ValueError:
            return None
        return JudgeReply(hit.value, None, hit.raw, Usage(), cached=True)

    async def score(self, question: str, answer: str) -> JudgeReply[float]:
        key = self.key(question, answer)
        hit = self.cached(key)
        if hit is not None:
            self.core.accountant.record(self.name, cached=True)
            return hit
        try:
            reply, _ = await self.core.retrying(lambda: self.inner.score(question, answer))
        except CallFailed as exc:
            reply = JudgeReply(None, redact(exc.reason), None)
        self.core.accountant.record(
            self.name, prompt_tokens=reply.usage.prompt_tokens, failed=not reply.ok
        )
        cache = self.core.cache
        if reply.ok and reply.value is not None and cache is not None and self.store:
            cache.put(
                key,
                kind="reward",
                backend=self.name,
                prompt_version=REWARD_VERSION,
                ok=True,
                value=float(reply.value),
                raw=reply.raw,
                prompt_tokens=reply.usage.prompt_tokens,
            )
        return reply
