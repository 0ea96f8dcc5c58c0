"""What meta-eval prints is true of meta-eval.

1. A setting refused as given in vain is named as the user gave it to meta-eval: meta-eval has
   no --no-preflight, --structured-output or --api-key-env, so ``preflight = false`` in its
   --config file was refused as "--no-preflight (preflight) is given" (and a key variable not
   set sent the user to --api-key-env). evaluate's words are unchanged.
2. The ``modes:`` line and the JSON's ``modes`` list the judged metrics run, in the modes
   they ran in: ``--dimensions faithfulness`` printed all three, and ``options.mode`` was
   not seen. ``--dimensions "faithfulness, answer_relevance"`` read the second's pairs but
   scored none of them, without a word.
3. When every pair of a judged metric failed, the calibration table keeps its row, "— (N
   failed)" as the agreement table says it: with no baseline beside it, the table was
   printed with its headers only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import fake_server
from ragmeter import Settings, meta_eval
from ragmeter.cli import app
from test_meta_eval import ROWS
from test_meta_eval_failures import probe_passes

ENV = {"OPENAI_API_KEY": "sk-test-not-a-real-key", "COLUMNS": "300"}
runner = CliRunner()


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture()
def data(tmp_path: Path) -> Path:
    path = tmp_path / "wikieval.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    return path


@pytest.fixture
def no_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """A model built fails the test: the refusal comes before any."""

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("models were built before the settings were checked")

    monkeypatch.setattr("ragmeter.meta_eval._api.build_resources", forbidden)


def _refused(data: Path, tmp_path: Path, toml: str, *extra: str) -> str:
    config = tmp_path / "c.toml"
    config.write_text("[ragmeter]\n" + toml)
    args = ["meta-eval", "wikieval", "--data", str(data), "--config", str(config), *extra]
    res = runner.invoke(app, [*args, "--limit", "1", "--cache", "off"], env=ENV)
    assert res.exit_code == 2, res.output
    return _flat(res.output)


# ---- 1. settings named as given to meta-eval -------------------------------------------------


def test_preflight_in_the_config_is_named_as_a_setting_of_it(
    data: Path, tmp_path: Path, no_models: None
) -> None:
    said = _refused(data, tmp_path, "preflight = false\n", "--judge", "local")
    assert (
        "preflight = false is given in the settings (--config), but the judge 'local' calls "
        "no server" in said
    )
    assert said.endswith(
        "add --judge openai:MODEL to judge with a server, or leave preflight out of the settings"
    )
    assert "--no-preflight" not in said and "--preflight" not in said


def test_structured_mode_and_the_key_variable_in_the_config_are_named_as_settings(
    data: Path, tmp_path: Path, no_models: None
) -> None:
    toml = 'structured_mode = "json_object"\napi_key_env = "MY_KEY"\n'
    said = _refused(data, tmp_path, toml, "--judge", "local")
    assert 'structured_mode = "json_object" is given in the settings (--config)' in said
    assert "or leave structured_mode out of the settings" in said
    assert 'api_key_env = "MY_KEY" is given in the settings (--config)' in said
    assert "--structured-output" not in said and "--api-key-env" not in said


def test_a_key_variable_not_set_points_to_the_setting(
    data: Path, tmp_path: Path, no_models: None
) -> None:
    toml = 'judge = "openai:m"\napi_key_env = "RM_ME_MESSAGES_UNSET"\n'
    said = _refused(data, tmp_path, toml)
    assert (
        "the environment variable RM_ME_MESSAGES_UNSET is not set; set it, or name another "
        "variable with api_key_env in the settings (--config)" in said
    )
    assert "--api-key-env" not in said


@pytest.mark.parametrize("command", ["meta-eval", "evaluate"])
def test_every_option_a_message_names_is_one_the_command_has(command: str) -> None:
    """``meta_eval._checks.CLI_OPTIONS`` (and evaluate's default, all of them) hold the
    settings whose option each command's help shows: a message names no other option."""
    from ragmeter.meta_eval._checks import CLI_OPTIONS
    from ragmeter.setting_names import SETTING_OPTIONS

    shown = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"}).output
    has = CLI_OPTIONS if command == "meta-eval" else set(SETTING_OPTIONS)
    for field, option in SETTING_OPTIONS.items():
        assert (option in shown) == (field in has), (command, option)


def test_evaluate_still_names_its_own_options(tmp_path: Path) -> None:
    rows = tmp_path / "d.jsonl"
    rows.write_text(json.dumps({"question": "q", "answer": "a", "contexts": ["c"]}) + "\n")
    config = tmp_path / "c.toml"
    config.write_text('[ragmeter]\npreflight = false\nstructured_mode = "none"\n')
    args = ["evaluate", str(rows), "--config", str(config), "--judge", "local", "-m", "token_f1"]
    res = runner.invoke(app, args)
    said = _flat(res.output)
    assert res.exit_code == 2, said
    assert "--no-preflight (preflight) is given, but the judge 'local'" in said
    assert "--structured-output (structured_mode) none is given" in said
    assert "leave --no-preflight out" in said and "leave --structured-output out" in said


# ---- 2. the modes of the dimensions run ------------------------------------------------------


def _cli(data: Path, tmp_path: Path, *extra: str, fault_fn: Any = None) -> tuple[Any, dict]:  # type: ignore[type-arg]
    out = tmp_path / "me.json"
    with fake_server.FakeOpenAIServer(fault_fn=fault_fn) as server:
        res = runner.invoke(
            app,
            [
                *("meta-eval", "wikieval", "--data", str(data), "--judge", "openai:fake"),
                *("--base-url", server.url, "--embedder", "none", "--cache", "off"),
                *("--limit", "1", "-o", str(out), *extra),
            ],
            env=ENV,
        )
    return res, json.loads(out.read_text())


def test_the_modes_line_and_the_json_list_only_the_dimensions_run(
    data: Path, tmp_path: Path
) -> None:
    res, payload = _cli(data, tmp_path, "--dimensions", "faithfulness", "--baselines", "none")
    assert res.exit_code == 0, res.output
    modes = [line for line in res.stdout.splitlines() if line.startswith("modes:")]
    assert modes == ["modes: faithfulness=fast"]
    assert payload["modes"] == {"faithfulness": "fast"}
    assert payload["dimensions"] == ["faithfulness"]


def test_the_modes_are_those_run_options_mode_included(data: Path) -> None:
    with fake_server.FakeOpenAIServer() as server:
        s = Settings(
            judge="openai:fake",
            base_url=server.url,
            embedder="none",
            cache="off",
            options={"mode": "generate"},
        )
        report = meta_eval.run(
            "wikieval",
            data,
            settings=s,
            baselines=["none"],
            dimensions=["faithfulness", " context_relevance"],  # as --dimensions "a, b" splits
            limit=1,
        )
    assert report.modes == {"faithfulness": "generate", "context_relevance": "generate"}
    assert report.payload["modes"] == report.modes
    assert {r.name for r in report.results} == {"ragas:faithfulness", "ragas:context_relevance"}
    assert all(len(r.outcomes) == 1 for r in report.results)
    assert report.payload["dimensions"] == ["faithfulness", "context_relevance"]


# ---- 3. every pair failed -------------------------------------------------------------------


def test_every_pair_failed_keeps_its_row_in_the_calibration_table(
    data: Path, tmp_path: Path
) -> None:
    res, payload = _cli(
        data,
        tmp_path,
        *("--dimensions", "faithfulness", "--baselines", "none"),
        fault_fn=probe_passes("nan"),
    )
    assert res.exit_code == 1, res.output
    lines = res.stdout.splitlines()
    title = next(i for i, line in enumerate(lines) if "judged metric vs no-model baseline" in line)
    rows = [line for line in lines[title:] if "RAGAs (ragmeter)" in line]
    assert rows, "the calibration table was printed without a row"
    cells = [c.strip() for c in rows[0].strip("│ ").split("│")]
    assert cells == ["faithfulness", "RAGAs (ragmeter)", "— (1 failed)", "—", "—", "0"]
    # the JSON says the same: no agreement, no calibration, the pair left out as failed
    assert payload["agreement"]["faithfulness"] is None
    assert payload["calibration"] == {"faithfulness": None}
    assert payload["failed_pairs"] == {"faithfulness": 1}
    assert "ragas:faithfulness: 1 of 1 pair(s) left out" in res.stderr


def test_a_directory_as_data_is_said_to_be_one(tmp_path) -> None:
    """It said "file not found" of a directory that is there."""
    from ragmeter import meta_eval
    from ragmeter.errors import DataError

    with pytest.raises(DataError, match="is a directory, not a data file"):
        meta_eval.run("wikieval", tmp_path)
