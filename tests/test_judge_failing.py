"""A judge that answers but fails every call after its retries (a server down behind a proxy:
HTTP 500 on everything) stops the run: twenty spent calls in a row are a JudgeFailing (exit 3,
resumable), not hours of five requests per call ending as a run of failed scores. A flaky
server never trips it, and a run whose few calls all fail still finishes."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine_helpers import ensure_registered, rows
from fake_server import FakeOpenAIServer
from ragmeter import runner
from ragmeter.cli import app
from ragmeter.engine.calls import CircuitBreaker
from ragmeter.errors import JudgeFailing, JudgeUnreachable
from test_engine_runner import settings_for


def test_a_server_failing_every_call_stops_the_run_after_twenty_spent_calls(
    tmp_path: Path,
) -> None:
    name = ensure_registered()
    counter = itertools.count()

    def down_after_ten(body: object, n: int) -> str | None:
        return "500" if next(counter) >= 10 else None

    with FakeOpenAIServer(fault_fn=down_after_ten) as srv:
        settings = settings_for(srv.url, tmp_path / "cache", concurrency=1)  # 1 retry
        with pytest.raises(JudgeFailing) as err:
            runner.evaluate(rows(100), [name], settings=settings)
        sent = srv.calls
    assert isinstance(err.value, JudgeUnreachable)  # stops a run as an unreachable judge does
    said = str(err.value)
    assert "the last 20 calls all failed after their retries" in said and "500" in said
    # 20 spent calls x 2 attempts, then next to nothing (a call already on its way); the
    # 90 rows left would have sent 180 more requests
    assert 10 + CircuitBreaker.EXHAUSTED * 2 <= sent <= 10 + CircuitBreaker.EXHAUSTED * 2 + 4


def test_a_flaky_server_and_a_few_failed_calls_finish(tmp_path: Path) -> None:
    name = ensure_registered()
    rng = random.Random(0)
    with FakeOpenAIServer(fault_fn=lambda b, n: "500" if rng.random() < 0.3 else None) as srv:
        settings = settings_for(srv.url, tmp_path / "c1", concurrency=4)
        result = runner.evaluate(rows(60), [name], settings=settings)
    assert len(result.scores[name]) == 60  # finished: a flaky server trips nothing
    with FakeOpenAIServer(fault_fn=lambda b, n: "500") as srv:
        result = runner.evaluate(rows(5), [name], settings=settings_for(srv.url, tmp_path / "c2"))
    assert [s.status for s in result.scores[name]] == ["failed"] * 5


def test_the_cli_says_it_aborted_and_run_json_keeps_it(tmp_path: Path) -> None:
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows(40)))
    out = tmp_path / "out"
    with FakeOpenAIServer(fault_fn=lambda b, n: "500") as srv:
        res = CliRunner().invoke(
            app,
            [
                "evaluate", str(data), "-m", "faithfulness", "--judge", "openai:m",
                "--base-url", srv.url, "--embedder", "none", "--no-preflight",
                "--cache", str(tmp_path / "cache"), "-o", str(out),
            ],
            env={"OPENAI_API_KEY": "sk-test-not-a-real-key", "COLUMNS": "200"},
        )  # fmt: skip
    said = " ".join(res.output.split())
    assert res.exit_code == 3, res.output
    assert "is failing: the last 20 calls all failed after their retries" in said
    assert json.loads((out / "run.json").read_text())["status"] == "aborted"
