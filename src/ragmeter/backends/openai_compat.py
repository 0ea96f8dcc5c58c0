"""Any OpenAI-compatible chat server as a judge backend (OpenAI, vLLM, Ollama, llama.cpp
server, TGI, a LiteLLM proxy), through the official ``openai`` SDK.

Temperature 0 and a fixed seed; verdict probabilities through ``logprobs`` with
``top_logprobs=20`` and ``max_tokens=1``. Structured output: servers differ in what they
accept (OpenAI and vLLM: ``json_schema``; llama.cpp's server answers HTTP 500 to it but takes
``json_object``; some take neither). With ``structured_mode="auto"`` the preflight asks once
per endpoint and falls back json_schema -> json_object -> none; in json_object and none the
schema is written into the prompt, and the engine validates the reply with the same schema.
The SDK's own retries are off: the engine retries, with backoff and Retry-After. The API
key is read from an environment variable, registered for redaction, and never stored.
"""

from __future__ import annotations

import functools
import json
import os
from typing import Any

from ragmeter.backends._openai_reply import completion_from_dict
from ragmeter.endpoints import openai_base_url
from ragmeter.errors import ConfigError, TransientError
from ragmeter.protocols import ChatCompletion, ChatRequest
from ragmeter.redact import (
    OPENAI_URL,
    env_secret,
    public_url,
    redact,
    register_secret,
    reject_credentials,
)

try:  # openai>=3 ships its own httpx build
    import httpx2 as _HTTPX
except ImportError:  # pragma: no cover - older openai releases
    import httpx as _HTTPX  # type: ignore[no-redef]

PLACEHOLDER_KEY = "not-needed"  # local servers ignore the key, the SDK insists on one
STRUCTURED_MODES = ("auto", "json_schema", "json_object", "none")
_PROBE_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
}
_PROBE_MESSAGES = [{"role": "user", "content": 'Reply with the JSON object {"ok": true}.'}]
# Statuses that say the endpoint refuses us, or not now, not the structured-output mode.
_NOT_A_MODE_REFUSAL = frozenset({401, 403, 404, 408, 409, 425, 429})
# Words by which a server error names the structured-output parameter it refuses.
_FORMAT_WORDS = ("response_format", "schema", "json_object", "grammar")


def with_schema_instruction(messages: list[Any], schema: dict[str, Any]) -> list[Any]:
    """The messages with the JSON schema appended to the last user turn, for servers that
    cannot enforce it (json_object or no response_format): the model is told, the engine
    validates."""
    text = (
        "\n\nReply with one JSON object only, no other text, that matches this JSON schema:\n"
        + json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    )
    out = [dict(m) for m in messages]
    for m in reversed(out):
        if m.get("role") == "user":
            m["content"] = f"{m.get('content') or ''}{text}"
            return out
    return [*out, {"role": "user", "content": text.strip()}]


def resolve_api_key(
    api_key_env: str | None, base_url: str | None, api_key: str | None = None
) -> str:
    """The key (given, else from the environment); a placeholder for servers needing none."""
    key = api_key or env_secret(api_key_env)
    if key:
        register_secret(key)
        return key
    if base_url and public_url(base_url) != OPENAI_URL:
        return PLACEHOLDER_KEY
    raise ConfigError(
        f"no API key: set the environment variable {api_key_env or 'OPENAI_API_KEY'}"
        " (or name another one with --api-key-env), or give --base-url for a "
        "server that needs none"
    )


@functools.lru_cache(maxsize=4)
def _ssl_context(cert_file: str | None, cert_dir: str | None) -> Any:
    """The TLS trust store, read once per process (per SSL_CERT_FILE / SSL_CERT_DIR).

    Why: the HTTP client reads the system CA bundle each time it is built, about 45 ms of
    CPU, which was half of ``evaluate()``'s fixed cost against a nearby server. An
    SSLContext may be shared by any number of clients. The arguments only key the cache:
    the context is built as the client would build it, environment included.
    """
    make = getattr(_HTTPX, "create_ssl_context", None)
    return make() if make is not None else True


def make_client(
    base_url: str | None,
    api_key_env: str | None,
    timeout: float | None,
    concurrency: int,
    api_key: str | None = None,
) -> Any:
    import openai

    reject_credentials(base_url, "base_url")  # also when a backend is built without Settings
    base_url = openai_base_url(base_url)
    key = resolve_api_key(api_key_env, base_url, api_key)
    # A pool at least as large as the concurrency, or requests queue inside the client.
    limits = _HTTPX.Limits(
        max_connections=max(64, 2 * concurrency), max_keepalive_connections=max(64, concurrency)
    )
    verify = _ssl_context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    try:  # aiohttp's transport costs about half the CPU per request of httpx's
        http_client = openai.DefaultAioHttpClient(limits=limits, verify=verify)
    except (AttributeError, RuntimeError):
        http_client = openai.DefaultAsyncHttpxClient(limits=limits, verify=verify)
    return openai.AsyncOpenAI(
        api_key=key,
        base_url=base_url or OPENAI_URL,  # resolved by the caller: never the SDK's own guess
        max_retries=0,
        timeout=(timeout + 5.0) if timeout else None,
        http_client=http_client,
    )


class OpenAICompatBackend:
    """A ChatBackend speaking chat-completions to ``base_url``."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str | None = "OPENAI_API_KEY",
        seed: int = 0,
        temperature: float = 0.0,
        timeout: float | None = 60.0,
        concurrency: int = 8,
        structured_mode: str = "json_schema",
        api_key: str | None = None,
        client: Any = None,
        cache_url: str | None = None,
    ) -> None:
        if structured_mode not in STRUCTURED_MODES:
            raise ConfigError(
                "structured_mode must be auto, json_schema, json_object or none, "
                f"not {structured_mode!r}"
            )
        self.model = model
        self.name = f"openai:{model}"
        # $OPENAI_BASE_URL when none is given, as the client would: facts and cache identity
        # then name the server the calls really go to (Settings resolves it the same way)
        self.base_url = base_url = openai_base_url(base_url)
        # what cached calls are keyed on: replicas of one model behind several URLs share it
        self.cache_url = cache_url or base_url
        self.seed = seed
        self.temperature = temperature
        self.structured_mode = structured_mode
        # how the mode in use was chosen, for run.json; the preflight's detection rewrites it
        self.structured_decided = (
            "auto without a preflight: json_schema assumed, not probed"
            if structured_mode == "auto"
            else "given (--structured-output / Settings.structured_mode)"
        )
        self.client = client or make_client(base_url, api_key_env, timeout, concurrency, api_key)
        self._template: Any = None  # the request options of every call (``_post_options``)

    @property
    def effective_structured_mode(self) -> str:
        """The mode requests use: ``auto`` not settled by a preflight means json_schema."""
        return "json_schema" if self.structured_mode == "auto" else self.structured_mode

    def cache_params(self) -> dict[str, Any]:
        return {
            "url": public_url(self.cache_url),
            "temperature": self.temperature,
            "seed": self.seed,
            "structured_mode": self.effective_structured_mode,
        }

    def facts(self) -> dict[str, Any]:
        """What a run's manifest records about this judge (no key, ever)."""
        return {
            "kind": "openai",
            "model": self.model,
            "base_url": public_url(self.base_url),
            "temperature": self.temperature,
            "seed": self.seed,
            "structured_output": self.effective_structured_mode,
            "structured_output_decided": self.structured_decided,
        }

    @property
    def preflight_required(self) -> bool:
        """True while ``auto`` is unsettled: a run must not start on a guessed mode when the
        preflight that settles it failed (the engine then stops the run)."""
        return self.structured_mode == "auto"

    async def preflight(self) -> dict[str, Any]:
        """One tiny request (its errors propagate: the engine retries them with its policy
        and classifies them). With ``structured_mode="auto"`` the structured-output probes
        are that request: the first mode the endpoint accepts both proves it reachable and
        settles the mode, so the usual case costs one round trip, not two."""
        if self.structured_mode == "auto":
            mode, how = await self._detect_structured()
            self.structured_mode, self.structured_decided = mode, f"auto, at preflight: {how}"
        else:
            await self.complete(ChatRequest(list(_PROBE_MESSAGES), 8))
        return {
            "structured_output": self.effective_structured_mode,
            "structured_output_decided": self.structured_decided,
        }

    async def _detect_structured(self) -> tuple[str, str]:
        """(mode, how it was decided): json_schema, else json_object, else none, the first
        the server takes.

        Only a definite answer refuses a mode (``mode_refusal``, ``ignores_format``). Any
        other error (5xx, 429, time-out, dropped or refused connection, bad key) propagates
        at once: the engine retries the detection with the backoff of every call and, if it
        keeps failing, stops the run. Why: three 500s back to back used to settle on
        ``none`` for good (and a later run on json_schema re-asked every cached call). The
        final plain probe's errors propagate too.
        """
        saved, steps = self.structured_mode, []
        try:
            for mode in ("json_schema", "json_object"):
                self.structured_mode = mode
                request = ChatRequest(
                    list(_PROBE_MESSAGES), 16, json_schema=_PROBE_SCHEMA, schema_name="probe"
                )
                try:
                    comp = await self.complete(request)
                except Exception as exc:
                    refusal = mode_refusal(exc)
                    if refusal is None:
                        raise
                    steps.append(f"{mode} refused ({refusal})")
                    continue
                if ignores_format(comp):
                    steps.append(f"{mode} ignored (the reply {comp.text[:60]!r} is no JSON object)")
                    continue
                return mode, "; ".join([*steps, f"{mode} accepted"])
            self.structured_mode = "none"
            await self.complete(ChatRequest(list(_PROBE_MESSAGES), 8))
            steps.append("none (the schema is written into the prompt)")
            return "none", "; ".join(steps)
        finally:
            self.structured_mode = saved

    def _request_args(self, request: ChatRequest) -> dict[str, Any]:
        mode = self.effective_structured_mode
        messages = request.messages
        if request.json_schema is not None and mode != "json_schema":
            messages = with_schema_instruction(list(messages), request.json_schema)
        args: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "seed": self.seed,
            "max_tokens": request.max_tokens,
        }
        if request.json_schema is not None and mode == "json_schema":
            args["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": (request.schema_name or "reply")[:64],
                    "schema": request.json_schema,
                    "strict": False,
                },
            }
        elif request.json_schema is not None and mode == "json_object":
            args["response_format"] = {"type": "json_object"}
        if request.top_logprobs:
            args["logprobs"] = True
            args["top_logprobs"] = request.top_logprobs
        return args

    def _post_options(self, body: dict[str, Any]) -> Any:
        """The SDK's request options of ``client.post("/chat/completions", body=body)``, from
        a template built once: ``post`` builds them anew per call (~30 us: pydantic deep-copies
        their defaults), ``model_copy`` only sets the body. None when the client is no
        AsyncOpenAI or the SDK lacks the options class (then ``post`` as before)."""
        if self._template is None:
            self._template = _options_template(self.client)
        if self._template is False:
            return None
        return self._template.model_copy(update={"json_data": body})

    async def complete(self, request: ChatRequest) -> ChatCompletion:
        # client.post skips the SDK's per-call TypedDict transform of the body (about 1 ms a
        # call with a JSON schema inside), and a raw response skips building SDK models: the
        # body is plain JSON both ways. Status errors still come from the SDK as usual.
        body = self._request_args(request)
        options = self._post_options(body)
        if options is None:  # a client that is no AsyncOpenAI (a stand-in): its own post
            http = await self.client.post("/chat/completions", cast_to=_HTTPX.Response, body=body)
        else:
            http = await self.client.request(_HTTPX.Response, options)
        try:
            data = json.loads(http.content)
        except ValueError:
            raise TransientError("malformed response from the server: body is not JSON") from None
        return completion_from_dict(
            data,
            want_top=bool(request.top_logprobs),
            want_all=bool(request.top_logprobs) and request.every_token,
        )

    async def aclose(self) -> None:
        await self.client.close()


def _options_template(client: Any) -> Any:
    """What ``AsyncOpenAI.post`` builds for a chat completion but the body (see
    ``OpenAICompatBackend._post_options``), or False for another client or SDK."""
    try:
        import openai
        from openai._models import FinalRequestOptions
    except ImportError:  # pragma: no cover - an SDK without the class: post() as before
        return False
    if not isinstance(client, openai.AsyncOpenAI) or not hasattr(client, "request"):
        return False
    return FinalRequestOptions.construct(
        method="post", url="/chat/completions", content=None, files=None
    )


def mode_refusal(exc: BaseException) -> str | None:
    """Why a probe's HTTP error refuses the structured-output mode it asked for, or None
    when it says nothing about the mode (then it is transient or fatal, the engine's call).

    A 4xx other than "not you" / "not now" (401, 403, 404, 408, 409, 425, 429) is definite:
    the probe is valid apart from its response_format (a 4xx for another reason, such as an
    unknown model, fails the final plain probe too, and stops the run). A 5xx is definite
    only when its message names the format: llama.cpp's server answers json_schema with
    HTTP 500 "Either 'json_schema' or 'grammar' can be specified"; any other 5xx is a fault.
    """
    status = getattr(exc, "status_code", None)
    if not isinstance(status, int) or status in _NOT_A_MODE_REFUSAL:
        return None
    body = getattr(exc, "body", None)
    err = body.get("error", body) if isinstance(body, dict) else None
    # masked, then cut: a key across the cut kept its first characters (the engine masks
    # the reason later, but a key's head no longer matches the key)
    message = redact(str((err.get("message") if isinstance(err, dict) else err) or exc))[:200]
    if status < 500 or any(word in message.lower() for word in _FORMAT_WORDS):
        return f"HTTP {status}: {message}"
    return None


def ignores_format(comp: ChatCompletion) -> bool:
    """A finished reply to a structured probe that is no JSON object: the server took the
    response_format and ignored it. A reply cut short (max_tokens) or empty proves nothing."""
    text = comp.text.strip()
    if comp.finish_reason != "stop" or not text:
        return False
    try:
        return not isinstance(json.loads(text), dict)
    except ValueError:
        return True
