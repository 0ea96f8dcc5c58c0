"""The judge a run is configured with is the judge it gets, or a configuration error (exit 2)
before any work: a base URL or key setting beside a judge that calls no server, a judge named
explicitly that cannot be had, an embedder spec no backend builds.

Before: `evaluate data --base-url http://host/v1` (no --judge) ran the embedded local judge
and ignored the URL; `--judge gguf:/missing.gguf` (or local:7b, or litellm:X without litellm)
dropped the judged metrics with a note and exited 0; `--embedder litellm:X` passed validation
and failed every score it was asked for."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app
from ragmeter.config import Settings, settings_from_options
from ragmeter.errors import ConfigError, DataError

runner = CliRunner()
MISSING_GGUF = "gguf:/nonexistent/ragmeter-test.gguf"


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(make_row(i)) + "\n" for i in range(1, 4)))
    return path


@pytest.fixture
def no_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any scoring or model session fails the test: the refusal must come before them."""

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("scoring started before the settings were checked")

    monkeypatch.setattr("ragmeter.runner.compute_all", forbidden)
    monkeypatch.setattr("ragmeter.executors.stream.compute_all", forbidden)
    monkeypatch.setattr("ragmeter.executors.session.build_resources", forbidden)
    monkeypatch.setattr(sys.modules["ragmeter.dry_run"], "build_resources", forbidden)


@pytest.fixture
def no_llama(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if llama-cpp-python were not installed (the local judge's extra)."""
    from ragmeter import availability

    real = availability._found
    monkeypatch.setattr(availability, "_found", lambda m: m != "llama_cpp" and real(m))


# ---- 1. a base URL or key setting that the judge cannot use ---------------------------------


@pytest.mark.parametrize(
    "extra, said",
    [
        (
            ["--base-url", "http://host:8000/v1"],
            "--base-url (base_url) http://host:8000/v1 is given",
        ),
        (["--judge", "local", "--base-url", "http://h/v1"], "the judge 'local' calls no server"),
        (["--api-key-env", "MY_KEY"], "--api-key-env (api_key_env) MY_KEY is given"),
        (["--judge", "none", "--api-key-env", "MY_KEY"], "the judge 'none' and the embedder"),
    ],
)
@pytest.mark.parametrize("dry", [False, True])
def test_a_url_or_key_without_a_judge_that_reads_it_is_refused(
    data: Path, extra: list[str], said: str, dry: bool, no_scoring: None
) -> None:
    args = ["evaluate", str(data), *extra, "-q", "--cache", "off"] + (["--dry-run"] if dry else [])
    res = runner.invoke(app, args)
    text = _flat(res.output)
    assert res.exit_code == 2, text
    assert said in text
    assert "--judge openai:MODEL" in text  # the fix


def test_several_urls_on_the_ray_executor_without_a_remote_judge(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Ray executor takes a comma list of servers, for its actors' remote judge: with the
    local judge the list was ignored."""

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the Ray executor started before the settings were checked")

    monkeypatch.setattr("ragmeter.runner._other_executor", forbidden)
    urls = "http://a:8000/v1,http://b:8000/v1"
    args = ["evaluate", str(data), "--base-url", urls, "--executor", "ray", "-o", str(tmp_path)]
    res = runner.invoke(app, args)
    text = _flat(res.output)
    assert res.exit_code == 2, text
    assert f"--base-url (base_url) {urls} is given, but the default judge" in text


def test_settings_from_python_and_files_are_checked_where_the_run_starts(
    data: Path, tmp_path: Path, no_scoring: None
) -> None:
    with pytest.raises(ConfigError, match="calls no server"):
        ragmeter.evaluate(str(data), settings=Settings(base_url="http://h/v1"))
    with pytest.raises(ConfigError, match=r"api_key is given"):
        ragmeter.evaluate(str(data), ["faithfulness"], settings={"api_key": "sk-abc123def456"})
    try:
        ragmeter.evaluate(str(data), settings={"judge": "local", "api_key": "sk-abc123def456"})
    except ConfigError as exc:
        assert "sk-abc123def456" not in str(exc)  # a key is never shown
    config = tmp_path / "r.toml"
    config.write_text('[ragmeter]\nbase_url = "http://h/v1"\nembedder_base_url = "http://e/v1"\n')
    with pytest.raises(ConfigError, match="embedder_base_url is given"):
        ragmeter.evaluate(str(data), ["mrr"], settings=config)
    with pytest.raises(ConfigError, match="calls no server"):
        ragmeter.dry_run(str(data), ["mrr"], Settings.from_file(config))


def test_who_can_use_the_url_keeps_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A remote judge, and an openai:MODEL embedder (which reads base_url when it has no URL
    of its own), use a base URL; a URL the environment supplied for a judge the command line
    then replaced was not given by anyone, and is not refused."""
    from ragmeter.executors.common import check_settings

    check_settings(Settings(judge="openai:m", base_url="http://h/v1", api_key_env="K"))
    check_settings(Settings(judge="litellm:m", base_url="http://h/v1", api_key_env="K"))
    check_settings(Settings(judge="local", embedder="openai:e", base_url="http://h/v1"))
    check_settings(Settings(judge="none", embedder="openai:e", api_key_env="K"))
    monkeypatch.setenv("OPENAI_BASE_URL", "http://env:1/v1")
    from_env = Settings(judge="openai:m")
    assert from_env.base_url == "http://env:1/v1" and "base_url" not in from_env.model_fields_set
    check_settings(from_env.merged(judge="local"))
    with pytest.raises(ConfigError, match="calls no server"):
        check_settings(from_env.merged(judge="local", base_url="http://mine/v1"))


# ---- 2. a judge named explicitly that cannot be had -------------------------------------------


@pytest.mark.parametrize(
    "judge, said",
    [
        (MISSING_GGUF, "the GGUF file /nonexistent/ragmeter-test.gguf does not exist"),
        ("local:7b", "unknown embedded model '7b'"),
    ],
)
def test_a_named_judge_that_cannot_be_had_is_refused_without_m(
    data: Path, judge: str, said: str, no_scoring: None
) -> None:
    res = runner.invoke(app, ["evaluate", str(data), "--judge", judge, "-q", "--cache", "off"])
    text = _flat(res.output)
    assert res.exit_code == 2, text
    assert f"the judge '{judge}' was asked for" in text and said in text
    assert "--judge none to run only the metrics that need no judge" in text


def test_litellm_not_installed(
    data: Path, monkeypatch: pytest.MonkeyPatch, no_scoring: None
) -> None:
    from ragmeter import availability

    real = availability._found
    monkeypatch.setattr(availability, "_found", lambda m: m != "litellm" and real(m))
    res = runner.invoke(app, ["evaluate", str(data), "--judge", "litellm:gpt-4o", "-q"])
    assert res.exit_code == 2, res.output
    assert "pip install 'ragmeter[litellm]'" in _flat(res.output)


def test_named_local_judge_without_llama_is_refused_the_default_is_left_out(
    data: Path, tmp_path: Path, no_llama: None
) -> None:
    res = runner.invoke(app, ["evaluate", str(data), "--judge", "local", "-q", "--cache", "off"])
    text = _flat(res.output)
    assert res.exit_code == 2, text
    assert "the judge 'local' was asked for" in text and "llama-cpp-python" in text
    config = tmp_path / "r.toml"
    config.write_text('judge = "local"\n')
    res = runner.invoke(app, ["evaluate", str(data), "--config", str(config), "-q"])
    assert res.exit_code == 2 and "was asked for" in _flat(res.output)
    with pytest.raises(ConfigError, match="was asked for"):
        ragmeter.evaluate(str(data), settings={"judge": "local", "cache": "off"})
    # the default judge: its metrics are left out with why and how to install, exit 0
    res = runner.invoke(app, ["evaluate", str(data), "-q", "--cache", "off"])
    text = _flat(res.output)
    assert res.exit_code == 0, text
    assert "not run: faithfulness (no judge available: the local judge needs llama-cpp" in text
    assert "pip install 'ragmeter[local]'" in text


def test_given_or_default_is_not_recorded(tmp_path: Path) -> None:
    """run.json, summary.json and the cache keys read public_dict and the fingerprint: the
    same for the default judge and the same judge named."""
    from ragmeter.manifest import fingerprint
    from ragmeter.metrics.registry import resolve

    named, default = Settings(judge="local"), Settings()
    assert "judge" in named.model_fields_set and "judge" not in default.model_fields_set
    assert named.public_dict() == default.public_dict()
    metrics = resolve(["faithfulness"])
    kw: dict[str, Any] = {"n_resamples": 10, "confidence": 0.95, "seed": 0}
    assert fingerprint(metrics, named, **kw) == fingerprint(metrics, default, **kw)
    assert "judge" in settings_from_options(None, judge="local").model_fields_set
    assert "judge" not in settings_from_options(None, seed=3).model_fields_set
    config = tmp_path / "r.toml"
    config.write_text('judge = "local"\n')
    assert "judge" in settings_from_options(config, seed=3).model_fields_set


# ---- 3. embedder specs, and what the help advertises -------------------------------------------


def test_an_embedder_no_backend_builds_is_refused_with_the_supported_specs(
    data: Path, no_scoring: None
) -> None:
    with pytest.raises(DataError) as info:
        Settings.parse_dict({"embedder": "litellm:text-embedding-3-small"})
    assert "local, st:PATH_OR_NAME, openai:MODEL, none" in str(info.value)
    args = ["evaluate", str(data), "--embedder", "litellm:x", "-m", "faithfulness", "-q"]
    res = runner.invoke(app, [*args, "--mode", "faithfulness=fast"])
    assert res.exit_code == 2, res.output
    assert "embedder must be one of local, st:PATH_OR_NAME, openai:MODEL" in _flat(res.output)


def _forms(help_text: str, option: str) -> list[str]:
    flat = _flat(help_text)
    start = flat.index(option)
    return re.findall(
        r"(none|local:0\.5b|local|gguf:PATH|openai:MODEL|litellm:MODEL)", flat[start:]
    )


@pytest.mark.parametrize("command", ["evaluate", "meta-eval"])
def test_judge_help_lists_every_accepted_form(command: str) -> None:
    res = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    forms = set(_forms(res.output, "--judge"))
    assert {"local", "local:0.5b", "gguf:PATH", "openai:MODEL", "litellm:MODEL", "none"} <= forms


def test_every_advertised_form_is_accepted_and_built(tmp_path: Path) -> None:
    """Each --judge and --embedder form the help shows passes Settings and is built by the
    backend (nothing loaded or sent); each it does not build is refused by Settings."""
    from ragmeter.cli._common import EMBEDDER_HELP, JUDGE_HELP
    from ragmeter.resources import _build_embedder, _build_judge

    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF" + (3).to_bytes(4, "little") + bytes(16))  # a header; never loaded
    fill = {"PATH": str(gguf), "MODEL": "m", "PATH_OR_NAME": str(tmp_path)}
    judges = [f.split(" ")[0] for f in JUDGE_HELP.split(" | ")]
    for form in judges:
        spec = re.sub(r"PATH|MODEL", lambda m: fill[m.group()], form)
        s = Settings(judge=spec, base_url="http://h/v1" if ":" in form else None)
        if s.judge_kind not in ("none", "litellm"):  # litellm: an optional extra
            assert _build_judge(s) is not None
    for form in EMBEDDER_HELP.split(" | "):
        spec = re.sub(r"PATH_OR_NAME|MODEL", lambda m: fill[m.group()], form.split(" ")[0])
        s = Settings(embedder=spec, base_url="http://h/v1")
        if spec != "none":
            assert _build_embedder(s) is not None


# ---- 4. a config file's unknown setting is not pointed to api_key ------------------------------


def test_unknown_setting_in_a_file_does_not_suggest_api_key(tmp_path: Path) -> None:
    config = tmp_path / "r.toml"
    config.write_text("[ragmeter]\nzzzz = 1\n")
    with pytest.raises(DataError) as info:
        Settings.from_file(config)
    known = str(info.value).split("known: ", 1)[1]
    names = [n.strip(" )") for n in known.split(",")]
    assert "api_key_env" in names and "api_key" not in names
    beside = tmp_path / "b.toml"
    beside.write_text("zzzz = 1\n[ragmeter]\nseed = 1\n")
    with pytest.raises(DataError) as info:
        Settings.from_file(beside)
    assert "'api_key'" not in str(info.value) and "api_key," not in str(info.value)
