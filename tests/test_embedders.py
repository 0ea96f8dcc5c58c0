"""Embedders: spec parsing, the OpenAI-compatible client against a local HTTP server, and the
real offline MiniLM (slow)."""

from __future__ import annotations

import importlib.util
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from needs import missing
from ragmeter.backends import embedders
from ragmeter.backends.embedders import (
    OpenAICompatEmbedder,
    SentenceTransformerEmbedder,
    make_embedder,
)
from ragmeter.errors import EmbedderUnavailable
from ragmeter.protocols import Embedder
from ragmeter.vectors import unit_rows


def l2_normalise(m: np.ndarray) -> np.ndarray:
    return unit_rows(m, np.float32)


SECRET = "sk-test-embedder-secret-1234567890"


def test_unit_rows_normalises_rows_and_keeps_zero_vectors() -> None:
    m = l2_normalise(np.array([[3.0, 4.0], [0.0, 0.0]]))
    assert np.allclose(m, [[0.6, 0.8], [0.0, 0.0]]) and m.dtype == np.float32
    assert l2_normalise(np.array([1.0, 0.0])).shape == (1, 2)


def test_unknown_spec_is_a_clear_error() -> None:
    with pytest.raises(EmbedderUnavailable, match="'local', 'st:PATH' or 'openai:MODEL'"):
        make_embedder("word2vec")


def test_missing_torch_says_install_pinned_torch_first(monkeypatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        embedders.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "torch" else real(name, *a),
    )
    with pytest.raises(EmbedderUnavailable) as info:
        make_embedder("local")
    assert "torch==2.13.0" in str(info.value) and "ragmeter[embed]" in str(info.value)


def test_missing_default_model_package(monkeypatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        embedders.importlib.util,
        "find_spec",
        lambda name, *a: None if name == embedders.DEFAULT_ST_PACKAGE else real(name, *a),
    )
    with pytest.raises(EmbedderUnavailable, match="all-MiniLM-L6-v2"):
        embedders.default_st_path()


# ---- OpenAI-compatible ------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    seen: list[dict] = []  # noqa: RUF012 - test scratch
    auth: list[str] = []  # noqa: RUF012

    def log_message(self, *args) -> None:  # keep test output quiet
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Handler.seen.append(body)
        _Handler.auth.append(self.headers.get("Authorization", ""))
        if body["model"] == "overloaded":
            self.send_response(429)
            self.send_header("Retry-After", "1")
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"error": {"message": "slow down"}}')
            return
        # reply out of order and unnormalised: the client must sort by index and normalise
        data = [
            {"object": "embedding", "index": i, "embedding": [float(len(t)), 1.0, 0.0]}
            for i, t in enumerate(body["input"])
        ][::-1]
        out = {
            "object": "list",
            "data": data,
            "model": body["model"],
            "usage": {"prompt_tokens": 7 * len(body["input"]), "total_tokens": 0},
        }
        raw = json.dumps(out).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


@pytest.fixture
def server() -> Iterator[str]:
    _Handler.seen, _Handler.auth = [], []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


async def test_openai_embedder_sorts_normalises_and_counts(server: str, monkeypatch) -> None:
    monkeypatch.setenv("MY_EMBED_KEY", SECRET)
    emb = make_embedder(
        "openai:text-embedding-3-small", base_url=server, api_key_env="MY_EMBED_KEY"
    )
    assert isinstance(emb, OpenAICompatEmbedder) and isinstance(emb, Embedder)
    reply = await emb.embed(["a", "bbb"])
    assert reply.ok
    expected = l2_normalise(np.array([[1.0, 1.0, 0.0], [3.0, 1.0, 0.0]]))
    assert np.allclose(reply.value, expected)
    assert reply.usage.prompt_tokens == 14
    assert _Handler.seen[0]["input"] == ["a", "bbb"]
    assert _Handler.auth[0] == f"Bearer {SECRET}"  # the key goes to the server ...
    assert SECRET not in emb.name and SECRET not in repr(emb.__dict__)  # ... and nowhere else


async def test_openai_embedder_raises_transport_faults_for_the_engine(server: str) -> None:
    import openai

    emb = OpenAICompatEmbedder("overloaded", server)
    with pytest.raises(openai.RateLimitError) as info:
        await emb.embed(["x"])
    assert info.value.response.headers["retry-after"] == "1"
    assert len(_Handler.seen) == 1  # the SDK did not retry on its own


def test_openai_embedder_without_key_for_openai_itself(monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(EmbedderUnavailable, match="OPENAI_API_KEY"):
        OpenAICompatEmbedder("text-embedding-3-small")


# ---- the real offline MiniLM --------------------------------------------------------------


@pytest.fixture(scope="module")
def minilm() -> SentenceTransformerEmbedder:
    try:
        emb = make_embedder("local")
    except EmbedderUnavailable as exc:
        missing(str(exc))
    assert isinstance(emb, SentenceTransformerEmbedder)
    return emb


@pytest.mark.slow
async def test_minilm_paraphrases_are_closer_than_unrelated(minilm) -> None:
    reply = await minilm.embed(
        [
            "A man is playing a guitar on stage.",
            "Someone performs music with a guitar at a concert.",
            "The central bank raised interest rates again.",
        ]
    )
    assert reply.ok, reply.error
    m = reply.value
    assert m.shape == (3, 384) and m.dtype == np.float32
    assert np.allclose(np.linalg.norm(m, axis=1), 1.0, atol=1e-5)
    sim = m @ m.T
    assert sim[0, 1] > 0.5 > sim[0, 2] and sim[0, 1] > sim[1, 2]
    assert minilm.name == "st:all-MiniLM-L6-v2"


@pytest.mark.slow
async def test_minilm_local_path_spec_and_empty_input(minilm) -> None:
    by_path = make_embedder(f"st:{minilm.path}")
    a = (await minilm.embed(["same text"])).value
    b = (await by_path.embed(["same text"])).value
    assert np.allclose(a, b, atol=1e-6)
    empty = await minilm.embed([])
    assert empty.ok and empty.value.shape == (0, 384)
