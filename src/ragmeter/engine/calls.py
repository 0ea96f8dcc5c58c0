"""The machinery every cached model wrapper shares: a concurrency limit per event loop, a
per-call time-out, and retries with backoff on transient faults (see ``retry.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from ragmeter.engine.accounting import Accountant
from ragmeter.engine.cache import CallCache
from ragmeter.engine.retry import RetryPolicy, classify
from ragmeter.errors import CallFailed
from ragmeter.redact import describe, safe_name

R = TypeVar("R")
_timeout_cm = getattr(asyncio, "timeout", None)  # Python >= 3.11


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


class CallCore:
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
