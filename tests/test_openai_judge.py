"""The OpenAI-compatible backend: what it sends, what it reads, how it fails."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel

from fake_server import FakeOpenAIServer
from ragmeter.backends.openai_compat import (
    ConfigError,
    OpenAICompatBackend,
    public_url,
    resolve_api_key,
)
from ragmeter.engine.retry import TransientError, classify
from ragmeter.protocols import ChatRequest


class Claim(BaseModel):
    statements: list[str]


def test_request_shape_structured_and_logprobs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGMETER_T_KEY", "sk-request-shape-key-1234")
    with FakeOpenAIServer() as srv:
        backend = OpenAICompatBackend(
            "judge-model", base_url=srv.url, api_key_env="RAGMETER_T_KEY", seed=7
        )
        schema = Claim.model_json_schema()

        async def both() -> tuple[Any, Any]:
            one = await backend.complete(
                ChatRequest(
                    [{"role": "user", "content": "split"}],
                    300,
                    json_schema=schema,
                    schema_name="Claim",
                )
            )
            two = await backend.complete(
                ChatRequest([{"role": "user", "content": "yes?"}], 1, top_logprobs=20)
            )
            await backend.aclose()
            return one, two

        comp, comp2 = asyncio.run(both())
        body = srv.bodies[0]
        assert body["model"] == "judge-model" and body["temperature"] == 0 and body["seed"] == 7
        assert body["max_tokens"] == 300 and "logprobs" not in body
        assert body["response_format"] == {
            "type": "json_schema",
            "json_schema": {"name": "Claim", "schema": schema, "strict": False},
        }
        assert Claim.model_validate_json(comp.text).statements == ["ok"]
        assert comp.usage.prompt_tokens > 0 and comp.finish_reason == "stop"
        assert srv.auth_headers == {"Bearer sk-request-shape-key-1234"}

        body = srv.bodies[1]
        assert body["logprobs"] is True and body["top_logprobs"] == 20
        assert body["max_tokens"] == 1 and "response_format" not in body
        assert comp2.top_logprobs is not None and comp2.top_logprobs[0][0] == "Yes"


def test_json_object_mode() -> None:
    with FakeOpenAIServer(script=lambda b: '{"statements": []}') as srv:
        backend = OpenAICompatBackend(
            "m", base_url=srv.url, api_key_env=None, structured_mode="json_object"
        )
        asyncio.run(
            backend.complete(
                ChatRequest([{"role": "user", "content": "x"}], 10, json_schema={"type": "object"})
            )
        )
        assert srv.bodies[-1]["response_format"] == {"type": "json_object"}


@pytest.mark.parametrize(
    ("fault", "retryable"),
    [("429", True), ("500", True), ("badbody", True), ("drop", True), ("401", False)],
)
def test_faults_surface_as_classifiable_errors(fault: str, retryable: bool) -> None:
    with FakeOpenAIServer(fault_fn=lambda b, n: fault, retry_after="7") as srv:
        backend = OpenAICompatBackend("m", base_url=srv.url, api_key_env=None, timeout=2)
        with pytest.raises(Exception) as err:
            asyncio.run(backend.complete(ChatRequest([{"role": "user", "content": "x"}], 5)))
        ok, after = classify(err.value)
        assert ok is retryable
        if fault == "429":
            assert after == 7.0
        if fault == "badbody":
            assert isinstance(err.value, TransientError)


def test_api_key_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAGMETER_NO_SUCH_KEY", raising=False)
    with pytest.raises(ConfigError, match="RAGMETER_NO_SUCH_KEY"):
        resolve_api_key("RAGMETER_NO_SUCH_KEY", None)  # OpenAI itself needs a key
    assert resolve_api_key("RAGMETER_NO_SUCH_KEY", "http://localhost:11434/v1") == "not-needed"
    monkeypatch.setenv("RAGMETER_NO_SUCH_KEY", "sk-from-env-000")
    assert resolve_api_key("RAGMETER_NO_SUCH_KEY", None) == "sk-from-env-000"


def test_public_url() -> None:
    assert public_url(None) == "https://api.openai.com/v1"
    assert public_url("http://u:p@h:1/v1/?k=s") == "http://h:1/v1"


def test_litellm_is_an_optional_extra() -> None:
    from ragmeter.backends import litellm_backend

    try:
        import litellm  # noqa: F401
    except ImportError:
        with pytest.raises(ConfigError, match=r"ragmeter\[litellm\]"):
            litellm_backend.LiteLLMBackend("anthropic/claude")
    else:  # pragma: no cover - only where the extra is installed
        assert litellm_backend.LiteLLMBackend("x/y").name == "litellm:x/y"
