"""Meta-eval and failed scores: a pair whose score failed is left out of the agreement and
counted, said on stderr, carried by the RESULT line and exits 1; a tie or a metric that does
not apply still counts one half."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

import fake_server
from judged_fakes import ScriptedJudge
from ragmeter.cli import app
from ragmeter.meta_eval import PairScorer, gpt_ranking, outcome, run_meta_eval, wikieval_pairs
from ragmeter.metrics.base import Score
from ragmeter.protocols import Resources
from test_meta_eval import ROWS

ENV = {"OPENAI_API_KEY": "sk-test-not-a-real-key", "COLUMNS": "200"}
UNGROUNDED = ("1950", "Bob Ray")  # the two ungrounded answers of ROWS


@pytest.fixture()
def data(tmp_path):
    path = tmp_path / "wikieval.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    return path


def test_outcome_leaves_failures_out_and_counts_ties_and_undefined_half():
    assert outcome(Score.ok(0.9), Score.ok(0.1)) == 1.0
    assert outcome(Score.ok(0.5), Score.ok(0.5)) == 0.5
    assert outcome(Score.undefined("no claims"), Score.ok(0.5)) == 0.5
    assert outcome(Score.ok(0.5), Score.skipped("no contexts")) == 0.5
    assert outcome(Score.failed("judge error"), Score.ok(0.5)) is None
    assert outcome(Score.ok(0.9), Score.ok(float("nan"))) is None  # a NaN verdict failed


def scripted(table: dict[str, Score]) -> Any:
    async def score(sample, resources):
        return table[sample.answer]

    return score


@pytest.mark.parametrize(
    "bad", [Score.failed("judge error: 500"), Score.ok(float("nan"))], ids=["failed", "nan"]
)
async def test_a_failed_side_leaves_its_pair_out(data, bad):
    """Row 0 decided, row 1's ungrounded side failed: agreement 1.0 on the one pair, not 0.75."""
    table = {
        "The bridge opened in 1937.": Score.ok(0.9),
        "The bridge opened in 1950.": Score.ok(0.2),
        "The novel was written by Ann Lee.": Score.ok(0.8),
        "The novel was written by Bob Ray.": bad,
    }
    sc = PairScorer("scripted", "faithfulness", "ragas", score=scripted(table))
    (res,) = await run_meta_eval(wikieval_pairs(data), [sc], Resources())
    assert res.outcomes == [1.0, None]
    assert res.agreement == 1.0
    assert (res.n_failed, res.n_missing) == (1, 0)
    assert res.first_failure == bad.reason
    facts = res.as_dict()
    assert (facts["n_pairs"], facts["n_counted"], facts["n_failed"]) == (2, 1, 1)
    assert facts["pairs"][1]["outcome"] is None
    assert facts["pairs"][1]["preferred"]["value"] == 0.8  # the computed side is kept
    assert facts["pairs"][1]["other"]["status"] == "failed"


async def test_undefined_still_counts_half_and_all_failed_is_no_agreement(data):
    undefined = {a: Score.undefined("no claims") for a in _answers()}
    failed = {a: Score.failed("judge error: 500") for a in _answers()}
    u = PairScorer("u", "faithfulness", "ragas", score=scripted(undefined))
    f = PairScorer("f", "faithfulness", "baseline", score=scripted(failed))
    got = {r.name: r for r in await run_meta_eval(wikieval_pairs(data), [u, f], Resources())}
    assert got["u"].agreement == 0.5 and got["u"].n_missing == 2 and got["u"].n_failed == 0
    assert got["f"].agreement is None and got["f"].n_failed == 2 and got["f"].n_missing == 0


def _answers() -> list[str]:
    return [
        "The bridge opened in 1937.",
        "The bridge opened in 1950.",
        "The novel was written by Ann Lee.",
        "The novel was written by Bob Ray.",
    ]


async def test_a_failed_ranking_is_left_out_not_a_tie(data):
    judge = ScriptedJudge(lambda t: 0.9, fail_on="Bob Ray")
    sc = PairScorer("rank", "faithfulness", "baseline", rank=gpt_ranking("faithfulness"))
    (res,) = await run_meta_eval(wikieval_pairs(data), [sc], Resources(judge=judge))
    assert res.outcomes[1] is None and res.n_failed == 1
    assert res.agreement == res.outcomes[0]


def _meta_eval(data, tmp_path, fault_fn) -> tuple[Any, dict[str, Any]]:
    out = tmp_path / "me.json"
    with fake_server.FakeOpenAIServer(fault_fn=fault_fn) as server:
        result = CliRunner().invoke(
            app,
            [
                *("meta-eval", "wikieval", "--data", str(data), "--judge", "openai:fake"),
                *("--base-url", server.url, "--embedder", "none", "--cache", "off"),
                *("--dimensions", "faithfulness", "--baselines", "k_precision", "-o", str(out)),
            ],
            env=ENV,
        )
    return result, json.loads(out.read_text())


def probe_passes(fault: str, when: Any = lambda text: True) -> Any:
    """Every judged call gets ``fault`` where ``when(request text)``; the preflight passes."""

    def fault_fn(body: dict[str, Any], n: int) -> str | None:
        text = json.dumps(body)
        if "Reply with the JSON object" in text or not when(text):
            return None
        return fault if body.get("logprobs") else "schema"

    return fault_fn


def test_cli_every_judged_call_failing_is_no_agreement_and_exit_1(data, tmp_path):
    result, payload = _meta_eval(data, tmp_path, probe_passes("nan"))
    assert result.exit_code == 1, result.output
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("RESULT faithfulness=— faithfulness_failed=2 ")
    assert "faithfulness_lexical=1.000" in last
    assert "ragas:faithfulness: 2 of 2 pair(s) left out" in result.stderr
    assert "non-finite logprob" in result.stderr or "judge error" in result.stderr
    assert payload["agreement"]["faithfulness"] is None
    assert payload["failed_pairs"] == {"faithfulness": 2}
    (ragas,) = [r for r in payload["results"] if r["kind"] == "ragas"]
    assert [p["outcome"] for p in ragas["pairs"]] == [None, None]
    assert all(p["preferred"]["status"] == "failed" for p in ragas["pairs"])


def test_cli_one_failed_side_leaves_one_pair_out(data, tmp_path):
    """The ungrounded answer of row 1 gets NaN verdicts: agreement over the decided pair."""
    hit = probe_passes("nan", lambda text: UNGROUNDED[1] in text)
    result, payload = _meta_eval(data, tmp_path, hit)
    assert result.exit_code == 1, result.output
    last = result.stdout.strip().splitlines()[-1]
    assert "faithfulness=1.000 faithfulness_failed=1 " in last
    assert "1 of 2 pair(s) left out" in result.stderr and "non-finite" in result.stderr
    (ragas,) = [r for r in payload["results"] if r["kind"] == "ragas"]
    assert (ragas["n_counted"], ragas["n_failed"], ragas["agreement"]) == (1, 1, 1.0)


def test_cli_without_failures_exits_0_and_says_failed_0(data, tmp_path):
    result, payload = _meta_eval(data, tmp_path, None)
    assert result.exit_code == 0, result.output
    assert "faithfulness_failed=0" in result.stdout.strip().splitlines()[-1]
    assert "left out" not in result.stderr
    assert payload["failed_pairs"] == {"faithfulness": 0}
