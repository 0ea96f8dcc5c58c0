"""CachedEmbedder: an Embedder with a per-text vector cache, batching, retries and bounded
concurrency. Vectors come back L2-normalised whatever the backend returns.

Accounting counts what reaches the model: one call per batch sent (``batch_size`` texts at
most), its tokens, retries and failure; a request answered wholly from the cache is one
cache hit. Why per batch: a request of 130 texts is three HTTP calls, and usage said one.
``plan_batches`` is the one place that decides the batches, so the dry run's estimate
(``engine/dryrun.py``) counts exactly the calls a run makes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ragmeter.engine.accounting import Accountant
from ragmeter.engine.cache import CallCache, embedding_key
from ragmeter.engine.calls import CallCore
from ragmeter.engine.retry import RetryPolicy
from ragmeter.errors import CallFailed, NoModelOutput, RunAborted
from ragmeter.protocols import Embedder, JudgeReply, Usage
from ragmeter.redact import describe, redact
from ragmeter.vectors import unit_rows


def plan_batches(
    keys: Sequence[str], texts: Sequence[str], found: Mapping[str, Any], batch_size: int
) -> list[list[tuple[str, str]]]:
    """The (key, text) batches a request sends: each text whose key is not in ``found``,
    once, in first-seen order, at most ``batch_size`` a batch (one model call each)."""
    todo: dict[str, str] = {}
    for k, t in zip(keys, texts, strict=True):
        if k not in found:
            todo.setdefault(k, t)
    items = list(todo.items())
    size = max(1, batch_size)
    return [items[i : i + size] for i in range(0, len(items), size)]


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
        self.batch_size = max(1, batch_size)

    async def _embed_batch(
        self, batch: list[str]
    ) -> tuple[np.ndarray | None, Usage, int, str | None]:
        """(vectors or None, usage, attempts, why it failed): one model call and its retries,
        failed or not, so each batch is counted with what it cost."""

        async def once() -> JudgeReply[np.ndarray]:
            reply = await self.inner.embed(batch)
            if not reply.ok:
                raise NoModelOutput(reply.error or "embedder returned no vectors")
            return reply

        try:
            reply, attempts = await self.core.retrying(once)
        except CallFailed as exc:
            return None, Usage(), exc.attempts, exc.reason
        matrix = np.asarray(reply.value, dtype=np.float32)
        if matrix.shape[0] != len(batch):
            why = f"embedder returned {matrix.shape[0]} vectors for {len(batch)} texts"
            return None, reply.usage, attempts, why
        return matrix, reply.usage, attempts, None

    async def embed(self, texts: Sequence[str]) -> JudgeReply[np.ndarray]:
        texts = list(texts)
        keys = [embedding_key(self.name, t) for t in texts]
        found = self.core.cache.get_vectors(sorted(set(keys))) if self.core.cache else {}
        batches = plan_batches(keys, texts, found, self.batch_size)
        usage, attempts = Usage(), 0
        if batches:
            results = await asyncio.gather(
                *(self._embed_batch([t for _, t in b]) for b in batches), return_exceptions=True
            )
            fresh: list[tuple[str, np.ndarray]] = []
            error: str | None = None
            for batch, res in zip(batches, results, strict=True):
                if isinstance(res, BaseException):
                    if isinstance(res, (asyncio.CancelledError, RunAborted)):
                        raise res  # a dead endpoint ends the run: never a failed batch
                    res = (None, Usage(), 1, describe(res))
                matrix, u, n, why = res
                usage += u
                attempts += n
                self.core.accountant.record(
                    self.name,
                    prompt_tokens=u.prompt_tokens,
                    failed=why is not None,
                    retries=max(0, n - 1),
                )
                if matrix is None:
                    error = why
                    continue
                rows = list(zip((k for k, _ in batch), matrix, strict=True))
                good = [(k, row) for k, row in rows if np.isfinite(row).all()]
                if len(good) < len(rows):  # else every similarity built on it came out NaN
                    error = "embedder returned a vector holding NaN or inf"
                fresh.extend(good)  # the good ones kept: asked again, only the bad ones
            if self.core.cache is not None and fresh:
                self.core.cache.put_vectors(self.name, fresh)
            found.update(fresh)
            if error is not None:
                return JudgeReply(None, redact(error), None, usage, attempts=attempts)
        elif texts:  # every text from the cache: no call was made
            self.core.accountant.record(self.name, cached=True)
        matrix = (
            unit_rows(np.stack([found[k] for k in keys]), np.float32)
            if keys
            else np.zeros((0, 0), np.float32)
        )
        return JudgeReply(matrix, None, None, usage, cached=not batches, attempts=max(attempts, 1))
