"""Throughput of the non-LLM metric set on 100k synthetic RAG samples, one core.

What is timed (the headline, ``samples_per_s``): ``ragmeter.evaluate(samples, METRICS,
n_resamples=0)`` on already-validated ``Sample`` objects: the runner's compute loop for the
twelve metrics below, aggregation (counts and means) and notes, single process, wall clock.
``cpu_samples_per_s`` divides by the CPU time of the same call instead, which is the fairer
figure on a shared machine where other processes take turns on the core. Reported
separately: validation (raw dicts -> Samples, ``ragmeter.load``) and the 95% bootstrap CIs
(1000 resamples, all twelve metrics).

Each sample has 5 contexts of ~100 words (Zipf-distributed vocabulary with punctuation and
capitals), a ~12-word answer partly copied from its contexts, 1-2 short reference answers, and
5 context ids with 1-3 relevant ids. By default every context is distinct (``--pool 0``): no
cache helps, the worst case. ``--pool N`` draws contexts from a corpus of N passages, as a
retriever over a real corpus does.

    .venv/bin/python benchmarks/lexical.py [--n 100000] [--pool 0] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

OUT = Path(__file__).parent / "results" / "lexical.json"
TARGET = 20_000
METRICS = [
    "k_precision",
    "token_recall",
    "token_precision",
    "token_f1",
    "exact_match",
    "mrr",
    "map",
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--pool", type=int, default=0, help="corpus size; 0 = unique contexts")
    parser.add_argument("--repeat", type=int, default=1, help="timed runs; the best is kept")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    import ragmeter
    from ragmeter.metrics.registry import resolve
    from ragmeter.result import aggregate
    from ragmeter.text import cached_tokens

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

    best = best_cpu = float("inf")
    result = None
    for _ in range(args.repeat):
        cached_tokens.cache_clear()
        t0, c0 = time.perf_counter(), time.process_time()
        result = ragmeter.evaluate(samples, METRICS, n_resamples=0)
        best = min(best, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    assert result is not None

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
        ("metrics (evaluate, n_resamples=0)", best),
        ("bootstrap CIs, 12 metrics x 1000", t_boot),
    ):
        print(f"{stage:<36} {sec:>8.2f} {args.n / sec:>10.0f}")
    report = {
        "n_samples": args.n,
        "pool": args.pool,
        "metrics": METRICS,
        "seconds": {"generate": t_gen, "validate": t_load, "metrics": best, "bootstrap": t_boot},
        "samples_per_s": rate,
        "cpu_samples_per_s": cpu_rate,
        "validate_samples_per_s": args.n / t_load,
        "target_samples_per_s": TARGET,
        "meets_target": rate >= TARGET,
        "aggregates": rows,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "load_average_1m": {"before": load_before, "after": os.getloadavg()[0]},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(
        f"load average (1 min) before/after: {load_before:.2f} / {os.getloadavg()[0]:.2f} "
        f"on {os.cpu_count()} cores (shared machine: other work slows the timed loop)"
    )
    print(f"wrote {args.out}")
    print(f"metrics: {rate:.0f} samples/s wall clock, {cpu_rate:.0f} samples/s of CPU time")
    print(f"RESULT samples_per_s={rate:.0f} cpu_samples_per_s={cpu_rate:.0f} target={TARGET}")


if __name__ == "__main__":
    main()
