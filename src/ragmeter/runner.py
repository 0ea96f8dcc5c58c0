"""evaluate(): load -> validate -> plan -> build resources -> score -> aggregate -> result.

Nothing computed is lost: an exception in one (sample, metric) becomes a failed Score with
its reason and the run goes on; rows lacking a metric's inputs are skipped and listed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

from ragmeter._perf import gc_paused, relaxed_gc
from ragmeter.config import Settings, as_settings
from ragmeter.io import load
from ragmeter.metrics.base import Metric, Score
from ragmeter.plan import needs_of, plan_metrics
from ragmeter.resources import available_needs, build_resources
from ragmeter.result import EvaluationResult, aggregate
from ragmeter.sample import Sample
from ragmeter.scheduler import score_all


def _run_compute(metric: Metric, sample: Sample) -> Score:
    assert metric.compute is not None
    try:
        return metric.compute(sample)
    except Exception as exc:  # one bad (sample, metric) must not sink the run
        return Score.failed(f"internal error: {type(exc).__name__}: {exc}")


def _text_match_note(metric: Metric, scores: list[Score]) -> str | None:
    n = sum(1 for s in scores if s.details.get("matched_by") == "text")
    if n:
        return (
            f"{metric.name}: {n} sample(s) had no ids; retrieved contexts were matched to "
            "reference contexts by normalised text"
        )
    return None


def evaluate(
    data: Any,
    metrics: Sequence[str] | str | None = None,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    settings: Any = None,
    progress: bool = False,
) -> EvaluationResult:
    """Score every sample with every metric; see EvaluationResult for what comes back.

    ``data`` is anything ``ragmeter.load`` takes. ``metrics`` is a list of names or a
    comma-separated string; by default every metric whose inputs are present in some row.
    ``settings`` configures judges and embedders for the model-based metrics.
    """
    holder: list[EvaluationResult] = []

    async def run() -> None:
        # The result is handed back through a list, not as the coroutine's return value:
        # Python 3.11's asyncio.Runner can repr() the finished main task, result included,
        # which costs seconds on a large result.
        holder.append(
            await aevaluate(
                data,
                metrics,
                n_resamples=n_resamples,
                confidence=confidence,
                seed=seed,
                settings=settings,
                progress=progress,
            )
        )

    asyncio.run(run())
    return holder[0]


async def aevaluate(
    data: Any,
    metrics: Sequence[str] | str | None = None,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    settings: Any = None,
    progress: bool = False,
) -> EvaluationResult:
    """The async form of evaluate(), for callers already inside an event loop."""
    started = time.perf_counter()
    samples = load(data)
    notes: list[str] = []
    s = as_settings(settings)
    available = available_needs(s) if metrics is None else None
    chosen = plan_metrics(samples, metrics, notes, available, s.metric_options())

    scores: dict[str, list[Score]] = {}
    sync = [m for m in chosen if not m.is_async]
    columns: list[list[Score]] = [[] for _ in sync]
    # Sample by sample, so the metrics of one sample share their cached intermediate results.
    with gc_paused():
        for sample in samples:
            missing: dict[int, str | None] = {}  # metrics share requirement tuples
            for metric, column in zip(sync, columns, strict=True):
                key = id(metric.requires)
                if key not in missing:
                    missing[key] = metric.missing(sample)
                reason = missing[key]
                column.append(
                    Score.skipped(reason) if reason is not None else _run_compute(metric, sample)
                )
    scores.update((m.name, column) for m, column in zip(sync, columns, strict=True))
    usage: dict[str, Any] = {}
    model_metrics = [m for m in chosen if m.is_async]
    if model_metrics:
        model_scores, usage = await run_model_metrics(model_metrics, samples, s, progress=progress)
        scores.update(model_scores)

    names = [m.name for m in chosen]
    aggregates = {
        m: aggregate(m, scores[m], n_resamples=n_resamples, confidence=confidence, seed=seed)
        for m in names
    }
    # Text matching happens only where ids are missing: scan the scores only then.
    some_without_ids = any(
        s.context_ids is None or s.reference_context_ids is None for s in samples
    )
    for metric in chosen:
        skipped = aggregates[metric.name].n_skipped
        if skipped:
            notes.append(
                f"{metric.name}: {skipped} sample(s) skipped: they lack {metric.required_text()}"
            )
        note = _text_match_note(metric, scores[metric.name]) if some_without_ids else None
        if note:
            notes.append(note)
    usage["wall_s"] = round(time.perf_counter() - started, 3)
    config = {"metrics": names, "n_resamples": n_resamples, "confidence": confidence, "seed": seed}
    if settings is not None and hasattr(settings, "public_dict"):
        config["settings"] = settings.public_dict()
    return EvaluationResult(
        samples=samples,
        metrics=names,
        scores=scores,
        aggregates=aggregates,
        notes=notes,
        usage=usage,
        config=config,
    )


async def run_model_metrics(
    metrics: Sequence[Metric],
    samples: Sequence[Sample],
    settings: Settings | dict[str, Any] | None = None,
    *,
    progress: bool = False,
) -> tuple[dict[str, list[Score]], dict[str, Any]]:
    """Scores of every model-based metric on every sample, and what it cost."""
    s = as_settings(settings)
    started = time.perf_counter()
    built = await asyncio.to_thread(build_resources, s, needs_of(metrics, s.metric_options()))
    # A local model is one worker: run (metric, sample) tasks one by one so consecutive
    # prompts share their prefix in its KV cache; remote servers take 2x concurrency.
    limit = 1 if built.local else 2 * s.concurrency
    try:
        with relaxed_gc():
            scores = await score_all(metrics, samples, built, limit, progress)
    finally:
        await built.aclose()
    usage = built.accountant.summary()
    usage["judge"] = built.resources.judge.name if built.resources.judge else None
    usage["embedder"] = built.resources.embedder.name if built.resources.embedder else None
    usage["unavailable"] = dict(built.unavailable)
    usage["model_wall_s"] = round(time.perf_counter() - started, 3)
    return scores, usage
