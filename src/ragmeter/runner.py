"""evaluate(): load -> validate -> plan -> compute -> aggregate.

Nothing computed is lost: an exception in one (sample, metric) becomes a failed Score with
its reason and the run goes on; rows lacking a metric's inputs are skipped and listed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

from ragmeter._perf import gc_paused
from ragmeter.errors import DataError, MetricError, Problem
from ragmeter.io import load
from ragmeter.metrics.base import Metric, Score
from ragmeter.metrics.registry import default_metrics, resolve
from ragmeter.result import EvaluationResult, aggregate
from ragmeter.sample import Sample


def plan_metrics(
    samples: Sequence[Sample],
    metrics: Sequence[str] | str | None,
    notes: list[str],
    available_needs: set[str] | None = None,
) -> list[Metric]:
    """Pick the metrics to run and check that each requested one applies to some row."""
    if metrics is None or (isinstance(metrics, (list, tuple)) and not metrics):
        chosen = []
        for m in default_metrics():
            if not any(m.missing(s) is None for s in samples):
                continue
            if available_needs is not None and not m.needs <= available_needs:
                lacking = ", ".join(sorted(m.needs - available_needs))
                notes.append(f"not run: {m.name} (no {lacking} available)")
                continue
            chosen.append(m)
        if not chosen:
            raise DataError(
                [
                    Problem(
                        None,
                        None,
                        "no metric applies: every metric needs fields "
                        "that no row has (see `ragmeter metrics`)",
                    )
                ]
            )
        return chosen
    try:
        chosen = resolve(metrics)
    except MetricError as exc:
        raise DataError([Problem(None, "metrics", str(exc))]) from None
    problems = []
    for m in chosen:
        if not any(m.missing(s) is None for s in samples):
            problems.append(
                Problem(
                    None,
                    m.required_text(),
                    f"metric '{m.name}' needs {m.required_text()}, but no row has these fields",
                )
            )
    if problems:
        raise DataError(problems)
    return chosen


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
    available = _available_needs(settings) if metrics is None else None
    chosen = plan_metrics(samples, metrics, notes, available)

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
        from ragmeter.model_runner import run_model_metrics

        model_scores, usage = await run_model_metrics(
            model_metrics, samples, settings, progress=progress
        )
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


def _available_needs(settings: Any) -> set[str]:
    """Which model resources can be had without an explicit request (used for defaults)."""
    try:
        from ragmeter.model_runner import available_needs
    except ImportError:
        return set()
    return available_needs(settings)
