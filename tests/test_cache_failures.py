"""A failed call is never served from the cache: once the server is fixed, the same command
asks again and scores; successful answers stay cached, and a failure never replaces one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import make_row
from fake_server import FakeOpenAIServer
from ragmeter.cli import app
from ragmeter.engine.cache import CallCache


@pytest.mark.parametrize("fault", ["nologprobs", "badtokens"])
def test_a_fixed_server_is_asked_again_not_answered_by_cached_failures(
    tmp_path: Path, fault: str
) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_text("\n".join(json.dumps(make_row(i)) for i in range(1, 4)) + "\n")
    broken = {"on": True}
    with FakeOpenAIServer(fault_fn=lambda b, n: fault if broken["on"] else None) as srv:
        args = [
            "evaluate",
            str(data),
            *("--judge", "openai:m", "--base-url", srv.url, "--api-key-env", "RM_CF_UNSET"),
            *("--embedder", "none", "--cache", str(tmp_path / "cache"), "--no-preflight"),
            *("-m", "answer_relevance", "--quiet"),
        ]
        first = CliRunner().invoke(app, args, env={"COLUMNS": "300"})
        assert first.exit_code == 1 and srv.faults[fault] == 3, first.output
        assert CallCache(tmp_path / "cache").count()["failed_calls"] == 3  # kept, for diagnosis

        broken["on"] = False  # the server is fixed
        srv.reset_counts()
        second = CliRunner().invoke(app, args, env={"COLUMNS": "300"})
        assert second.exit_code == 0, second.output
        assert srv.calls == 3  # every failed call asked again
        assert CallCache(tmp_path / "cache").count() == {
            "calls": 3,
            "failed_calls": 0,  # replaced by the answers
            "embeddings": 0,
        }

        srv.reset_counts()
        third = CliRunner().invoke(app, args, env={"COLUMNS": "300"})
        assert third.exit_code == 0 and srv.calls == 0  # answers are served from the cache


def test_a_failure_never_replaces_a_stored_answer(tmp_path: Path) -> None:
    """Two processes asking at once (Ray actors): one answered, one failed. The answer stays."""
    cache = CallCache(tmp_path)
    common = {"kind": "option_probs", "backend": "openai:m", "prompt_version": "1"}
    cache.put("k", ok=True, value={"yes": 0.7, "no": 0.3}, raw="Yes", **common)
    cache.put("k", ok=False, error="the server returned no logprobs", raw="Yes", **common)
    hit = cache.get("k")
    assert hit is not None and hit.ok and hit.value == {"yes": 0.7, "no": 0.3}
    cache.put("f", ok=False, error="first", **common)
    cache.put("f", ok=False, error="second", **common)
    assert cache.get("f") is None  # a failure is stored, never served
    assert cache.count() == {"calls": 1, "failed_calls": 1, "embeddings": 0}
    cache.put("f", ok=True, value={"yes": 1.0, "no": 0.0}, **common)
    assert cache.get("f") is not None and cache.count()["failed_calls"] == 0


def test_dry_run_counts_a_stored_failure_as_a_call_to_make(tmp_path: Path) -> None:
    from ragmeter import runner
    from ragmeter.config import Settings
    from ragmeter.dry_run import dry_run

    settings = Settings(
        judge="openai:m",
        cache=str(tmp_path),
        api_key_env="RM_CF_UNSET",
        embedder="none",
        preflight=False,
        max_retries=0,
    )
    samples = [make_row(i) for i in range(1, 5)]
    with FakeOpenAIServer(
        fault_fn=lambda b, n: "nologprobs" if "fact number 1?" in str(b) else None
    ) as srv:
        settings = settings.merged(base_url=srv.url)
        result = runner.evaluate(samples, ["answer_relevance"], settings=settings)
        assert [s.status for s in result.scores["answer_relevance"]].count("failed") == 1
        est = dry_run(samples, ["answer_relevance"], settings)
    assert (est["calls"], est["cache_hits"]) == (1, 3)  # the failed one will be asked again
