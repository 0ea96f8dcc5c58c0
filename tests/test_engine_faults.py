"""Must-show robustness: faults of every kind lose nothing; cached and killed runs repeat
no finished call. Calls are counted on the server."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from engine_helpers import rows
from fake_server import FakeOpenAIServer
from ragmeter.backends.openai_compat import OpenAICompatBackend
from ragmeter.engine import CachedJudge
from ragmeter.engine.cache import CallCache
from ragmeter.engine.retry import RetryPolicy

TESTS = Path(__file__).resolve().parent
SRC = TESTS.parent / "src"
KINDS = ("429", "500", "slow", "malformed", "schema", "badbody", "drop", "persistent")


class Verdict(BaseModel):
    verdict: str
    score: int


def fault_plan(i: int) -> str | None:
    """20% of items get a fault, cycling through every kind."""
    return KINDS[(i // 5) % len(KINDS)] if i % 5 == 0 else None


def fault_fn(body: dict[str, Any], n_seen: int) -> str | None:
    kind = fault_plan(int(body["messages"][1]["content"].split()[1]))
    if kind == "persistent":
        return "schema"  # the repair request too
    if len(body["messages"]) > 2:
        return None  # a repair request: answer it properly
    if kind in ("malformed", "schema"):
        return kind  # the repair retry fixes it
    return kind if n_seen == 1 else None  # transient: the retry succeeds


async def run_batch(url: str, cache_dir: Path, n: int) -> list[Any]:
    backend = OpenAICompatBackend("m", base_url=url, api_key_env=None, timeout=1.0, concurrency=32)
    judge = CachedJudge(
        backend,
        cache=CallCache(cache_dir),
        timeout=1.0,
        concurrency=32,
        policy=RetryPolicy(max_retries=3, base_delay=0.01, max_delay=0.05),
    )
    try:
        return await asyncio.gather(
            *(
                judge.structured(
                    [
                        {"role": "system", "content": "judge"},
                        {"role": "user", "content": f"item {i}"},
                    ],
                    Verdict,
                    prompt_version="1",
                )
                for i in range(n)
            )
        )
    finally:
        await backend.aclose()


def test_500_calls_with_20pct_faults_lose_nothing(tmp_path: Path) -> None:
    n = 500
    with FakeOpenAIServer(fault_fn=fault_fn, slow_seconds=2.0) as srv:
        replies = asyncio.run(run_batch(srv.url, tmp_path, n))
        assert len(replies) == n
        assert set(srv.faults) == {"429", "500", "slow", "malformed", "schema", "badbody", "drop"}
        expected_failed = {i for i in range(n) if fault_plan(i) == "persistent"}
        failed = {i for i, r in enumerate(replies) if not r.ok}
        assert failed == expected_failed and len(failed) == 12
        for i, r in enumerate(replies):
            if r.ok:
                assert isinstance(r.value, Verdict)
            else:  # recorded with its reason and the raw output
                assert "schema violation" in (r.error or "") and r.raw, i
        faulted_ok = [i for i in range(n) if fault_plan(i) not in (None, "persistent")]
        assert all(replies[i].ok and replies[i].attempts >= 2 for i in faulted_ok)
        assert len(faulted_ok) == n // 5 - len(expected_failed)
        first_calls = srv.calls

        again = asyncio.run(run_batch(srv.url, tmp_path, n))
        # every answer came from the cache; only the failures were asked again (call + repair)
        assert srv.calls == first_calls + 2 * len(expected_failed)
        assert {i for i, r in enumerate(again) if not r.cached} == expected_failed
        assert [r.ok for r in again] == [r.ok for r in replies]
        assert [r.value for r in again] == [r.value for r in replies]


KILL_SCRIPT = textwrap.dedent("""
    import sys
    sys.path[:0] = [{tests!r}, {src!r}]
    from engine_helpers import ensure_registered, rows
    from ragmeter import runner
    from ragmeter.config import Settings

    name = ensure_registered()
    settings = Settings(judge="openai:m", base_url=sys.argv[1], cache=sys.argv[2],
                        api_key_env="RAGMETER_TEST_NO_KEY", concurrency=4, max_retries=1,
                        preflight=False)  # counts below are the metric's own calls
    result = runner.evaluate(rows(int(sys.argv[3])), [name], settings=settings)
    print("DONE", result.usage["calls"], result.usage["cache_hits"], flush=True)
""")


@pytest.mark.slow
def test_killed_run_restarts_without_repeating_finished_calls(tmp_path: Path) -> None:
    n = 150
    script = tmp_path / "run.py"
    script.write_text(KILL_SCRIPT.format(tests=str(TESTS), src=str(SRC)))
    cache_dir = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if k != "RAGMETER_TEST_NO_KEY"}
    with FakeOpenAIServer(latency=0.03) as srv:
        cmd = [sys.executable, str(script), srv.url, str(cache_dir), str(n)]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.time() + 60
        while srv.calls < n // 3 and time.time() < deadline and proc.poll() is None:
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert proc.returncode == -signal.SIGKILL, proc.stderr.read() if proc.stderr else ""
        sent_before = srv.calls
        with sqlite3.connect(cache_dir / "ragmeter-cache.sqlite") as db:
            done = db.execute("SELECT COUNT(*) FROM calls WHERE ok = 1").fetchone()[0]
        assert 0 < done < n  # killed mid-way, with finished calls committed
        assert sent_before - done <= 4  # only calls in flight at the kill were lost

        srv.reset_counts()
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert srv.calls == n - done  # nothing finished before the kill was asked again
        calls, hits = map(int, out.stdout.split("DONE")[1].split())
        assert (calls, hits) == (n - done, done)
        assert max(srv.seen.values()) <= 2  # a body asked twice only if in flight at the kill

        srv.reset_counts()
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0 and srv.calls == 0  # a finished run repeats nothing


def test_rows_helper_is_valid() -> None:
    from ragmeter.io import load

    assert len(load(rows(3))) == 3
    json.dumps(rows(2))
