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

from ragmeter.engine.cache import CallCache  # noqa: E402
from ragmeter.engine.engine import CachedJudge  # noqa: E402
from ragmeter.engine.retry import RetryPolicy  # noqa: E402
from ragmeter.judges.openai_compat import OpenAICompatBackend  # noqa: E402


class Verdict(BaseModel):
    statement: str
    verdict: int
    reason: str


def start_server(latency: float) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "fake_server.py"),
                             "--latency", str(latency)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if not line.startswith("URL "):
        proc.kill()
        raise RuntimeError(f"fake server did not start: {line!r}")
    return proc, line.split(" ", 1)[1]


async def run(url: str, calls: int, concurrency: int, cache_dir: str) -> tuple[float, int]:
    backend = OpenAICompatBackend("bench-model", base_url=url, api_key_env=None,
                                  timeout=30.0, concurrency=concurrency)
    judge = CachedJudge(backend, cache=CallCache(cache_dir), timeout=30.0,
                        concurrency=concurrency, policy=RetryPolicy(max_retries=2))
    messages = [{"role": "system", "content": "You verify statements against a context."}]
    # warm-up: open the connection pool (one connection per slot) outside the timed region
    await asyncio.gather(*(
        judge.structured([*messages, {"role": "user", "content": f"warm-up {i}"}], Verdict,
                         prompt_version="bench") for i in range(concurrency)))
    start = time.perf_counter()
    replies = await asyncio.gather(*(
        judge.structured([*messages, {"role": "user", "content": f"statement {i}"}], Verdict,
                         prompt_version="bench") for i in range(calls)))
    wall = time.perf_counter() - start
    await backend.aclose()
    return wall, sum(r.ok for r in replies)


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
    finally:
        proc.kill()
        proc.wait()
    ideal = args.calls * args.latency / args.concurrency
    ratio = wall / ideal
    rows = [("calls", args.calls), ("ok", ok), ("latency_s", args.latency),
            ("concurrency", args.concurrency), ("ideal_s", round(ideal, 3)),
            ("wall_s", round(wall, 3)), ("overhead_ratio", round(ratio, 3)),
            ("calls_per_s", round(args.calls / wall, 1))]
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    out = ROOT / "benchmarks" / "results" / "engine.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({**dict(rows), "cpu_count": os.cpu_count(),
                               "target_overhead_ratio": 1.10}, indent=2) + "\n")
    print(f"RESULT calls={args.calls} ok={ok} overhead_ratio={ratio:.3f} wall_s={wall:.3f}")


if __name__ == "__main__":
    main()
