"""Throughput of the non-LLM metric set on 100k synthetic RAG samples, one core.

What is timed: ``ragmeter.evaluate(samples, METRICS, n_resamples=0)`` on already-validated
``Sample`` objects: the runner's compute loop for the fourteen metrics below (every non-LLM
metric, Unitxt's per-context ``k_precision`` included), aggregation (counts and means), the
input hash of the manifest and notes, single process. ``--repeat`` runs (default 5); the
headline is the median. The metrics return ScoreColumns (arrays; a row's Score is built when
read), so building every Score, which writing scores.jsonl or iterating the rows costs on top,
is timed separately (``materialize``) and reported with it (``with_scores``). The first run
also loads numba and the compiled counter (about 0.9 s, once per process); ``--no-kernel``
times the pure-Python counting. ``cpu_samples_per_s`` divides by CPU time (``time.process_time``),
the primary figure on a shared machine where other processes take turns on the core;
``samples_per_s`` divides by wall time. Reported separately: validation (raw dicts ->
Samples, ``ragmeter.load``) and the 95% bootstrap CIs (1000 resamples, every metric).

Against Unitxt, in the same run, on the first ``--unitxt-n`` rows: unitxt 1.26.10's own
per-instance ``compute`` (its stream's work per row, without its bootstrap) for its four
lexical/retrieval RAG metrics (token_k_precision, token_recall, mrr, map), against
``ragmeter.evaluate`` of the same four metrics on the same rows, both in CPU time. Needs the
``unitxt`` extra; ``--unitxt-n 0`` skips it.

Each sample has 5 contexts of ~100 words (Zipf-distributed vocabulary with punctuation and
capitals), a ~12-word answer partly copied from its contexts, 1-2 short reference answers, and
5 context ids with 1-3 relevant ids. By default every context is distinct (``--pool 0``): no
cache helps, the worst case. ``--pool N`` draws contexts from a corpus of N passages, as a
retriever over a real corpus does.

    .venv/bin/python benchmarks/lexical.py [--n 100000] [--pool 0] [--repeat 1]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _record import add_out, check_out, write_json

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

OUT = Path(__file__).parent / "results" / "lexical.json"
TARGET = 20_000
UNITXT_TARGET = 5.0  # ragmeter at least this many times faster than unitxt
# ragmeter metric -> (unitxt catalog metric, score key, the sample field given as references)
UNITXT = {
    "k_precision": ("metrics.token_overlap", "precision", "contexts"),
    "token_recall": ("metrics.token_overlap", "recall", "reference_answers"),
    "unitxt_mrr": ("metrics.mrr", "mrr", "reference_context_ids"),
    "unitxt_map": ("metrics.map", "map", "reference_context_ids"),
}
METRICS = [
    "k_precision",
    "k_precision_union",
    "token_recall",
    "token_precision",
    "token_f1",
    "exact_match",
    "mrr",
    "map",
    "unitxt_mrr",
    "unitxt_map",
    "ndcg@10",
    "precision@5",
    "recall@5",
    "hit@5",
]
_PUNCT = [",", ".", ";", ":", "!", "?", "(", ")", "'s", "-"]


def _vocabulary(rng: random.Random, size: int = 8000) -> tuple[list[str], list[float]]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = ["the", "a", "an", "of", "and", "to", "in", "is", "for", "on"]
    seen = set(words)
    while len(words) < size:
        w = "".join(rng.choice(letters) for _ in range(rng.randint(2, 10)))
        if w not in seen:
            seen.add(w)
            words.append(w)
    weights = [1.0 / (i + 1) for i in range(size)]  # Zipf-like
    return words, weights


def _passage(rng: random.Random, words: list[str], cum: list[float], n_words: int) -> str:
    out = []
    for i, w in enumerate(rng.choices(words, cum_weights=cum, k=n_words)):
        if i == 0 or out[-1].endswith("."):
            w = w.capitalize()
        if rng.random() < 0.08:
            w += rng.choice(_PUNCT)
        out.append(w)
    return " ".join(out) + "."


def make_records(n: int, pool: int = 0, seed: int = 0) -> list[dict]:
    """n raw sample dicts; pool > 0 draws contexts from a corpus of that many passages."""
    rng = random.Random(seed)
    words, weights = _vocabulary(rng)
    cum = []
    total = 0.0
    for w in weights:
        total += w
        cum.append(total)
    corpus = [_passage(rng, words, cum, rng.randint(80, 120)) for _ in range(pool)]
    records = []
    for i in range(n):
        if pool:
            ids = rng.sample(range(pool), 5)
            contexts = [corpus[j] for j in ids]
            context_ids = [f"d{j}" for j in ids]
        else:
            contexts = [_passage(rng, words, cum, rng.randint(80, 120)) for _ in range(5)]
            context_ids = [f"q{i}-d{j}" for j in range(5)]
        source = contexts[rng.randrange(5)].split()
        start = rng.randrange(max(1, len(source) - 12))
        copied = source[start : start + rng.randint(4, 10)]
        invented = rng.choices(words, cum_weights=cum, k=rng.randint(0, 6))
        answer = " ".join(copied + invented).capitalize() + "."
        refs = [" ".join(source[start : start + rng.randint(3, 8)])]
        if rng.random() < 0.3:
            refs.append(" ".join(rng.choices(words, cum_weights=cum, k=rng.randint(2, 8))))
        relevant = rng.sample(context_ids, rng.randint(0, 2))
        relevant += [f"missing-{i}-{j}" for j in range(rng.randint(0 if relevant else 1, 1))]
        records.append(
            {
                "question_id": f"q{i}",
                "question": f"Question {i}?",
                "contexts": contexts,
                "context_ids": context_ids,
                "answer": answer,
                "reference_answers": refs,
                "reference_context_ids": relevant,
            }
        )
    return records


def versus_unitxt(samples: list) -> dict:
    """CPU seconds of unitxt's per-instance compute and of ragmeter on the same rows."""
    import ragmeter
    from ragmeter.text import cached_tokens

    try:
        from unitxt.artifact import fetch_artifact
    except ImportError as exc:
        raise SystemExit(
            f"unitxt is not installed ({exc}): pip install 'ragmeter[unitxt]'"
        ) from exc
    metrics = {name: fetch_artifact(artifact)[0] for name, (artifact, _, _) in UNITXT.items()}
    inputs = []
    for s in samples:
        for name, (_, _, refs) in UNITXT.items():
            if refs == "reference_context_ids":
                inputs.append((name, [list(s.reference_context_ids)], list(s.context_ids)))
            else:
                inputs.append((name, list(getattr(s, refs)), s.answer))
    c0 = time.process_time()
    for name, references, prediction in inputs:
        metrics[name].compute(references, prediction, {})
    unitxt_cpu = time.process_time() - c0
    cached_tokens.cache_clear()
    c0 = time.process_time()
    ragmeter.evaluate(samples, list(UNITXT), n_resamples=0)
    ours_cpu = time.process_time() - c0
    return {
        "rows": len(samples),
        "metrics": {k: v[0] + ":" + v[1] for k, v in UNITXT.items()},
        "unitxt_cpu_s": unitxt_cpu,
        "ragmeter_cpu_s": ours_cpu,
        "speedup": unitxt_cpu / ours_cpu,
        "target_speedup": UNITXT_TARGET,
    }


def _timed_runs(samples: list, repeat: int) -> tuple[list, list, object, float]:
    """Wall and CPU seconds of each evaluate(), its last result, and the CPU seconds of
    building every Score of that result once."""
    import ragmeter
    from ragmeter.text import cached_tokens

    walls, cpus = [], []
    result = None
    for _ in range(repeat):
        cached_tokens.cache_clear()
        t0, c0 = time.perf_counter(), time.process_time()
        result = ragmeter.evaluate(samples, METRICS, n_resamples=0)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    assert result is not None
    c0 = time.process_time()
    for name in METRICS:
        column = result.scores[name]
        if hasattr(column, "materialize"):
            column.materialize()
    return walls, cpus, result, time.process_time() - c0


def _positive(text: str) -> int:
    """argparse type: a count of at least 1 (0 samples would divide by zero at the end)."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=_positive, default=100_000, help="synthetic samples")
    parser.add_argument("--pool", type=int, default=0, help="corpus size; 0 = unique contexts")
    parser.add_argument(
        "--repeat", type=_positive, default=5, help="timed runs; the median is kept"
    )
    parser.add_argument("--unitxt-n", type=int, default=10_000, help="rows timed against unitxt")
    add_out(parser, OUT)
    parser.add_argument("--no-kernel", action="store_true", help="count tokens in Python")
    args = parser.parse_args()
    check_out(args.out, args.force)
    from ragmeter.metrics import overlap_kernel

    if args.no_kernel:
        overlap_kernel.MIN_SAMPLES = 1 << 62
    kernel = overlap_kernel.available() and args.n >= overlap_kernel.MIN_SAMPLES

    import ragmeter
    from ragmeter.metrics.registry import resolve
    from ragmeter.result import aggregate

    load_before = os.getloadavg()[0]
    t0 = time.perf_counter()
    records = make_records(args.n, args.pool)
    t_gen = time.perf_counter() - t0
    words = sum(len(c.split()) for r in records[:1000] for c in r["contexts"]) / min(1000, args.n)

    t0 = time.perf_counter()
    samples = ragmeter.load(records)
    t_load = time.perf_counter() - t0
    del records
    resolve(METRICS)  # import the metric modules outside the timed region

    walls, cpus, result, t_scores = _timed_runs(samples, args.repeat)
    best, best_cpu = statistics.median(walls), statistics.median(cpus)
    versus = versus_unitxt(samples[: args.unitxt_n]) if args.unitxt_n else None

    t0 = time.perf_counter()
    for name in METRICS:
        aggregate(name, result.scores[name], n_resamples=1000, seed=0)
    t_boot = time.perf_counter() - t0

    rate, cpu_rate = args.n / best, args.n / best_cpu
    rows = []
    print(
        f"{args.n} samples, 5 contexts of ~{words / 5:.0f} words, "
        f"{'unique contexts' if not args.pool else f'corpus of {args.pool} passages'}"
    )
    print(f"{'metric':<16} {'mean':>8} {'ok':>8} {'undefined':>10}")
    for name in METRICS:
        agg = result.aggregates[name]
        rows.append(agg.to_dict())
        mean = "—" if agg.mean is None else f"{agg.mean:.4f}"
        print(f"{name:<16} {mean:>8} {agg.n_ok:>8} {agg.n_undefined:>10}")
    print(f"{'stage':<36} {'seconds':>8} {'samples/s':>10}")
    for stage, sec in (
        ("generate synthetic records", t_gen),
        ("validate (ragmeter.load)", t_load),
        ("metrics wall (evaluate, median)", best),
        ("metrics CPU (evaluate, median)", best_cpu),
        ("build every Score (CPU, once)", t_scores),
        ("metrics + every Score (CPU)", best_cpu + t_scores),
        (f"bootstrap CIs, {len(METRICS)} metrics x 1000", t_boot),
    ):
        print(f"{stage:<36} {sec:>8.2f} {args.n / sec:>10.0f}")
    report = {
        "n_samples": args.n,
        "pool": args.pool,
        "metrics": METRICS,
        "seconds": {
            "generate": t_gen,
            "validate": t_load,
            "metrics_wall_median": best,
            "metrics_cpu_median": best_cpu,
            "metrics_wall_runs": walls,
            "metrics_cpu_runs": cpus,
            "bootstrap": t_boot,
            "materialize_cpu": t_scores,
        },
        "compiled_counter": kernel,
        "with_scores_cpu_samples_per_s": args.n / (best_cpu + t_scores),
        "samples_per_s": rate,
        "cpu_samples_per_s": cpu_rate,
        "validate_samples_per_s": args.n / t_load,
        "target_samples_per_s": TARGET,
        "meets_target_cpu": cpu_rate >= TARGET,
        "meets_target_wall": rate >= TARGET,
        "versus_unitxt": versus,
        "aggregates": rows,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "load_average_1m": {"before": load_before, "after": os.getloadavg()[0]},
    }
    write_json(args.out, report)
    print(
        f"load average (1 min) before/after: {load_before:.2f} / {os.getloadavg()[0]:.2f} "
        f"on {os.cpu_count()} cores (shared machine: other work slows the timed loop)"
    )
    print(f"wrote {args.out}")
    print(
        f"metrics, median of {args.repeat}: {cpu_rate:.0f} samples/s of CPU time, "
        f"{rate:.0f} samples/s wall clock"
    )
    speedup = ""
    if versus:
        print(
            f"vs unitxt on {versus['rows']} rows, 4 metrics: unitxt {versus['unitxt_cpu_s']:.2f} s "
            f"CPU, ragmeter {versus['ragmeter_cpu_s']:.2f} s CPU: {versus['speedup']:.1f}x"
        )
        speedup = f" speedup_vs_unitxt={versus['speedup']:.1f}"
    print(
        f"RESULT cpu_samples_per_s={cpu_rate:.0f} samples_per_s={rate:.0f} target={TARGET}"
        + speedup
        + f" with_scores_cpu_samples_per_s={args.n / (best_cpu + t_scores):.0f}"
        + f" compiled_counter={int(kernel)}"
    )


if __name__ == "__main__":
    main()
