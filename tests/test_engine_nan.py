"""A non-finite verdict is a failure with its reason, never an ok NaN (nor a silent 0.0), and
no output file ever holds a bare NaN: from the server's logprobs to scores.jsonl."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import make_row
from fake_server import FakeOpenAIServer
from ragmeter.cli import app
from ragmeter.engine import option_probs_from_top
from ragmeter.io import json_line, write_json
from ragmeter.metrics.base import Metric, Score, checked
from ragmeter.metrics.column import FAILED, OK, ScoreColumn
from ragmeter.metrics.faithfulness import faithfulness
from ragmeter.metrics.relevance import answer_relevance
from ragmeter.protocols import JudgeReply, Resources
from ragmeter.sample import Sample
from ragmeter.scheduler import run_compute


def strict_json(text: str) -> Any:
    """json.loads that refuses NaN and Infinity, as jq, browsers and most languages do."""

    def refuse(name: str) -> None:
        raise ValueError(f"bare {name} in JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("bad", [math.nan, math.inf, 800.0])
def test_a_broken_logprob_is_an_error_not_a_probability(bad: float) -> None:
    probs, error = option_probs_from_top([("Yes", bad), ("No", -1.0)], ["yes", "no"])
    assert probs is None and error is not None and "logprob" in error and "'Yes'" in error
    # also where it is not an option: the server's distribution is broken
    probs, error = option_probs_from_top([("Yes", -0.1), ("The", bad)], ["yes", "no"])
    assert probs is None and "the server returned a" in (error or "")


def test_minus_infinity_is_probability_zero() -> None:
    probs, error = option_probs_from_top([("Yes", -0.1), ("No", -math.inf)], ["yes", "no"])
    assert error is None and probs == {"yes": 1.0, "no": 0.0}


def test_score_level_guard() -> None:
    bad = Score.ok(math.nan, evidence="kept")
    assert bad.status == "failed" and bad.value is None and "non-finite" in (bad.reason or "")
    assert bad.details == {"evidence": "kept"}
    assert Score.ok(float("inf")).status == "failed"
    direct = checked(Score(math.inf, "ok", None, {}))
    assert direct.status == "failed" and "inf" in (direct.reason or "")
    assert checked(Score.ok(0.5)) == Score.ok(0.5)
    assert checked(Score.undefined("x")).status == "undefined"

    def compute(sample: Sample) -> Score:
        return Score(math.nan, "ok", None, {})  # built directly, past Score.ok

    metric = Metric(name="nan_metric", description="", requires=(("question",),), compute=compute)
    assert run_compute(metric, Sample(question="q?", question_id="q")).status == "failed"

    column = ScoreColumn([0.5, math.nan], [OK, OK], lambda i: Score(0.5 if i == 0 else math.nan))
    assert column.status.tolist() == [OK, FAILED] and column.ok_values().tolist() == [0.5]
    assert column.counts()["failed"] == 1 and column[1].status == "failed"
    column[0] = Score(math.inf, "ok", None, {})  # set directly: the same check
    assert column.status.tolist() == [FAILED, FAILED] and column[0].status == "failed"


class NaNJudge:
    """An in-process judge whose verdicts are NaN: it bypasses the engine's logprob check."""

    name = "stub:nan"

    async def option_probs(
        self, messages: Sequence[dict[str, str]], options: Sequence[str], *, prompt_version: str
    ) -> JudgeReply[dict[str, float]]:
        return JudgeReply({o: math.nan for o in options})


async def test_a_nan_verdict_fails_the_metric_and_never_becomes_zero() -> None:
    s = Sample(
        question_id="q1",
        question="What is the capital of France?",
        answer="Paris is the capital of France.",
        contexts=["Paris is the capital of France. The Seine flows through it."],
    )
    resources = Resources(judge=NaNJudge(), options={"modes": {}})
    for metric in (faithfulness, answer_relevance):
        score = await metric(s, resources)
        assert score.status == "failed", (metric.__name__, score)
        assert "non-finite probability" in (score.reason or "")


def test_writers_never_emit_a_bare_nan(tmp_path: Path) -> None:
    row = {"a": math.nan, "b": [math.inf, 1.5], "c": {"d": np.float64("-inf")}, "e": "NaN"}
    expected = {"a": None, "b": [None, 1.5], "c": {"d": None}, "e": "NaN"}
    assert strict_json(json_line(row)) == expected
    write_json(row, tmp_path / "x.json")
    assert strict_json((tmp_path / "x.json").read_text()) == expected


def test_nan_logprobs_from_the_server_fail_with_the_reason_and_exit_1(tmp_path: Path) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_text("\n".join(json.dumps(make_row(i)) for i in range(1, 4)) + "\n")
    with FakeOpenAIServer(fault_fn=lambda b, n: "nan") as srv:
        out = CliRunner().invoke(
            app,
            [
                "evaluate",
                str(data),
                *("--judge", "openai:m", "--base-url", srv.url, "--api-key-env", "RM_NAN_UNSET"),
                *("--embedder", "none", "--cache", "off", "--no-preflight"),
                *("-m", "answer_relevance,faithfulness", "-o", str(tmp_path / "o")),
            ],
            env={"COLUMNS": "300"},
        )
        assert srv.faults["nan"] > 0
    assert out.exit_code == 1, out.output
    assert "non-finite logprob" in out.output
    summary = strict_json((tmp_path / "o" / "summary.json").read_text())
    for name in ("answer_relevance", "faithfulness"):
        agg = summary["metrics"][name]
        assert agg["n_ok"] == 0 and agg["n_failed"] == 3 and agg["mean"] is None
    lines = (tmp_path / "o" / "scores.jsonl").read_text().splitlines()
    for line in lines:
        rec = strict_json(line)
        assert rec["status"] == {"answer_relevance": "failed", "faithfulness": "failed"}
        assert "the server returned a non-finite logprob" in rec["reasons"]["faithfulness"]
