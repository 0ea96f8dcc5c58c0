"""Speed and memory of the embedded local judge (Qwen2.5-Coder-1.5B-Instruct Q4_K_M, llama.cpp).

Measures, on this machine's cores:
  * prompt processing tok/s (fresh prompts, no KV reuse) and generation tok/s (greedy, and
    grammar-constrained JSON as ``structured`` does), from llama.cpp's own perf counters;
  * P(yes) latency of a typical faithfulness verdict (instructions + a WikiEval context + one
    statement), warm model, (a) each prompt new to the KV cache and (b) consecutive statements
    sharing the instructions+context prefix, as a metric checking one answer's statements sends;
  * peak RSS of the process.

Usage: .venv/bin/python benchmarks/local_judge.py [--repeats N] [--n-ctx 8192] [--model PATH]
Prints a table, writes benchmarks/results/local_judge.json, ends with a RESULT line. Rates are
reported as best-of-N (the run least disturbed by other processes on shared cores) and median.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import statistics
import sys
import time
import uuid
from pathlib import Path

from pydantic import BaseModel

from ragmeter.backends.llamacpp import LocalJudge

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _record import add_out, check_out, require, write_json  # noqa: E402

WIKIEVAL = ROOT.parent.parent / "shared" / "datasets" / "wikieval" / "wikieval.jsonl"
FALLBACK_CONTEXT = (
    "The PSLV-C56 is the 58th mission of Indian Space Research Organisation's Polar Satellite "
    "Launch Vehicle (PSLV) and the 17th flight of the PSLV-CA variant. It is scheduled to launch "
    "on Sunday, 30 July 2023 at 06:30 IST from Satish Dhawan Space Centre, Sriharikota, India. "
    "This is a dedicated commercial mission through NSIL with DS-SAR as primary satellite."
) * 3
SYSTEM = (
    "You are a careful fact checker for a retrieval-augmented generation system. You are given "
    "a context and a statement. Judge whether the statement can be directly inferred from the "
    "context alone, without outside knowledge. A statement that adds facts not present in the "
    "context, or contradicts it, is not supported. Answer with exactly one word: yes or no."
)


def verdict_messages(context: str, statement: str, nonce: str = "") -> list[dict[str, str]]:
    """Shared parts first (instructions, context), the varying statement last: prefix reuse."""
    return [
        {"role": "system", "content": nonce + SYSTEM},
        {
            "role": "user",
            "content": f"Context:\n{context}\n\nStatement: {statement}\n\n"
            "Can the statement be inferred from the context? Answer yes or no.",
        },
    ]


def load_cases(n: int) -> list[tuple[str, list[str]]]:
    """(context, statements) pairs from WikiEval, or a built-in stand-in when it is absent."""
    cases: list[tuple[str, list[str]]] = []
    if WIKIEVAL.is_file():
        for line in WIKIEVAL.read_text().splitlines():
            row = json.loads(line)
            context = " ".join(row["context_v1"])[:2000]
            statements = [
                s.strip() + "."
                for key in ("answer", "ungrounded_answer", "poor_answer")
                for s in row[key].removeprefix("Answer:").split(". ")
                if len(s.strip()) > 20
            ]
            if len(statements) >= 4:
                cases.append((context, statements[:6]))
            if len(cases) >= n:
                break
    while len(cases) < n:
        cases.append((FALLBACK_CONTEXT, ["PSLV-C56 launches in July 2023."] * 4))
    return cases


class Statements(BaseModel):
    statements: list[str]


def perf(judge: LocalJudge) -> tuple[float, int, float, int]:
    import llama_cpp

    d = llama_cpp.llama_perf_context(judge._llm.ctx)
    return d.t_p_eval_ms, d.n_p_eval, d.t_eval_ms, d.n_eval


def perf_reset(judge: LocalJudge) -> None:
    import llama_cpp

    llama_cpp.llama_perf_context_reset(judge._llm.ctx)


async def bench(args: argparse.Namespace) -> dict:
    load_start = os.getloadavg()[0]
    t0 = time.perf_counter()
    judge = LocalJudge(args.model, n_ctx=args.n_ctx, n_threads=args.threads)
    judge.load()
    load_s = time.perf_counter() - t0
    cases = load_cases(args.repeats + 1)
    yn = ["yes", "no"]

    # warm-up (first decode allocates buffers)
    await judge.option_probs(
        verdict_messages(*cases[0][:1], cases[0][1][0]), yn, prompt_version="b"
    )

    # 1. P(yes), every prompt new to the KV cache (a nonce at the very start defeats reuse)
    cold_ms, cold_tokens, prompt_rates = [], [], []
    for ctx, stmts in cases[1:]:
        msgs = verdict_messages(ctx, stmts[0], nonce=f"[{uuid.uuid4().hex[:8]}] ")
        perf_reset(judge)
        t = time.perf_counter()
        r = await judge.option_probs(msgs, yn, prompt_version="b")
        cold_ms.append((time.perf_counter() - t) * 1000)
        cold_tokens.append(r.usage.prompt_tokens)
        assert r.ok, r.error
        p_ms, p_n, _, _ = perf(judge)
        prompt_rates.append(p_n / (p_ms / 1000))

    # 2. P(yes), consecutive statements of one answer sharing instructions + context
    shared_ms, shared_eval = [], []
    for ctx, stmts in cases[1:]:
        for i, st in enumerate(stmts):
            before = judge.stats.prompt_tokens_evaluated
            t = time.perf_counter()
            r = await judge.option_probs(verdict_messages(ctx, st), yn, prompt_version="b")
            if i > 0:  # the first statement of a context pays for the prefix
                shared_ms.append((time.perf_counter() - t) * 1000)
                shared_eval.append(judge.stats.prompt_tokens_evaluated - before)
            assert r.ok, r.error

    # 3. generation: greedy free text, and grammar-constrained JSON (structured)
    ctx, _ = cases[1]
    llm = judge._llm
    prompt = judge.format_chat([{"role": "user", "content": f"Summarise in detail:\n{ctx}"}])
    toks = judge.tokenize(prompt, special=True, add_bos=True)
    gen_rates = []
    for _ in range(args.gen_repeats):
        llm.create_completion(prompt=toks, max_tokens=1, temperature=0.0)  # prefill, untimed
        perf_reset(judge)
        llm.create_completion(prompt=toks, max_tokens=args.gen_tokens, temperature=0.0)
        _, _, e_ms, e_n = perf(judge)
        gen_rates.append(e_n / (e_ms / 1000))

    msgs = [
        {"role": "system", "content": "Split the text into short standalone statements (JSON)."},
        {"role": "user", "content": ctx},
    ]
    await judge.structured(msgs, Statements, prompt_version="b", max_tokens=8)  # prefill
    t = time.perf_counter()
    before = judge.stats.completion_tokens
    r = await judge.structured(msgs, Statements, prompt_version="b", max_tokens=args.gen_tokens)
    structured_s = time.perf_counter() - t
    structured_tok_s = (judge.stats.completion_tokens - before) / structured_s

    peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    judge.close()
    return {
        "model": judge.name,
        "model_path": str(judge.model_path),
        "n_ctx": args.n_ctx,
        "n_threads": judge.n_threads,
        "cpu_count": os.cpu_count(),
        "machine": platform.processor() or platform.machine(),
        "load_avg_1m_at_start": load_start,
        "load_avg_1m_at_end": os.getloadavg()[0],
        "load_s": round(load_s, 2),
        "note": "wall-clock rates; 'best' = least disturbed by other processes on shared cores",
        "prompt_tok_s": round(max(prompt_rates), 1),
        "prompt_tok_s_median": round(statistics.median(prompt_rates), 1),
        "gen_tok_s": round(max(gen_rates), 1),
        "gen_tok_s_median": round(statistics.median(gen_rates), 1),
        "structured_gen_tok_s": round(structured_tok_s, 1),
        "structured_ok": r.ok,
        "p_yes_ms_no_shared_prefix": round(min(cold_ms), 1),
        "p_yes_ms_no_shared_prefix_median": round(statistics.median(cold_ms), 1),
        "p_yes_prompt_tokens": round(statistics.median(cold_tokens)),
        "p_yes_ms_shared_prefix": round(min(shared_ms), 1),
        "p_yes_ms_shared_prefix_median": round(statistics.median(shared_ms), 1),
        "p_yes_shared_tokens_evaluated": round(statistics.median(shared_eval)),
        "p_yes_samples": {"no_shared": len(cold_ms), "shared": len(shared_ms)},
        "peak_rss_mb": round(peak_rss_mb),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3, help="contexts for the P(yes) timings")
    ap.add_argument("--n-ctx", type=int, default=8192, help="the judge's context window")
    ap.add_argument("--threads", type=int, default=None, help="default: all cores")
    ap.add_argument("--gen-tokens", type=int, default=48, help="tokens generated per timed call")
    ap.add_argument("--gen-repeats", type=int, default=3, help="timed generations")
    ap.add_argument("--model", default=None, help="a GGUF path (default: the embedded judge)")
    add_out(ap, ROOT / "results" / "local_judge.json")
    args = ap.parse_args()
    check_out(args.out, args.force)
    if args.model is not None:
        require(Path(args.model), "GGUF model (--model)")
    res = asyncio.run(bench(args))

    rows = [
        ("model", res["model"]),
        ("threads / n_ctx", f"{res['n_threads']} / {res['n_ctx']}"),
        ("load", f"{res['load_s']} s"),
        ("prompt processing", f"{res['prompt_tok_s']} tok/s (median {res['prompt_tok_s_median']})"),
        ("generation (greedy)", f"{res['gen_tok_s']} tok/s (median {res['gen_tok_s_median']})"),
        ("generation (JSON grammar)", f"{res['structured_gen_tok_s']} tok/s"),
        (
            "P(yes), no shared prefix",
            f"{res['p_yes_ms_no_shared_prefix']} ms (median "
            f"{res['p_yes_ms_no_shared_prefix_median']}; {res['p_yes_prompt_tokens']} tokens)",
        ),
        (
            "P(yes), shared prefix",
            f"{res['p_yes_ms_shared_prefix']} ms (median {res['p_yes_ms_shared_prefix_median']}; "
            f"{res['p_yes_shared_tokens_evaluated']} tokens evaluated)",
        ),
        ("peak RSS", f"{res['peak_rss_mb']} MB"),
        (
            "load average (1 min)",
            f"{res['load_avg_1m_at_start']:.2f} at start, {res['load_avg_1m_at_end']:.2f} at end",
        ),
    ]
    width = max(len(k) for k, _ in rows)
    print(f"{'measure':<{width}}  value")
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    write_json(args.out, res, indent=2)
    print(f"wrote {args.out}")
    print(
        f"RESULT prompt_tok_s={res['prompt_tok_s']} gen_tok_s={res['gen_tok_s']} "
        f"p_yes_ms={res['p_yes_ms_no_shared_prefix']} peak_rss_mb={res['peak_rss_mb']} "
        f"p_yes_shared_prefix_ms={res['p_yes_ms_shared_prefix']}"
    )


if __name__ == "__main__":
    main()
