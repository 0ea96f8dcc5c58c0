"""The dry run against a real run over the fake server: with a cache holding part of the
calls, the estimate's new calls are the calls the run then sends and its cache hits the ones
the run is answered from, per metric, in each verdict mode."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fake_server import FakeOpenAIServer
from ragmeter import runner
from ragmeter.config import Settings
from ragmeter.dry_run import dry_run

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "rag_turns.jsonl"
METRICS = ["faithfulness", "context_relevance"]


def _rows(n: int) -> list[dict[str, Any]]:
    lines = EXAMPLES.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[:n]]


@pytest.mark.parametrize("group_verdicts", ["off", "on"])
def test_the_estimate_counts_cached_calls_as_the_run_then_finds_them(
    tmp_path: Path, group_verdicts: str
) -> None:
    rows = _rows(6)
    with FakeOpenAIServer() as srv:
        settings = Settings(
            judge="openai:m",
            base_url=srv.url,
            cache=str(tmp_path),
            api_key_env="RM_CD_UNSET",
            embedder="none",
            preflight=False,
            options={"group_verdicts": group_verdicts},
        )
        runner.evaluate(rows[:3], METRICS, settings=settings)  # the cache holds half the work
        est = dry_run(rows, METRICS, settings)
        before = srv.calls
        real = runner.evaluate(rows, METRICS, settings=settings).usage
        sent = srv.calls - before
    assert est["calls"] == real["calls"] == sent > 0
    assert est["cache_hits"] == real["cache_hits"] > 0
    for name in METRICS:
        e, r = est["per_metric"][name], real["per_metric"][name]
        assert (e["calls"], e["cache_hits"]) == (r["calls"], r["cache_hits"]), name


def test_an_estimate_without_judged_metrics_has_every_key_of_one_with_them(
    tmp_path: Path,
) -> None:
    """``dry_run(data, ["k_precision"])`` lacked judge_tokens, per_backend, failures,
    retries, estimated...: code reading an estimate raised KeyError for lexical metrics."""
    settings = Settings(
        judge="openai:m",
        base_url="http://127.0.0.1:9/v1",  # nothing is sent in a dry run
        cache=str(tmp_path),
        api_key_env="RM_CD_UNSET",
        embedder="none",
        preflight=False,
    )
    judged = dry_run(_rows(2), ["faithfulness"], settings)
    lexical = dry_run(_rows(2), ["k_precision"], settings)
    assert set(lexical) == set(judged)
    assert lexical["calls"] == lexical["judge_tokens"] == 0 and lexical["estimated"] is True
