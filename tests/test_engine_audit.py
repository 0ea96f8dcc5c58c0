"""The engine against a misbehaving OpenAI-compatible server: replies that are 200 OK but
wrong (refusals, cut-off JSON, garbage usage, null logprobs, bodies of the wrong shape) and
rate limiters that name long or shared waits. Each test drives the real HTTP client against
tests/fake_server.py, or the retry policy directly, and fails on the code before its fix."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from fake_server import FakeOpenAIServer
from ragmeter.backends.embedders import OpenAICompatEmbedder
from ragmeter.backends.openai_compat import OpenAICompatBackend
from ragmeter.engine import Accountant, CachedEmbedder, CachedJudge
from ragmeter.engine.cache import CallCache
from ragmeter.engine.retry import RetryPolicy, parse_retry_after

FAST = RetryPolicy(max_retries=1, base_delay=0.01, max_delay=0.02, max_retry_after=0.05)
MSGS = [{"role": "user", "content": "Is the sky blue?"}]


class Verdict(BaseModel):
    verdict: str


def _judge(url: str, policy: RetryPolicy = FAST) -> CachedJudge:
    backend = OpenAICompatBackend("m", base_url=url, api_key_env=None, timeout=2.0)
    return CachedJudge(backend, timeout=2.0, policy=policy)


async def _structured(judge: CachedJudge) -> Any:
    try:
        return await judge.structured(MSGS, Verdict, prompt_version="1", max_tokens=64)
    finally:
        await judge.inner.aclose()  # type: ignore[union-attr]


async def _probs(judge: CachedJudge) -> Any:
    try:
        return await judge.option_probs(MSGS, ["yes", "no"], prompt_version="1")
    finally:
        await judge.inner.aclose()  # type: ignore[union-attr]


def test_a_refusal_is_said_in_the_models_words_and_costs_no_repair() -> None:
    with FakeOpenAIServer(fault_fn=lambda b, n: "refusal") as srv:
        reply = asyncio.run(_structured(_judge(srv.url)))
    assert not reply.ok
    assert "refused to answer" in reply.error and "I can't help." in reply.error
    assert srv.calls == 1  # no repair retry, no transport retry: the model said no


def test_a_reply_cut_off_at_max_tokens_says_so() -> None:
    with FakeOpenAIServer(fault_fn=lambda b, n: "length") as srv:
        reply = asyncio.run(_structured(_judge(srv.url)))
    assert not reply.ok
    assert "cut off at max_tokens=64" in reply.error, reply.error
    assert reply.raw  # the cut-off text is kept


def test_garbage_usage_loses_no_answer_and_counts_no_negative_tokens() -> None:
    with FakeOpenAIServer(fault_fn=lambda b, n: "badusage") as srv:
        judge = _judge(srv.url)
        reply = asyncio.run(_structured(judge))
    assert reply.ok, reply.error
    assert reply.value.verdict
    total = judge.accountant.summary()
    assert total["prompt_tokens"] == 0 and total["completion_tokens"] == 0
    assert total["failures"] == 0


def test_null_logprobs_are_a_malformed_response_not_a_python_error() -> None:
    with FakeOpenAIServer(fault_fn=lambda b, n: "nulllogprob") as srv:
        reply = asyncio.run(_probs(_judge(srv.url)))
    assert not reply.ok
    assert "malformed response from the server: a top_logprobs entry" in reply.error
    assert "TypeError" not in reply.error


class _Shaped(BaseHTTPRequestHandler):
    """Answers every request with the class's ``body`` (bytes), HTTP 200."""

    protocol_version = "HTTP/1.1"
    body = b"{}"

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)


@pytest.mark.parametrize(
    ("choice", "said"),
    [
        ("a string", "choices[0] is str"),
        ({"message": "hello"}, "the message is str"),
        ({"message": {"content": {"verdict": "yes"}}}, "the message content is dict"),
        ({"message": {"content": "Yes"}, "logprobs": {"content": "x"}}, "logprobs.content is"),
    ],
)
def test_a_body_of_the_wrong_shape_is_named_malformed(choice: Any, said: str) -> None:
    handler = type("H", (_Shaped,), {"body": json.dumps({"choices": [choice]}).encode()})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        reply = asyncio.run(_probs(_judge(url)))
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert not reply.ok
    assert "malformed response from the server: " + said in reply.error, reply.error
    assert "AttributeError" not in reply.error


def test_calls_told_the_same_retry_after_do_not_come_back_together() -> None:
    policy = RetryPolicy()
    rng = random.Random(7)
    waits = [policy.delay(1, 2.0, rng) for _ in range(50)]
    assert min(waits) >= 2.0  # the server's wait is honoured in full
    assert max(waits) - min(waits) > 0.2  # and spread, not one burst
    assert max(waits) <= 2.5


def test_a_garbled_retry_after_ms_does_not_hide_retry_after() -> None:
    assert parse_retry_after({"retry-after-ms": "soon", "retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after": "nan"}) is None
    assert parse_retry_after({"retry-after": "-5"}) == 0.0


def test_a_retry_after_beyond_the_cap_is_said_when_the_call_fails() -> None:
    with FakeOpenAIServer(fault_fn=lambda b, n: "429", retry_after="86400") as srv:
        reply = asyncio.run(_structured(_judge(srv.url)))
    assert not reply.ok
    assert "asked to wait 86400s" in reply.error and "0s ragmeter waits" in reply.error, reply.error
    assert srv.calls == 2  # the policy's one retry, after the capped wait, not a day


@pytest.mark.parametrize(
    "damaged", ['{"yes": NaN, "no": 0.5}', '{"yes": 7.0, "no": -3}', "{}", '{"maybe": 1.0}']
)
def test_a_damaged_verdict_row_is_asked_again_not_served(tmp_path: Path, damaged: str) -> None:
    async def ask(url: str) -> Any:
        backend = OpenAICompatBackend("m", base_url=url, api_key_env=None, timeout=2.0)
        judge = CachedJudge(backend, cache=CallCache(tmp_path), timeout=2.0, policy=FAST)
        try:
            return await judge.option_probs(MSGS, ["yes", "no"], prompt_version="1")
        finally:
            await backend.aclose()

    with FakeOpenAIServer() as srv:
        first = asyncio.run(ask(srv.url))
        with sqlite3.connect(tmp_path / "ragmeter-cache.sqlite") as db:
            db.execute("UPDATE calls SET value = ?", (damaged,))
        again = asyncio.run(ask(srv.url))
        assert srv.calls == 2  # asked again
    assert not again.cached and again.value == first.value


def test_garbage_embedding_usage_keeps_the_vectors_and_counts_no_tokens() -> None:
    acc = Accountant()
    with FakeOpenAIServer(fault_fn=lambda b, n: "badusage") as srv:
        inner = OpenAICompatEmbedder("emb", srv.url, api_key_env="RM_EMBED_UNSET")
        embedder = CachedEmbedder(inner, cache=None, accountant=acc, policy=FAST)
        reply = asyncio.run(embedder.embed(["one text", "another text"]))
    assert reply.ok and reply.value.shape[0] == 2
    assert acc.total.prompt_tokens == 0 and acc.total.failures == 0
