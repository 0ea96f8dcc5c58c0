"""An API key set in the environment never lands in the cache, logs, errors or results.

A real evaluation runs through the fake server with the key, then every file it wrote and
everything it logged or printed is searched for the key (and for its distinctive tail).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine_helpers import ensure_registered, rows
from fake_server import FakeOpenAIServer
from ragmeter import runner
from ragmeter.config import Settings
from ragmeter.redact import describe, redact

KEY = "sk-ragmeter-TEST-4f9c2e7a1b3d5f60-secret"
NEEDLES = (KEY, KEY[-20:])


def grep_tree(root: Path) -> list[str]:
    hits = []
    for path in root.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            hits += [f"{path}: {n}" for n in NEEDLES if n.encode() in data]
    return hits


def test_key_absent_from_cache_logs_results_and_errors(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RAGMETER_TEST_KEY", KEY)
    caplog.set_level(logging.DEBUG)  # the SDK and httpx log requests at DEBUG
    name = ensure_registered()
    cache, out = tmp_path / "cache", tmp_path / "out"

    def faults(body: dict, n: int) -> str | None:  # type: ignore[type-arg]
        msgs = body["messages"]  # the preflight's probe has one message: never faulted
        return "401" if len(msgs) > 1 and "number 1?" in msgs[1]["content"] else None

    with FakeOpenAIServer(fault_fn=faults) as srv:
        settings = Settings(
            judge="openai:m",
            base_url=srv.url,
            api_key_env="RAGMETER_TEST_KEY",
            cache=str(cache),
            max_retries=1,
        )
        result = runner.evaluate(rows(4), [name], settings=settings)
        assert srv.auth_headers == {f"Bearer {KEY}"}  # the key was really used
        result.write(out)
        # the server echoed the key in its 401 error: the failure reason must not carry it
        failed = [s for s in result.scores[name] if s.status == "failed"]
        assert len(failed) == 1 and "401" in (failed[0].reason or "")
        assert "***" in (failed[0].reason or "")

        data = tmp_path / "rows.jsonl"
        data.write_text("\n".join(json.dumps(r) for r in rows(4)) + "\n")
        cli = CliRunner().invoke(
            __import__("ragmeter.cli", fromlist=["app"]).app,
            [
                "evaluate",
                str(data),
                "-m",
                name,
                "--judge",
                "openai:m",
                "--base-url",
                srv.url,
                "--api-key-env",
                "RAGMETER_TEST_KEY",
                "--cache",
                str(cache),
                "-o",
                str(tmp_path / "cli-out"),
            ],
        )
        assert cli.exit_code == 1, cli.output  # one score failed (the 401): exit 1

    assert (cache / "ragmeter-cache.sqlite").is_file()
    assert grep_tree(tmp_path) == []  # cache db (+ WAL), scores.jsonl, summary.json
    captured = capfd.readouterr()
    texts = [
        caplog.text,
        captured.out,
        captured.err,
        cli.output,
        json.dumps(result.usage),
        json.dumps(result.config),
        repr(settings),
    ]
    assert not [n for n in NEEDLES for t in texts if n in t]
    assert "RAGMETER_TEST_KEY" in json.dumps(result.config)  # the variable's name is fine


def test_redaction_of_exceptions_and_echoed_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    from ragmeter.redact import register_secret

    register_secret("my-very-private-token-123")
    exc = RuntimeError("auth failed for my-very-private-token-123 at host")
    assert "my-very-private-token-123" not in describe(exc)
    assert redact("Authorization: Bearer abcdefghijklmnop") == "Authorization: Bearer ***"
    assert "sk-abcdefghijkl" not in redact("Incorrect API key provided: sk-abcdefghijkl")


def test_settings_never_expose_a_python_given_key() -> None:
    s = Settings(judge="openai:m", api_key="sk-python-given-key-0001")
    assert "sk-python-given-key-0001" not in json.dumps(s.public_dict())
    assert "sk-python-given-key-0001" not in repr(s) + str(s)
    assert "sk-python-given-key-0001" not in json.dumps(s.model_dump(mode="json"))
    assert s.merged(concurrency=2).api_key is not None


def test_keys_echoed_upper_cased_or_without_prefix_are_masked() -> None:
    from ragmeter.redact import register_secret

    key = "sk-proj-Fake0123456789abcdefXYZ"
    register_secret(key)
    for echoed in (key.upper(), key.lower(), key[3:], key[8:], key[8:].upper()):
        text = redact(f"Incorrect API key provided: {echoed}.")
        assert text == "Incorrect API key provided: ***.", text
    # a tail shorter than 12 characters, or another word, is left alone
    register_secret("tok-short-abc")
    assert redact("short-abc and abc stay") == "short-abc and abc stay"
    assert redact("TOK-SHORT-ABC") == "***"


@pytest.mark.parametrize("fault", ["401-upper", "401-body"])
def test_echoed_key_variants_never_reach_outputs(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    """A server echoing the key upper-cased or without 'sk-': not in stdout, scores.jsonl,
    summary.json or run.json."""
    key = "sk-echo-" + fault[-5:] + "-7c1e5a9b3d2f4068"
    monkeypatch.setenv("RAGMETER_ECHO_KEY", key)
    name = ensure_registered()
    data = tmp_path / "rows.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows(2)) + "\n")

    def faults(body: dict, n: int) -> str | None:  # type: ignore[type-arg]
        return fault if len(body["messages"]) > 1 else None  # the preflight passes

    with FakeOpenAIServer(fault_fn=faults) as srv:
        args = ["evaluate", str(data), "-m", name, "--judge", "openai:m", "--base-url", srv.url]
        args += ["--api-key-env", "RAGMETER_ECHO_KEY", "--cache", "off", "-o", str(tmp_path / "o")]
        cli = CliRunner().invoke(__import__("ragmeter.cli", fromlist=["app"]).app, args)
        assert srv.faults[fault] >= 1
    assert "***" in (tmp_path / "o" / "scores.jsonl").read_text(), cli.output
    needles = [key.upper(), key.split("-", 1)[-1]]
    captured = capfd.readouterr()
    texts = [cli.output, captured.out, captured.err]
    texts += [p.read_text() for p in (tmp_path / "o").iterdir()]
    assert not [n for n in needles for t in texts if n.lower() in t.lower()]
