"""Keep secrets out of everything we write: logs, cache rows, reports, exception text.

Also where URLs and backend names are made safe to store (``public_url``, ``safe_name``).

Backends register the secret values they hold (API keys); every string that leaves the
engine as an error reason passes through ``redact`` first. The registry holds values in
memory only and is never serialised.
"""

from __future__ import annotations

import os
import re
import threading
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ragmeter.errors import ConfigError


def env_secret(name: str | None) -> str | None:
    """The value of the environment variable ``name`` holding a key, or None when it is unset
    or blank. Why blank counts as unset: a CI secret that expands to spaces or a newline was
    taken for a key, sent as "Bearer  ", and the run ended after its retries on the server's
    401 (exit 3) instead of "no API key" before any work (exit 2). A key read with its line
    ending (an env file) is sent without it."""
    value = (os.environ.get(name) or "").strip() if name else ""
    return value or None


_SECRETS: set[str] = set()
_LOCK = threading.Lock()
_MASK = "***"
# Every form of the registered secrets, longest first, matched in any case (None: none yet).
_SECRET_RE: re.Pattern[str] | None = None
# A key's body without its prefix ('sk-', 'sk-proj-', 'sk-ant-api03-') is masked only when
# at least this long: shorter tails could be ordinary words.
_MIN_BODY = 12
OPENAI_URL = "https://api.openai.com/v1"  # what an OpenAI-compatible client talks to by default
_USERINFO = re.compile(r"(//)[^/@\s]+@")
# A setting name that would hold a secret (api_key, token, password, ...): refused in settings
# files and options, and masked wherever settings are recorded.
_SECRET_NAME = re.compile(r"(?i)key|token|secret|passw|pwd|credential|auth|bearer|cookie")
# Bearer tokens and sk-... style keys echoed back by servers, even ones we never registered.
_PATTERNS = (
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._\-]{8,}"),
    re.compile(r"(?i)\bsk-[A-Za-z0-9_\-]{8,}"),
)


def _forms(secret: str) -> set[str]:
    """The secret, and its body after each '-' or '_' of a prefix (its first 16 characters)
    when that body is long enough: servers echo keys without their 'sk-' prefix."""
    forms = {secret}
    for i, ch in enumerate(secret[:16]):
        if ch in "-_" and len(secret) - i - 1 >= _MIN_BODY:
            forms.add(secret[i + 1 :])
    return forms


# Keys that local servers ignore and their docs tell users to set (vLLM: EMPTY, Ollama:
# ollama, LM Studio: lm-studio, llama.cpp: sk-no-key-required), and like stand-ins: public
# words, not secrets. Registered, every "empty" in a reason became "***" ("no non-***
# reference answer") and run.json recorded ``embedder: ***`` for a key of "none".
_PLACEHOLDER_KEYS = frozenset(
    {"empty", "none", "null", "dummy", "test", "fake", "unused", "placeholder", "ollama"}
    | {"lm-studio", "not-needed", "no-key", "nokey", "sk-no-key-required"}
)


def register_secret(value: str | None) -> None:
    """Remember a secret so that ``redact`` masks it wherever it appears (a placeholder key
    of ``_PLACEHOLDER_KEYS`` is no secret: it is not masked)."""
    global _SECRET_RE
    if value and len(value) >= 4 and value.strip().lower() not in _PLACEHOLDER_KEYS:
        with _LOCK:
            if value in _SECRETS:
                return
            _SECRETS.add(value)
            forms = sorted({f for s in _SECRETS for f in _forms(s)}, key=len, reverse=True)
            _SECRET_RE = re.compile("|".join(map(re.escape, forms)), re.IGNORECASE)


def redact(text: str) -> str:
    """``text`` with every registered secret and key-looking token replaced by ``***``.

    A secret is matched in any case (a server may echo it upper-cased) and also without its
    prefix (``_forms``)."""
    if not text:
        return text
    with _LOCK:
        secrets = _SECRET_RE
    if secrets is not None:
        text = secrets.sub(_MASK, text)
    for pattern in _PATTERNS:
        text = pattern.sub(lambda m: (m.group(1) if m.groups() else "") + _MASK, text)
    return text


def describe(exc: BaseException) -> str:
    """A one-line, redacted description of an exception for a failure reason. Masked
    before it is cut to 500 characters: a key across the cut kept its first characters."""
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    text = f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__
    return redact(text)[:500]


def public_url(url: str | None) -> str:
    """The URL without user info, query or fragment: safe to store and print."""
    if not url:
        return OPENAI_URL
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def safe_name(name: str) -> str:
    """A backend name fit for cache rows and reports: no credentials in URLs, no keys."""
    return redact(_USERINFO.sub(r"\1", name))


def reject_credentials(url: str | None, option: str) -> None:
    """ConfigError when a URL (or any URL of a comma list) carries ``user:password@``.

    Why refuse rather than strip: the OpenAI client sends the key as an Authorization
    header, and the HTTP client then fails every call ("Cannot combine AUTHORIZATION
    header with credentials encoded in URL"), a run of failed scores instead of one clear
    error. The message names the URL without its credentials, never the password.
    """
    for part in (url or "").split(","):
        part = part.strip()
        try:
            has_userinfo = "@" in urlsplit(part).netloc
        except ValueError:  # an unparseable URL is the client's to report
            continue
        if has_userinfo:
            raise ConfigError(
                f"{option}: credentials in the URL (user:password@) are not accepted: give "
                f"{public_url(part)} and put the key in the environment variable named by "
                "--api-key-env (api_key_env, default OPENAI_API_KEY)"
            )


def reject_query(url: str | None, option: str) -> None:
    """ConfigError when a URL (or any URL of a comma list) has a query string or fragment.

    Why refuse: the client appends the API path to the base URL, so ``/v1?api-key=K``
    becomes ``/v1/?api-key=Kchat/completions`` (every call fails), and such a query usually
    holds a key, which would then be in error messages and reprs. As for ``user:password@``
    (``reject_credentials``), the message names the URL without its query, never the query.
    """
    for part in (url or "").split(","):
        part = part.strip()
        if "?" not in part and "#" not in part:
            continue
        try:
            public = public_url(part)
        except ValueError:  # an unparseable URL is the client's to report
            public = "the URL without it"
        raise ConfigError(
            f"{option}: a query string or fragment in the URL (?... or #...) is not accepted: "
            f"give {public} and put the key in the environment variable named by "
            "--api-key-env (api_key_env, default OPENAI_API_KEY)"
        )


def reject_unusable(url: str | None, option: str) -> None:
    """ConfigError when a server URL (or any URL of a comma list) is not ``http(s)://HOST``
    with a valid port: ``localhost:8000`` (no scheme), ``ftp://h``, ``http://h:99999``,
    ``http://[::1`` or an empty string.

    Why: the OpenAI client accepts any string and fails at the first call, so the run spent
    five attempts and their backoff before exit 3 "unreachable" (``localhost:8000`` read as
    a scheme); a bad port or bracket raised ValueError where the URL is recorded (an
    internal error); an empty one sent the calls to OpenAI's API. Run after
    ``reject_credentials`` and ``reject_query``; the URL is shown without its user info."""
    if url is None:
        return
    given = [p.strip() for p in url.split(",") if p.strip()] or [url.strip()]
    for part in given:  # an empty item of a list is skipped, as public_urls skips it
        try:
            split = urlsplit(part)
            split.port  # noqa: B018 - raises ValueError when out of range
            ok = split.scheme.lower() in ("http", "https") and bool(split.hostname)
        except ValueError:
            ok = False
        if not ok:
            # redacted: a key pasted where the URL goes ('sk-...') was quoted back in full
            shown = redact(_USERINFO.sub(r"\1***@", part).rsplit("@", 1)[-1]) if part else ""
            raise ConfigError(
                f"{option}: {shown!r} is not a server URL: give http(s)://HOST[:PORT][/PATH], "
                "e.g. http://localhost:8000/v1 (with none, OpenAI's API is used)"
            )


def public_urls(url: str | None) -> str | None:
    """Each URL of a comma list without credentials, query or fragment."""
    if url is None:
        return None
    return ",".join(public_url(u.strip()) for u in url.split(",") if u.strip())


def secret_name(name: str) -> bool:
    """Whether a setting called ``name`` would hold a secret; ``*_env`` names a variable."""
    return bool(_SECRET_NAME.search(name)) and not name.lower().endswith("_env")


def redact_tree(value: Any, name: str = "") -> Any:
    """``value`` (settings as JSON data) with each string under a secret-looking name masked
    and every other string passed through ``redact``.

    Why, when validation refuses such names already: this is what run.json, summary.json
    and reports record, so a key a future bug lets through validation still never lands
    there (defence in depth)."""
    if isinstance(value, dict):
        return {k: redact_tree(v, str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_tree(v, name) for v in value]
    if isinstance(value, str):
        return _MASK if secret_name(name) else redact(value)
    return value


_URL_USERINFO = re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://)[^/@\s\"'<>]+@")
_URL_QUERY = re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^\s\"'<>?#]*)[?#][^\s\"'<>]*")


def public_text(text: str) -> str:
    """Text from a run's files (warnings that quote settings, recorded settings, reasons)
    fit to show: registered and key-looking secrets masked, URLs without credentials or query.
    Why here too: a run written by an older or patched ragmeter, or edited by hand, may
    hold what today's validation refuses, and a report or PR comment is shared widely."""
    text = _URL_USERINFO.sub(r"\1***@", text)
    return redact(_URL_QUERY.sub(r"\1?***", text))
