"""Compare at the scale Ray and stream runs produce: two runs of 10k, 100k and 1M samples.

What is timed: ``ragmeter.compare(run_a, run_b)`` (library: reading both run directories
included, then the paired statistics of 5 metrics) and ``ragmeter compare A B --format json``
(CLI), each in a child process so its peak RSS (``ru_maxrss``) is its own; plus the library
call with ``by="topic"`` (4 slices). Metrics: k_precision and token_f1 (continuous: every
value distinct, the bootstrap's worst case), exact_match and hit@5 (0/1), mrr (few values).

How the runs are made: ``evaluate(..., executor="stream")`` (lexical tier) scores 20 rows
once for its summary.json and run.json; the benchmark then writes scores.jsonl of n rows
with the same keys itself (short texts, synthetic scores: B = A + noise, a small shift on
token_f1), with ``ragmeter.io.json_line`` (the writer evaluate uses). Scoring a million rows
for real is benchmarks/scale.py's subject, not this one's.

    PYTHONPATH=src .venv/bin/python benchmarks/compare_scale.py [--sizes 10000,100000,1000000]
Prints a table, writes benchmarks/results/compare_scale.json, ends with RESULT.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from _record import add_out, check_out, write_json  # noqa: E402

OUT = ROOT / "results" / "compare_scale.json"
METRICS = ["k_precision", "token_f1", "exact_match", "hit@5", "mrr"]
TOPICS = ["billing", "shipping", "returns", "account"]
GIB = 1024**3


def template(tmp: Path) -> Path:
    """A real 20-row run (lexical tier, stream executor): its summary.json and run.json."""
    import ragmeter

    rows = tmp / "tiny.jsonl"
    with rows.open("w") as fh:
        for i in range(20):
            fh.write(
                json.dumps(
                    {
                        "question_id": f"q{i}",
                        "question": f"Question {i}?",
                        "answer": "the cat sat",
                        "contexts": ["the cat sat on the mat", "a dog"],
                        "context_ids": ["d1", "d2"],
                        "reference_context_ids": ["d1"],
                        "reference": "the cat sat",
                        "topic": TOPICS[i % 4],
                    }
                )
                + "\n"
            )
    out = tmp / "tiny"
    ragmeter.evaluate(str(rows), METRICS, executor="stream", out=str(out), n_resamples=0)
    return out


def scores(n: int, seed: int) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """A's and B's scores per metric: B = A moved a little (token_f1 up by 0.002 on average)."""
    rng = np.random.default_rng(seed)
    a = {
        "k_precision": rng.beta(5, 2, n),
        "token_f1": rng.beta(3, 2, n),
        "exact_match": (rng.random(n) < 0.3).astype(float),
        "hit@5": (rng.random(n) < 0.8).astype(float),
        "mrr": 1.0 / rng.integers(1, 6, n),
    }
    b = {
        "k_precision": np.clip(a["k_precision"] + rng.normal(0, 0.1, n), 0, 1),
        "token_f1": np.clip(a["token_f1"] + rng.normal(0.002, 0.1, n), 0, 1),
        "exact_match": np.where(rng.random(n) < 0.05, 1 - a["exact_match"], a["exact_match"]),
        "hit@5": np.where(rng.random(n) < 0.05, 1 - a["hit@5"], a["hit@5"]),
        "mrr": np.where(rng.random(n) < 0.1, 1.0 / rng.integers(1, 6, n), a["mrr"]),
    }
    return a, b


def write_run(tiny: Path, out: Path, values: dict[str, np.ndarray], started: str) -> None:
    """A run directory of len(values) rows: the template's manifests, rows written here."""
    from ragmeter.io import json_line

    n = len(values["token_f1"])
    out.mkdir(parents=True)
    cols = {m: values[m].tolist() for m in METRICS}
    with (out / "scores.jsonl").open("w") as fh:
        for i in range(n):
            row = {
                "question_id": f"q{i}",
                "question": f"Question {i}?",
                "answer": "the cat sat",
                "contexts": ["the cat sat on the mat"],
                "metadata": {"topic": TOPICS[i % 4]},
                **{m: cols[m][i] for m in METRICS},
            }
            fh.write(json_line(row) + "\n")
    summary = json.loads((tiny / "summary.json").read_text())
    summary["n_samples"] = n
    for m in METRICS:
        summary["metrics"][m].update(mean=float(np.mean(values[m])), n_ok=n)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    run = json.loads((tiny / "run.json").read_text())
    run["started_at"] = started
    run["input"]["rows"] = n
    (out / "run.json").write_text(json.dumps(run, indent=1))


def agreement(va: dict[str, np.ndarray], vb: dict[str, np.ndarray]) -> list[dict]:
    """The resampled CI and p (``stats._bootstrap_ci``, 2000 resamples; ``_sign_flip_p``, 999
    patterns) against their normal limits (``normal_ci``, ``normal_p``) on the same pairs:
    the check made before compare switched to the normal ones from 20,000 changed pairs on."""
    from ragmeter import stats

    out = []
    for m in METRICS:
        x, y = stats._paired(va[m], vb[m], "agreement")
        d = y - x
        t0 = time.perf_counter()
        low, high = stats._bootstrap_ci(d, 0.95, 2000, 0)
        p = stats._sign_flip_p(d, 999, 0)
        resampled_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        n_low, n_high = stats.normal_ci(d, 0.95)
        n_p = stats.normal_p(d)
        normal_s = time.perf_counter() - t0
        half = (n_high - n_low) / 2
        out.append(
            {
                "metric": m,
                "changed": int(np.count_nonzero(d)),
                "resampled": [low, high, p],
                "normal": [n_low, n_high, n_p],
                "max_bound_diff_over_half_width": max(abs(low - n_low), abs(high - n_high)) / half,
                "same_to_3_decimals": [round(low, 3), round(high, 3)]
                == [round(n_low, 3), round(n_high, 3)],
                "resampled_s": resampled_s,
                "normal_s": normal_s,
            }
        )
    return out


CHILD = """
import json, resource, sys, time
t0 = time.perf_counter()
import ragmeter
from ragmeter.runs import load_run
a, b = load_run(sys.argv[1]), load_run(sys.argv[2])
t1 = time.perf_counter()
c = ragmeter.compare(a, b, by=sys.argv[3] or None)
t2 = time.perf_counter()
print(json.dumps({"load_s": t1 - t0, "compare_s": t2 - t1, "wall_s": t2 - t0,
    "rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    "methods": {m["metric"]: m.get("method") for m in c.to_dict()["metrics"]},
    "metrics": [{k: m[k] for k in ("metric", "n", "delta", "ci_low", "ci_high", "p_value")}
                for m in c.to_dict()["metrics"]]}))
"""


def library(a: Path, b: Path, by: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(a), str(b), by],
        capture_output=True,
        text=True,
        check=True,
        env=os.environ,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def cli(a: Path, b: Path) -> dict:
    """``ragmeter compare A B --format json`` in a child: wall and its peak RSS."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    exe = Path(sys.executable).with_name("ragmeter")
    done = subprocess.run(
        [str(exe), "compare", str(a), str(b), "--format", "json"],
        capture_output=True,
        text=True,
        env=os.environ,
    )
    wall = time.perf_counter() - t0
    if done.returncode not in (0, 1):
        raise SystemExit(f"error: ragmeter compare exited {done.returncode}: {done.stderr[-500:]}")
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of children is the largest child so far: only a rise is this child's
    return {"wall_s": wall, "rss_kib": rss if rss > before else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        default="10000,100000,1000000",
        help="pairs per comparison, comma-separated (default: 10000,100000,1000000)",
    )
    parser.add_argument("--no-cli", action="store_true", help="skip the CLI timing")
    parser.add_argument(
        "--agree-max",
        type=int,
        default=100_000,
        help="compare resampled and normal CIs and p-values up to this many pairs",
    )
    add_out(parser, OUT)
    args = parser.parse_args()
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
    except ValueError:
        parser.error(f"--sizes: give whole numbers separated by commas, not {args.sizes!r}")
    if not sizes or min(sizes) < 2:
        parser.error("--sizes: every size must be at least 2 pairs")
    check_out(args.out, args.force)
    rows = []
    with tempfile.TemporaryDirectory(prefix="compare_scale_") as name:
        tmp = Path(name)
        tiny = template(tmp)
        for n in sizes:
            va, vb = scores(n, seed=n)
            t0 = time.perf_counter()
            write_run(tiny, tmp / f"a{n}", va, "2026-01-01T00:00:00+00:00")
            write_run(tiny, tmp / f"b{n}", vb, "2026-01-02T00:00:00+00:00")
            made = time.perf_counter() - t0
            agree = agreement(va, vb) if n <= args.agree_max else []
            del va, vb
            lib = library(tmp / f"a{n}", tmp / f"b{n}", "")
            sliced = library(tmp / f"a{n}", tmp / f"b{n}", "topic")
            line = cli(tmp / f"a{n}", tmp / f"b{n}") if not args.no_cli else {}
            rows.append(
                {
                    "n_pairs": n,
                    "write_runs_s": round(made, 2),
                    "library": lib,
                    "library_by_topic": {k: v for k, v in sliced.items() if k != "metrics"},
                    "cli": line,
                    "agreement": agree,
                }
            )
            print(
                f"{n:>9} pairs  load {lib['load_s']:6.2f} s  compare {lib['compare_s']:6.2f} s  "
                f"RSS {lib['rss_kib'] / 1024:7.0f} MiB  --by topic {sliced['compare_s']:6.2f} s  "
                f"CLI {line.get('wall_s', float('nan')):6.2f} s",
                flush=True,
            )
            for m in lib["metrics"]:
                method = lib["methods"].get(m["metric"])
                print(f"           {m['metric']:<12} {method}  {json.dumps(m)}")
            for g in agree:
                print(
                    f"           agreement {g['metric']:<12} changed {g['changed']:>7}  "
                    f"CI bounds differ by {g['max_bound_diff_over_half_width']:.3f} x half-width  "
                    f"3 decimals {g['same_to_3_decimals']}  p {g['resampled'][2]:.3g} vs "
                    f"{g['normal'][2]:.3g}"
                )
            for d in ("a", "b"):
                for f in (tmp / f"{d}{n}").iterdir():
                    f.unlink()
    write_json(args.out, {"metrics": METRICS, "rows": rows})
    big = rows[-1]
    parts = [
        f"n_pairs={big['n_pairs']}",
        f"library_wall_s={big['library']['wall_s']:.2f}",
        f"compare_s={big['library']['compare_s']:.2f}",
        f"by_topic_compare_s={big['library_by_topic']['compare_s']:.2f}",
        f"rss_mib={big['library']['rss_kib'] / 1024:.0f}",
        f"under_2gib={big['library']['rss_kib'] * 1024 < 2 * GIB}",
    ]
    if big["cli"]:
        parts.append(f"cli_wall_s={big['cli']['wall_s']:.2f}")
    print("RESULT " + " ".join(parts))


if __name__ == "__main__":
    main()
