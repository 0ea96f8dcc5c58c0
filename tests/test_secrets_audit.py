"""Adversarial leak hunt: a canary key planted where a user can put one never comes back out.

Each test plants its own key (the registry of secrets is process-wide, so a key another test
registered could mask a leak here) and looks for it, and for the forms servers echo (upper
case, without its prefix), in what the user sees.
"""

from __future__ import annotations

import asyncio
import json
import traceback
from typing import Any

import pytest
from typer.testing import CliRunner

from conftest import make_row
from fake_server import FakeOpenAIServer
from ragmeter.backends.embedders import make_embedder
from ragmeter.cli import app
from ragmeter.engine.embedder import CachedEmbedder
from ragmeter.engine.retry import RetryPolicy
from ragmeter.redact import redact, register_secret


def _needles(key: str) -> list[str]:
    return [key, key.upper(), key.split("-", 1)[-1]]


def _leaks(key: str, *texts: str) -> list[str]:
    return [n for n in _needles(key) for t in texts if n.lower() in t.lower()]


def test_a_key_only_the_openai_embedder_reads_is_masked_when_the_server_echoes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Judge local (or gguf:PATH) and ``--embedder openai:MODEL``: only the embedder
    reads the key. It never registered it, so a 401 echoing it without its ``sk-`` prefix
    (as servers do) went into the score's reason, scores.jsonl and the abort message."""
    key = "sk-embonly-7d3f9a1c5e2b4680aa"
    monkeypatch.setenv("RM_AUDIT_EMB_KEY", key)

    def faults(body: dict, n: int) -> str:  # type: ignore[type-arg]
        return "401-body"

    with FakeOpenAIServer(fault_fn=faults) as srv:
        inner = make_embedder("openai:e", base_url=srv.url, api_key_env="RM_AUDIT_EMB_KEY")
        embedder = CachedEmbedder(inner, policy=RetryPolicy(max_retries=0))
        reply = asyncio.run(embedder.embed(["some text"]))
        assert srv.faults["401-body"] == 1  # the key was sent and echoed
    assert not reply.ok and "401" in (reply.error or "")
    assert _leaks(key, reply.error or "") == []
    assert redact(f"echoed: {key.split('-', 1)[-1]}") == "echoed: ***"


@pytest.mark.parametrize("pasted", ["sk-proj-LEAKCANARY0123456789", "Bearer LEAKCANARY0123456789"])
def test_a_key_pasted_as_the_base_url_is_not_printed_back(pasted: str, tmp_path) -> None:
    """``--base-url "$OPENAI_API_KEY"`` (the key pasted where the URL goes) was refused with
    the key quoted in full on stderr: "'sk-proj-...' is not a server URL"."""
    data = tmp_path / "rows.jsonl"
    data.write_text('{"question": "q", "answer": "a", "contexts": ["c"]}\n')
    args = ["evaluate", str(data), "--judge", "openai:m", "--base-url", pasted, "--dry-run"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2, res.output
    assert "is not a server URL" in res.output
    assert "LEAKCANARY0123456789" not in res.output
    # what the user typed is still shown when it is no key
    res = CliRunner().invoke(app, [*args[:5], "localhost:8000", "--dry-run"])
    assert "'localhost:8000' is not a server URL" in res.output, res.output


# The circuit breaker raised its abort inside the ``except`` that caught the SDK's error, so
# Python chained that error, the server's echo of the key in its text, as ``__context__``:
# every printed traceback (a script, a notebook, pytest's report of a test using the
# Evaluator) showed it under "During handling of the above exception".
def test_a_tripped_breaker_does_not_chain_the_sdk_error_holding_the_echoed_key() -> None:
    from ragmeter import Settings, evaluate
    from ragmeter.errors import JudgeUnreachable

    key = "sk-breaker-5b8e2d4f6a1c3e7090"

    def faults(body: dict, n: int) -> str | None:  # type: ignore[type-arg]
        return "401-body" if len(body.get("messages", ())) > 1 else None  # preflight passes

    with FakeOpenAIServer(fault_fn=faults) as srv:
        settings = Settings(
            judge="openai:m",
            base_url=srv.url,
            api_key=key,
            embedder="none",
            cache="off",
            max_retries=0,
            structured_mode="json_schema",
        )
        with pytest.raises(JudgeUnreachable) as info:
            evaluate([make_row(i) for i in range(1, 7)], ["faithfulness"], settings=settings)
    shown = "".join(traceback.format_exception(info.value))
    assert "Incorrect API key provided: ***" in str(info.value)
    assert _leaks(key, shown) == []


@pytest.mark.parametrize(
    "given",
    [
        {"openai_api_key": "sk-pydantic-LEAKCANARY-1"},  # a guessed name for the key
        {"headers": {"Authorization": "Bearer sk-pydantic-LEAKCANARY-2"}},
        {"api_key": ["sk-pydantic-LEAKCANARY-3"]},  # the key, in the wrong type
        {"base_url": ["https://u:sk-pydantic-LEAKCANARY-4@h1/v1", "http://h2/v1"]},  # replicas
        {"embedder_base_url": ("https://u:sk-pydantic-LEAKCANARY-5@h/v1",)},
        {"prices": {"m": {"input": "sk-pydantic-LEAKCANARY-6"}}},
    ],
)
def test_a_settings_validation_error_does_not_repeat_the_value_given(given: dict) -> None:  # type: ignore[type-arg]
    """``Settings(...)`` in Python raised pydantic's ValidationError, whose text repeats each
    bad input (``input_value=...``): a key under a guessed name (``openai_api_key=``), a
    header, a list of replica URLs with ``user:key@`` printed the key, or its first 25
    characters, in the traceback. The field and what it takes are still said."""
    from pydantic import ValidationError

    from ragmeter import Settings

    with pytest.raises(ValidationError) as info:
        Settings(judge="openai:m", **given)
    text = str(info.value) + repr(info.value) + "".join(traceback.format_exception(info.value))
    assert "LEAKCANARY" not in text, text
    assert next(iter(given)) in text  # the field is named
    settings = Settings(judge="openai:m")
    with pytest.raises(ValidationError) as info:  # assignment is validated the same way
        settings.base_url = ["https://u:sk-pydantic-LEAKCANARY-7@h/v1"]  # type: ignore[assignment]
    assert "LEAKCANARY" not in str(info.value)


def test_a_key_where_a_long_error_is_cut_leaves_no_part_of_it() -> None:
    """``describe`` cut a failure reason at 500 characters before masking it: a server's long
    error echoing the key across the cut kept the key's first characters, which no longer
    matched the registered key, in the reason (scores.jsonl, the abort message)."""
    from ragmeter.redact import describe, register_secret

    key = "LEAKCANARY-cut-0123456789abcdef"  # no sk- prefix: only the registry masks it
    register_secret(key)
    for at in range(470, 500, 3):
        reason = describe(RuntimeError("x" * at + f" key {key} rejected"))
        assert "LEAK" not in reason.upper(), (at, reason)
        assert len(reason) <= 500


def test_a_401_whose_long_message_echoes_the_key_across_the_cut_leaves_no_part_of_it() -> None:
    """The reason of a 401/403/404 (which stops the run: "... is unreachable: HTTP 401: ...")
    was the server's message cut to 300 characters, masked only later: a key across the cut
    kept its first characters, which no longer matched the registered key."""
    from ragmeter.engine.retry import connection_failure
    from ragmeter.redact import register_secret

    key = "LEAKCANARY-status-0123456789abcdef"
    register_secret(key)

    class Refused(Exception):
        status_code = 401

        def __init__(self, message: str) -> None:
            super().__init__(message)
            self.body = {"error": {"message": message}}

    for at in range(270, 300, 3):
        reason = connection_failure(Refused("x" * at + f" {key} is not a valid key"))
        assert reason is not None and reason.startswith("HTTP 401: xxx")
        assert "LEAK" not in redact(reason).upper(), (at, reason)


@pytest.mark.parametrize("placeholder", ["EMPTY", "ollama", "lm-studio", "none", "dummy"])
def test_a_placeholder_key_local_servers_ignore_does_not_mask_ordinary_words(
    placeholder: str, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """vLLM's documented key is ``EMPTY`` (Ollama's ``ollama``, LM Studio's ``lm-studio``):
    registered as a secret, every "empty" was masked, and scores.jsonl said "no non-***
    reference answer", "*** answer: ..."; with ``none`` run.json recorded ``embedder: ***``.
    A well-known placeholder is no secret; a real key is still masked."""
    from ragmeter import Settings, evaluate

    monkeypatch.setenv("RM_AUDIT_PLACEHOLDER", placeholder)
    rows = [make_row(1), make_row(2, answer="")]
    with FakeOpenAIServer() as srv:
        settings = Settings(
            judge="openai:m",
            base_url=srv.url,
            api_key_env="RM_AUDIT_PLACEHOLDER",
            embedder="none",
            cache="off",
        )
        result = evaluate(rows, ["faithfulness"], settings=settings)
        assert srv.auth_headers == {f"Bearer {placeholder}"}
    result.write(tmp_path / "out")
    reason = result.scores["faithfulness"][1].reason or ""
    assert reason.startswith("empty answer"), reason
    assert json.loads((tmp_path / "out" / "run.json").read_text())["settings"]["embedder"] == "none"
    text = "the server sent an empty reply; dummy, none, Ollama and lm-studio"
    assert redact(text) == text
    register_secret("EMPTY-but-a-real-key-0123456789")  # a real key containing one is masked
    assert redact("got EMPTY-but-a-real-key-0123456789") == "got ***"


def test_a_built_in_metrics_internal_error_is_masked() -> None:
    """run_compute wrote ``{type}: {exc}`` unmasked (a registered metric's wrapper masked its
    own; a built-in's exception carrying a key went to scores.jsonl in clear)."""
    from ragmeter.metrics.base import Metric
    from ragmeter.redact import register_secret
    from ragmeter.sample import Sample
    from ragmeter.scheduler import run_compute

    key = "sk-builtinLEAK0123456789abcdef"
    register_secret(key)

    def boom(sample: Sample) -> Any:
        raise RuntimeError(f"request failed with key {key}\nsecond line")

    metric = Metric(name="boom_builtin", description="d", requires=(("answer",),), compute=boom)
    score = run_compute(metric, Sample(question_id="q1", question="q?", answer="a"))
    assert score.status == "failed" and key not in (score.reason or "")
    assert "RuntimeError" in (score.reason or "") and "second line" not in (score.reason or "")
