"""Where a server judge's time goes, per request: llama-cpp-python's server, one verdict
prompt of the first WikiEval answer, with and without logprobs, cold and with its prefix
reused, against the same prompt on the in-process judge.

    .venv/bin/python benchmarks/server_profile.py [--repeats 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _record import add_out, check_out, write_json  # noqa: E402
from ragmeter.backends import model_store  # noqa: E402
from ragmeter.backends.llamacpp import LocalJudge  # noqa: E402
from ragmeter.metrics.context import ContextSentences  # noqa: E402
from ragmeter.metrics.judging import context_first  # noqa: E402
from ragmeter.prompts import load_prompts  # noqa: E402
from server_judge import rows, start_llama_server  # noqa: E402


def verdict_messages(i: int) -> list[dict[str, str]]:
    """A per-statement verdict prompt like faithfulness's, on the first answer's context."""
    r = rows(1)[0]
    ctx = ContextSentences.of(r["contexts"])
    text = ctx.render(range(min(12, len(ctx.sentences))))
    statement = ctx.sentences[i % len(ctx.sentences)]
    task = load_prompts("faithfulness")["fast"]["task"].format(statement=statement)
    return context_first(text, r["question"], task)


def post(port: int, body: dict[str, object]) -> tuple[float, dict[str, object]]:
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    t0 = time.perf_counter()
    with urllib.request.urlopen(req, timeout=600) as resp:
        data = json.loads(resp.read())
    return time.perf_counter() - t0, data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeats", type=int, default=2, help="timed requests after the cold one, per variant"
    )
    parser.add_argument("--port", type=int, default=8766, help="port for llama-cpp-python's server")
    add_out(parser, ROOT / "benchmarks" / "results" / "server_profile.json")
    args = parser.parse_args()
    check_out(args.out, args.force)
    gguf = model_store.ensure_model(None)
    out: dict[str, object] = {}
    server = start_llama_server(gguf, args.port, 2048)
    try:
        base = {"model": "m", "temperature": 0, "seed": 0, "max_tokens": 1}
        cases = {
            "cold_with_logprobs": (0, {"logprobs": True, "top_logprobs": 20}),
            "prefix_reused_with_logprobs": (1, {"logprobs": True, "top_logprobs": 20}),
            "prefix_reused_no_logprobs": (2, {}),
            "prefix_reused_top5": (3, {"logprobs": True, "top_logprobs": 5}),
        }
        for name, (i, extra) in cases.items():
            times = []
            for r in range(args.repeats):
                body = {**base, **extra, "messages": verdict_messages(i + 10 * r)}
                took, data = post(args.port, body)
                times.append(round(took, 2))
            out[f"server_{name}_s"] = times
            out["prompt_tokens"] = data.get("usage", {}).get("prompt_tokens")
    finally:
        server.terminate()
        server.wait(timeout=60)
    judge = LocalJudge(n_threads=2)
    judge.load()

    async def local() -> list[float]:
        times = []
        for i in range(1 + args.repeats):
            t0 = time.perf_counter()
            await judge.option_probs(verdict_messages(i), ("yes", "no"), prompt_version="p")
            times.append(round(time.perf_counter() - t0, 2))
        return times

    t = asyncio.run(local())
    out["in_process_cold_s"], out["in_process_prefix_reused_s"] = t[0], t[1:]
    judge.close()
    out["load_avg_1min"] = os.getloadavg()[0]
    for k, v in out.items():
        print(f"{k:<40} {v}")
    write_json(args.out, out, indent=2)
    print(f"wrote {args.out}")
    reused = out["server_prefix_reused_with_logprobs_s"]
    plain = out["server_prefix_reused_no_logprobs_s"]
    print(
        f"RESULT server_reused_logprobs_s={min(reused)} server_reused_no_logprobs_s={min(plain)} "
        f"in_process_reused_s={min(out['in_process_prefix_reused_s'])}"
    )


if __name__ == "__main__":
    main()
