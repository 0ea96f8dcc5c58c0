"""A model session: judge and embedder built once, preflighted once, then used for many
batches of samples.

Why: ``evaluate`` scores one list of samples, so it builds its resources, scores and closes.
A streamed run (and each Ray actor) scores batch after batch; building a local model or an
HTTP client per batch would dominate. The session keeps them open and adds up their usage.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

from ragmeter._perf import relaxed_gc
from ragmeter.config import Settings, as_settings
from ragmeter.executors.judge_pool import JudgePool
from ragmeter.metrics.base import Metric, Score
from ragmeter.plan import needs_of
from ragmeter.resources import Built, build_resources
from ragmeter.sample import Sample
from ragmeter.scheduler import score_all


class ModelSession:
    """``async with ModelSession(metrics, settings) as session: await session.score(batch)``."""

    def __init__(
        self,
        metrics: Sequence[Metric],
        settings: Settings | dict[str, Any] | None = None,
        *,
        progress: bool = False,
        judge_pool: JudgePool | None = None,
    ) -> None:
        self.metrics = list(metrics)
        self.settings = as_settings(settings)
        self.progress = progress
        self.judge_pool = judge_pool  # lends an in-process judge loaded by an earlier run
        self.facts: dict[str, Any] = {}
        self.built: Built | None = None
        self._started = 0.0
        self._closed = False

    async def __aenter__(self) -> ModelSession:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def open(self) -> None:
        s = self.settings
        self._started = time.perf_counter()
        needs = needs_of(self.metrics, s.metric_options())
        self.built = await asyncio.to_thread(build_resources, s, needs, judge_pool=self.judge_pool)
        try:
            preflight = await self._preflight()
        except BaseException:
            await self.close()
            raise
        self.facts.update(self.built.facts)
        if preflight and self.facts.get("judge") is not None:
            self.facts["judge"] = {**self.facts["judge"], **preflight}

    @property
    def limit(self) -> int:
        """(metric, sample) jobs in flight. A local model is one worker: jobs run one by one
        so consecutive prompts share their prefix in its KV cache; so does a remote judge at
        concurrency 1 (a one-slot server reuses the previous prompt's prefix only when one
        sample's calls arrive back to back). Other remote servers take 2x concurrency."""
        assert self.built is not None
        s = self.settings
        return 1 if self.built.local or s.concurrency == 1 else 2 * s.concurrency

    async def score(self, samples: Sequence[Sample]) -> dict[str, list[Score]]:
        """Every model-based metric of the session on every sample of the batch."""
        assert self.built is not None, "open() the session first"
        with relaxed_gc():
            return await score_all(self.metrics, samples, self.built, self.limit, self.progress)

    def usage(self) -> dict[str, Any]:
        """Calls, tokens and costs so far, as ``EvaluationResult.usage`` reports them."""
        assert self.built is not None
        built = self.built
        usage = built.accountant.summary()
        usage["judge"] = built.resources.judge.name if built.resources.judge else None
        usage["embedder"] = built.resources.embedder.name if built.resources.embedder else None
        usage["unavailable"] = dict(built.unavailable)
        usage["model_wall_s"] = round(time.perf_counter() - self._started, 3)
        return usage

    async def close(self) -> None:
        if self.built is not None and not self._closed:
            self._closed = True
            await self.built.aclose()

    async def _preflight(self) -> dict[str, Any]:
        assert self.built is not None
        return await preflight(self.settings, self.built)


async def preflight(settings: Settings, built: Built) -> dict[str, Any]:
    """One tiny request to a remote judge before the first row (``Settings.preflight``): an
    unreachable judge raises JudgeUnreachable now, and ``structured_mode="auto"`` is settled
    for this endpoint. Await it in the run's event loop, because the backend's HTTP client
    belongs to the loop it was first used in. What it found, for the run's facts."""
    judge = built.resources.judge
    if not settings.preflight or built.local or judge is None or not hasattr(judge, "preflight"):
        return {}
    return dict(await judge.preflight())
