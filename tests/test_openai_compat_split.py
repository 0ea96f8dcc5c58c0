"""The structured-output probe's refusal reason, and the reply parsing moved out of
openai_compat (still importable from it, one and the same function).

A server's 4xx message was cut to 200 characters before it was masked, so a registered key
across the cut kept its first characters in run.json's ``structured_output_decided``."""

from __future__ import annotations

import asyncio
from typing import Any

import openai
import pytest

from ragmeter.backends import openai_compat
from ragmeter.backends.litellm_backend import completion_from_dict as litellm_parse
from ragmeter.backends.openai_compat import OpenAICompatBackend, mode_refusal
from ragmeter.redact import register_secret

# no "sk-" prefix: the key-shape patterns cannot catch a cut-off head, only registration can
KEY = "zq7Kp2Vw9Lm4Xr8Tn3Bc6Hd1Fg5Js0Ya"


def bad_request(message: str) -> openai.BadRequestError:
    """The SDK's own error for an HTTP 400 whose JSON body carries ``message``."""
    request = openai_compat._HTTPX.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    response = openai_compat._HTTPX.Response(400, request=request)
    body = {"message": message, "type": "invalid_request_error"}
    return openai.BadRequestError(message, response=response, body=body)


def straddling(start: int) -> str:
    """A server message echoing the key from character ``start`` on, across the 200 cut."""
    return "x" * start + KEY + " : response_format json_schema is not supported"


@pytest.mark.parametrize("start", [180, 188, 190, 199])
def test_a_key_across_the_cut_leaves_no_part_in_the_refusal(start: int) -> None:
    register_secret(KEY)
    why = mode_refusal(bad_request(straddling(start)))
    assert why is not None and why.startswith("HTTP 400: ")
    assert KEY[:12] not in why and KEY[:6] not in why, why
    assert why[len("HTTP 400: ") + start :].startswith("*")  # the mask, cut or whole
    assert len(why) <= len("HTTP 400: ") + 200  # still cut to 200 characters


class _RefusingClient:
    """An AsyncOpenAI stand-in whose server refuses every structured probe with a 400 echoing
    the key, and answers the plain one."""

    async def post(self, path: str, *, cast_to: Any, body: dict[str, Any]) -> Any:
        if "response_format" in body:
            raise bad_request(straddling(188))
        payload = b'{"choices":[{"message":{"content":"ok"},"finish_reason":"stop"}]}'
        return openai_compat._HTTPX.Response(200, content=payload)

    async def close(self) -> None:
        return None


def test_the_decided_mode_recorded_for_run_json_holds_no_part_of_the_key() -> None:
    register_secret(KEY)
    backend = OpenAICompatBackend(
        "m", base_url="http://127.0.0.1:9/v1", structured_mode="auto", client=_RefusingClient()
    )
    facts = asyncio.run(backend.preflight())
    assert facts["structured_output"] == "none"
    decided = facts["structured_output_decided"]
    assert "json_schema refused (HTTP 400: " in decided
    assert KEY[:12] not in decided and KEY[:6] not in decided, decided


def test_the_reply_parser_is_one_function_wherever_it_is_imported_from() -> None:
    from ragmeter.backends import _openai_reply  # here: the key tests run on the old layout

    assert openai_compat.completion_from_dict is _openai_reply.completion_from_dict
    assert litellm_parse is _openai_reply.completion_from_dict
    comp = openai_compat.completion_from_dict(
        {"choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]}, want_top=False
    )
    assert (comp.text, comp.finish_reason, comp.usage.prompt_tokens) == ("hi", "stop", 0)
