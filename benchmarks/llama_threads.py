"""How much a second thread buys llama.cpp's prompt processing on this machine.

Why: the meta-eval spends 94% of its time in llama_decode (docs/speed.md), so its floor is
the computed prompt tokens over the best prompt rate this CPU gives. On a VM whose two vCPUs
share one physical core's vector units, a second thread buys nothing, and neither does a
second process: the rate is a property of the machine, not of ragmeter's scheduling.

Measures the embedded judge's prompt processing (a fresh 500-token prompt, no KV reuse,
n_batch 512), best of ``--repeats``: one process with 1 thread, one with 2 threads, and two
processes with 1 thread each at the same time (their summed rate).

    .venv/bin/python benchmarks/llama_threads.py [--repeats 3] [--tokens 500]

Prints a table, writes benchmarks/results/llama_threads.json, ends with a RESULT line.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _record import add_out, check_out, write_json  # noqa: E402

TEXT = "The PSLV-C56 mission will be launched from the Satish Dhawan Space Centre. " * 80


def _rate(threads: int, tokens: int, repeats: int, start: float | None = None) -> float:
    """Best prompt tokens/s of ``repeats`` fresh evaluations (waits until ``start``)."""
    from llama_cpp import Llama

    from ragmeter.backends.model_store import get_model, model_path

    llm = Llama(
        model_path=str(model_path(get_model())),
        n_ctx=2048,
        n_threads=threads,
        n_batch=512,
        verbose=False,
    )
    toks = llm.tokenize(TEXT.encode())[:tokens]
    if start is not None:
        time.sleep(max(0.0, start - time.time()))
    best = 0.0
    for _ in range(repeats):
        llm.reset()
        t0 = time.perf_counter()
        llm.eval(toks)
        best = max(best, len(toks) / (time.perf_counter() - t0))
    return best


def _child(args: tuple[int, int, int, float]) -> float:
    return _rate(*args)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3, help="timed prompts per setting")
    ap.add_argument("--tokens", type=int, default=500, help="prompt length in tokens")
    add_out(ap, ROOT / "results" / "llama_threads.json")
    args = ap.parse_args()
    check_out(args.out, args.force)
    one = _rate(1, args.tokens, args.repeats)
    two = _rate(2, args.tokens, args.repeats)
    start = time.time() + 20  # both children loaded before either starts
    with mp.get_context("spawn").Pool(2) as pool:
        pair = pool.map(_child, [(1, args.tokens, args.repeats, start)] * 2)
    rows = [
        ("1 process x 1 thread", one),
        ("1 process x 2 threads", two),
        ("2 processes x 1 thread (sum)", sum(pair)),
    ]
    print(f"{'setting':32s} {'prompt tok/s':>12s}")
    for name, r in rows:
        print(f"{name:32s} {r:12.1f}")
    out = {
        "cpu": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "tokens": args.tokens,
        "repeats": args.repeats,
        "one_thread": round(one, 1),
        "two_threads": round(two, 1),
        "two_processes": [round(r, 1) for r in pair],
    }
    write_json(args.out, out, indent=1)
    print(f"wrote {args.out}")
    print(
        f"RESULT one_thread_tok_s={one:.1f} two_threads_tok_s={two:.1f} "
        f"two_processes_tok_s={sum(pair):.1f} second_thread_gain={two / one:.2f}"
    )


if __name__ == "__main__":
    main()
