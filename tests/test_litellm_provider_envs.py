"""A LiteLLM judge of a provider whose endpoint variable breaks the ``$<PROVIDER>_API_BASE``
rule records, and keys the cache on, the endpoint that variable names, in LiteLLM's order.

Read in LiteLLM 1.110.2 (litellm/main.py, llms/watsonx/common_utils.py): ``anthropic``
reads ``$ANTHROPIC_API_BASE`` then ``$ANTHROPIC_BASE_URL``; ``vertex_ai``
``$VERTEXAI_API_BASE``; ``watsonx`` and ``watsonx_text`` ``$WATSONX_API_BASE``,
``$WATSONX_URL``, ``$WX_URL``, ``$WML_URL``; ``azure_text`` ``$AZURE_API_BASE``. Their
``get_llm_provider`` gives no endpoint; a stand-in module with that resolution is used here
(LiteLLM is not installed in the test venv).

Before, only ``$ANTHROPIC_API_BASE`` (and ``$VERTEX_AI_API_BASE``, which LiteLLM never reads)
was followed: two runs against two Anthropic-compatible proxies chosen by
``$ANTHROPIC_BASE_URL`` were recorded with ``base_url`` null and shared cached verdicts.
"""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest

from ragmeter.backends.litellm_backend import LiteLLMBackend
from ragmeter.config import Settings

VARIABLES = ["ANTHROPIC_API_BASE", "ANTHROPIC_BASE_URL", "AZURE_API_BASE", "VERTEXAI_API_BASE"]
VARIABLES += ["WATSONX_API_BASE", "WATSONX_URL", "WX_URL", "WML_URL"]
VARIABLES += ["HF_API_BASE", "HUGGINGFACE_API_BASE"]


@pytest.fixture
def litellm(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """``litellm.get_llm_provider`` as LiteLLM answers for these providers: the prefix, no
    key, no endpoint (their completion reads the variables itself)."""
    lib = types.ModuleType("litellm")
    lib.api_base = None  # type: ignore[attr-defined]

    def get_llm_provider(model: str, *args: Any, **kwargs: Any) -> Any:
        provider, _, name = model.partition("/")
        return name, provider, None, kwargs.get("api_base")

    lib.get_llm_provider = get_llm_provider  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "litellm", lib)
    for name in [*VARIABLES, "OPENAI_BASE_URL", "OPENAI_API_BASE"]:
        monkeypatch.delenv(name, raising=False)
    return lib


def test_two_anthropic_proxies_chosen_by_base_url_get_two_cache_identities(
    monkeypatch: pytest.MonkeyPatch, litellm: Any
) -> None:
    model = "anthropic/claude-3-5-haiku"
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://proxy-a:4000")
    first = LiteLLMBackend(model)
    assert first.facts()["base_url"] == "http://proxy-a:4000"
    assert first.cache_params()["url"] == "http://proxy-a:4000"
    assert Settings(judge=f"litellm:{model}").base_url == "http://proxy-a:4000"
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://proxy-b:4000")
    second = LiteLLMBackend(model)
    assert second.facts()["base_url"] == "http://proxy-b:4000"
    assert second.cache_params() != first.cache_params()
    assert Settings(judge=f"litellm:{model}").base_url == "http://proxy-b:4000"


def test_anthropic_api_base_comes_first_as_in_litellm(
    monkeypatch: pytest.MonkeyPatch, litellm: Any
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://second:1")
    monkeypatch.setenv("ANTHROPIC_API_BASE", "http://first:1")
    assert LiteLLMBackend("anthropic/claude").facts()["base_url"] == "http://first:1"
    monkeypatch.setenv("ANTHROPIC_API_BASE", "")  # set but empty: LiteLLM reads the next
    assert LiteLLMBackend("anthropic/claude").facts()["base_url"] == "http://second:1"


@pytest.mark.parametrize(
    ("model", "variable"),
    [
        ("vertex_ai/gemini-1.5-pro", "VERTEXAI_API_BASE"),
        ("watsonx/ibm/granite", "WATSONX_URL"),
        ("watsonx_text/ibm/granite", "WML_URL"),
        ("azure_text/gpt-35-instruct", "AZURE_API_BASE"),
        ("anthropic_text/claude-2", "ANTHROPIC_BASE_URL"),
        ("huggingface/meta-llama/Llama-3.1-8B-Instruct", "HF_API_BASE"),
        ("huggingface/meta-llama/Llama-3.1-8B-Instruct", "HUGGINGFACE_API_BASE"),
    ],
)
def test_each_provider_s_own_variable_is_followed(
    monkeypatch: pytest.MonkeyPatch, litellm: Any, model: str, variable: str
) -> None:
    assert LiteLLMBackend(model).facts()["base_url"] is None  # none set: none known
    monkeypatch.setenv(variable, "https://mine.example.com/v1")
    assert LiteLLMBackend(model).facts()["base_url"] == "https://mine.example.com/v1"


def test_hugging_face_reads_hf_api_base_first_as_litellm_does(
    monkeypatch: pytest.MonkeyPatch, litellm: Any
) -> None:
    """LiteLLM 1.110.2's huggingface chat route: ``$HF_API_BASE or $HUGGINGFACE_API_BASE``.
    Before, only the second was followed (the ``$<PROVIDER>_API_BASE`` rule): two endpoints
    chosen by ``$HF_API_BASE`` were recorded as none and shared cached verdicts."""
    model = "huggingface/meta-llama/Llama-3.1-8B-Instruct"
    monkeypatch.setenv("HUGGINGFACE_API_BASE", "https://second.example.com")
    monkeypatch.setenv("HF_API_BASE", "https://first.example.com")
    first = LiteLLMBackend(model)
    assert first.facts()["base_url"] == "https://first.example.com"
    monkeypatch.setenv("HF_API_BASE", "https://other.example.com")
    assert LiteLLMBackend(model).cache_params() != first.cache_params()


def test_watsonx_reads_its_variables_in_litellm_s_order(
    monkeypatch: pytest.MonkeyPatch, litellm: Any
) -> None:
    for name, host in (("WML_URL", "d"), ("WX_URL", "c"), ("WATSONX_URL", "b")):
        monkeypatch.setenv(name, f"https://{host}.example.com")
        assert LiteLLMBackend("watsonx/m").facts()["base_url"] == f"https://{host}.example.com"
    monkeypatch.setenv("WATSONX_API_BASE", "https://a.example.com")
    assert LiteLLMBackend("watsonx/m").facts()["base_url"] == "https://a.example.com"


@pytest.mark.parametrize(
    ("model", "variable", "url"),
    [
        ("anthropic/claude", "ANTHROPIC_BASE_URL", "http://alice:s3cr3tpw@proxy:4000"),
        ("anthropic/claude", "ANTHROPIC_BASE_URL", "http://proxy:4000?key=s3cr3tpw"),
        ("vertex_ai/gemini", "VERTEXAI_API_BASE", "https://bob:s3cr3tpw@vertex.example.com"),
        ("watsonx/m", "WX_URL", "https://wx.example.com/?apikey=s3cr3tpw"),
    ],
)
def test_credentials_in_such_a_variable_are_refused_naming_it_not_its_value(
    monkeypatch: pytest.MonkeyPatch, litellm: Any, model: str, variable: str, url: str
) -> None:
    from ragmeter.errors import ConfigError

    monkeypatch.setenv(variable, url)
    with pytest.raises(ConfigError) as info:
        Settings(judge=f"litellm:{model}")
    assert variable in str(info.value) and "s3cr3tpw" not in str(info.value)
