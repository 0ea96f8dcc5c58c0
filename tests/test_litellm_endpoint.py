"""A LiteLLM judge records, and keys the cache on, the endpoint its calls go to.

LiteLLM (not installed in the test venv) sends a model it routes to OpenAI (``openai/MODEL``,
or a bare OpenAI name such as ``gpt-4o-mini``) to ``api_base``, else ``litellm.api_base``,
else ``$OPENAI_BASE_URL``, else ``$OPENAI_API_BASE``, else https://api.openai.com/v1
(litellm/main.py). A stand-in module with that precedence makes the calls here, over HTTP to
the fake server. Before, run.json said nothing of the server and the cache keyed every such
call as the same endpoint: a run against another server was served the first one's answers.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

from fake_server import FakeOpenAIServer
from ragmeter.cli import app
from ragmeter.config import Settings
from ragmeter.errors import ConfigError

OPENAI_MODELS = {"gpt-4o-mini"}  # the stand-in's list of OpenAI's own models


def _provider(model: str) -> str:
    prefix, sep, _ = model.partition("/")
    if sep:
        return prefix
    if model in OPENAI_MODELS:
        return "openai"
    raise ValueError(f"LLM Provider NOT provided for {model}")


def fake_litellm() -> types.ModuleType:
    """``litellm`` as far as ragmeter uses it, sending the calls where LiteLLM would."""
    import os

    lib = types.ModuleType("litellm")
    lib.api_base = None  # type: ignore[attr-defined]
    lib.sent_to = []  # type: ignore[attr-defined]

    def get_llm_provider(model: str, *args: Any, **kwargs: Any) -> tuple[str, str, None, None]:
        return model.partition("/")[2] or model, _provider(model), None, None

    async def acompletion(**args: Any) -> dict[str, Any]:
        assert _provider(args["model"]) == "openai", "only OpenAI routes are faked"
        base = (
            args.get("api_base")
            or lib.api_base  # type: ignore[attr-defined]
            or os.environ.get("OPENAI_BASE_URL")
            or os.environ.get("OPENAI_API_BASE")
            or "https://api.openai.com/v1"
        )
        lib.sent_to.append(base)  # type: ignore[attr-defined]
        body = {k: v for k, v in args.items() if k not in ("api_base", "api_key", "num_retries")}
        body.pop("timeout", None)
        async with httpx.AsyncClient() as client:
            resp = await client.post(f"{base}/chat/completions", json=body)
        resp.raise_for_status()
        return dict(resp.json())

    lib.get_llm_provider = get_llm_provider  # type: ignore[attr-defined]
    lib.acompletion = acompletion  # type: ignore[attr-defined]
    return lib


@pytest.fixture
def litellm(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    lib = fake_litellm()
    monkeypatch.setitem(sys.modules, "litellm", lib)
    return lib


def _evaluate(tmp_path: Path, judge: str, cache: Path, out: str) -> dict[str, Any]:
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(make_row(i)) + "\n" for i in (1, 2)))
    args = ["evaluate", data, "--judge", judge, "-m", "answer_relevance", "--embedder", "none"]
    args += ["--cache", cache, "-o", tmp_path / out, "-q", "--no-preflight"]
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return dict(json.loads((tmp_path / out / "run.json").read_text()))


@pytest.mark.parametrize(
    ("model", "variable"),
    [("openai/fake", "OPENAI_BASE_URL"), ("gpt-4o-mini", "OPENAI_API_BASE")],
)
def test_the_server_litellm_calls_is_recorded_and_keys_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, litellm: Any, model: str, variable: str
) -> None:
    cache = tmp_path / "cache"
    with FakeOpenAIServer() as a, FakeOpenAIServer(yes_logprob=-2.0) as b:
        for srv, out in ((a, "o1"), (b, "o2")):
            monkeypatch.setenv(variable, srv.url)
            run = _evaluate(tmp_path, f"litellm:{model}", cache, out)
            assert run["judge"]["base_url"] == srv.url == run["settings"]["base_url"]
            assert run["judge"]["kind"] == "litellm" and run["judge"]["provider"] == "openai"
            assert set(litellm.sent_to) == {srv.url}  # ragmeter passed it: no other guess
            litellm.sent_to.clear()
        assert a.calls > 0 and b.calls == a.calls  # b was asked everything: no shared entries


def test_openai_s_api_is_recorded_only_when_the_calls_go_there(
    monkeypatch: pytest.MonkeyPatch, litellm: Any
) -> None:
    from ragmeter.backends.litellm_backend import LiteLLMBackend

    plain = LiteLLMBackend("openai/m")  # no variable set: OpenAI's API, said and passed
    assert plain.facts()["base_url"] == plain.cache_params()["url"] == "https://api.openai.com/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    other = LiteLLMBackend("anthropic/claude")  # another provider: its own endpoint
    assert other.facts()["base_url"] is other.cache_params()["url"] is None
    assert Settings(judge="litellm:anthropic/claude").base_url is None
    given = LiteLLMBackend("openai/m", base_url="http://h:1/v1")  # a given URL wins
    assert given.facts()["base_url"] == "http://h:1/v1"
    litellm.api_base = "http://global:2/v1"  # litellm.api_base comes before the variables
    assert LiteLLMBackend("openai/m").facts()["base_url"] == "http://global:2/v1"
    assert Settings(judge="litellm:openai/m").base_url == "http://global:2/v1"


def test_a_litellm_endpoint_with_credentials_is_refused_unsaid(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_BASE", "http://alice:s3cr3tpw@127.0.0.1:9/v1")
    with pytest.raises(ConfigError) as info:
        Settings(judge="litellm:openai/m")
    assert "OPENAI_API_BASE" in str(info.value) and "s3cr3tpw" not in str(info.value)
