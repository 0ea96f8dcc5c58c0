"""The engine against a real HTTP server: caching, retries, repair, time-outs, concurrency."""

from __future__ import annotations

import asyncio
import random
import time
from email.utils import formatdate
from typing import Any

import numpy as np
import pytest
from pydantic import BaseModel

from fake_server import FakeOpenAIServer
from ragmeter.backends.openai_compat import OpenAICompatBackend
from ragmeter.engine import (
    CachedEmbedder,
    CachedJudge,
    option_probs_from_top,
    parse_structured,
)
from ragmeter.engine.accounting import CALL_TAG, Accountant, PriceTable
from ragmeter.engine.cache import CallCache, call_key
from ragmeter.engine.retry import RetryPolicy, TransientError, classify, parse_retry_after
from ragmeter.protocols import JudgeReply, Usage

FAST = RetryPolicy(max_retries=3, base_delay=0.01, max_delay=0.05)


class Verdict(BaseModel):
    verdict: str
    score: int


def msgs(text: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": "judge"}, {"role": "user", "content": text}]


def make_judge(
    server: FakeOpenAIServer,
    cache: CallCache | None = None,
    *,
    timeout: float = 5.0,
    concurrency: int = 8,
    policy: RetryPolicy = FAST,
    model: str = "m",
    **kw: Any,
) -> CachedJudge:
    backend = OpenAICompatBackend(
        model, base_url=server.url, api_key_env=None, timeout=timeout, concurrency=concurrency, **kw
    )
    return CachedJudge(
        backend, cache=cache, policy=policy, timeout=timeout, concurrency=concurrency
    )


# -- pure pieces -------------------------------------------------------------------------


def test_backoff_grows_with_jitter_and_honours_retry_after() -> None:
    policy = RetryPolicy(base_delay=0.1, max_delay=1.0)
    rng = random.Random(0)
    delays = [policy.delay(n, rng=rng) for n in range(1, 8)]
    assert 0.05 <= delays[0] <= 0.1
    assert all(d <= 1.0 for d in delays)
    assert delays[3] > delays[0]
    assert len({round(policy.delay(2, rng=rng), 6) for _ in range(20)}) > 1  # jittered
    # the server's wait in full, plus up to a quarter more so that its callers spread out
    assert 3.0 <= policy.delay(1, retry_after=3.0, rng=rng) <= 3.75
    assert 5 <= RetryPolicy(max_retry_after=5).delay(1, retry_after=500) <= 6.25


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    future = parse_retry_after({"retry-after": formatdate(time.time() + 30, usegmt=True)})
    assert future is not None and 25 < future <= 31
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after(None) is None


def test_classify() -> None:
    assert classify(TransientError("x", 1.5)) == (True, 1.5)
    assert classify(TimeoutError())[0]
    assert classify(ConnectionResetError())[0]
    assert not classify(ValueError("bad"))[0]


def test_parse_structured_reports_what_is_wrong() -> None:
    value, err = parse_structured('```json\n{"verdict": "yes", "score": 2}\n```', Verdict)
    assert value == Verdict(verdict="yes", score=2) and err is None
    value, err = parse_structured('Sure! {"verdict": "no", "score": 0} hope it helps', Verdict)
    assert value is not None and value.verdict == "no"
    value, err = parse_structured('{"verdict": "yes", ', Verdict)
    assert value is None and err is not None and err.startswith("malformed JSON")
    value, err = parse_structured('{"verdict": "yes"}', Verdict)
    assert value is None and err is not None and "score" in err and "schema violation" in err


def test_option_probs_renormalise_and_merge_variants() -> None:
    top = [("Yes", np.log(0.5)), (" yes", np.log(0.1)), ("No", np.log(0.2)), ("The", -1.0)]
    probs, err = option_probs_from_top(top, ["yes", "no"])
    assert err is None and probs is not None
    assert probs["yes"] == pytest.approx(0.6 / 0.8) and probs["no"] == pytest.approx(0.2 / 0.8)
    probs, err = option_probs_from_top([("The", -0.1)], ["yes", "no"])
    assert probs is None and "none of the options" in (err or "")


def test_cache_key_covers_every_part() -> None:
    base = dict(
        backend="openai:m",
        kind="structured",
        messages=msgs("q"),
        params={"temperature": 0.0, "seed": 0, "max_tokens": 512, "schema": {"a": 1}},
        prompt_version="v1",
    )
    ref = call_key(**base)  # type: ignore[arg-type]
    variants = [
        {"backend": "openai:other"},
        {"messages": msgs("q2")},
        {"prompt_version": "v2"},
        {"kind": "option_probs"},
        {"params": {**base["params"], "temperature": 0.1}},  # type: ignore[dict-item]
        {"params": {**base["params"], "seed": 1}},  # type: ignore[dict-item]
        {"params": {**base["params"], "max_tokens": 64}},  # type: ignore[dict-item]
        {"params": {**base["params"], "schema": {"a": 2}}},  # type: ignore[dict-item]
    ]
    keys = {call_key(**{**base, **v}) for v in variants}  # type: ignore[arg-type]
    assert ref not in keys and len(keys) == len(variants)
    assert call_key(**base) == ref  # type: ignore[arg-type]


def test_price_table_and_accounting_per_metric_and_sample() -> None:
    acc = Accountant(PriceTable({"gpt-x": (1.0, 2.0)}))
    token = CALL_TAG.set(("faithfulness", "q1"))
    acc.record("openai:gpt-x", prompt_tokens=1000, completion_tokens=500)
    acc.record("openai:gpt-x", cached=True)
    CALL_TAG.reset(token)
    summary = acc.summary()
    assert summary["per_metric"]["faithfulness"]["judge_tokens"] == 1500
    assert summary["per_metric"]["faithfulness"]["cache_hits"] == 1
    assert acc.sample_usage("faithfulness", "q1")["prompt_tokens"] == 1000
    assert summary["cost_usd"] == pytest.approx((1000 * 1.0 + 500 * 2.0) / 1e6)
    acc.record("openai:unpriced", prompt_tokens=10)
    assert acc.cost_usd() is None  # unknown, not zero


# -- against the server ------------------------------------------------------------------


async def test_structured_is_cached_across_judges(tmp_path: Any) -> None:
    with FakeOpenAIServer() as srv:
        cache = CallCache(tmp_path)
        reply = await make_judge(srv, cache).structured(msgs("a"), Verdict, prompt_version="1")
        assert reply.ok and isinstance(reply.value, Verdict) and not reply.cached
        assert reply.usage.prompt_tokens > 0
        again = await make_judge(srv, CallCache(tmp_path)).structured(
            msgs("a"), Verdict, prompt_version="1"
        )
        assert again.cached and again.value == reply.value
        assert srv.calls == 1
        other = await make_judge(srv, cache, model="m2").structured(
            msgs("a"), Verdict, prompt_version="1"
        )
        other_v = await make_judge(srv, cache).structured(msgs("a"), Verdict, prompt_version="2")
        assert not other.cached and not other_v.cached and srv.calls == 3


async def test_repair_retry_shows_the_model_its_error() -> None:
    def faults(body: dict[str, Any], n: int) -> str | None:
        return "schema" if len(body["messages"]) == 2 else None

    with FakeOpenAIServer(fault_fn=faults) as srv:
        reply = await make_judge(srv).structured(msgs("a"), Verdict, prompt_version="1")
        assert reply.ok and reply.attempts == 2
        repair = srv.bodies[-1]["messages"]
        assert repair[2]["role"] == "assistant" and "unexpected" in repair[2]["content"]
        assert "schema violation" in repair[3]["content"] and "verdict" in repair[3]["content"]


async def test_persistent_schema_violation_is_a_recorded_failure(tmp_path: Any) -> None:
    with FakeOpenAIServer(fault_fn=lambda body, n: "schema") as srv:
        cache = CallCache(tmp_path)
        reply = await make_judge(srv, cache).structured(msgs("a"), Verdict, prompt_version="1")
        assert not reply.ok and "schema violation" in (reply.error or "")
        assert reply.raw is not None and "unexpected" in reply.raw
        assert srv.calls == 2  # the call and one repair, no more
        assert cache.count()["failed_calls"] == 1  # kept for diagnosis ...
        again = await make_judge(srv, cache).structured(msgs("a"), Verdict, prompt_version="1")
        # ... but never served: a later run asks again
        assert not again.cached and not again.ok and again.raw == reply.raw and srv.calls == 4


async def test_malformed_json_is_repaired() -> None:
    with FakeOpenAIServer(
        fault_fn=lambda b, n: "malformed" if len(b["messages"]) == 2 else None
    ) as srv:
        reply = await make_judge(srv).structured(msgs("a"), Verdict, prompt_version="1")
        assert reply.ok
        assert "malformed JSON" in srv.bodies[-1]["messages"][-1]["content"]


async def test_429_retry_after_is_honoured() -> None:
    with FakeOpenAIServer(fault_fn=lambda b, n: "429" if n == 1 else None, retry_after="1") as srv:
        start = time.perf_counter()
        reply = await make_judge(srv).structured(msgs("a"), Verdict, prompt_version="1")
        assert reply.ok and reply.attempts == 2
        assert time.perf_counter() - start >= 0.95  # the policy alone would wait ~10 ms


@pytest.mark.parametrize("fault", ["500", "drop", "badbody", "slow"])
async def test_transient_faults_are_retried(fault: str) -> None:
    with FakeOpenAIServer(fault_fn=lambda b, n: fault if n == 1 else None, slow_seconds=1.5) as srv:
        reply = await make_judge(srv, timeout=0.5).structured(
            msgs("a"), Verdict, prompt_version="1"
        )
        assert reply.ok, reply.error
        assert reply.attempts == 2 and srv.calls == 2


async def test_exhausted_retries_fail_with_reason_and_are_not_cached(tmp_path: Any) -> None:
    with FakeOpenAIServer(fault_fn=lambda b, n: "500") as srv:
        cache = CallCache(tmp_path)
        judge = make_judge(srv, cache, policy=RetryPolicy(max_retries=2, base_delay=0.01))
        reply = await judge.structured(msgs("a"), Verdict, prompt_version="1")
        assert not reply.ok and "500" in (reply.error or "") and "3 attempts" in reply.error
        assert srv.calls == 3
        await judge.structured(msgs("a"), Verdict, prompt_version="1")
        assert srv.calls == 6  # a transport failure is retried by the next run
        assert judge.accountant.total.failures == 2


async def test_time_out_past_the_limit_is_a_failure() -> None:
    with FakeOpenAIServer(fault_fn=lambda b, n: "slow", slow_seconds=1.0) as srv:
        judge = make_judge(srv, timeout=0.3, policy=RetryPolicy(max_retries=1, base_delay=0.01))
        reply = await judge.structured(msgs("a"), Verdict, prompt_version="1")
        assert not reply.ok and "time-out after 0.3s" in (reply.error or "")


async def test_option_probs_over_http_and_cached(tmp_path: Any) -> None:
    with FakeOpenAIServer(yes_logprob=np.log(0.7)) as srv:
        cache = CallCache(tmp_path)
        reply = await make_judge(srv, cache).option_probs(
            msgs("is it?"), ["yes", "no"], prompt_version="1"
        )
        assert reply.ok and reply.value is not None
        assert reply.value["yes"] == pytest.approx(0.7, abs=1e-3)
        body = srv.bodies[-1]
        assert body["logprobs"] is True and body["top_logprobs"] == 20
        assert body["max_tokens"] == 1 and body["temperature"] == 0
        again = await make_judge(srv, cache).option_probs(
            msgs("is it?"), ["yes", "no"], prompt_version="1"
        )
        assert again.cached and again.value == reply.value and srv.calls == 1


async def test_concurrency_is_bounded() -> None:
    with FakeOpenAIServer(latency=0.05) as srv:
        judge = make_judge(srv, concurrency=4)
        replies = await asyncio.gather(
            *(judge.structured(msgs(f"q{i}"), Verdict, prompt_version="1") for i in range(24))
        )
        assert all(r.ok for r in replies)
        assert srv.max_in_flight == 4


async def test_embedder_is_cached_per_text(tmp_path: Any) -> None:
    from ragmeter.backends.embedders import OpenAICompatEmbedder

    with FakeOpenAIServer() as srv:
        inner = OpenAICompatEmbedder("emb", srv.url)
        cache = CallCache(tmp_path)
        emb = CachedEmbedder(inner, cache=cache, policy=FAST, batch_size=2)
        first = await emb.embed(["a", "b", "c", "a"])
        assert first.ok and first.value is not None and first.value.shape == (4, 8)
        assert np.allclose(first.value[0], first.value[3])
        assert np.allclose(np.linalg.norm(first.value, axis=1), 1.0)
        assert srv.calls == 2  # 3 unique texts in batches of 2
        second = await CachedEmbedder(inner, cache=CallCache(tmp_path)).embed(["c", "a"])
        assert second.cached and np.allclose(second.value[1], first.value[0])
        assert srv.calls == 2


class ScriptedJudge:
    """A Judge-protocol object (as local backends are): first reply violates the schema."""

    name = "scripted:judge"

    def __init__(self) -> None:
        self.seen: list[list[dict[str, str]]] = []

    def cache_params(self) -> dict[str, Any]:
        return {"seed": 0}

    async def structured(
        self, messages: Any, schema: Any, *, prompt_version: str, max_tokens: int = 512
    ) -> JudgeReply[Any]:
        self.seen.append(list(messages))
        if len(self.seen) == 1:
            return JudgeReply(
                None, "schema violation: score missing", '{"verdict": "x"}', Usage(10, 3)
            )
        return JudgeReply(schema(verdict="x", score=1), None, "{}", Usage(12, 5))

    async def option_probs(
        self, messages: Any, options: Any, *, prompt_version: str
    ) -> JudgeReply[Any]:
        return JudgeReply(None, "model file missing")  # no output: a backend fault


async def test_wrapping_a_judge_protocol_object(tmp_path: Any) -> None:
    inner = ScriptedJudge()
    judge = CachedJudge(inner, cache=CallCache(tmp_path), timeout=None, concurrency=1)
    reply = await judge.structured(msgs("a"), Verdict, prompt_version="1")
    assert reply.ok and reply.usage.total == 30 and len(inner.seen) == 2
    assert "score missing" in inner.seen[1][-1]["content"]
    probs = await judge.option_probs(msgs("a"), ["yes", "no"], prompt_version="1")
    assert not probs.ok and "model file missing" in (probs.error or "")
