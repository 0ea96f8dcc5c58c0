"""A connection the server drops is reported as such, whichever transport the SDK uses (its
aiohttp transport calls it a time-out, its httpx one a "Connection error."), and is retried;
a real time-out is still a time-out."""

from __future__ import annotations

from typing import Any

import openai
import pytest

from fake_server import FakeOpenAIServer
from ragmeter.backends.openai_compat import OpenAICompatBackend
from ragmeter.engine import CachedJudge
from ragmeter.engine.retry import RetryPolicy

MSGS = [{"role": "user", "content": "is it?"}]


def judge_over(url: str, transport: str, *, timeout: float = 5.0, retries: int = 1) -> Any:
    http = (
        openai.DefaultAioHttpClient()
        if transport == "aiohttp"
        else openai.DefaultAsyncHttpxClient()
    )
    client = openai.AsyncOpenAI(
        api_key="x", base_url=url, max_retries=0, timeout=timeout, http_client=http
    )
    backend = OpenAICompatBackend("m", base_url=url, api_key_env=None, client=client)
    policy = RetryPolicy(max_retries=retries, base_delay=0.01, max_delay=0.02)
    return backend, CachedJudge(backend, policy=policy, timeout=None)


@pytest.mark.parametrize("transport", ["aiohttp", "httpx"])
async def test_a_dropped_connection_is_reported_as_one(transport: str) -> None:
    with FakeOpenAIServer(fault_fn=lambda b, n: "drop") as srv:
        backend, judge = judge_over(srv.url, transport)
        try:
            reply = await judge.option_probs(MSGS, ["yes", "no"], prompt_version="1")
        finally:
            await backend.aclose()
        assert srv.calls == 2  # retried, as any transient fault
    assert not reply.ok
    assert (reply.error or "").startswith("connection dropped by the server (")
    assert "after 2 attempts" in (reply.error or "")
    assert "timed out" not in (reply.error or "") and "Connection error" not in reply.error


async def test_a_real_time_out_is_still_a_time_out() -> None:
    with FakeOpenAIServer(fault_fn=lambda b, n: "slow", slow_seconds=1.0) as srv:
        backend, judge = judge_over(srv.url, "aiohttp", timeout=0.3, retries=0)
        try:
            reply = await judge.option_probs(MSGS, ["yes", "no"], prompt_version="1")
        finally:
            await backend.aclose()
    assert not reply.ok and "dropped" not in (reply.error or "")
    assert "Timeout" in (reply.error or "") or "timed out" in (reply.error or "")
