"""Any OpenAI-compatible chat server as a judge backend (OpenAI, vLLM, Ollama, llama.cpp
server, TGI, a LiteLLM proxy), through the official ``openai`` SDK.

Temperature 0 and a fixed seed; structured output through ``response_format`` json_schema;
verdict probabilities through ``logprobs`` with ``top_logprobs=20`` and ``max_tokens=1``.
The SDK's own retries are off: the engine retries, with backoff and Retry-After. The API
key is read from an environment variable, registered for redaction, and never stored.
"""

from __future__ import annotations

import json
import os
from typing import Any

from ragmeter.errors import ConfigError, PermanentError, TransientError
from ragmeter.protocols import ChatCompletion, ChatRequest, Usage
from ragmeter.redact import OPENAI_URL, public_url, register_secret

try:  # openai>=3 ships its own httpx build
    import httpx2 as _HTTPX
except ImportError:  # pragma: no cover - older openai releases
    import httpx as _HTTPX  # type: ignore[no-redef]

PLACEHOLDER_KEY = "not-needed"  # local servers ignore the key, the SDK insists on one


def resolve_api_key(
    api_key_env: str | None, base_url: str | None, api_key: str | None = None
) -> str:
    """The key (given, else from the environment); a placeholder for servers needing none."""
    key = api_key or (os.environ.get(api_key_env) if api_key_env else None)
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


def make_client(
    base_url: str | None,
    api_key_env: str | None,
    timeout: float | None,
    concurrency: int,
    api_key: str | None = None,
) -> Any:
    import openai

    key = resolve_api_key(api_key_env, base_url, api_key)
    # A pool at least as large as the concurrency, or requests queue inside the client.
    limits = _HTTPX.Limits(
        max_connections=max(64, 2 * concurrency), max_keepalive_connections=max(64, concurrency)
    )
    try:  # aiohttp's transport costs about half the CPU per request of httpx's
        http_client = openai.DefaultAioHttpClient(limits=limits)
    except (AttributeError, RuntimeError):
        http_client = openai.DefaultAsyncHttpxClient(limits=limits)
    return openai.AsyncOpenAI(
        api_key=key,
        base_url=base_url or None,
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
    ) -> None:
        if structured_mode not in ("json_schema", "json_object", "none"):
            raise ConfigError(
                f"structured_mode must be json_schema, json_object or none, not {structured_mode!r}"
            )
        self.model = model
        self.name = f"openai:{model}"
        self.base_url = base_url
        self.seed = seed
        self.temperature = temperature
        self.structured_mode = structured_mode
        self.client = client or make_client(base_url, api_key_env, timeout, concurrency, api_key)

    def cache_params(self) -> dict[str, Any]:
        return {
            "url": public_url(self.base_url),
            "temperature": self.temperature,
            "seed": self.seed,
            "structured_mode": self.structured_mode,
        }

    def _request_args(self, request: ChatRequest) -> dict[str, Any]:
        args: dict[str, Any] = {
            "model": self.model,
            "messages": request.messages,
            "temperature": self.temperature,
            "seed": self.seed,
            "max_tokens": request.max_tokens,
        }
        if request.json_schema is not None and self.structured_mode == "json_schema":
            args["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": (request.schema_name or "reply")[:64],
                    "schema": request.json_schema,
                    "strict": False,
                },
            }
        elif request.json_schema is not None and self.structured_mode == "json_object":
            args["response_format"] = {"type": "json_object"}
        if request.top_logprobs:
            args["logprobs"] = True
            args["top_logprobs"] = request.top_logprobs
        return args

    async def complete(self, request: ChatRequest) -> ChatCompletion:
        # client.post skips the SDK's per-call TypedDict transform of the body (about 1 ms a
        # call with a JSON schema inside), and a raw response skips building SDK models: the
        # body is plain JSON both ways. Status errors still come from the SDK as usual.
        http = await self.client.post(
            "/chat/completions", cast_to=_HTTPX.Response, body=self._request_args(request)
        )
        try:
            data = json.loads(http.content)
        except ValueError:
            raise TransientError("malformed response from the server: body is not JSON") from None
        return completion_from_dict(data, want_top=bool(request.top_logprobs))

    async def aclose(self) -> None:
        await self.client.close()


def completion_from_dict(data: Any, *, want_top: bool) -> ChatCompletion:
    """Read a chat-completions response body (as a dict) into a ChatCompletion."""
    try:
        choice = data["choices"][0]
    except (KeyError, IndexError, TypeError):
        raise TransientError("malformed response from the server: no choices") from None
    usage_data = data.get("usage") or {}
    usage = Usage(
        int(usage_data.get("prompt_tokens") or 0), int(usage_data.get("completion_tokens") or 0)
    )
    text = (choice.get("message") or {}).get("content") or ""
    top = None
    content = (choice.get("logprobs") or {}).get("content")
    if want_top and content:
        top = [(t["token"], float(t["logprob"])) for t in content[0].get("top_logprobs") or []]
    finish = choice.get("finish_reason")
    if finish == "content_filter":
        raise PermanentError("the server's content filter refused the prompt")
    return ChatCompletion(text, usage, top, finish)
