"""The judge cache as a demanding user meets it: what its key answers to, and what its file
holds. A reply obtained under other conditions is never served; a setting that cannot change
the answer never makes a resume miss; no key is ever written into the file."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import make_row
from fake_server import FakeOpenAIServer
from ragmeter.cli import app
from ragmeter.engine import cache as cache_module
from ragmeter.engine.cache import CallCache
from ragmeter.engine.embedder import CachedEmbedder
from ragmeter.protocols import JudgeReply
from ragmeter.redact import register_secret

KEY = "sk-proj-Zq8w7e6r5t4y3u2i1o0pAsDfGhJk"


def _rows(tmp_path: Path, n: int = 2) -> Path:
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(make_row(i)) + "\n" for i in range(1, n + 1)))
    return data


def _evaluate(srv: FakeOpenAIServer, data: Path, cache: Path, *extra: str) -> int:
    """Run evaluate against ``srv``; the number of requests the server saw."""
    args = [
        *("evaluate", str(data), "--judge", "openai:m", "--base-url", srv.url),
        *("--api-key-env", "RM_AUDIT_KEY", "--embedder", "none", "--cache", str(cache)),
        *("--no-preflight", "--quiet", *extra),
    ]
    srv.reset_counts()
    got = CliRunner().invoke(app, args, env={"COLUMNS": "300", "RM_AUDIT_KEY": KEY})
    assert got.exit_code in (0, 1), got.output
    return srv.calls


def test_a_key_a_server_echoes_in_its_reply_is_not_written_into_the_cache(
    tmp_path: Path,
) -> None:
    """A gateway that answers 200 with "invalid credentials Bearer sk-..." as the model's
    text: the reply fails validation and is kept for diagnosis. Before, it was kept as sent,
    the key with it (scores.jsonl masked it; the cache file, copied between machines and
    attached to bug reports, did not)."""

    def echo(body: dict) -> str:
        return f"Gateway error: invalid credentials Authorization: Bearer {KEY} ({KEY[8:]})"

    cache = tmp_path / "cache"
    with FakeOpenAIServer(script=echo) as srv:
        _evaluate(
            srv,
            _rows(tmp_path),
            cache,
            *("-m", "faithfulness", "--mode", "faithfulness=generate"),
            *("--structured-output", "json_object"),
        )
    store = CallCache(cache)
    assert store.count()["failed_calls"] >= 1  # the failure is kept, for diagnosis
    store.close()
    for f in cache.iterdir():
        body = f.read_bytes()
        assert KEY.encode() not in body and KEY[8:].encode() not in body, f.name


def test_put_masks_a_registered_key_in_raw_and_error_but_keeps_the_value(
    tmp_path: Path,
) -> None:
    register_secret(KEY)
    cache = CallCache(tmp_path)
    common = {"kind": "structured", "backend": "openai:m", "prompt_version": "1"}
    cache.put("bad", ok=False, error=f"HTTP 200 with {KEY}", raw=f"key {KEY}", **common)
    cache.put("good", ok=True, value={"a": 1}, raw=f"ok {KEY.upper()}", **common)
    hit = cache.get("good")
    assert hit is not None and hit.value == {"a": 1} and KEY.upper() not in (hit.raw or "")
    cache.close()
    assert KEY.encode() not in (tmp_path / "ragmeter-cache.sqlite").read_bytes()


@pytest.mark.parametrize(
    ("extra", "asks_again"),
    [
        (("--concurrency", "2"), False),
        (("--timeout", "33"), False),
        (("--out", "OUT"), False),
        (("--config", "retries.toml"), False),
        (("--config", "temperature.toml"), True),
        (("--config", "seed.toml"), True),
        (("--structured-output", "json_object"), True),
    ],
)
def test_what_changes_the_answer_changes_the_key_and_nothing_else_does(
    tmp_path: Path, extra: tuple[str, str], asks_again: bool
) -> None:
    (tmp_path / "retries.toml").write_text("[ragmeter]\nmax_retries = 1\n")
    (tmp_path / "temperature.toml").write_text("[ragmeter]\ntemperature = 0.5\n")
    (tmp_path / "seed.toml").write_text("[ragmeter]\nseed = 7\n")
    option, value = extra
    if value.endswith(".toml") or value == "OUT":
        value = str(tmp_path / value)
    data, cache = _rows(tmp_path), tmp_path / "cache"
    metrics = ("-m", "answer_relevance,faithfulness", "--mode", "faithfulness=generate")
    mode = {"--structured-output": "json_schema", option: value}  # the option given wins
    changed = [arg for pair in mode.items() for arg in pair]
    with FakeOpenAIServer() as srv:
        assert _evaluate(srv, data, cache, *metrics, "--structured-output", "json_schema") > 0
        assert _evaluate(srv, data, cache, *metrics, "--structured-output", "json_schema") == 0
        again = _evaluate(srv, data, cache, *metrics, *changed)
    assert (again > 0) is asks_again


def test_two_servers_serving_one_model_name_never_share_answers(tmp_path: Path) -> None:
    """The server's URL keys the cache: one model name says little (``openai:m`` on two
    vLLM hosts may be two fine-tunes or two quantizations). Replicas of one model share
    answers only when told so (``cache_url``, as the Ray executor sets)."""
    data, cache = _rows(tmp_path), tmp_path / "cache"
    with FakeOpenAIServer() as one, FakeOpenAIServer(yes_logprob=-3.0) as other:
        assert _evaluate(one, data, cache, "-m", "answer_relevance") == 2
        assert _evaluate(other, data, cache, "-m", "answer_relevance") == 2
        size = (cache / "ragmeter-cache.sqlite").stat().st_size
        assert _evaluate(one, data, cache, "-m", "answer_relevance") == 0
    assert (cache / "ragmeter-cache.sqlite").stat().st_size == size  # a rerun adds nothing
    store = CallCache(cache)
    assert store.count() == {"calls": 4, "failed_calls": 0, "embeddings": 0}
    store.close()


def test_a_cache_file_the_user_may_not_write_is_refused_before_any_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store made by another user (a ``sudo`` run, a container as root) is opened read
    only by SQLite, silently. Before, the run started, paid for its first answer, failed to
    store it and aborted (exit 3, "the judge cache failed"); now it exits 2 before any call,
    naming the cache. (Opened read only by hand here: the tests may run as root.)"""
    data, cache = _rows(tmp_path), tmp_path / "cache"
    CallCache(cache).close()  # an existing store, in WAL
    real_connect = sqlite3.connect

    def read_only(database: str, *args: object, **kwargs: object) -> sqlite3.Connection:
        if kwargs.get("uri"):
            return real_connect(database, *args, **kwargs)  # type: ignore[arg-type]
        kwargs["uri"] = True
        uri = f"{Path(database).resolve().as_uri()}?mode=ro"
        return real_connect(uri, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cache_module.sqlite3, "connect", read_only)
    args = [
        *("evaluate", str(data), "--judge", "openai:m", "--api-key-env", "RM_AUDIT_KEY"),
        *("--embedder", "none", "--cache", str(cache), "--no-preflight", "-m", "faithfulness"),
    ]
    with FakeOpenAIServer() as srv:
        got = CliRunner().invoke(
            app, [*args, "--base-url", srv.url], env={"COLUMNS": "300", "RM_AUDIT_KEY": KEY}
        )
        assert srv.calls == 0, got.output
    assert got.exit_code == 2, got.output
    assert "readonly" in got.output and str(cache) in got.output.replace("\n", "")


def _fill(args: tuple[str, int]) -> int:
    folder, worker = args
    cache = CallCache(folder)  # every process opens the store: each open writes its version
    common = {"kind": "structured", "backend": "openai:m", "prompt_version": "1"}
    for i in range(150):
        cache.put(f"{worker}-{i}", ok=True, value={"i": i}, **common)
        cache.get(f"{1 - worker}-{i}")
    cache.close()
    return worker


def test_processes_sharing_one_store_lose_no_answer(tmp_path: Path) -> None:
    folder = str(tmp_path / "cache")
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        assert sorted(pool.map(_fill, [(folder, 0), (folder, 1)])) == [0, 1]
    assert CallCache(folder).count() == {"calls": 300, "failed_calls": 0, "embeddings": 0}


class _FlakyEmbedder:
    """Vectors with a NaN row (a model in fp16 overflowing) until ``fixed``."""

    name = "fake:flaky-embedder"

    def __init__(self) -> None:
        self.fixed = False
        self.calls = 0

    async def embed(self, texts: list[str]) -> JudgeReply[np.ndarray]:
        self.calls += 1
        matrix = np.ones((len(texts), 4), np.float32)
        if not self.fixed:
            matrix[0] = np.nan
        return JudgeReply(matrix)


def test_a_nan_vector_is_not_served_from_the_cache_once_the_embedder_is_fixed(
    tmp_path: Path,
) -> None:
    """Before, the NaN vector was stored and served to every later run: the fixed server was
    never asked again, and the scores built on it stayed broken until the cache was deleted."""
    inner, cache = _FlakyEmbedder(), CallCache(tmp_path)
    embedder = CachedEmbedder(inner, cache=cache)
    asyncio.run(embedder.embed(["a", "b"]))
    assert cache.count()["embeddings"] == 1  # "b"'s vector is an answer; "a"'s is not kept
    inner.fixed = True
    again = asyncio.run(embedder.embed(["a", "b"]))
    assert inner.calls == 2 and again.ok and np.isfinite(again.value).all()
    old = sqlite3.connect(tmp_path / "ragmeter-cache.sqlite")  # a row stored before the fix
    with old:
        old.execute(
            "INSERT INTO embeddings VALUES ('stored-before', 'fake', 4, ?, 0)",
            (np.full(4, np.nan, np.float32).tobytes(),),
        )
    old.close()
    assert cache.get_vectors(["stored-before"]) == {}  # not served: asked again
