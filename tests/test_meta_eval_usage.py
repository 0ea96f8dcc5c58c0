"""Meta-eval's judge usage means what evaluate's does: calls sent and tokens billed in this
run (failed calls included), calls answered from the cache, failed calls. Before, a run
served wholly from the cache and a run whose every call failed both said judge_tokens=0
(and 0 per item), with nothing to tell them apart or from a run that asked no judge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import fake_server
from ragmeter.cli import app
from test_meta_eval import ROWS
from test_meta_eval_failures import probe_passes

ENV = {"OPENAI_API_KEY": "sk-test-not-a-real-key", "COLUMNS": "200"}


@pytest.fixture()
def data(tmp_path: Path) -> Path:
    path = tmp_path / "wikieval.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    return path


def _run(server: Any, data: Path, out: Path, cache: str) -> tuple[Any, dict[str, Any]]:
    result = CliRunner().invoke(
        app,
        [
            *("meta-eval", "wikieval", "--data", str(data), "--judge", "openai:fake"),
            *("--base-url", server.url, "--embedder", "none", "--cache", cache),
            *("--dimensions", "faithfulness", "--baselines", "k_precision,gpt_score"),
            *("-o", str(out)),
        ],
        env=ENV,
    )
    return result, json.loads(out.read_text())


def _fields(line: str) -> dict[str, str]:
    assert line.startswith("RESULT "), line
    return dict(part.split("=", 1) for part in line.split()[1:])


def _ragas(payload: dict[str, Any]) -> dict[str, Any]:
    (ragas,) = [r for r in payload["results"] if r["kind"] == "ragas"]
    return dict(ragas)


def test_a_run_from_the_cache_says_its_calls_came_from_the_cache(
    data: Path, tmp_path: Path
) -> None:
    cache = str(tmp_path / "cache")
    with fake_server.FakeOpenAIServer() as server:
        first, p1 = _run(server, data, tmp_path / "1.json", cache)
        sent = server.by_path["/v1/chat/completions"]
        second, p2 = _run(server, data, tmp_path / "2.json", cache)
        # no verdict asked again: the one request is the preflight's probe (as evaluate's)
        assert server.by_path["/v1/chat/completions"] == sent + 1
        assert "Reply with the JSON object" in json.dumps(server.bodies[-1])
    assert first.exit_code == second.exit_code == 0, second.output
    r1 = _fields(first.stdout.strip().splitlines()[-1])
    r2 = _fields(second.stdout.strip().splitlines()[-1])
    n = int(r1["judge_calls"])
    assert n > 0 and int(r1["judge_tokens"]) > 0 and r1["judge_cached_calls"] == "0"
    assert (r2["judge_calls"], r2["judge_tokens"], r2["judge_failed_calls"]) == ("0", "0", "0")
    assert int(r2["judge_cached_calls"]) == n
    assert r2["faithfulness"] == r1["faithfulness"]  # the same scores, from the cache
    ragas = _ragas(p2)
    assert (ragas["judge_calls"], ragas["judge_tokens"]) == (0, 0)
    assert ragas["judge_cached_calls"] == n == p2["ragas_judge_cached_calls"]
    assert ragas["judge_cached_calls_per_item"] == n / ragas["scored_items"]
    side = ragas["pairs"][0]["preferred"]
    assert side["judge_calls"] == 0 and side["judge_cached_calls"] > 0
    assert "from the cache" in second.stdout and "+" in second.stdout  # the table says so
    # the same numbers as evaluate's usage, kept whole in the JSON
    usage = p2["usage"]["per_backend"]["openai:fake"]
    every = [r for r in p2["results"]]
    assert usage["calls"] == sum(r["judge_calls"] for r in every) == 0
    assert usage["cache_hits"] == sum(r["judge_cached_calls"] for r in every)
    assert p1["usage"]["per_backend"]["openai:fake"]["judge_tokens"] == sum(
        r["judge_tokens"] for r in p1["results"]
    )


def test_failed_calls_are_counted_and_their_billed_tokens_too(data: Path, tmp_path: Path) -> None:
    """Every judged call gets a NaN verdict (the server answers, and bills, each one): the
    scores fail, and the calls, their tokens and their failures are all still counted."""
    with fake_server.FakeOpenAIServer(fault_fn=probe_passes("nan")) as server:
        result, payload = _run(server, data, tmp_path / "me.json", "off")
    assert result.exit_code == 1, result.output
    fields = _fields(result.stdout.strip().splitlines()[-1])
    assert fields["faithfulness"] == "—"
    assert int(fields["judge_failed_calls"]) > 0 and int(fields["judge_tokens"]) > 0
    assert int(fields["judge_calls"]) >= int(fields["judge_failed_calls"])
    ragas = _ragas(payload)
    assert ragas["judge_failed_calls"] == int(fields["judge_failed_calls"])
    assert ragas["judge_tokens_per_item"] > 0
    side = ragas["pairs"][0]["preferred"]
    assert side["status"] == "failed" and side["judge_failed_calls"] > 0
    assert "calls failed" in result.stdout
