"""CachedEmbedder: an Embedder with a per-text vector cache, batching, retries and bounded
concurrency. Vectors come back L2-normalised whatever the backend returns.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np

from ragmeter.engine.accounting import Accountant
from ragmeter.engine.cache import CallCache, embedding_key
from ragmeter.engine.calls import CallCore
from ragmeter.engine.retry import RetryPolicy
from ragmeter.errors import CallFailed, NoModelOutput, RunAborted
from ragmeter.protocols import Embedder, JudgeReply, Usage
from ragmeter.redact import describe, redact
from ragmeter.vectors import unit_rows


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

    async def _embed_batch(self, batch: list[str]) -> tuple[np.ndarray, Usage, int]:
        async def once() -> JudgeReply[np.ndarray]:
            reply = await self.inner.embed(batch)
            if not reply.ok:
                raise NoModelOutput(reply.error or "embedder returned no vectors")
            return reply

        reply, attempts = await self.core.retrying(once)
        matrix = np.asarray(reply.value, dtype=np.float32)
        if matrix.shape[0] != len(batch):
            raise NoModelOutput(
                f"embedder returned {matrix.shape[0]} vectors for {len(batch)} texts"
            )
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
                    if isinstance(res, (asyncio.CancelledError, RunAborted)):
                        raise res  # a dead endpoint ends the run: never a failed batch
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
        matrix = (
            unit_rows(np.stack([found[k] for k in keys]), np.float32)
            if keys
            else np.zeros((0, 0), np.float32)
        )
        return JudgeReply(matrix, None, None, usage, cached=not todo, attempts=max(attempts, 1))
