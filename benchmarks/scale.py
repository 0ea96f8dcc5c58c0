"""Scale: a million rows streamed in bounded memory, and judged samples on Ray vs locally.

(a) ``executor="stream"`` on a JSONL of ``--rows`` rows (default 1,000,000) with the non-LLM
    tier (the 14 metrics of benchmarks/lexical.py), in a child process so its peak RSS
    (``ru_maxrss``) is the run's alone. Rows are drawn from 20,000 generated ones (5 contexts of
    ~40 words; the answer partly copied from them) with unique ids; the written scores.jsonl
    holds each sample, as every run's does. ``n_resamples=0`` (the CIs of a million values
    are a separate cost, reported by lexical.py). Reported: rows/s (wall, validation pass
    included) and peak RSS against 1 GiB.
(b) ``--samples`` (default 10,000) rows scored with ``answer_relevance`` (fast mode: one judge
    call a sample) against the fake OpenAI server at ``--latency`` (50 ms), on a local Ray
    (2 CPUs) with ``--actors`` (4) actors of concurrency ``--per-actor`` (4), and on the local
    executor at the same total concurrency (16). Ideal = calls x latency / 16. Ray's ratio
    is given with and without its start-up (``ray.init`` and the actors' first call: the
    pipeline's own wall is ``usage.pipeline_wall_s``). Scores of the two runs are compared.

    .venv/bin/python benchmarks/scale.py [--rows 1000000] [--samples 10000] [--actors 4]
Prints a table, writes benchmarks/results/scale.json, ends with RESULT.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT.parent / "tests"))

from _record import add_out, check_out, write_json  # noqa: E402
from lexical import METRICS, make_records  # noqa: E402

OUT = ROOT / "results" / "scale.json"
GIB = 1024**3


def write_rows(path: Path, n: int, pool: int = 20_000) -> None:
    base = make_records(min(n, pool))
    for r in base:  # ~40-word contexts keep the 1M-row scores file near 1 GB
        r["contexts"] = [" ".join(c.split()[:40]) for c in r["contexts"]]
    with path.open("w") as fh:
        for i in range(n):
            r = dict(base[i % len(base)])
            r["question_id"] = f"q{i}"
            fh.write(json.dumps(r) + "\n")


def child_stream(path: str, out: str) -> None:
    """Runs in the child: the streamed run, then its timing on stdout."""
    import ragmeter

    t0 = time.perf_counter()
    result = ragmeter.evaluate(path, METRICS, n_resamples=0, out=out, executor="stream")
    wall = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"rows": result.n_samples, "wall_s": wall, "peak_rss": rss}))


def stream_part(rows: int, tmp: Path) -> dict:
    data = tmp / "rows.jsonl"
    t0 = time.perf_counter()
    write_rows(data, rows)
    gen = time.perf_counter() - t0
    proc = subprocess.run(
        [sys.executable, __file__, "--child", str(data), str(tmp / "out")],
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    size = (tmp / "out" / "scores.jsonl").stat().st_size
    return {
        "rows": got["rows"],
        "generate_s": round(gen, 1),
        "wall_s": round(got["wall_s"], 2),
        "rows_per_s": round(got["rows"] / got["wall_s"], 1),
        "peak_rss_mib": round(got["peak_rss"] / 2**20, 1),
        "under_1gib": int(got["peak_rss"] < GIB),
        "input_mib": round(data.stat().st_size / 2**20, 1),
        "scores_mib": round(size / 2**20, 1),
    }


def judged_rows(n: int) -> list[dict]:
    rng = random.Random(0)
    out = []
    for i in range(n):
        city = rng.choice(["Paris", "Rome", "Lima", "Oslo", "Cairo"])
        out.append(
            {
                "question_id": f"s{i}",
                "question": f"Where was agreement {i} signed?",
                "answer": f"Agreement {i} was signed in {city}.",
                "contexts": [f"Agreement {i} was signed in {city} in {1900 + i % 100}."],
            }
        )
    return out


def judged_part(args: argparse.Namespace, tmp: Path) -> dict:
    import ray

    import ragmeter
    from engine import start_server

    data = tmp / "judged.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in judged_rows(args.samples)))
    total = args.actors * args.per_actor
    out: dict = {"samples": args.samples, "actors": args.actors, "per_actor": args.per_actor}
    # The server in a process of its own, as in engine.py: it must not share a GIL with the
    # driver (which drains Ray's output) or with the local run's client.
    proc, url = start_server(args.latency)
    try:

        def settings(cache: str, concurrency: int) -> ragmeter.Settings:
            return ragmeter.Settings(
                judge="openai:bench",
                base_url=url,
                cache="off" if args.no_cache else str(tmp / cache),
                embedder="none",
                concurrency=concurrency,
                api_key_env="RAGMETER_BENCH_UNSET",
            )

        t0 = time.perf_counter()
        local = ragmeter.evaluate(
            str(data),
            ["answer_relevance"],
            settings=settings("c-local", total),
            out=tmp / "local",
            executor="stream",
            batch_size=args.samples,
        )
        local_wall = time.perf_counter() - t0
        calls = local.usage["calls"]
        ideal = calls * args.latency / total
        t0 = time.perf_counter()
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        init_s = time.perf_counter() - t0
        try:
            res = ragmeter.evaluate(
                str(data),
                ["answer_relevance"],
                settings=settings("c-ray", args.per_actor),
                out=tmp / "ray",
                executor="ray",
                actors=args.actors,
                batch_size=args.batch,
            )
        finally:
            ray.shutdown()
        ray_wall = time.perf_counter() - t0
        same = _values(tmp / "ray") == _values(tmp / "local")
    finally:
        proc.kill()
        proc.wait()
    out.update(
        calls=calls,
        ideal_s=round(ideal, 2),
        local_wall_s=round(local_wall, 2),
        local_ratio=round(local_wall / ideal, 3),
        ray_wall_s=round(ray_wall, 2),
        ray_ratio=round(ray_wall / ideal, 3),
        ray_init_s=round(init_s, 2),
        ray_pipeline_s=res.usage["pipeline_wall_s"],
        ray_ratio_without_start=round(res.usage["pipeline_wall_s"] / ideal, 3),
        ray_calls=res.usage["calls"],
        identical=int(same),
    )
    return out


def _values(run: Path) -> list:
    return [
        (r["question_id"], r["answer_relevance"])
        for r in map(json.loads, (run / "scores.jsonl").read_text().splitlines())
    ]


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child_stream(sys.argv[2], sys.argv[3])
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--rows", type=int, default=1_000_000, help="(a) rows streamed; 0 skips part (a)"
    )
    ap.add_argument(
        "--samples", type=int, default=10_000, help="(b) judged samples; 0 skips part (b) and Ray"
    )
    ap.add_argument("--actors", type=int, default=4, help="(b) Ray judge actors")
    ap.add_argument("--per-actor", type=int, default=4, help="(b) concurrency of each actor")
    ap.add_argument("--batch", type=int, default=250, help="rows per Ray batch")
    ap.add_argument(
        "--latency", type=float, default=0.05, help="the fake server's reply latency, seconds"
    )
    ap.add_argument("--no-cache", action="store_true", help="diagnosis: judge cache off")
    add_out(ap, OUT)
    args = ap.parse_args()
    check_out(args.out, args.force)
    if not args.rows and not args.samples:
        ap.error("--rows 0 and --samples 0: nothing to measure")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        stream = stream_part(args.rows, tmp) if args.rows else {}
        judged = judged_part(args, tmp) if args.samples else {}
    print(f"{'part':38s} {'value':>12s}")
    for k, v in stream.items():
        print(f"stream: {k:30s} {v:>12}")
    for k, v in judged.items():
        print(f"judged: {k:30s} {v:>12}")
    load = os.getloadavg()[0]
    write_json(
        args.out,
        {"stream": stream, "judged": judged, "cpu_count": os.cpu_count(), "load_1m": load},
    )
    print(f"wrote {args.out}")
    parts = []
    if stream:
        parts.append(
            f"stream_rows={stream['rows']} stream_rows_per_s={stream['rows_per_s']} "
            f"stream_peak_rss_mib={stream['peak_rss_mib']} "
            f"stream_under_1gib={stream['under_1gib']}"
        )
    if judged:
        parts.append(
            f"ideal_s={judged['ideal_s']} local_wall_s={judged['local_wall_s']} "
            f"local_ratio={judged['local_ratio']} ray_wall_s={judged['ray_wall_s']} "
            f"ray_ratio={judged['ray_ratio']} "
            f"ray_ratio_without_start={judged['ray_ratio_without_start']} "
            f"ray_identical={judged['identical']}"
        )
    print("RESULT " + " ".join(parts))


if __name__ == "__main__":
    main()
