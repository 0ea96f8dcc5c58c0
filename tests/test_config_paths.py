"""Paths in the settings: ``$VARIABLE`` expanded in every path (not only ``cache``), one
settings table per file, and a models directory that does not move with the current one."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragmeter.config import Settings, settings_from_options
from ragmeter.errors import ConfigError, DataError


@pytest.fixture
def models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RAGMETER_TEST_MODELS", str(tmp_path))
    monkeypatch.delenv("RAGMETER_NOT_SET", raising=False)
    (tmp_path / "minilm").mkdir()
    return tmp_path


def test_variables_are_expanded_in_every_path_setting(models: Path) -> None:
    """``judge = "gguf:$MODELS/q.gguf"`` was taken literally: "file does not exist"."""
    settings = Settings(
        judge="gguf:$RAGMETER_TEST_MODELS/q.gguf",
        embedder="st:${RAGMETER_TEST_MODELS}/minilm",
        options={
            "scorer_model": "$RAGMETER_TEST_MODELS/gpt2",
            "reward_model": "${RAGMETER_TEST_MODELS}/rm",
        },
    )
    assert settings.judge == f"gguf:{models}/q.gguf"
    assert settings.embedder == f"st:{models}/minilm"
    assert settings.options["scorer_model"] == f"{models}/gpt2"
    assert settings.options["reward_model"] == f"{models}/rm"
    # a bare sentence-transformers directory is a path too
    assert Settings(embedder="$RAGMETER_TEST_MODELS/minilm").embedder == f"{models}/minilm"


def test_variables_are_expanded_in_a_config_file_and_on_the_command_line(models: Path) -> None:
    path = models / "r.toml"
    path.write_text(
        '[ragmeter]\njudge = "gguf:$RAGMETER_TEST_MODELS/q.gguf"\n'
        '[ragmeter.options]\nscorer_model = "$RAGMETER_TEST_MODELS/gpt2"\n'
    )
    from_file = Settings.from_file(path)
    assert from_file.judge == f"gguf:{models}/q.gguf"
    assert from_file.options["scorer_model"] == f"{models}/gpt2"
    given = settings_from_options(None, embedder="st:$RAGMETER_TEST_MODELS/minilm")
    assert given.embedder == f"st:{models}/minilm"


def test_urls_and_model_names_are_left_as_they_are(models: Path) -> None:
    settings = Settings(
        judge="openai:gpt-4o-mini", base_url="http://127.0.0.1:9/v1", embedder="local"
    )
    assert settings.judge == "openai:gpt-4o-mini" and settings.embedder == "local"
    assert settings.base_url == "http://127.0.0.1:9/v1"


@pytest.mark.parametrize(
    ("given", "option"),
    [
        ({"judge": "gguf:$RAGMETER_NOT_SET/q.gguf"}, "--judge (judge)"),
        ({"embedder": "st:${RAGMETER_NOT_SET}/minilm"}, "--embedder (embedder)"),
        ({"options": {"scorer_model": "$RAGMETER_NOT_SET/gpt2"}}, "options.scorer_model"),
        ({"options": {"reward_model": "$RAGMETER_NOT_SET/rm"}}, "options.reward_model"),
    ],
)
def test_an_unset_variable_in_a_path_is_refused_naming_it(
    models: Path, given: dict[str, object], option: str
) -> None:
    with pytest.raises(ConfigError) as info:
        Settings(**given)  # type: ignore[arg-type]
    assert "RAGMETER_NOT_SET is not set" in str(info.value) and option in str(info.value)


def test_an_unset_variable_in_a_file_path_names_the_file(models: Path) -> None:
    path = models / "r.toml"
    path.write_text('[ragmeter.options]\nreward_model = "$RAGMETER_NOT_SET/rm"\n')
    with pytest.raises(DataError) as info:
        Settings.from_file(path)
    assert "RAGMETER_NOT_SET is not set" in str(info.value) and str(path) in str(info.value)


def test_cli_refuses_an_unset_variable_in_the_judge_before_any_work(
    models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from ragmeter.cli import app
    from ragmeter.cli import evaluate as cli_evaluate

    def no_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("evaluate ran")

    monkeypatch.setattr(cli_evaluate, "run_evaluate", no_run)
    data = models / "d.jsonl"
    data.write_text('{"question": "q", "answer": "a", "contexts": ["c"]}\n')
    args = ["evaluate", str(data), "--judge", "gguf:$RAGMETER_NOT_SET/q.gguf", "-m", "faithfulness"]
    result = CliRunner().invoke(app, [*args, "--embedder", "none"])
    flat = " ".join(result.output.split())
    assert result.exit_code == 2, flat
    assert "RAGMETER_NOT_SET is not set" in flat and "Traceback" not in flat


def test_a_pyproject_with_both_tables_is_refused(tmp_path: Path) -> None:
    """``[tool.ragmeter]`` won and ``[ragmeter]`` was silently ignored."""
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.ragmeter]\njudge = "none"\n[ragmeter]\njudge = "openai:gpt-4o-mini"\n')
    with pytest.raises(DataError) as info:
        Settings.from_file(path)
    text = str(info.value)
    assert "[tool.ragmeter]" in text and "[ragmeter]" in text and "keep [tool.ragmeter]" in text


def test_cli_refuses_a_config_with_both_tables(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ragmeter.cli import app

    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.ragmeter]\njudge = "none"\n[ragmeter]\nembedder = "none"\n')
    data = tmp_path / "d.jsonl"
    data.write_text('{"question": "q", "answer": "a", "contexts": ["c"]}\n')
    args = ["evaluate", str(data), "-m", "token_f1", "--config", str(path)]
    result = CliRunner().invoke(app, args)
    flat = " ".join(result.output.split())
    assert result.exit_code == 2, flat
    assert "both [tool.ragmeter] and [ragmeter]" in flat


def test_a_relative_ragmeter_home_is_made_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``RAGMETER_HOME=relhome`` put the model under whichever directory was current; the
    path is now absolute, and the same for the rest of the process after a ``cd``."""
    from ragmeter.backends import model_store

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RAGMETER_HOME", "relhome-ragmeter-test")
    first = model_store.models_dir()
    assert first.is_absolute()
    assert first == tmp_path.absolute() / "relhome-ragmeter-test" / "models"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert model_store.models_dir() == first


def test_models_list_shows_the_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from ragmeter.cli import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RAGMETER_HOME", "relhome-ragmeter-list")
    result = CliRunner().invoke(app, ["models", "list"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    expected = str(tmp_path.absolute() / "relhome-ragmeter-list" / "models")
    assert expected in "".join(result.output.split("\n")), result.output
