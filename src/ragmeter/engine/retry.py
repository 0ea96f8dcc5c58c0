"""Which failures are worth another try, and how long to wait before it.

Exponential backoff with full jitter, capped, and a server's Retry-After honoured when it
asks for longer. Classification works on exception types from any backend: our own
``TransientError``, the openai SDK's status/connection/time-out errors, and asyncio/OS
time-outs and connection errors.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ragmeter.errors import PermanentError, TransientError

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 4  # retries after the first attempt
    base_delay: float = 0.25
    max_delay: float = 20.0
    max_retry_after: float = 120.0

    def delay(
        self, attempt: int, retry_after: float | None = None, rng: random.Random | None = None
    ) -> float:
        """Seconds to wait before retry number ``attempt`` (1-based)."""
        rand = (rng or random).random()
        backoff = min(self.max_delay, self.base_delay * (2 ** (attempt - 1)))
        wait = backoff * (0.5 + 0.5 * rand)  # "equal jitter": never zero, never in lock-step
        if retry_after is not None and retry_after > 0:
            wait = max(wait, min(retry_after, self.max_retry_after))
        return wait


def parse_retry_after(headers: Mapping[str, str] | Any | None) -> float | None:
    """Seconds from ``Retry-After`` (delta-seconds or HTTP date) or ``retry-after-ms``."""
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000.0)
        value = headers.get("retry-after")
    except Exception:
        return None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def classify(exc: BaseException) -> tuple[bool, float | None]:
    """(retryable?, retry_after seconds) for an exception raised by a backend call."""
    if isinstance(exc, TransientError):
        return True, exc.retry_after
    if isinstance(exc, PermanentError):
        return False, None
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError, ConnectionError)):
        return True, None
    try:
        import openai
    except ImportError:  # pragma: no cover - openai is a core dependency
        openai = None  # type: ignore[assignment]
    if openai is not None:
        if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError)):
            return True, None
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            headers = getattr(exc.response, "headers", None)
            return status in RETRYABLE_STATUS or status >= 500, parse_retry_after(headers)
    status = getattr(exc, "status_code", None)  # litellm and other SDKs
    if isinstance(status, int):
        return status in RETRYABLE_STATUS or status >= 500, None
    name = type(exc).__name__.lower()
    if any(word in name for word in ("timeout", "connection", "ratelimit", "unavailable")):
        return True, None
    return False, None
