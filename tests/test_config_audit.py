"""Settings as a team keeps them: one shared --config file, overridden per run.

Each test is a defect a user met: a config file saved with a BOM, a ``$HOME`` in a path,
``$OPENAI_BASE_URL`` beating a command-line option, ``model_copy`` skipping validation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import SecretStr, ValidationError

from ragmeter.config import Settings, settings_from_options
from ragmeter.errors import ConfigError, DataError


@pytest.mark.parametrize("name", ["c.toml", "c.json"])
def test_a_config_file_saved_with_a_bom_is_read(tmp_path: Path, name: str) -> None:
    """Windows Notepad writes a UTF-8 BOM: the TOML file was refused as "not valid TOML:
    Invalid statement (at line 1, column 1)", a line the user cannot see anything wrong in."""
    text = "[ragmeter]\r\nconcurrency = 3\r\n" if name.endswith("toml") else '{"concurrency": 3}'
    path = tmp_path / name
    path.write_bytes("\ufeff".encode() + text.encode())
    assert Settings.from_file(path).concurrency == 3


def test_cache_expands_environment_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No shell reads a TOML file: ``cache = "$HOME/x"`` was kept as it was, and the run made
    a directory literally named ``$HOME`` in the current one."""
    monkeypatch.setenv("RAGMETER_TEAM_CACHE", str(tmp_path / "team"))
    path = tmp_path / "c.toml"
    path.write_text('[ragmeter]\ncache = "$RAGMETER_TEAM_CACHE/calls"\n')
    assert Settings.from_file(path).cache == str(tmp_path / "team" / "calls")
    assert Settings(cache="${RAGMETER_TEAM_CACHE}/x").cache == str(tmp_path / "team" / "x")


def test_cache_naming_an_unset_variable_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unset variable is named, before any work, never made into a directory."""
    monkeypatch.delenv("RAGMETER_NOT_SET", raising=False)
    path = tmp_path / "c.toml"
    path.write_text('[ragmeter]\ncache = "$RAGMETER_NOT_SET/calls"\n')
    with pytest.raises(DataError, match="RAGMETER_NOT_SET is not set"):
        Settings.from_file(path)
    with pytest.raises(ConfigError, match="RAGMETER_NOT_SET is not set"):
        settings_from_options(None, cache="${RAGMETER_NOT_SET}")
    assert not list(tmp_path.glob("$*"))


def _team_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "team.toml"
    path.write_text("[ragmeter]\n" + body)
    return path


def test_base_url_option_beats_the_environment_for_an_openai_embedder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CLI > file > environment: with ``embedder = "openai:..."`` in the file and
    ``$OPENAI_BASE_URL`` set, ``--base-url`` was beaten by the environment's URL, which the
    file's settings had already copied into ``embedder_base_url``: embeddings went to the
    other server."""
    monkeypatch.setenv("OPENAI_BASE_URL", "http://env.example:1/v1")
    path = _team_file(tmp_path, 'judge = "none"\nembedder = "openai:text-embedding-3-small"\n')
    s = settings_from_options(path, judge="openai:m", base_url="http://cli.example:2/v1")
    assert s.base_url == "http://cli.example:2/v1"
    assert s.embedder_base_url in (None, "http://cli.example:2/v1")  # None: base_url's


def test_judge_option_does_not_inherit_the_file_judges_env_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file names an OpenAI judge; this run asks ``--judge litellm:anthropic/...``.
    ``$OPENAI_BASE_URL``, found for the file's judge, stayed as the new judge's base_url and
    LiteLLM would have sent Anthropic's calls (and key) to that server."""
    monkeypatch.setenv("OPENAI_BASE_URL", "http://env.example:1/v1")
    path = _team_file(tmp_path, 'judge = "openai:gpt-4o-mini"\n')
    assert Settings.from_file(path).base_url == "http://env.example:1/v1"
    s = settings_from_options(path, judge="litellm:anthropic/claude-3-5-haiku")
    assert s.base_url is None
    assert settings_from_options(path, judge="local").base_url is None


def test_a_url_given_in_the_file_still_beats_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://env.example:1/v1")
    path = _team_file(tmp_path, 'judge = "openai:m"\nbase_url = "http://file.example:3/v1"\n')
    s = settings_from_options(path, concurrency=2)
    assert s.base_url == "http://file.example:3/v1" and "base_url" in s.model_fields_set


def test_model_copy_validates_its_update() -> None:
    """pydantic's model_copy(update=...) sets values unchecked: a concurrency of 0 or a
    judge no backend builds got through and failed deep in a run."""
    with pytest.raises(ValidationError):
        Settings().model_copy(update={"concurrency": 0})
    with pytest.raises(ValidationError):
        Settings().model_copy(update={"judge": "gpt4"})
    with pytest.raises(ValidationError):
        Settings().model_copy(update={"typo_field": 1})
    with pytest.raises(ConfigError):
        Settings().model_copy(update={"base_url": "http://alice:pw@host:1/v1"})


def test_model_copy_keeps_the_key_and_what_was_given() -> None:
    s = Settings(judge="openai:m", api_key=SecretStr("sk-test-1234567890"), concurrency=3)
    c = s.model_copy(update={"base_url": "http://replica:1/v1"})
    assert c.base_url == "http://replica:1/v1" and c.concurrency == 3
    assert c.api_key is not None and c.api_key.get_secret_value() == "sk-test-1234567890"
    assert {"judge", "concurrency", "base_url"} <= c.model_fields_set
    assert s.model_copy() == s and s.model_copy() is not s


def test_an_option_given_at_its_default_is_the_same_run(tmp_path: Path) -> None:
    """A team file that writes a default out (``evidence_k = 3``) resumes a run made without
    it: the resume was refused ("settings.options.evidence_k: null there, 3 now"), and only
    --overwrite, which pays for every call again, got past it."""
    from typer.testing import CliRunner

    from ragmeter.cli import app

    data = tmp_path / "d.jsonl"
    data.write_text('{"question": "q?", "answer": "a b.", "contexts": ["a."], "reference": "a."}\n')
    bare, spelt = tmp_path / "bare.toml", tmp_path / "spelt.toml"
    bare.write_text('[ragmeter]\njudge = "none"\ncache = "off"\n')
    spelt.write_text(
        bare.read_text() + '[ragmeter.options]\nevidence_k = 3\nevidence = "auto"\n'
        "answer_correctness_weights = [0.75, 0.25]\n"
    )
    out = tmp_path / "out"
    for config in (bare, spelt):
        args = ["evaluate", str(data), "--config", str(config), "-m", "token_f1", "-o", str(out)]
        result = CliRunner().invoke(app, [*args, "-q"])
        assert result.exit_code == 0, result.output
    run = json.loads((out / "run.json").read_text())
    assert run["settings"]["options"] == {}


def test_an_option_away_from_its_default_still_tells_runs_apart() -> None:
    assert Settings(options={"evidence_k": 4}).options == {"evidence_k": 4}
    assert Settings(options={"evidence_k": 3}).options == Settings().options == {}


def test_option_defaults_are_the_metrics_own() -> None:
    """An option given at its MetricOptions default is dropped (the run is the same run):
    true only while those defaults are the ones the metrics use when it is absent."""
    from ragmeter.metric_options import MetricOptions
    from ragmeter.metrics.context import DEFAULT_EVIDENCE_K
    from ragmeter.metrics.relevance import DEFAULT_CANDIDATES

    defaults = MetricOptions()
    assert defaults.evidence_k == DEFAULT_EVIDENCE_K
    assert defaults.context_relevance_candidates == DEFAULT_CANDIDATES
    assert defaults.answer_relevance_n == 3  # relevance.py: .get("answer_relevance_n", 3)
    assert defaults.answer_correctness_weights == (0.75, 0.25)  # reference.py's
    assert (defaults.evidence, defaults.group_verdicts) == ("auto", "off")  # resources.py's
