"""A sample's judge calls go out together (a server judge); when one fails, the others already
sent finish and are kept: before, they were cancelled in flight, so the server had received
(and billed) requests that the run neither counted nor cached, and a re-run sent them again."""

from __future__ import annotations

import json
from pathlib import Path

import ragmeter
from fake_server import FakeOpenAIServer

ANSWER = "Rome is the capital of Italy. It has four million people. The Tiber runs through it."
ROW = {
    "question_id": "q1",
    "question": "Tell me about Rome.",
    "answer": ANSWER,
    "contexts": ["Rome is the capital of Italy. About 4 million people live there."],
}


def _statement(body: dict) -> str:
    return json.dumps(body.get("messages", []))


def test_a_failed_call_keeps_its_siblings_answers(tmp_path: Path) -> None:
    broken = [True]

    def faults(body: dict, n_seen: int) -> str | None:
        text = _statement(body).split("Statement")[-1]
        if not broken[0] or "Statement" not in _statement(body):
            return None
        return "500" if "Tiber" in text else "slow"  # the others still in flight when it fails

    with FakeOpenAIServer(fault_fn=faults, slow_seconds=0.5) as server:
        settings = ragmeter.Settings(
            judge="openai:m",
            base_url=server.url,
            cache=str(tmp_path / "cache"),
            embedder="none",
            api_key_env="RAGMETER_TEST_UNSET",
            concurrency=4,
            max_retries=0,
        )
        first = ragmeter.evaluate([ROW], ["faithfulness"], settings=settings)
        statements = [b for b in server.bodies if "Statement" in _statement(b)]
        assert first.scores["faithfulness"][0].status == "failed"
        # every statement request the server received is counted in the run's usage
        assert first.usage["calls"] == len(statements) == 3
        broken[0] = False
        n_before = len(server.bodies)
        again = ragmeter.evaluate([ROW], ["faithfulness"], settings=settings)
        resent = [b for b in server.bodies[n_before:] if "Statement" in _statement(b)]
    assert again.scores["faithfulness"][0].status == "ok"
    # only the failed statement is asked again: its siblings' answers were kept
    assert len(resent) == 1 and "Tiber" in _statement(resent[0])


def test_a_run_answered_from_the_cache_still_says_so(tmp_path: Path) -> None:
    """The CLI's "judge tokens ... cached: N" line was printed only when tokens were spent, so
    a re-run answered wholly from the cache said nothing of its judge."""
    from typer.testing import CliRunner

    from ragmeter.cli import app

    data = tmp_path / "in.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    with FakeOpenAIServer() as server:
        args = ["evaluate", str(data), "-m", "faithfulness", "--judge", "openai:m"]
        args += ["--base-url", server.url, "--cache", str(tmp_path / "c"), "--embedder", "none"]
        env = {"OPENAI_API_KEY": "sk-test-not-a-real-key"}
        first = CliRunner().invoke(app, args, env=env)
        again = CliRunner().invoke(app, args, env=env)
    assert first.exit_code == 0 and again.exit_code == 0, again.output
    line = next(x for x in again.stdout.splitlines() if x.startswith("judge tokens"))
    assert "calls: 0" in line and "cached: 3" in line
