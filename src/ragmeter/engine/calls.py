"""The machinery every cached model wrapper shares: a concurrency limit per event loop, a
per-call time-out, retries with backoff on transient faults (see ``retry.py``), and a
circuit breaker that ends the run when the endpoint cannot be reached at all.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from ragmeter.engine.accounting import Accountant
from ragmeter.engine.cache import CallCache
from ragmeter.engine.retry import (
    RetryPolicy,
    classify,
    connection_dropped,
    connection_failure,
)
from ragmeter.errors import CallFailed, JudgeFailing, JudgeUnreachable
from ragmeter.redact import describe, public_url, redact, safe_name

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


class CircuitBreaker:
    """Counts consecutive connection-level failures (refused, DNS, TLS, 401/403/404) across
    every call of one wrapper; at ``threshold`` it raises JudgeUnreachable, which ends the run.

    Why: a dead or misaddressed judge otherwise costs every row its full retry budget and
    still yields a run of failed scores. Any answer from the endpoint resets the count, so a
    server that is merely flaky (429, 5xx, time-outs) never trips it.

    Once tripped it stays open for the rest of the run: ``check`` raises the same abort for
    every later attempt, before a request. Why: calls queued behind the limiter or in their
    retry loop went on sending (18 failing requests at concurrency 8, 30-36 at 32, against a
    threshold of 5). A run is one event loop (``asyncio.run``: the limiter's scope too), so a
    wrapper kept for a later run starts it closed.
    """

    # calls in a row that spent every retry on transient faults (5xx, 429, time-outs) with
    # no answer in between: a server that is down, not flaky. At 30% faults a call is spent
    # with odds 0.3^5 = 0.0024, so twenty in a row do not happen; at 100% they come at once.
    EXHAUSTED = 20

    def __init__(self, name: str, endpoint: str | None, threshold: int = 5) -> None:
        self.name = name
        self.endpoint = endpoint
        self.threshold = max(1, threshold)
        self.consecutive = 0
        self.exhausted = 0
        self._tripped: tuple[asyncio.AbstractEventLoop | None, JudgeUnreachable] | None = None

    def check(self) -> None:
        """Raise the abort again if the breaker tripped in this run (this event loop)."""
        if self._tripped is None:
            return
        loop, abort = self._tripped
        if loop is _running_loop():
            raise type(abort)(str(abort), endpoint=abort.endpoint) from None
        self._tripped, self.consecutive, self.exhausted = None, 0, 0  # a new run

    def _trip(self, abort: JudgeUnreachable) -> JudgeUnreachable:
        self._tripped = (_running_loop(), abort)
        return abort

    def success(self) -> None:
        self.consecutive = 0
        self.exhausted = 0

    def spent(self, reason: str) -> None:
        """A call failed after all its retries on transient faults (JudgeFailing at
        ``EXHAUSTED`` in a row)."""
        self.check()  # a call on the wire when it tripped ends with the same abort
        self.exhausted += 1
        if self.exhausted >= self.EXHAUSTED:
            where = f"{self.name} at {self.endpoint}" if self.endpoint else self.name
            raise self._trip(
                JudgeFailing(
                    redact(
                        f"{where} is failing: the last {self.exhausted} calls all failed "
                        f"after their retries (last: {reason}); the run was stopped"
                    ),
                    endpoint=self.endpoint,
                )
            ) from None

    def failure(self, reason: str) -> None:
        self.check()
        self.consecutive += 1
        if self.consecutive >= self.threshold:
            how = f"{self.consecutive} consecutive attempts failed"
            raise self._trip(self.unreachable(reason, how)) from None

    def unreachable(self, reason: str, how: str) -> JudgeUnreachable:
        where = f"{self.name} at {self.endpoint}" if self.endpoint else self.name
        return JudgeUnreachable(
            redact(f"{where} is unreachable: {reason} ({how}); the run was stopped"),
            endpoint=self.endpoint,
        )


def _running_loop() -> asyncio.AbstractEventLoop | None:
    """The run's event loop (None outside one: a breaker driven by hand)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


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
        endpoint: str | None = None,
        breaker_threshold: int = 5,
    ) -> None:
        self.name = safe_name(name)
        self.endpoint = public_url(endpoint) if endpoint else None
        self.breaker = CircuitBreaker(self.name, self.endpoint, breaker_threshold)
        self.cache = cache
        self.policy = policy or RetryPolicy()
        self.timeout = timeout if timeout and timeout > 0 else None
        self.limiter = _Limiter(concurrency)
        self.accountant = accountant or Accountant()

    async def _once(self, fn: Callable[[], Awaitable[R]]) -> R:
        self.breaker.check()  # a call in its retry loop when the breaker tripped
        async with self.limiter.get():
            self.breaker.check()  # a call queued behind the limiter when it tripped
            if self.timeout is None:
                return await fn()
            if _timeout_cm is not None:  # no extra task per call, unlike wait_for
                async with _timeout_cm(self.timeout):
                    return await fn()
            return await asyncio.wait_for(fn(), self.timeout)

    async def retrying(self, fn: Callable[[], Awaitable[R]]) -> tuple[R, int]:
        """(result, attempts); raises CallFailed once retries are spent or hopeless, and
        JudgeUnreachable when the circuit breaker trips (never caught below the runner)."""
        attempt = 0
        while True:
            attempt += 1
            try:
                result = await self._once(fn)
            except (asyncio.CancelledError, JudgeUnreachable):  # the breaker's abort
                raise
            except Exception as exc:
                retryable, retry_after = classify(exc)
                unreachable = connection_failure(exc)
                if unreachable is not None:
                    reason = unreachable
                    self.breaker.failure(reason)
                elif (dropped := connection_dropped(exc)) is not None:
                    reason = dropped
                elif isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
                    reason = f"time-out after {self.timeout}s"
                else:
                    reason = describe(exc)
                if not retryable or attempt > self.policy.max_retries:
                    tries = f" after {attempt} attempts" if attempt > 1 else ""
                    if retryable and unreachable is None:
                        self.breaker.spent(f"{reason}{tries}")
                    raise CallFailed(
                        f"{reason}{tries}{_long_wait(retry_after, self.policy)}",
                        attempt,
                        retryable,
                        unreachable is not None,
                    ) from None
                await asyncio.sleep(self.policy.delay(attempt, retry_after))
            else:
                self.breaker.success()
                return result, attempt


def _long_wait(retry_after: float | None, policy: RetryPolicy) -> str:
    """What a failure adds when the server asked for a longer wait than the engine takes.

    Why: a server that answers 429 with ``Retry-After: 86400`` (a daily quota) got its wait
    cut to ``max_retry_after`` in silence, and the call failed as a plain rate limit, so a
    user waited minutes per call and learnt nothing of what the server had said.
    """
    if retry_after is None or retry_after <= policy.max_retry_after:
        return ""
    return (
        f"; the server asked to wait {retry_after:.0f}s before retrying (Retry-After),"
        f" more than the {policy.max_retry_after:.0f}s ragmeter waits"
    )
