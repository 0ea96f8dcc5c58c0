"""Settings: from Python, TOML, JSON and CLI-style overrides; clear errors; no secrets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragmeter.config import Settings, as_settings, settings_from_options
from ragmeter.errors import ConfigError, DataError


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


@pytest.mark.parametrize("field", ["base_url", "embedder_base_url", "cache_url"])
@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/v1/?api-key=SECRETQ",
        "https://host.example:8443/v1?token=SECRETQ",
        "http://127.0.0.1:9/v1#SECRETQ",
        "http://a:1/v1,http://b:2/v1?api-key=SECRETQ",
    ],
)
def test_a_query_or_fragment_in_a_url_is_refused_without_echoing_it(field: str, url: str) -> None:
    """The client would append its path after the query (/v1/?api-key=Kchat/completions) and
    a query usually holds a key: refused when the settings are built, never echoed."""
    with pytest.raises(ConfigError) as info:
        Settings(judge="openai:m", **{field: url})
    text = str(info.value)
    assert "SECRETQ" not in text and field in text and "query string" in text
    assert "127.0.0.1:9/v1" in text or "host.example:8443/v1" in text or "b:2/v1" in text
    with pytest.raises(ConfigError):  # the CLI's path: options over a file
        settings_from_options(None, judge="openai:m", **{field: url})
    ok = Settings(judge="openai:m")
    with pytest.raises(ConfigError):  # assignment is validated too
        setattr(ok, field, url)
    assert "SECRETQ" not in repr(ok)


def test_cli_refuses_a_query_in_base_url_before_any_work(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ragmeter.cli import app

    data = tmp_path / "d.jsonl"
    data.write_text('{"question": "q", "answer": "a", "contexts": ["c"]}\n')
    args = ["evaluate", str(data), "--judge", "openai:gpt-4o-mini", "-m", "faithfulness"]
    args += ["--base-url", "http://127.0.0.1:9/v1/?api-key=SECRETQ", "--embedder", "none"]
    result = CliRunner().invoke(app, args)
    flat = " ".join(result.output.split())
    assert result.exit_code == 2, flat
    assert "query string" in flat and "SECRETQ" not in flat and "Traceback" not in flat


@pytest.mark.parametrize("field", ["base_url", "embedder_base_url", "cache_url"])
@pytest.mark.parametrize(
    "url", ["http://alice:s3cr3tpw@127.0.0.1:9/v1", "http://a:1/v1,https://s3cr3tpw@b:2/v1"]
)
def test_credentials_in_a_url_are_refused_without_echoing_them(field: str, url: str) -> None:
    """Refused when the settings are built, so before any judge exists; the error (and any
    ValidationError pydantic could wrap it in) never holds the password."""
    with pytest.raises(ConfigError) as info:
        Settings(judge="openai:m", **{field: url})
    text = str(info.value)
    assert "s3cr3tpw" not in text and "alice" not in text
    assert field in text and "credentials in the URL" in text and "api-key-env" in text
    with pytest.raises(ConfigError):  # the CLI's path: options over a file
        settings_from_options(None, judge="openai:m", **{field: url})


def test_cli_refuses_credentials_in_base_url_before_any_work(tmp_path: Path, monkeypatch) -> None:
    from typer.testing import CliRunner

    from ragmeter.cli import app
    from ragmeter.cli import evaluate as cli_evaluate

    def no_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("evaluate ran")

    monkeypatch.setattr(cli_evaluate, "run_evaluate", no_run)
    data = tmp_path / "d.jsonl"
    data.write_text('{"question": "q", "answer": "a", "contexts": ["c"]}\n')
    args = ["evaluate", str(data), "--judge", "openai:gpt-4o-mini", "-m", "faithfulness"]
    args += ["--base-url", "http://user:s3cr3tpw@127.0.0.1:9/v1", "--embedder", "none"]
    result = CliRunner().invoke(app, args)
    flat = " ".join(result.output.split())
    assert result.exit_code == 2, flat
    assert "--base-url" in flat and "credentials in the URL" in flat
    assert "s3cr3tpw" not in flat and "Traceback" not in flat


def test_a_backend_built_without_settings_refuses_credentials_too() -> None:
    from ragmeter.backends.openai_compat import make_client

    with pytest.raises(ConfigError, match="credentials in the URL"):
        make_client("http://user:s3cr3tpw@127.0.0.1:9/v1", None, 1.0, 1, api_key="sk-x")


def test_openai_base_url_is_resolved_into_settings_in_the_clients_precedence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """--base-url / base_url, else $OPENAI_BASE_URL, else OpenAI's API (None): resolved once
    into Settings, so run.json and the cache identity name the server the calls go to."""
    from ragmeter.backends.openai_compat import OpenAICompatBackend

    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert Settings(judge="openai:m").base_url == "http://127.0.0.1:9/v1"
    assert Settings(judge="openai:m").public_dict()["base_url"] == "http://127.0.0.1:9/v1"
    assert Settings(judge="openai:m", base_url="http://h:1/v1").base_url == "http://h:1/v1"
    assert settings_from_options(None, judge="openai:m").base_url == "http://127.0.0.1:9/v1"
    local = Settings(embedder="openai:e")  # a local judge: the OpenAI embedder follows it
    assert local.base_url is None and local.embedder_base_url == "http://127.0.0.1:9/v1"
    assert Settings(judge="litellm:anthropic/c").base_url is None  # litellm reads its own
    assert Settings().base_url is None and Settings().embedder_base_url is None
    backend = OpenAICompatBackend("m", api_key="sk-test-not-a-real-key")  # no Settings
    assert backend.facts()["base_url"] == backend.cache_params()["url"] == "http://127.0.0.1:9/v1"
    assert str(backend.client.base_url).rstrip("/") == "http://127.0.0.1:9/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://alice:s3cr3tpw@127.0.0.1:9/v1")
    with pytest.raises(ConfigError) as info:
        Settings(judge="openai:m")
    assert "OPENAI_BASE_URL" in str(info.value) and "s3cr3tpw" not in str(info.value)
    monkeypatch.setenv("OPENAI_BASE_URL", "")  # empty: unset, as for the client
    assert Settings(judge="openai:m").base_url is None


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"evidnece_k": 0}, "did you mean 'evidence_k'"),
        ({"evidence_k": "abc"}, "options.evidence_k.*input should be a valid integer, not .abc."),
        ({"max_context_tokens": "x"}, "options.max_context_tokens"),
        ({"evidence_k": -2}, "greater than or equal to 0"),
        ({"evidence_k": True}, "options.evidence_k"),
        ({"answer_relevance_n": 0}, "options.answer_relevance_n"),
        ({"faithfulness_combine": "avg"}, "'calibrated' or 'judge'"),
        ({"answer_correctness_weights": [1, "a"]}, "answer_correctness_weights"),
        ({"modes": {"faithfulness": "fast"}}, "setting of its own"),
    ],
)
def test_options_are_checked_when_the_settings_are_built(options: dict, expected: str) -> None:
    """A misspelt option was ignored, a mistyped one failed every score after the judge was
    called: both are refused when the settings are built, naming the option."""
    with pytest.raises(ConfigError, match=expected):
        Settings(options=options)
    with pytest.raises(DataError, match=expected):
        Settings.parse_dict({"options": options})


def test_valid_options_are_kept_as_given_and_normalised() -> None:
    s = Settings(options={"evidence_k": 0, "answer_correctness_weights": [1, 0], "mode": "fast"})
    assert s.options == {"evidence_k": 0, "answer_correctness_weights": [1.0, 0.0], "mode": "fast"}
    assert Settings().options == {}  # no defaults written in: fingerprints stay as they were


def test_option_choices_match_what_the_code_reads() -> None:
    import typing

    from ragmeter.config import MetricOptions
    from ragmeter.metrics.faithfulness import VARIANTS
    from ragmeter.resources import EVIDENCE_CHOICES

    fields = MetricOptions.model_fields
    assert set(typing.get_args(fields["evidence"].annotation)) == set(EVIDENCE_CHOICES)
    combine = typing.get_args(fields["faithfulness_combine"].annotation)[0]
    assert set(typing.get_args(combine)) == set(VARIANTS)


@pytest.mark.parametrize("name", ["api_key", "key", "token", "openai_secret", "password"])
def test_a_secret_in_options_is_refused_without_echoing_it(name: str, tmp_path: Path) -> None:
    for make in (
        lambda: Settings(options={name: "sk-abcdefghijklmnop1234"}),
        lambda: settings_from_options(None, options={name: "sk-abcdefghijklmnop1234"}),
    ):
        with pytest.raises(ConfigError) as info:
            make()
        text = str(info.value)
        assert "abcdefghijklmnop" not in text and "--api-key-env" in text and name in text
    path = tmp_path / "c.toml"
    path.write_text(f'[ragmeter]\noptions = {{ {name} = "sk-abcdefghijklmnop1234" }}\n')
    with pytest.raises(DataError) as info:
        Settings.from_file(path)
    assert "abcdefghijklmnop" not in str(info.value) and "--api-key-env" in str(info.value)


def test_public_dict_masks_secret_looking_options_even_past_validation() -> None:
    """Defence in depth: settings built without validation still never record a key."""
    options = {"api_key": "sk-abcdefghijklmnop1234", "evidence_k": 2}
    s = Settings.model_construct(**{**Settings().model_dump(), "options": options})
    public = s.public_dict()
    assert public["options"] == {"api_key": "***", "evidence_k": 2}
    assert public["api_key_env"] == "OPENAI_API_KEY"  # a variable's name is not a secret
    assert "abcdefghijklmnop" not in json.dumps(public)


def test_keys_beside_the_ragmeter_table_are_refused(tmp_path: Path) -> None:
    """Top-level keys beside [ragmeter] were silently ignored, api_key among them."""
    path = tmp_path / "c.toml"
    path.write_text(
        'concurency = 3\napi_key = "sk-abcdefghijklmnop1234"\n[ragmeter]\njudge = "none"\n'
    )
    with pytest.raises(DataError) as info:
        Settings.from_file(path)
    text = str(info.value)
    assert "'concurency'" in text and "did you mean 'concurrency'" in text
    assert "api_key" in text and "abcdefghijklmnop" not in text
    path.write_text("[ragmeter]\nconcurency = 3\n[ragmeter.prices.m]\ninptu = 1\n")
    with pytest.raises(DataError) as info:
        Settings.from_file(path)
    text = str(info.value)
    assert "did you mean 'concurrency'" in text and "did you mean 'input'" in text
    pyproject = tmp_path / "pyproject.toml"  # other tools' tables stay theirs
    pyproject.write_text('[project]\nname = "x"\n[tool.ragmeter]\njudge = "none"\n')
    assert Settings.from_file(pyproject).judge == "none"


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("c.json", "[1, 2]", "expected a JSON object of settings, not list"),
        ("c.json", '{"ragmeter": [1]}', "must be a table"),
        ("c.yaml", "judge: none\n", "a .yaml file is not read: settings files are TOML or JSON"),
        ("c.yml", "judge: none\n", "TOML or JSON"),
        # json.loads kept the last of two values: the run would use "local" without a word
        ("c.json", '{"judge": "none", "judge": "local"}', "the key 'judge' is given twice"),
    ],
)
def test_config_files_of_the_wrong_shape_or_kind(
    tmp_path: Path, name: str, text: str, expected: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(DataError, match=expected) as info:
        Settings.from_file(path)
    assert info.value.source == str(path)


def test_a_key_pasted_into_a_known_option_is_not_echoed() -> None:
    with pytest.raises(ConfigError) as info:
        Settings(options={"evidence": "sk-abcdefghijklmnop1234"})
    assert "options.evidence" in str(info.value) and "abcdefghijklmnop" not in str(info.value)
