"""More settings given in vain, refused before any work (``availability.unused_settings``).

1. ``--structured-output`` (structured_mode) and ``--no-preflight`` (preflight) beside a judge
   that calls no server (the default embedded judge, local:KEY, gguf:PATH, none): before,
   they were silently ignored and the run exited 0 as if they had been used.
2. A comma list of judge servers (``--base-url http://a/v1,http://b/v1``, the replicas of a
   remote judge on the Ray executor) beside an ``--embedder openai:MODEL`` without its own
   ``embedder_base_url``: before, the embedder was handed the whole list as one address (the
   dry run and meta-eval) or the judge's servers, found only at the first embedding call.
"""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app
from ragmeter.config import Settings, settings_from_options
from ragmeter.errors import ConfigError
from ragmeter.executors.common import check_settings

runner = CliRunner()
URLS = "http://a:8000/v1,http://b:8000/v1"
LIST_SAID = (
    "--base-url (base_url) lists 2 servers (http://a:8000/v1,http://b:8000/v1) for the "
    "replicas of the judge 'openai:m', but the embedder 'openai:e' has no URL of its own"
)
EMBEDDER_FIX = 'embedder_base_url = "http://HOST/v1" in a --config file'


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(make_row(i)) + "\n" for i in range(1, 4)))
    return path


@pytest.fixture
def wikieval(tmp_path: Path) -> Path:
    """One WikiEval row, for meta-eval to read before its resources are checked."""
    row = {
        "question": "Question: When did the bridge open?",
        "answer": "Answer: The bridge opened in 1937.",
        "ungrounded_answer": "The bridge opened in 1950.",
        "poor_answer": "It is a bridge.",
        "context_v1": ["The bridge opened in 1937. It is orange."],
        "context_v2": ["The bridge opened in 1937. It is orange.", "Rivers flow."],
        "source": "Bridge",
    }
    path = tmp_path / "wikieval.jsonl"
    path.write_text(json.dumps(row) + "\n")
    return path


@pytest.fixture
def gguf(tmp_path: Path) -> Path:
    """A file with a GGUF header (nothing loads it: the refusal comes first)."""
    path = tmp_path / "m.gguf"
    path.write_bytes(b"GGUF" + struct.pack("<I", 3) + bytes(16))
    return path


@pytest.fixture
def no_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any scoring, model session or executor fails the test: the refusal comes first."""

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("work started before the settings were checked")

    monkeypatch.setattr("ragmeter.runner.compute_all", forbidden)
    monkeypatch.setattr("ragmeter.runner._other_executor", forbidden)
    monkeypatch.setattr("ragmeter.executors.stream.compute_all", forbidden)
    monkeypatch.setattr("ragmeter.executors.session.build_resources", forbidden)
    monkeypatch.setattr(sys.modules["ragmeter.dry_run"], "build_resources", forbidden)
    monkeypatch.setattr("ragmeter.meta_eval._api.build_resources", forbidden)
    # the Ray extra need not be installed for its settings to be refused
    monkeypatch.setattr("ragmeter.executors.common.ray_problem", lambda: None)


# ---- 1. --structured-output and --no-preflight beside a judge that calls no server ------------


@pytest.mark.parametrize(
    "extra, said",
    [
        (
            ["--structured-output", "json_object"],
            "--structured-output (structured_mode) json_object is given, but the default judge",
        ),
        (["--no-preflight"], "--no-preflight (preflight) is given, but the default judge"),
        (
            ["--judge", "local:0.5b", "--structured-output", "none"],
            "--structured-output (structured_mode) none is given, but the judge 'local:0.5b' "
            "calls no server",
        ),
        (
            ["--judge", "none", "--no-preflight"],
            "--no-preflight (preflight) is given, but the judge 'none' calls no server",
        ),
        (["--judge", "GGUF", "--no-preflight"], "is given, but the judge 'gguf:"),
    ],
)
@pytest.mark.parametrize("dry", [False, True])
def test_server_options_beside_a_judge_that_calls_no_server_are_refused(
    data: Path, gguf: Path, extra: list[str], said: str, dry: bool, no_scoring: None
) -> None:
    extra = [f"gguf:{gguf}" if a == "GGUF" else a for a in extra]
    args = ["evaluate", str(data), *extra, "-q", "--cache", "off"] + (["--dry-run"] if dry else [])
    res = runner.invoke(app, args)
    text = _flat(res.output)
    assert res.exit_code == 2, text
    assert said in text
    option = "--structured-output" if "--structured-output" in extra else "--no-preflight"
    assert f"add --judge openai:MODEL to judge with a server, or leave {option} out" in text


def test_options_not_given_are_not_refused(data: Path) -> None:
    """The CLI passes None for an option left out, which ``Settings.merged`` does not count
    as given. An explicit --preflight is given (it overrides a --config's preflight = false),
    so beside a judge that calls no server it is refused as --no-preflight is."""
    s = settings_from_options(None, structured_mode=None, preflight=None)
    assert not {"structured_mode", "preflight"} & s.model_fields_set
    check_settings(s)
    res = runner.invoke(app, ["evaluate", str(data), "-m", "token_f1", "-q"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["evaluate", str(data), "-m", "token_f1", "--preflight", "-q"])
    assert res.exit_code == 2 and "--preflight (preflight) is given" in _flat(res.output)
    # a judge that calls a server reads both
    check_settings(Settings(judge="openai:m", structured_mode="json_object", preflight=False))
    check_settings(Settings(judge="litellm:m", structured_mode="none", preflight=False))


def test_files_python_settings_and_meta_eval_are_refused_alike(
    data: Path, wikieval: Path, tmp_path: Path, no_scoring: None
) -> None:
    toml = tmp_path / "r.toml"
    toml.write_text('[ragmeter]\nstructured_mode = "json_schema"\n')
    with pytest.raises(ConfigError, match=r"--structured-output \(structured_mode\) json_schema"):
        ragmeter.evaluate(str(data), ["token_f1"], settings=toml)
    js = tmp_path / "r.json"
    js.write_text(json.dumps({"judge": "local", "preflight": False}))
    res = runner.invoke(app, ["evaluate", str(data), "--config", str(js), "-q", "--dry-run"])
    assert res.exit_code == 2, res.output
    assert "--no-preflight (preflight) is given, but the judge 'local'" in _flat(res.output)
    with pytest.raises(ConfigError, match="calls no server"):
        ragmeter.evaluate(str(data), ["token_f1"], settings={"structured_mode": "none"})
    with pytest.raises(ConfigError, match=r"--preflight \(preflight\) is given"):
        ragmeter.dry_run(str(data), ["token_f1"], Settings(judge="none", preflight=True))
    from ragmeter import meta_eval

    # meta-eval has no --no-preflight: the setting is named as its --config file gives it
    with pytest.raises(ConfigError, match=r"preflight = false is given in the settings"):
        meta_eval.run("wikieval", wikieval, settings=Settings(preflight=False, cache="off"))


# ---- 2. a comma list of judge servers beside an openai:MODEL embedder without its own URL ------


@pytest.mark.parametrize("dry", [False, True])
def test_a_url_list_and_an_openai_embedder_without_its_url_are_refused_on_ray(
    data: Path, tmp_path: Path, dry: bool, no_scoring: None
) -> None:
    args = ["evaluate", str(data), "--judge", "openai:m", "--base-url", URLS]
    args += ["--embedder", "openai:e", "--api-key-env", "RM_UNUSED_SETTINGS_UNSET"]
    args += ["--executor", "ray", "-o", str(tmp_path / "out"), "-q"]
    res = runner.invoke(app, args + (["--dry-run"] if dry else []))
    text = _flat(res.output)
    assert res.exit_code == 2, text
    assert LIST_SAID in text and EMBEDDER_FIX in text
    assert "--embedder local" in text


def test_the_url_list_refusal_reaches_python_and_meta_eval(
    data: Path, wikieval: Path, tmp_path: Path, no_scoring: None
) -> None:
    s = Settings(judge="openai:m", base_url=URLS, embedder="openai:e", api_key_env="RM_X_UNSET")
    with pytest.raises(ConfigError, match=r"lists 2 servers .* has no URL of its own"):
        ragmeter.evaluate(str(data), ["token_f1"], settings=s, executor="ray", out=tmp_path / "o")
    with pytest.raises(ConfigError, match="embedder_base_url"):
        ragmeter.dry_run(str(data), None, s, executor="ray", out=tmp_path / "o")
    from ragmeter import meta_eval

    # meta-eval takes one URL whatever the embedder (no replicas, no --executor ray)
    with pytest.raises(ConfigError, match=r"lists 2 servers; meta-eval judges with one client"):
        meta_eval.run("wikieval", wikieval, settings=s)


def test_an_embedder_with_its_own_url_or_no_server_keeps_the_list(tmp_path: Path) -> None:
    config = tmp_path / "r.toml"
    config.write_text('[ragmeter]\nembedder_base_url = "http://emb:9000/v1"\n')
    given = settings_from_options(
        config, judge="openai:m", base_url=URLS, embedder="openai:e", api_key_env="K"
    )
    check_settings(given)
    check_settings(Settings(judge="openai:m", base_url=URLS, embedder="local"))
    check_settings(Settings(judge="openai:m", base_url=URLS, embedder="none"))
    # one URL is the embedder's too, as before
    check_settings(Settings(judge="openai:m", base_url="http://a/v1", embedder="openai:e"))


def test_a_base_url_no_one_reads_beside_an_embedder_with_its_own(tmp_path: Path) -> None:
    """A local judge and an openai:MODEL embedder with its own embedder_base_url leave
    base_url unread (before: accepted and ignored)."""
    s = Settings(base_url="http://h/v1", embedder="openai:e", embedder_base_url="http://e/v1")
    with pytest.raises(ConfigError) as info:
        check_settings(s)
    said = _flat(str(info.value))
    assert "--base-url (base_url) http://h/v1 is given, but the default judge" in said
    assert "calls its own embedder_base_url: no one reads it" in said
    # without a URL of its own the embedder reads base_url: kept, as before
    check_settings(Settings(base_url="http://h/v1", embedder="openai:e"))
    with pytest.raises(ConfigError, match="several are a remote judge's replicas"):
        check_settings(Settings(judge="local", base_url=URLS, embedder="openai:e"))


def test_meta_eval_refuses_a_judge_url_list(wikieval: Path, no_scoring: None) -> None:
    """meta-eval judges with one client: a comma list reached it as one address (refused only
    when it failed to connect); evaluate's local and stream executors refused it already."""
    from ragmeter import meta_eval

    s = Settings(judge="openai:m", base_url=URLS, api_key_env="RM_X_UNSET", cache="off")
    with pytest.raises(ConfigError, match=r"lists 2 servers; meta-eval judges with one client"):
        meta_eval.run("wikieval", wikieval, settings=s)
