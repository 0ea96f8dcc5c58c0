"""Which failures are worth another try, and how long to wait before it.

Exponential backoff with full jitter, capped, and a server's Retry-After honoured when it
asks for longer. Classification works on exception types from any backend: our own
``TransientError``, the openai SDK's status/connection/time-out errors, and asyncio/OS
time-outs and connection errors.
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ragmeter.errors import PermanentError, TransientError
from ragmeter.redact import redact

UNREACHABLE_STATUS = frozenset({401, 403, 404})

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
        """Seconds to wait before retry number ``attempt`` (1-based).

        A Retry-After (cut to ``max_retry_after``) is waited in full plus up to a quarter
        more at random. Why: a rate limiter tells every call it refuses the same wait, and
        calls refused together then all came back at the same instant, a burst that drew
        the next round of 429s (the backoff's jitter was lost under the server's figure).
        """
        rand = (rng or random).random()
        backoff = min(self.max_delay, self.base_delay * (2 ** (attempt - 1)))
        wait = backoff * (0.5 + 0.5 * rand)  # "equal jitter": never zero, never in lock-step
        if retry_after is not None and retry_after > 0:
            asked = min(retry_after, self.max_retry_after)
            wait = max(wait, asked * (1.0 + 0.25 * rand))
        return wait


def parse_retry_after(headers: Mapping[str, str] | Any | None) -> float | None:
    """Seconds from ``Retry-After`` (delta-seconds or HTTP date) or ``retry-after-ms``."""
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        value = headers.get("retry-after")
    except Exception:
        return None
    for number, scale in ((ms, 1000.0), (value, 1.0)):
        if number is None:
            continue
        try:  # unreadable or NaN: the next header (a garbled ms once hid a good Retry-After)
            seconds = float(number) / scale
        except (TypeError, ValueError):
            continue
        if not math.isnan(seconds):
            return max(0.0, seconds)
    if value is None:
        return None
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


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen and len(out) < 10:
        seen.add(id(cur))
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


def connection_failure(exc: BaseException) -> str | None:
    """Why the endpoint cannot be reached at all, or None for any other fault.

    Connection refused, DNS, TLS and HTTP 401/403/404 say the endpoint is wrong or refuses
    us: every further call would fail the same way. The openai SDK's aiohttp transport
    reports a refused connection as ``APITimeoutError`` (over httpx's ``ConnectTimeout``), so
    the cause chain is read, not the outer type. Time-outs, 429 and 5xx are not here: they
    are transient and keep the retry policy.
    """
    import socket
    import ssl

    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and status in UNREACHABLE_STATUS:
        return f"HTTP {status}: {_status_text(exc)}"
    for link in _chain(exc):
        name = type(link).__name__
        if isinstance(link, ConnectionRefusedError):
            return f"connection refused ({link.strerror or link})"
        if isinstance(link, socket.gaierror) or "DNSError" in name:
            return f"host name not found ({getattr(link, 'strerror', None) or link})"
        if isinstance(link, ssl.SSLError) or "SSLError" in name or "Certificate" in name:
            return f"TLS error ({link})"
    return None


# Exceptions, by class name (no transport is imported), that say the server closed the
# connection mid-request: aiohttp's and httpx's (RemoteProtocolError) and the OS's own.
_DROPPED = frozenset(
    {
        "ServerDisconnectedError",
        "ClientPayloadError",
        "RemoteProtocolError",
        "IncompleteRead",
        "ConnectionResetError",
        "ConnectionAbortedError",
        "BrokenPipeError",
    }
)


def connection_dropped(exc: BaseException) -> str | None:
    """A reason, "connection dropped by the server (...)", when the cause chain shows the
    server hung up mid-request; else None.

    Why: the SDK's aiohttp transport reports a dropped connection as ``APITimeoutError:
    Request timed out.`` (over httpx's ``ConnectTimeout``) and its httpx one as
    ``APIConnectionError: Connection error.``, which send a user looking for a slow
    server or a wrong address; the cause underneath says what happened. Still transient.
    """
    for link in _chain(exc):
        if type(link).__name__ in _DROPPED:
            detail = str(link).strip().splitlines()[0] if str(link).strip() else ""
            name = type(link).__name__
            return f"connection dropped by the server ({name}{': ' + detail if detail else ''})"
    return None


def _status_text(exc: BaseException) -> str:
    """The server's error message, masked before it is cut to 300 characters: a key the
    server echoed across the cut kept its first characters, which ``redact`` cannot match."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        msg = err.get("message") if isinstance(err, dict) else err
        if msg:
            return redact(str(msg))[:300]
    return redact(str(exc))[:300]
