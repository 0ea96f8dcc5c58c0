"""Do the embedded judge's scores depend on what it computed before? (issue 12: determinism)

The local judge reuses the KV cache of the prompt prefix it shares with the previous call.
llama.cpp's numerics depend on how tokens are grouped into decode batches, so before
``backends/llama_kv.py`` a statement's P(yes) depended on the calls before it. This benchmark
scores ``faithfulness`` on WikiEval answers (grounded and ungrounded, first ``--rows`` rows,
``context_v1``, word-overlap evidence) three ways with one loaded model:

* ``forward``: the answers in order, the KV cache shared from one call to the next (a run);
* ``reverse``: the same in reverse order (another run order, or a resumed run);
* ``fresh``: each answer from an empty KV cache (a new process per sample).

It compares every statement's P(yes) across the three (exact equality is the goal) and reports
the forward pass's wall time and decoded tokens: the cost of aligned decoding. Run it
with another revision's ``src`` on PYTHONPATH for the "before" figures.

    .venv/bin/python benchmarks/kv_blocks.py [--rows 8] [--kv-align N]
        [--out benchmarks/results/kv_blocks.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import time
from pathlib import Path

from ragmeter.backends.llamacpp import LocalJudge
from ragmeter.metrics.faithfulness import faithfulness
from ragmeter.protocols import Resources
from ragmeter.sample import Sample

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _record import add_out, check_out, require, write_json  # noqa: E402

WIKIEVAL = ROOT.parent.parent / "shared" / "datasets" / "wikieval" / "wikieval.jsonl"
OUT = ROOT / "results" / "kv_blocks.json"


def samples(n_rows: int) -> list[Sample]:
    rows = [json.loads(line) for line in WIKIEVAL.read_text().splitlines()[:n_rows]]
    out = []
    for i, row in enumerate(rows):
        for kind in ("answer", "ungrounded_answer"):
            out.append(
                Sample(
                    question=row["question"],
                    question_id=f"w{i}-{kind}",
                    answer=row[kind],
                    contexts=list(row["context_v1"]),
                )
            )
    return out


def forget(judge: LocalJudge) -> None:
    """Empty the KV cache, as a new process would have it."""
    judge._llm._ctx.kv_cache_seq_rm(-1, 0, -1)
    judge._llm.n_tokens = 0
    judge._kv_clean = 0


async def score(judge: LocalJudge, batch: list[Sample], fresh: bool) -> tuple[dict, float, int]:
    r = Resources(judge=judge)
    got: dict[str, list[float]] = {}
    tokens0, t0 = judge.stats.prompt_tokens_evaluated, time.perf_counter()
    forget(judge)
    for sample in batch:
        if fresh:
            forget(judge)
        result = await faithfulness(sample, r)
        assert result.status == "ok", (sample.question_id, result.reason)
        got[sample.question_id] = list(result.details["p_yes"])
    return got, time.perf_counter() - t0, judge.stats.prompt_tokens_evaluated - tokens0


def compare(a: dict, b: dict) -> dict:
    diffs = [abs(x - y) for k in a for x, y in zip(a[k], b[k], strict=True)]
    flips = sum((x > 0.5) != (y > 0.5) for k in a for x, y in zip(a[k], b[k], strict=True))
    return {
        "statements": len(diffs),
        "differing": sum(d > 0 for d in diffs),
        "max_abs_diff": round(max(diffs), 4),
        "mean_abs_diff": round(sum(diffs) / len(diffs), 5),
        "verdict_flips": flips,
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=8, help="WikiEval answers judged")
    parser.add_argument(
        "--kv-align",
        type=int,
        default=None,
        help="decode batches at multiples of N instead of the judge's KV_ALIGN (a trial: "
        "compare its p_yes with a run at the default)",
    )
    add_out(parser, OUT)
    args = parser.parse_args()
    check_out(args.out, args.force)
    require(WIKIEVAL, "WikiEval")
    batch = samples(args.rows)
    judge = LocalJudge()
    judge.load()
    if args.kv_align is not None:
        judge.kv_align = args.kv_align
    await faithfulness(batch[0], Resources(judge=judge))  # warm up
    forward, forward_s, forward_tokens = await score(judge, batch, fresh=False)
    reverse, reverse_s, _ = await score(judge, batch[::-1], fresh=False)
    fresh, fresh_s, fresh_tokens = await score(judge, batch, fresh=True)
    pairs = {
        "forward_vs_reverse": compare(forward, reverse),
        "forward_vs_fresh": compare(forward, fresh),
        "reverse_vs_fresh": compare(reverse, fresh),
    }
    kv_align = getattr(judge, "kv_align", None)
    print(f"{len(batch)} WikiEval answers, kv_align={kv_align}, {os.cpu_count()} cores")
    print(f"{'pair':<20} {'statements':>10} {'differing':>9} {'max |dP|':>9} {'flips':>6}")
    for name, c in pairs.items():
        print(
            f"{name:<20} {c['statements']:>10} {c['differing']:>9} "
            f"{c['max_abs_diff']:>9.4f} {c['verdict_flips']:>6}"
        )
    print(
        f"forward pass {forward_s:.1f} s, {forward_tokens} tokens decoded; reverse {reverse_s:.1f}"
        f" s; fresh {fresh_s:.1f} s, {fresh_tokens} tokens"
    )
    worst = max(c["max_abs_diff"] for c in pairs.values())
    record = {
        "answers": len(batch),
        "kv_align": kv_align,
        "cpu": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "pairs": pairs,
        "forward_s": round(forward_s, 1),
        "forward_tokens_decoded": forward_tokens,
        "reverse_s": round(reverse_s, 1),
        "fresh_s": round(fresh_s, 1),
        "fresh_tokens_decoded": fresh_tokens,
        "p_yes": {"forward": forward, "reverse": reverse, "fresh": fresh},
    }
    write_json(args.out, record, indent=1)
    differing = sum(c["differing"] for c in pairs.values())
    print(
        f"RESULT max_abs_diff={worst:.4f} differing={differing} "
        f"statements={pairs['forward_vs_fresh']['statements']} forward_s={forward_s:.1f} "
        f"forward_tokens={forward_tokens}"
    )


if __name__ == "__main__":
    asyncio.run(main())
