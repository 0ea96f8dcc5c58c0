"""The chat-completions request built from the backend's options template is the request
``client.post`` builds: same method, URL, headers and body bytes (the template only saves the
SDK rebuilding its options, ~30 us of CPU a call). A client that is no AsyncOpenAI keeps
``post``."""

from __future__ import annotations

import asyncio
from typing import Any

from ragmeter.backends import openai_compat
from ragmeter.backends.openai_compat import OpenAICompatBackend
from ragmeter.protocols import ChatRequest

H = openai_compat._HTTPX
REPLY = b'{"choices":[{"message":{"content":"yes"},"finish_reason":"stop"}]}'
MESSAGES = [
    {"role": "system", "content": "Judge. <data>\u00e9\u4e2d</data>"},
    {"role": "user", "content": 'Q: "x"\n(/data) <im_end>'},
]


def _capture(backend: OpenAICompatBackend) -> list[Any]:
    """Requests the backend's client would send (no network: each is answered at once)."""
    sent: list[Any] = []

    async def send(request: Any, **kwargs: Any) -> Any:
        sent.append(request)
        return H.Response(200, content=REPLY, request=request)

    backend.client._client.send = send
    return sent


def _wire(request: Any) -> tuple[str, str, list[tuple[str, str]], bytes]:
    headers = [(k, v) for k, v in request.headers.multi_items() if k.lower() != "idempotency-key"]
    return request.method, str(request.url), sorted(headers), request.content


def test_the_templated_request_is_the_one_post_builds() -> None:
    backend = OpenAICompatBackend(
        "m", base_url="http://127.0.0.1:9/v1", api_key_env="RAGMETER_UNSET_KEY"
    )
    sent = _capture(backend)
    request = ChatRequest(MESSAGES, 1, top_logprobs=20)

    async def both() -> None:
        await backend.complete(request)  # through the template
        body = backend._request_args(request)
        await backend.client.post("/chat/completions", cast_to=H.Response, body=body)
        await backend.complete(ChatRequest(MESSAGES[:1], 8))  # the template is reused

    asyncio.run(both())
    assert backend._template not in (None, False)
    assert backend._template.json_data is None  # a call's body never stays in the template
    assert _wire(sent[0]) == _wire(sent[1])
    assert b'"max_tokens":8' in sent[2].content and b'"top_logprobs"' not in sent[2].content


def test_a_client_that_is_no_async_openai_keeps_its_post() -> None:
    bodies: list[dict[str, Any]] = []

    class StandIn:
        async def post(self, path: str, *, cast_to: Any, body: dict[str, Any]) -> Any:
            bodies.append(body)
            return H.Response(200, content=REPLY)

        async def request(self, *args: Any, **kwargs: Any) -> Any:  # never used
            raise AssertionError("request() of a stand-in client")

    backend = OpenAICompatBackend("m", base_url="http://127.0.0.1:9/v1", client=StandIn())
    comp = asyncio.run(backend.complete(ChatRequest(MESSAGES, 4)))
    assert comp.text == "yes" and bodies[0]["messages"] == MESSAGES
    assert backend._template is False
