"""Runs every (metric, sample) ``acompute`` of the model-based metrics under bounded
concurrency, with per-sample accounting and a progress bar.

The engine knows nothing of metrics and metrics know nothing of HTTP or threads: this module
is where the two meet. Any exception from a metric becomes a failed Score with its reason.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from ragmeter.engine.accounting import CALL_TAG
from ragmeter.metrics.base import Metric, Score
from ragmeter.plan import mode_of_metric
from ragmeter.protocols import Resources
from ragmeter.redact import describe, redact
from ragmeter.resources import Built
from ragmeter.sample import Sample


def _resource_missing(
    metric: Metric, resources: Resources, unavailable: dict[str, str]
) -> str | None:
    """Why the metric cannot run in the mode this run chose, or None when it can."""
    for need in sorted(metric.needs_in(mode_of_metric(metric, resources.options))):
        if getattr(resources, need, None) is None:
            return unavailable.get(need, f"no {need} configured")
    return None


async def score_all(
    metrics: Sequence[Metric], samples: Sequence[Sample], built: Built, limit: int, progress: bool
) -> dict[str, list[Score]]:
    resources = built.resources
    scores: dict[str, list[Score | None]] = {m.name: [None] * len(samples) for m in metrics}
    gate = asyncio.Semaphore(limit)
    jobs: list[tuple[Metric, int, Sample]] = []
    for metric in metrics:
        missing_resource = _resource_missing(metric, resources, built.unavailable)
        for i, sample in enumerate(samples):
            reason = metric.missing(sample)
            if reason is not None:
                scores[metric.name][i] = Score.skipped(reason)
            elif missing_resource is not None:
                scores[metric.name][i] = Score.failed(missing_resource)
            else:
                jobs.append((metric, i, sample))

    bar = _ProgressBar(len(jobs)) if progress and jobs else None

    async def one(metric: Metric, i: int, sample: Sample) -> None:
        CALL_TAG.set((metric.name, sample.question_id))
        async with gate:
            try:
                assert metric.acompute is not None
                score = await metric.acompute(sample, resources)
                if not isinstance(score, Score):
                    score = Score.failed(
                        f"internal error: {metric.name} returned "
                        f"{type(score).__name__}, not a Score"
                    )
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                score = Score.failed(f"internal error: {describe(exc)}")
        if score.reason:
            score.reason = redact(score.reason)
        used = built.accountant.per_sample.get((metric.name, sample.question_id))
        if used is not None and "judge_usage" not in score.details:
            score.details["judge_usage"] = {
                "calls": used.calls,
                "cache_hits": used.cache_hits,
                "prompt_tokens": used.prompt_tokens,
                "completion_tokens": used.completion_tokens,
            }
        scores[metric.name][i] = score
        if bar is not None:
            bar.advance()

    try:
        await asyncio.gather(*(one(m, i, s) for m, i, s in jobs))
    finally:
        if bar is not None:
            bar.stop()
    return {
        name: [s if s is not None else Score.failed("lost: no score recorded") for s in col]
        for name, col in scores.items()
    }


class _ProgressBar:
    """A rich progress bar with ETA on stderr; silent when stderr is not a terminal."""

    def __init__(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            TextColumn("judging"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        self._task = self._progress.add_task("judging", total=total)
        self._progress.start()

    def advance(self) -> None:
        self._progress.advance(self._task)

    def stop(self) -> None:
        self._progress.stop()
