"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions and embeddings API.

Replies are scripted (a function of the request body) and faults are injected on demand:
429 with Retry-After, 500, slow replies past the client's time-out, malformed JSON content,
schema-violating JSON content, an HTTP body that is not JSON, dropped connections, and broken
verdict replies: a NaN logprob ("nan"), no logprobs at all ("nologprobs"), top tokens that
are no option ("badtokens").
Every request is counted, so tests can prove that a cached re-run sends nothing.

``structured`` sets what structured output the server accepts, as real servers differ:
"all" (OpenAI, vLLM), "json_object" (llama.cpp's server: HTTP 500 to json_schema), "none"
(HTTP 400 to any response_format). Without a json_schema the server answers with an instance
of a JSON schema written into the prompt (``JSON schema:`` then the schema), as a model that
follows the instruction would.

Run standalone (for benchmarks and kill tests): ``python tests/fake_server.py --latency 0.05``
prints ``URL http://127.0.0.1:PORT/v1`` and serves until killed.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import socket
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS = ("401", "429", "500", "slow", "malformed", "schema", "badbody", "drop")
VERDICT_FAULTS = ("nan", "nologprobs", "badtokens")  # broken logprob replies
# 200 OK replies that are wrong: a refusal (content null), a reply cut off at max_tokens
# (finish_reason "length"), a usage of garbage token counts, top_logprobs with null logprobs.
WRONG_200 = ("refusal", "length", "badusage", "nulllogprob")

# fault_fn(body, n_seen) -> a fault name or None; n_seen counts identical bodies, from 1.
FaultFn = Callable[[dict[str, Any], int], "str | None"]
# script(body) -> the assistant's text (structured calls) or None for the automatic reply.
ScriptFn = Callable[[dict[str, Any]], "str | None"]


def synth(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> Any:
    """A small valid instance of a JSON schema (objects, arrays, enums, scalars, $ref)."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return synth(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return synth(schema[key][0], defs)
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = kind[0]
    if kind == "object":
        props = schema.get("properties", {})
        return {name: synth(sub, defs) for name, sub in props.items()}
    if kind == "array":
        return [synth(schema.get("items", {"type": "string"}), defs)]
    if kind == "string":
        return "ok"
    if kind == "integer":
        return max(1, int(schema.get("minimum", 1)))
    if kind == "number":
        return float(schema.get("minimum", 0.5) or 0.5)
    if kind == "boolean":
        return True
    return None


def fake_vector(text: str, dim: int = 8) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    vec = [(b - 127.5) / 127.5 for b in digest[:dim]]
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


class FakeOpenAIServer:
    """Start with ``with FakeOpenAIServer() as srv:``; point clients at ``srv.url``."""

    def __init__(
        self,
        *,
        latency: float = 0.0,
        fault_fn: FaultFn | None = None,
        script: ScriptFn | None = None,
        slow_seconds: float = 2.0,
        retry_after: str = "0",
        yes_logprob: float = -0.2,
        structured: str = "all",
    ) -> None:
        assert structured in ("all", "json_object", "none")
        self.structured = structured
        self.latency = latency
        self.fault_fn = fault_fn
        self.script = script
        self.slow_seconds = slow_seconds
        self.retry_after = retry_after
        self.yes_logprob = yes_logprob
        self.lock = threading.Lock()
        self.calls = 0  # every request received, faulty or not
        self.by_path: Counter[str] = Counter()
        self.faults: Counter[str] = Counter()
        self.seen: Counter[str] = Counter()
        self.bodies: list[dict[str, Any]] = []
        self.auth_headers: set[str] = set()
        self.in_flight = 0
        self.max_in_flight = 0
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------------
    def start(self, port: int = 0) -> FakeOpenAIServer:
        server = self

        class Handler(_Handler):
            owner = server

        httpd = _QuietServer(("127.0.0.1", port), Handler, bind_and_activate=False)
        httpd.daemon_threads = True
        httpd.request_queue_size = 256
        httpd.allow_reuse_address = True
        httpd.server_bind()
        httpd.server_activate()
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def reset_counts(self) -> None:
        with self.lock:
            self.calls = 0
            self.by_path.clear()
            self.faults.clear()
            self.bodies.clear()
            self.max_in_flight = 0

    # -- replies -------------------------------------------------------------------------
    def chat_reply(self, body: dict[str, Any], fault: str | None) -> dict[str, Any]:
        messages = body.get("messages", [])
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in messages) + 3
        n_lines = _numbered_statements(messages)
        if body.get("logprobs") and body.get("top_logprobs") and (body.get("max_tokens") or 1) > 1:
            # a grouped verdict request: "1: Yes\n2: Yes..." with every token's top-k
            content, tokens = "", []
            yes, no = self._yes_no(fault)
            for k in range(1, max(1, n_lines) + 1):
                for tok in ([f"{k}", ":"] if k == 1 else ["\n", f"{k}", ":"]) + [" Yes"]:
                    top = [{"token": tok, "logprob": 0.0, "bytes": None}]
                    if tok == " Yes":
                        top = [
                            {"token": " Yes", "logprob": yes, "bytes": None},
                            {"token": " No", "logprob": no, "bytes": None},
                        ]
                    tokens.append(
                        {
                            "token": tok,
                            "logprob": top[0]["logprob"],
                            "bytes": None,
                            "top_logprobs": top[: body["top_logprobs"]],
                        }
                    )
                    content += tok
            logprobs = None if fault == "nologprobs" else {"content": tokens}
        elif body.get("logprobs") and body.get("top_logprobs"):
            yes, no = self._yes_no(fault)
            first, second = ("The", "A") if fault == "badtokens" else ("Yes", "No")
            top = [
                {"token": first, "logprob": yes, "bytes": None},
                {"token": second, "logprob": no, "bytes": None},
                {"token": "The", "logprob": -9.0, "bytes": None},
            ]
            content = first
            logprobs = {
                "content": [
                    {
                        "token": first,
                        "logprob": yes,
                        "bytes": None,
                        "top_logprobs": top[: body["top_logprobs"]],
                    }
                ]
            }
            logprobs = None if fault == "nologprobs" else logprobs
        else:
            logprobs = None
            content = self.script(body) if self.script else None
            if content is None:
                fmt = body.get("response_format") or {}
                schema = (fmt.get("json_schema") or {}).get("schema") or _prompt_schema(messages)
                content = json.dumps(synth(schema)) if schema else "ok"
            if fault == "malformed":
                content = '{"verdict": "yes", "reason": '  # cut short
            elif fault == "schema":
                content = json.dumps({"unexpected": [1, 2, 3]})
        reply = {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fake"),
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "logprobs": logprobs,
                    "message": {"role": "assistant", "content": content},
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": max(1, len(content.split())),
                "total_tokens": prompt_tokens + max(1, len(content.split())),
            },
        }
        return _wrong_200(reply, fault) if fault in WRONG_200 else reply

    def _yes_no(self, fault: str | None) -> tuple[float, float]:
        """The verdict's two logprobs; NaN for "yes" under the "nan" fault (json.dumps writes
        a bare NaN, which Python's and the SDK's JSON readers accept)."""
        yes = float("nan") if fault == "nan" else self.yes_logprob
        no = math.log(max(1e-9, 1 - math.exp(self.yes_logprob)))
        return yes, no

    def embeddings_reply(self, body: dict[str, Any]) -> dict[str, Any]:
        inputs = body.get("input", [])
        if isinstance(inputs, str):
            inputs = [inputs]
        data = [
            {"object": "embedding", "index": i, "embedding": fake_vector(str(t))}
            for i, t in enumerate(inputs)
        ]
        tokens = sum(len(str(t).split()) for t in inputs)
        return {
            "object": "list",
            "data": data,
            "model": body.get("model", "fake"),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }


def _wrong_200(reply: dict[str, Any], fault: str) -> dict[str, Any]:
    """``reply`` made wrong in the way ``fault`` (one of WRONG_200) names."""
    choice = reply["choices"][0]
    if fault == "refusal":
        choice["message"] = {"role": "assistant", "content": None, "refusal": "I can't help."}
    elif fault == "length":
        choice["finish_reason"] = "length"
        choice["message"]["content"] = choice["message"]["content"][:12]
    elif fault == "badusage":
        reply["usage"] = {"prompt_tokens": "n/a", "completion_tokens": -40, "total_tokens": -1}
    elif fault == "nulllogprob" and choice["logprobs"]:
        for alt in choice["logprobs"]["content"][0]["top_logprobs"]:
            alt["logprob"] = None
    return reply


def _echoed_key(authorization: str, fault: str) -> str:
    """The key as a 401 fault echoes it: as sent, upper-cased, or without its prefix."""
    key = authorization.removeprefix("Bearer ")
    if fault == "401-upper":
        return key.upper()
    return key.split("-", 1)[-1] if fault == "401-body" else key


def _numbered_statements(messages: list[dict[str, Any]]) -> int:
    """How many numbered statements (``3. <data>``) the last user message lists."""
    for m in reversed(messages):
        if m.get("role") == "user":
            text = str(m.get("content", ""))
            return sum(
                1
                for line in text.splitlines()
                if line.split(". ", 1)[0].isdigit() and "<data>" in line
            )
    return 0


def _prompt_schema(messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A JSON schema written into the last user message after ``JSON schema:``, if any."""
    for m in reversed(messages):
        if m.get("role") != "user":
            continue
        text = str(m.get("content", ""))
        at = text.rfind("JSON schema:")
        if at < 0:
            return None
        start = text.find("{", at)
        try:
            schema, _ = json.JSONDecoder().raw_decode(text[start:])
        except ValueError:
            return None
        return schema if isinstance(schema, dict) else None
    return None


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients that hang up (time-outs, killed runs) are part of the tests


class _Handler(BaseHTTPRequestHandler):
    owner: FakeOpenAIServer
    protocol_version = "HTTP/1.1"  # keep-alive: the client reuses connections
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # silence stderr
        pass

    def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
        head = [
            f"HTTP/1.1 {status} {self.responses.get(status, ('',))[0]}",
            "Content-Type: application/json",
            f"Content-Length: {len(payload)}",
        ]
        head += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.wfile.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        self.wfile.flush()

    def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        payload = json.dumps({"error": {"message": message, "type": "fake", "code": status}})
        self._send(status, payload.encode(), headers)

    def do_POST(self) -> None:
        srv = self.owner
        with srv.lock:
            srv.in_flight += 1
            srv.max_in_flight = max(srv.max_in_flight, srv.in_flight)
        try:
            self._handle(srv)
        finally:
            with srv.lock:
                srv.in_flight -= 1

    def _handle(self, srv: FakeOpenAIServer) -> None:
        length = int(self.headers.get("Content-Length", 0))
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            self._error(400, "body is not JSON")
            return
        digest = hashlib.sha256(raw).hexdigest()
        with srv.lock:
            srv.calls += 1
            srv.by_path[self.path] += 1
            srv.seen[digest] += 1
            n_seen = srv.seen[digest]
            srv.bodies.append(body)
            auth = self.headers.get("Authorization")
            if auth:
                srv.auth_headers.add(auth)
        fault = srv.fault_fn(body, n_seen) if srv.fault_fn else None
        if fault:
            with srv.lock:
                srv.faults[fault] += 1
        if srv.latency:
            time.sleep(srv.latency)
        if fault == "429":
            self._error(429, "rate limited", {"Retry-After": srv.retry_after})
            return
        if fault in ("401", "401-upper", "401-body"):  # like real servers, echo the key back
            key = _echoed_key(self.headers.get("Authorization") or "", fault)
            self._error(401, f"Incorrect API key provided: {key}")
            return
        if fault == "500":
            self._error(500, "internal server error")
            return
        if fault == "drop":
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        kind = (body.get("response_format") or {}).get("type")
        if kind == "json_schema" and srv.structured == "json_object":
            self._error(500, "Either 'json_schema' or 'grammar' can be specified, but not both")
            return
        if kind and srv.structured == "none":
            self._error(400, f"response_format {kind!r} is not supported")
            return
        if fault == "slow":
            time.sleep(srv.slow_seconds)
        if fault == "badbody":
            self._send(200, b'{"id": "chatcmpl-fake", "choices": [')
            return
        if self.path.endswith("/chat/completions"):
            reply = srv.chat_reply(body, fault)
        elif self.path.endswith("/embeddings"):
            reply = srv.embeddings_reply(body)
            if fault == "badusage":  # as for chat: token counts of garbage
                reply["usage"] = {"prompt_tokens": "n/a", "total_tokens": -40}
        else:
            self._error(404, f"no route {self.path}")
            return
        self._send(200, json.dumps(reply).encode())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0)
    args = parser.parse_args(argv)
    server = FakeOpenAIServer(latency=args.latency).start(args.port)
    print(f"URL {server.url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
