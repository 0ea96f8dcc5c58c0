"""A LiteLLM judge of a provider other than OpenAI's routes records, and keys the cache on,
the endpoint LiteLLM itself resolves for it from the environment.

LiteLLM (not installed in the test venv) resolves ``ollama/MODEL`` to ``api_base``, else
``$OLLAMA_API_BASE``, else http://localhost:11434, in ``get_llm_provider``, whose fourth
element is that endpoint and third the key it found (``$OLLAMA_API_KEY``); ``azure/MODEL``
and ``ollama_chat/MODEL`` come back without one: their completion reads ``$AZURE_API_BASE``,
``$OLLAMA_API_BASE`` itself. A stand-in
module with that resolution is used here; its calls go over HTTP to the fake server.

Before, such a judge was recorded (and cached) with ``base_url`` null whatever the variable
said: a run against a second Ollama server was answered from the first one's verdicts.
"""

from __future__ import annotations

import json
import os
import sys
import types
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

from fake_server import FakeOpenAIServer
from ragmeter.backends.litellm_backend import LiteLLMBackend
from ragmeter.cli import app
from ragmeter.config import Settings
from ragmeter.errors import ConfigError

KEY = "ollama-key-s3cr3t"


def _route(model: str, api_base: str | None = None) -> tuple[str, str, str | None, str | None]:
    provider, _, name = model.partition("/")
    if provider == "ollama":
        base = api_base or os.environ.get("OLLAMA_API_BASE") or "http://localhost:11434"
        return name, provider, os.environ.get("OLLAMA_API_KEY"), base
    if provider in ("azure", "ollama_chat"):  # their completion reads the variable itself
        return name, provider, None, api_base
    raise ValueError(f"LLM Provider NOT provided for {model}")


@pytest.fixture
def litellm(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """``litellm`` as far as ragmeter uses it: LiteLLM's endpoint resolution for Ollama."""
    lib = types.ModuleType("litellm")
    lib.api_base = None  # type: ignore[attr-defined]
    lib.sent_to = []  # type: ignore[attr-defined]

    def get_llm_provider(model: str, *args: Any, **kwargs: Any) -> Any:
        return _route(model, kwargs.get("api_base"))

    async def acompletion(**args: Any) -> dict[str, Any]:
        base = _route(args["model"], args.get("api_base"))[3]
        lib.sent_to.append(base)  # type: ignore[attr-defined]
        body = {k: v for k, v in args.items() if k not in ("api_base", "api_key", "num_retries")}
        body.pop("timeout", None)
        async with httpx.AsyncClient() as client:  # the fake speaks OpenAI's format
            resp = await client.post(f"{base}/chat/completions", json=body)
        resp.raise_for_status()
        return dict(resp.json())

    lib.get_llm_provider = get_llm_provider  # type: ignore[attr-defined]
    lib.acompletion = acompletion  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "litellm", lib)
    for name in ("OLLAMA_API_BASE", "OLLAMA_API_KEY", "AZURE_API_BASE", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return lib


def _evaluate(tmp_path: Path, cache: Path, out: str) -> dict[str, Any]:
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(make_row(i)) + "\n" for i in (1, 2)))
    args = ["evaluate", data, "--judge", "litellm:ollama/qwen2.5", "-m", "answer_relevance"]
    args += ["--embedder", "none", "--cache", cache, "-o", tmp_path / out, "-q", "--no-preflight"]
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return dict(json.loads((tmp_path / out / "run.json").read_text()))


def test_two_ollama_servers_chosen_by_variable_never_share_cached_verdicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, litellm: Any
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("OLLAMA_API_KEY", KEY)
    with FakeOpenAIServer() as a, FakeOpenAIServer(yes_logprob=-2.0) as b:
        for srv, out in ((a, "o1"), (b, "o2")):
            monkeypatch.setenv("OLLAMA_API_BASE", srv.url)
            run = _evaluate(tmp_path, cache, out)
            assert run["judge"]["base_url"] == srv.url == run["settings"]["base_url"]
            assert run["judge"]["provider"] == "ollama"
            assert set(litellm.sent_to) == {srv.url}
            litellm.sent_to.clear()
            stored = (tmp_path / out / "run.json").read_text()
            assert KEY not in stored  # the key LiteLLM found is never copied
        assert a.calls > 0 and b.calls == a.calls  # b was asked everything: no shared entries
        monkeypatch.setenv("OLLAMA_API_BASE", a.url)
        _evaluate(tmp_path, cache, "o3")  # the same server again: all from the cache
        assert b.calls == a.calls and not litellm.sent_to
    assert not any(KEY.encode() in p.read_bytes() for p in cache.rglob("*") if p.is_file())


def test_the_endpoint_identity_follows_litellm_s_resolution(
    monkeypatch: pytest.MonkeyPatch, litellm: Any
) -> None:
    monkeypatch.setenv("OLLAMA_API_BASE", "http://gpu-a:11434")
    first = LiteLLMBackend("ollama/qwen2.5")
    assert first.cache_params()["url"] == first.facts()["base_url"] == "http://gpu-a:11434"
    assert LiteLLMBackend("ollama/qwen2.5").cache_params() == first.cache_params()
    monkeypatch.setenv("OLLAMA_API_BASE", "http://gpu-b:11434")
    assert LiteLLMBackend("ollama/qwen2.5").cache_params() != first.cache_params()
    assert Settings(judge="litellm:ollama/qwen2.5").base_url == "http://gpu-b:11434"
    given = LiteLLMBackend("ollama/qwen2.5", base_url="http://h:1")  # a given URL wins
    assert given.facts()["base_url"] == "http://h:1"
    monkeypatch.delenv("OLLAMA_API_BASE")  # LiteLLM's default for the provider
    assert LiteLLMBackend("ollama/qwen2.5").facts()["base_url"] == "http://localhost:11434"
    # a provider whose completion reads its own variable: AZURE_API_BASE
    assert LiteLLMBackend("azure/gpt").facts()["base_url"] is None
    monkeypatch.setenv("AZURE_API_BASE", "https://mine.openai.azure.com")
    assert LiteLLMBackend("azure/gpt").facts()["base_url"] == "https://mine.openai.azure.com"
    monkeypatch.setenv("OLLAMA_API_BASE", "http://gpu-c:11434")
    assert LiteLLMBackend("ollama_chat/qwen2.5").facts()["base_url"] == "http://gpu-c:11434"


@pytest.mark.parametrize(
    ("variable", "url", "secret"),
    [
        ("OLLAMA_API_BASE", "http://alice:s3cr3tpw@gpu:11434", "s3cr3tpw"),
        ("OLLAMA_API_BASE", "http://gpu:11434?token=s3cr3tpw", "s3cr3tpw"),
        ("AZURE_API_BASE", "https://bob:s3cr3tpw@mine.openai.azure.com", "s3cr3tpw"),
    ],
)
def test_a_provider_endpoint_with_credentials_is_refused_unsaid(
    monkeypatch: pytest.MonkeyPatch, litellm: Any, variable: str, url: str, secret: str
) -> None:
    monkeypatch.setenv(variable, url)
    model = "ollama/q" if variable.startswith("OLLAMA") else "azure/gpt"
    with pytest.raises(ConfigError) as info:
        Settings(judge=f"litellm:{model}")
    assert variable in str(info.value) and secret not in str(info.value)
