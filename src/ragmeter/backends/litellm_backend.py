"""Other providers (Anthropic, Bedrock, Vertex, ...) through LiteLLM, an optional extra.

Same request shape as the OpenAI-compatible backend; LiteLLM's own retries are off so the
engine's policy applies. Install with ``pip install 'ragmeter[litellm]'``.

The endpoint is resolved here and passed to LiteLLM as ``api_base`` on every call, so the
server recorded in run.json and keying the cache is the one the calls go to: for a model
LiteLLM sends to OpenAI, ``base_url``, else ``litellm.api_base``, else ``$OPENAI_BASE_URL`` /
``$OPENAI_API_BASE`` (LiteLLM's own order, ``endpoints.litellm_base_url``), else OpenAI's API.
Other providers take ``base_url`` or ``litellm.api_base`` when set, else the endpoint
LiteLLM itself resolves for them (``$OLLAMA_API_BASE``, ``$AZURE_API_BASE``, ... or the
provider's default, ``endpoints.litellm_base_url``); None only when none is known (recorded
as such, never as OpenAI's API).
"""

from __future__ import annotations

from typing import Any

from ragmeter.backends.openai_compat import completion_from_dict
from ragmeter.endpoints import LITELLM_OPENAI_PROVIDERS, litellm_base_url, litellm_provider
from ragmeter.errors import ConfigError
from ragmeter.protocols import ChatCompletion, ChatRequest
from ragmeter.redact import OPENAI_URL, env_secret, public_url, register_secret


def _litellm() -> Any:
    try:
        import litellm
    except ImportError:
        raise ConfigError(
            "the litellm judge needs the optional extra: pip install 'ragmeter[litellm]'"
        ) from None
    return litellm


class LiteLLMBackend:
    """A ChatBackend over ``litellm.acompletion``; ``model`` is LiteLLM's "provider/model"."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str | None = None,
        api_key: str | None = None,
        seed: int = 0,
        temperature: float = 0.0,
        timeout: float | None = 60.0,
        structured_mode: str = "json_schema",
    ) -> None:
        self._lib = _litellm()
        self.model = model
        self.name = f"litellm:{model}"
        self.provider = litellm_provider(model)
        to_openai = self.provider in LITELLM_OPENAI_PROVIDERS
        url = litellm_base_url(model, base_url)
        self.base_url = url or (OPENAI_URL if to_openai else None)
        self.seed = seed
        self.temperature = temperature
        self.timeout = timeout
        self.structured_mode = structured_mode
        # None lets LiteLLM read its provider's usual variable (ANTHROPIC_API_KEY, ...).
        self._key = api_key or env_secret(api_key_env)
        register_secret(self._key)

    def cache_params(self) -> dict[str, Any]:
        return {
            "url": public_url(self.base_url) if self.base_url else None,
            "temperature": self.temperature,
            "seed": self.seed,
            "structured_mode": self.structured_mode,
        }

    def facts(self) -> dict[str, Any]:
        """What a run's manifest records about this judge (no key, ever). ``base_url`` None:
        no endpoint known for the provider, which LiteLLM picks (never OpenAI's API)."""
        return {
            "kind": "litellm",
            "model": self.model,
            "provider": self.provider,
            "base_url": public_url(self.base_url) if self.base_url else None,
            "temperature": self.temperature,
            "seed": self.seed,
            "structured_output": self.structured_mode,
        }

    async def complete(self, request: ChatRequest) -> ChatCompletion:
        args: dict[str, Any] = {
            "model": self.model,
            "messages": request.messages,
            "temperature": self.temperature,
            "seed": self.seed,
            "max_tokens": request.max_tokens,
            "num_retries": 0,
        }
        if self.timeout:
            args["timeout"] = self.timeout + 5.0
        if self.base_url:
            args["api_base"] = self.base_url
        if self._key:
            args["api_key"] = self._key
        if request.json_schema is not None and self.structured_mode == "json_schema":
            args["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": (request.schema_name or "reply")[:64],
                    "schema": request.json_schema,
                },
            }
        elif request.json_schema is not None and self.structured_mode == "json_object":
            args["response_format"] = {"type": "json_object"}
        if request.top_logprobs:
            args["logprobs"] = True
            args["top_logprobs"] = request.top_logprobs
        resp = await self._lib.acompletion(**args)
        data = resp.model_dump() if hasattr(resp, "model_dump") else dict(resp)
        return completion_from_dict(data, want_top=bool(request.top_logprobs))
