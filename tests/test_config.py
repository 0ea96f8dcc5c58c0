"""Settings: from Python, TOML, JSON and CLI-style overrides; clear errors; no secrets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragmeter.config import Settings, as_settings, settings_from_options
from ragmeter.errors import DataError


def test_defaults_are_the_offline_local_judge() -> None:
    s = Settings()
    assert s.judge == "local" and s.embedder == "local" and s.temperature == 0.0
    assert s.cache is not None and s.concurrency >= 1


@pytest.mark.parametrize(
    "spec",
    [
        "local",
        "local:0.5b",
        "openai:gpt-4o-mini",
        "none",
        "litellm:anthropic/claude-3-5-haiku",
        "gguf:/m/x.gguf",
    ],
)
def test_judge_specs_accepted(spec: str) -> None:
    assert Settings(judge=spec).judge == spec


def test_bad_values_name_the_field() -> None:
    with pytest.raises(DataError) as err:
        Settings.parse_dict({"judge": "gpt4", "concurrency": 0, "typo_field": 1})
    text = str(err.value)
    assert "judge" in text and "concurrency" in text and "typo_field" in text


def test_toml_file_with_prices_modes_and_options(tmp_path: Path) -> None:
    path = tmp_path / "ragmeter.toml"
    path.write_text("""
[ragmeter]
judge = "openai:gpt-4o-mini"
base_url = "http://localhost:8000/v1"
concurrency = 16
cache = "off"

[ragmeter.prices.gpt-4o-mini]
input = 0.15
output = 0.6

[ragmeter.modes]
faithfulness = "generate"

[ragmeter.options]
max_context_tokens = 3000
""")
    s = Settings.from_file(path)
    assert s.judge_kind == "openai" and s.judge_model == "gpt-4o-mini"
    assert s.concurrency == 16 and s.cache is None
    assert s.prices["gpt-4o-mini"].output == 0.6
    assert s.modes == {"faithfulness": "generate"} and s.options["max_context_tokens"] == 3000


def test_json_file_and_pyproject_table(tmp_path: Path) -> None:
    j = tmp_path / "cfg.json"
    j.write_text(json.dumps({"judge": "none", "timeout": 5}))
    assert Settings.from_file(j).timeout == 5
    p = tmp_path / "pyproject.toml"
    p.write_text('[tool.ragmeter]\njudge = "gguf:/tmp/m.gguf"\n')
    assert Settings.from_file(p).judge_kind == "gguf"
    assert as_settings(j).judge == "none" and as_settings({"seed": 3}).seed == 3


def test_keys_are_refused_in_files(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('api_key = "sk-should-not-be-here"\n')
    with pytest.raises(DataError, match="api_key_env"):
        Settings.from_file(path)


def test_cli_options_override_file(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('judge = "openai:a"\nconcurrency = 4\n[modes]\nfaithfulness = "fast"\n')
    s = settings_from_options(
        path, judge=None, concurrency=12, cache="off", modes=["answer_relevance=generate"]
    )
    assert s.judge == "openai:a" and s.concurrency == 12 and s.cache is None
    assert s.modes == {"faithfulness": "fast", "answer_relevance": "generate"}
    with pytest.raises(DataError, match="METRIC=MODE"):
        settings_from_options(None, modes=["oops"])
    with pytest.raises(DataError, match="concurrency"):
        settings_from_options(None, concurrency=0)


def test_public_dict_hides_url_credentials() -> None:
    s = Settings(judge="openai:m", base_url="https://user:pw@host.example:8443/v1?token=zz")
    public = json.dumps(s.public_dict())
    assert "pw" not in public and "token=zz" not in public
    assert "https://host.example:8443/v1" in public
