"""Runs every (metric, sample) ``acompute`` of the model-based metrics under bounded
concurrency, with per-sample accounting and progress (a bar on a terminal, plain lines in
CI logs).

The engine knows nothing of metrics and metrics know nothing of HTTP or threads: this module
is where the two meet. Any exception from a metric becomes a failed Score with its reason,
except ``RunAborted`` (the judge cannot be reached): it cancels the remaining jobs and ends
the run, since every further call would fail the same way.
"""

from __future__ import annotations

import asyncio
import sys
import time
import warnings
from collections.abc import Sequence
from operator import attrgetter
from typing import Any, TextIO

import numpy as np

from ragmeter._perf import gc_paused
from ragmeter.engine.accounting import CALL_TAG
from ragmeter.errors import RunAborted
from ragmeter.metrics.base import Metric, Score, checked
from ragmeter.metrics.column import ScoreColumn, skipped_where
from ragmeter.plan import mode_of_metric
from ragmeter.protocols import Resources
from ragmeter.redact import describe, redact
from ragmeter.resources import Built
from ragmeter.sample import Sample


def run_compute(metric: Metric, sample: Sample) -> Score:
    """One arithmetic metric on one sample; an exception becomes a failed Score."""
    assert metric.compute is not None
    try:
        return checked(metric.compute(sample))
    except Exception as exc:  # one bad (sample, metric) must not sink the run
        return Score.failed(f"internal error: {describe(exc)}")  # masked, one line


def compute_all(metrics: Sequence[Metric], samples: Sequence[Sample]) -> dict[str, Sequence[Score]]:
    """Every arithmetic (non-model) metric on every sample.

    A metric with ``compute_batch`` scores the whole batch at once (a ScoreColumn; the
    samples lacking its fields are skipped as below); should that raise, it falls back to
    the per-sample path, where one bad sample fails alone. The others go sample by sample,
    so the metrics of one sample share their cached intermediate results (tokens, the
    K-Precision support); metrics sharing a requirement tuple check it once.
    """
    out: dict[str, Sequence[Score]] = {}
    shared: dict[Any, Any] = {}
    present_by_group: dict[int, tuple[list[str | None], list[int], Sequence[Sample]]] = {}
    one_by_one: list[Metric] = []
    fields: dict[str, np.ndarray] = {}  # field -> whether each sample has it
    with gc_paused():
        for metric in metrics:
            if metric.compute_batch is None:
                one_by_one.append(metric)
                continue
            key = id(metric.requires)
            if key not in present_by_group:
                reasons = _missing_reasons(metric, samples, fields)
                present = [i for i, r in enumerate(reasons) if r is None]
                rows = samples if len(present) == len(samples) else [samples[i] for i in present]
                present_by_group[key] = (reasons, present, rows)
            reasons, present, rows = present_by_group[key]
            try:
                column = metric.compute_batch(rows, shared)
            except Exception as exc:  # the per-sample path says which sample and why
                warnings.warn(
                    f"{metric.name}: scoring the batch at once failed ({describe(exc)}); "
                    "scoring it sample by sample",
                    RuntimeWarning,
                    stacklevel=2,
                )
                one_by_one.append(metric)
                continue
            if not isinstance(column, ScoreColumn) or len(column) != len(rows):
                one_by_one.append(metric)  # not what compute_batch promises: score one by one
                continue
            out[metric.name] = (
                column if rows is samples else skipped_where(column, reasons, present)
            )
        if one_by_one:
            out.update(_compute_each(one_by_one, samples))
    return {m.name: out[m.name] for m in metrics}


def _missing_reasons(
    metric: Metric, samples: Sequence[Sample], present: dict[str, np.ndarray]
) -> list[str | None]:
    """``metric.missing`` of every sample: whether each field is there is read once per batch
    (``present``, shared by the metrics) and the reason built only for a sample lacking one."""
    usable = np.zeros(len(samples), dtype=np.bool_)
    for group in metric.requires:
        have = np.ones(len(samples), dtype=np.bool_)
        for name in group:
            if name not in present:
                values = map(attrgetter(name), samples)
                present[name] = np.fromiter(
                    (v is not None for v in values), dtype=np.bool_, count=len(samples)
                )
            have &= present[name]
        usable |= have
    reasons: list[str | None] = [None] * len(samples)
    for i in np.flatnonzero(~usable).tolist():
        reasons[i] = metric.missing(samples[i])
    return reasons


def _compute_each(metrics: Sequence[Metric], samples: Sequence[Sample]) -> dict[str, list[Score]]:
    columns: list[list[Score]] = [[] for _ in metrics]
    for sample in samples:
        missing: dict[int, str | None] = {}
        for metric, column in zip(metrics, columns, strict=True):
            key = id(metric.requires)
            if key not in missing:
                missing[key] = metric.missing(sample)
            reason = missing[key]
            column.append(
                Score.skipped(reason) if reason is not None else run_compute(metric, sample)
            )
    return {m.name: column for m, column in zip(metrics, columns, strict=True)}


def _resource_missing(
    metric: Metric, resources: Resources, unavailable: dict[str, str]
) -> str | None:
    """Why the metric cannot run in the mode this run chose, or None when it can."""
    for need in sorted(metric.needs_in(mode_of_metric(metric, resources.options))):
        if getattr(resources, need, None) is None:
            return unavailable.get(need, f"no {need} configured")
    return None


async def _stagger(k: int, limit: int) -> None:
    """Job ``k`` of the first wave waits ``k`` turns of the event loop, so the first job's
    calls are on the wire while the next job splits its claims and picks its evidence.
    Started together, every call slot waited for the whole wave's CPU work (about 60 ms for
    16 WikiEval samples, 4% of a 50-sample run against a server). Later jobs start as
    earlier ones end, staggered already."""
    for _ in range(k if k < limit else 0):
        await asyncio.sleep(0)


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

    if limit > 1:
        # Many calls in flight (a remote judge): start the biggest jobs first, so the run does
        # not end waiting on one long sample's chain of calls (longest-processing-time first).
        # One worker (the local judge) keeps the input order: consecutive prompts share their
        # prefix in its KV cache, and the call order stays fixed.
        jobs.sort(key=lambda job: -_work_estimate(job[0], job[2]))
    bar = make_progress(len(jobs)) if progress and jobs else None

    async def one(k: int, metric: Metric, i: int, sample: Sample) -> None:
        CALL_TAG.set((metric.name, sample.question_id))
        async with gate:
            await _stagger(k, limit)
            try:
                assert metric.acompute is not None
                score = await metric.acompute(sample, resources)
                if not isinstance(score, Score):
                    score = Score.failed(
                        f"internal error: {metric.name} returned "
                        f"{type(score).__name__}, not a Score"
                    )
            except (asyncio.CancelledError, RunAborted):
                raise
            except Exception as exc:
                score = Score.failed(f"internal error: {describe(exc)}")
        score = checked(score)  # no NaN or inf is ever an ok score
        if score.reason:
            score.reason = redact(score.reason)
        used = built.accountant.per_sample.get((metric.name, sample.question_id))
        if used is not None and "judge_usage" not in score.details:
            score.details["judge_usage"] = {
                "calls": used.calls,
                "cache_hits": used.cache_hits,
                "prompt_tokens": used.prompt_tokens,
                "completion_tokens": used.completion_tokens,
                "computed_tokens": used.computed_tokens,
            }
        scores[metric.name][i] = score
        if bar is not None:
            bar.advance(failed=score.status == "failed")

    tasks = [asyncio.ensure_future(one(k, m, i, s)) for k, (m, i, s) in enumerate(jobs)]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        # RunAborted (or a cancellation): stop every job still waiting, then re-raise.
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    finally:
        if bar is not None:
            bar.stop()
    return {
        name: [s if s is not None else Score.failed("lost: no score recorded") for s in col]
        for name, col in scores.items()
    }


def _work_estimate(metric: Metric, sample: Sample) -> int:
    """Characters of the fields the metric reads: judge calls grow with the answer's
    claims and the contexts' sentences."""
    fields = {f for group in metric.requires for f in group}
    total = 0
    for name in fields:
        value = getattr(sample, name, None)
        if isinstance(value, str):
            total += len(value)
        elif isinstance(value, list):
            total += sum(len(v) for v in value if isinstance(v, str))
    return total


def make_progress(total: int, stream: TextIO | None = None) -> Any:
    """A rich bar when stderr is a terminal, else plain lines that read well in CI logs."""
    from rich.console import Console

    if stream is None and Console(stderr=True).is_terminal:
        return _ProgressBar(total)
    return PlainProgress(total, stream or sys.stderr)


class PlainProgress:
    """One line every 10% of the jobs or every 30 s, whichever comes first: done/total,
    failures, rate and ETA. For logs (CI, nohup), where a redrawn bar shows nothing."""

    def __init__(
        self, total: int, stream: TextIO, every_s: float = 30.0, clock: Any = time.monotonic
    ) -> None:
        self.total, self.stream, self.every_s, self.clock = total, stream, every_s, clock
        self.done = self.failed = 0
        self.started = self.last_time = clock()
        self.step = max(1, -(-total // 10))  # ceil(10%)
        self.next_done = self.step

    def advance(self, failed: bool = False) -> None:
        self.done += 1
        self.failed += int(failed)
        now = self.clock()
        if self.done >= self.next_done or now - self.last_time >= self.every_s:
            self.emit(now)

    def emit(self, now: float) -> None:
        elapsed = max(now - self.started, 1e-9)
        rate = self.done / elapsed
        left = (self.total - self.done) / rate if rate > 0 else float("inf")
        eta = "?" if left == float("inf") else _hms(left)
        pct = 100 * self.done // max(1, self.total)
        self.stream.write(
            f"judging: {self.done}/{self.total} ({pct}%), {self.failed} failed, "
            f"{rate:.2f}/s, elapsed {_hms(elapsed)}, ETA {eta}\n"
        )
        self.stream.flush()
        self.last_time = now
        while self.next_done <= self.done:
            self.next_done += self.step

    def stop(self) -> None:
        if self.done and self.done < self.total:  # stopped early: say where
            self.emit(self.clock())


def _hms(seconds: float) -> str:
    s = round(seconds)
    return (
        f"{s // 3600}h{s % 3600 // 60:02d}m{s % 60:02d}s"
        if s >= 3600
        else f"{s // 60}m{s % 60:02d}s"
    )


class _ProgressBar:
    """A rich progress bar with ETA on stderr (a terminal)."""

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

    def advance(self, failed: bool = False) -> None:
        self._progress.advance(self._task)

    def stop(self) -> None:
        self._progress.stop()
