"""Judge replies the structured-output parser used to mishandle: a number too long for int(),
arrays nested too deep for the JSON parser (both raised out of ``parse_structured``: the call
failed as a Python error, without the reply and without the repair retry), and a JSON object
followed by text with braces of its own (failed as "Extra data")."""

from __future__ import annotations

import asyncio
import json

from pydantic import BaseModel

from fake_server import FakeOpenAIServer
from ragmeter.backends.openai_compat import OpenAICompatBackend
from ragmeter.engine import CachedJudge
from ragmeter.engine.parsing import parse_structured
from ragmeter.engine.retry import RetryPolicy


class Numbers(BaseModel):
    sentences: list[int]


def test_a_number_too_long_is_malformed_json_not_a_crash() -> None:
    value, error = parse_structured('{"sentences": [' + "7" * 5000 + "]}", Numbers)
    assert value is None and error is not None and error.startswith("malformed JSON")


def test_nesting_too_deep_is_malformed_json_not_a_crash() -> None:
    for text in ("[" * 100_000 + "]" * 100_000, 'Sure: {"sentences": ' + "[" * 5000 + "}"):
        value, error = parse_structured(text, Numbers)
        assert value is None and error is not None and error.startswith("malformed JSON")


def test_an_object_followed_by_text_with_braces_is_read() -> None:
    value, error = parse_structured('{"sentences": [1, 3]}\nNote: see {2} too.', Numbers)
    assert error is None and value == Numbers(sentences=[1, 3])


def test_a_broken_reply_is_repaired_and_kept_through_the_engine() -> None:
    """Through a real HTTP judge: the deep reply is a malformed-JSON failure, the repair retry
    is asked (and answered), and the raw reply goes into the repair request."""
    broken = '{"sentences": ' + "[" * 3000 + "]" * 3000 + "}"

    def script(body: dict) -> str:
        return broken if len(body["messages"]) <= 2 else json.dumps({"sentences": [2]})

    async def ask(url: str):  # type: ignore[no-untyped-def]
        backend = OpenAICompatBackend("m", base_url=url, api_key_env=None, timeout=5.0)
        judge = CachedJudge(
            backend,
            cache=None,
            timeout=5.0,
            concurrency=1,
            policy=RetryPolicy(max_retries=1, base_delay=0.01, max_delay=0.02),
        )
        try:
            msgs = [{"role": "system", "content": "judge"}, {"role": "user", "content": "x"}]
            return await judge.structured(msgs, Numbers, prompt_version="1")
        finally:
            await backend.aclose()

    with FakeOpenAIServer(script=script) as srv:
        reply = asyncio.run(ask(srv.url))
        assert reply.ok and reply.value == Numbers(sentences=[2])
        repair = srv.bodies[-1]["messages"]
        assert repair[-2]["content"] == broken
        assert "malformed JSON" in repair[-1]["content"]
