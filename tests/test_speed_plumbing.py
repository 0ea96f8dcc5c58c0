"""Issue 14's plumbing: evidence by word overlap with a remote judge, longest jobs first."""

from __future__ import annotations

from pathlib import Path

import pytest

from fake_server import FakeOpenAIServer
from ragmeter import evaluate
from ragmeter.config import Settings
from ragmeter.errors import ConfigError
from ragmeter.metrics.registry import get_metric
from ragmeter.resources import _resolved_options
from ragmeter.sample import Sample
from ragmeter.scheduler import _work_estimate


def test_evidence_auto_is_embedding_locally_and_lexical_remotely() -> None:
    assert _resolved_options(Settings(judge="local"))["evidence_by"] == "embedding"
    remote = Settings(judge="openai:m", base_url="http://127.0.0.1:9/v1")
    assert _resolved_options(remote)["evidence_by"] == "lexical"
    forced = Settings(judge="openai:m", base_url="http://x/v1", options={"evidence": "embedding"})
    assert _resolved_options(forced)["evidence_by"] == "embedding"
    with pytest.raises(ConfigError, match=r"options\.evidence"):
        _resolved_options(Settings(options={"evidence": "vectors"}))


class _CountingEmbedder:
    name = "count:emb"

    def __init__(self) -> None:
        self.calls = 0

    async def embed(self, texts):  # pragma: no cover - must not be called
        self.calls += 1
        raise AssertionError("the embedder must not be asked with a remote judge")


def test_remote_judge_picks_evidence_by_word_overlap_without_the_embedder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    emb = _CountingEmbedder()
    monkeypatch.setattr("ragmeter.resources._build_embedder", lambda s: emb)
    contexts = [" ".join(f"Fact number {i} is about topic {i}." for i in range(12))]
    data = [
        {
            "question_id": "q1",
            "question": "What is fact 3 about?",
            "answer": "Fact number 3 is about topic 3. Fact number 7 is about topic 7.",
            "contexts": contexts,
        }
    ]
    with FakeOpenAIServer() as srv:
        s = Settings(judge="openai:m", base_url=srv.url, cache="off", embedder="local")
        result = evaluate(data, ["faithfulness"], settings=s)
    score = result.scores["faithfulness"][0]
    assert score.status == "ok", score.reason
    assert score.details["evidence"]["method"] == "lexical"
    assert "evidence_by=lexical" in score.details["evidence"]["note"]
    assert emb.calls == 0


def test_longer_samples_are_estimated_as_more_work() -> None:
    metric = get_metric("faithfulness")
    short = Sample(question_id="s", question="q?", answer="a.", contexts=["c."])
    long = Sample(question_id="s", question="q?", answer="a. " * 50, contexts=["c. " * 200])
    assert _work_estimate(metric, long) > _work_estimate(metric, short) > 0
