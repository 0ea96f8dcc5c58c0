"""Engine overhead: N structured calls against the fake OpenAI server at fixed latency.

The ideal wall time is calls x latency / concurrency (a perfect client that spends nothing
of its own). The ratio wall / ideal is the engine's overhead: SDK, validation, cache writes,
accounting, scheduling. The server runs in its own process so it does not share our GIL.

    .venv/bin/python benchmarks/engine.py [--calls 2000] [--latency 0.05] [--concurrency 32]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from ragmeter._perf import relaxed_gc  # noqa: E402
from ragmeter.backends.openai_compat import OpenAICompatBackend  # noqa: E402
from ragmeter.engine import CachedJudge  # noqa: E402
from ragmeter.engine.cache import CallCache  # noqa: E402
from ragmeter.engine.retry import RetryPolicy  # noqa: E402


class Verdict(BaseModel):
    statement: str
    verdict: int
    reason: str


def start_server(latency: float) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "fake_server.py"), "--latency", str(latency)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if not line.startswith("URL "):
        proc.kill()
        raise RuntimeError(f"fake server did not start: {line!r}")
    return proc, line.split(" ", 1)[1]


async def run(url: str, calls: int, concurrency: int, cache_dir: str) -> tuple[float, int]:
    backend = OpenAICompatBackend(
        "bench-model", base_url=url, api_key_env=None, timeout=30.0, concurrency=concurrency
    )
    judge = CachedJudge(
        backend,
        cache=CallCache(cache_dir),
        timeout=30.0,
        concurrency=concurrency,
        policy=RetryPolicy(max_retries=2),
    )
    messages = [{"role": "system", "content": "You verify statements against a context."}]
    # warm-up: open the connection pool (one connection per slot) outside the timed region
    await asyncio.gather(
        *(
            judge.structured(
                [*messages, {"role": "user", "content": f"warm-up {i}"}],
                Verdict,
                prompt_version="bench",
            )
            for i in range(concurrency)
        )
    )
    start = time.perf_counter()
    with relaxed_gc():  # as the runner does for every run
        replies = await asyncio.gather(
            *(
                judge.structured(
                    [*messages, {"role": "user", "content": f"statement {i}"}],
                    Verdict,
                    prompt_version="bench",
                )
                for i in range(calls)
            )
        )
    wall = time.perf_counter() - start
    await backend.aclose()
    return wall, sum(r.ok for r in replies)


async def run_bare(url: str, calls: int, concurrency: int) -> float:
    """The same requests from a bare aiohttp client: the floor this machine allows now."""
    import aiohttp

    schema = Verdict.model_json_schema()
    gate = asyncio.Semaphore(concurrency)
    connector = aiohttp.TCPConnector(limit=2 * concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def one(i: int) -> None:
            body = {
                "model": "bench-model",
                "temperature": 0,
                "seed": 0,
                "max_tokens": 512,
                "messages": [{"role": "user", "content": f"bare {i}"}],
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": "Verdict", "schema": schema},
                },
            }
            async with gate, session.post(f"{url}/chat/completions", json=body) as resp:
                Verdict.model_validate_json(
                    json.loads(await resp.read())["choices"][0]["message"]["content"]
                )

        await asyncio.gather(*(one(-i - 1) for i in range(concurrency)))
        start = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(calls)))
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    proc, url = start_server(args.latency)
    try:
        with tempfile.TemporaryDirectory() as cache_dir:
            wall, ok = asyncio.run(run(url, args.calls, args.concurrency, cache_dir))
        try:
            bare = asyncio.run(run_bare(url, args.calls, args.concurrency))
        except ImportError:
            bare = float("nan")
    finally:
        proc.kill()
        proc.wait()
    ideal = args.calls * args.latency / args.concurrency
    ratio = wall / ideal
    rows = [
        ("calls", args.calls),
        ("ok", ok),
        ("latency_s", args.latency),
        ("concurrency", args.concurrency),
        ("ideal_s", round(ideal, 3)),
        ("wall_s", round(wall, 3)),
        ("overhead_ratio", round(ratio, 3)),
        ("calls_per_s", round(args.calls / wall, 1)),
        ("bare_aiohttp_wall_s", round(bare, 3)),
        ("bare_aiohttp_ratio", round(bare / ideal, 3)),
        ("load_avg_1min", os.getloadavg()[0]),
    ]
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    out = ROOT / "benchmarks" / "results" / "engine.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {**dict(rows), "cpu_count": os.cpu_count(), "target_overhead_ratio": 1.10}, indent=2
        )
        + "\n"
    )
    print(
        f"RESULT calls={args.calls} ok={ok} overhead_ratio={ratio:.3f} wall_s={wall:.3f} "
        f"bare_ratio={bare / ideal:.3f}"
    )


if __name__ == "__main__":
    main()
