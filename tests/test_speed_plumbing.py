"""Issue 14's plumbing: evidence by word overlap with a remote judge, longest jobs first."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from fake_server import FakeOpenAIServer
from ragmeter import evaluate
from ragmeter.config import Settings
from ragmeter.engine.parsing import verdicts_from_tokens
from ragmeter.errors import ConfigError
from ragmeter.metrics.registry import get_metric
from ragmeter.resources import _resolved_options
from ragmeter.sample import Sample
from ragmeter.scheduler import _work_estimate


def test_evidence_auto_is_word_overlap_for_local_and_remote_judges() -> None:
    assert _resolved_options(Settings(judge="local"))["evidence_by"] == "lexical"
    chosen = Settings(judge="local", options={"evidence": "embedding"})
    assert _resolved_options(chosen)["evidence_by"] == "embedding"
    remote = Settings(judge="openai:m", base_url="http://127.0.0.1:9/v1")
    assert _resolved_options(remote)["evidence_by"] == "lexical"
    forced = Settings(judge="openai:m", base_url="http://x/v1", options={"evidence": "embedding"})
    assert _resolved_options(forced)["evidence_by"] == "embedding"
    with pytest.raises(ConfigError, match=r"options\.evidence"):
        _resolved_options(Settings(options={"evidence": "vectors"}))
    assert _resolved_options(remote)["group_verdicts_on"] is False  # off unless asked
    with pytest.raises(ConfigError, match=r"options\.group_verdicts"):
        _resolved_options(Settings(options={"group_verdicts": "auto"}))


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


def _two_claims() -> list[dict[str, object]]:
    return [
        {
            "question_id": "q1",
            "question": "What are facts 3 and 7 about?",
            "answer": "Fact number 3 is about topic 3. Fact number 7 is about topic 7.",
            "contexts": [" ".join(f"Fact number {i} is about topic {i}." for i in range(12))],
        }
    ]


def test_with_group_verdicts_a_server_gets_a_samples_statements_in_one_request() -> None:
    with FakeOpenAIServer(yes_logprob=-0.1) as srv:
        s = Settings(
            judge="openai:m",
            base_url=srv.url,
            cache="off",
            preflight=False,
            options={"group_verdicts": "on"},
        )
        result = evaluate(_two_claims(), ["faithfulness_judge"], settings=s)
        bodies = list(srv.bodies)
    score = result.scores["faithfulness_judge"][0]
    assert score.status == "ok", score.reason
    assert score.details["grouped_verdicts"] is True
    assert len(bodies) == 1  # one request for both claims
    prompt = bodies[0]["messages"][-1]["content"]
    assert "1. <data>" in prompt and "2. <data>" in prompt
    assert bodies[0]["top_logprobs"] == 5 and bodies[0]["max_tokens"] > 1
    assert score.details["p_yes"] == [round(math.exp(-0.1), 4)] * 2


def test_grouping_off_or_an_unreadable_reply_asks_one_statement_at_a_time() -> None:
    class NoLogprobs(FakeOpenAIServer):
        def chat_reply(self, body, fault):  # type: ignore[no-untyped-def]
            if (body.get("max_tokens") or 1) > 1:  # a grouped request: plain text only
                return super().chat_reply({**body, "logprobs": False}, fault)
            return super().chat_reply(body, fault)

    for server, options in ((NoLogprobs(), {"group_verdicts": "on"}), (FakeOpenAIServer(), {})):
        with server as srv:
            s = Settings(
                judge="openai:m", base_url=srv.url, cache="off", preflight=False, options=options
            )
            result = evaluate(_two_claims(), ["faithfulness_judge"], settings=s)
            n_requests = srv.calls
        score = result.scores["faithfulness_judge"][0]
        assert score.status == "ok", score.reason
        grouped = bool(options)
        assert n_requests == (3 if grouped else 2)
        assert score.details["judge"].get("grouped_fallbacks", 0) == int(grouped)


def test_verdicts_are_read_after_each_numbered_label() -> None:
    yes, no = math.log(0.8), math.log(0.2)
    toks = [
        ("1", []),
        (":", []),
        (" yes", [(" yes", yes), (" no", no)]),
        ("\n", []),
        ("2", []),
        (": ", []),
        ("No", [("No", yes), ("Yes", no)]),
    ]
    got, err = verdicts_from_tokens(toks, ("yes", "no"), 2)
    assert err is None and got is not None
    assert got[0]["yes"] == pytest.approx(0.8) and got[1]["yes"] == pytest.approx(0.2)
    assert verdicts_from_tokens(toks, ("yes", "no"), 3)[0] is None  # a line is missing
    assert verdicts_from_tokens(toks[:5], ("yes", "no"), 2)[0] is None  # no verdict after 2


def test_an_in_process_judge_with_token_tops_groups_verdicts_too() -> None:
    import asyncio

    from ragmeter.engine import CachedJudge
    from ragmeter.protocols import JudgeReply, Usage

    yes = math.log(0.9)

    class Tops:
        name = "fake:tops"

        async def option_probs(self, messages, options, *, prompt_version):  # type: ignore[no-untyped-def]
            return JudgeReply({"yes": 0.5, "no": 0.5})

        async def structured(self, *a, **k):  # type: ignore[no-untyped-def]
            raise AssertionError

        async def token_tops(self, messages, max_new, *, prompt_version):  # type: ignore[no-untyped-def]
            assert max_new == 6 * 2 + 8
            toks = [("1", []), (":", []), (" yes", [(" yes", yes), (" no", math.log(0.1))])]
            toks += [("\n", []), ("2", []), (":", []), (" no", [(" no", yes), (" yes", -2.3)])]
            return JudgeReply(toks, raw="1: yes\n2: no", usage=Usage(100, 7, 40))

    judge = CachedJudge(Tops())
    assert judge.groups_verdicts
    reply = asyncio.run(
        judge.option_probs_list(
            [{"role": "user", "content": "x"}], ("yes", "no"), 2, prompt_version="t"
        )
    )
    assert reply.ok and reply.value is not None
    assert reply.value[0]["yes"] == pytest.approx(0.9) and reply.value[1]["yes"] < 0.2
    assert judge.accountant.total.computed_tokens == 40


def test_meta_eval_records_calls_and_tokens_per_sample() -> None:
    from ragmeter.engine.accounting import Tally
    from ragmeter.meta_eval._run import ScorerResult, _brief
    from ragmeter.metrics.base import Score

    used = Tally(calls=3, cache_hits=1, prompt_tokens=900, completion_tokens=3)
    brief = _brief(Score.ok(0.5), used)
    assert brief["judge_calls"] == 3 and brief["prompt_tokens"] == 900
    assert brief["completion_tokens"] == 3 and brief["judge_tokens"] == 903
    assert brief["judge_cached_calls"] == 1 and brief["judge_failed_calls"] == 0
    res = ScorerResult("faithfulness", "faithfulness", "ragas", calls=6, n_samples=2)
    assert res.as_dict()["judge_calls_per_item"] == 3


def test_a_dry_run_with_grouped_verdicts_sends_nothing_and_counts_one_call() -> None:
    from ragmeter import dry_run

    with FakeOpenAIServer() as srv:
        s = Settings(
            judge="openai:m",
            base_url=srv.url,
            cache="off",
            preflight=False,
            options={"group_verdicts": "on"},
        )
        est = dry_run(_two_claims(), ["faithfulness_judge"], settings=s)
        assert srv.calls == 0  # a dry run sends nothing
    assert est["calls"] == 1  # both claims in one request
