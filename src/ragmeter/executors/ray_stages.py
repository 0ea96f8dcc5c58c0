"""The stages a Ray run maps over its input, and how batches carry samples and scores.

A run of arithmetic metrics only has one stage of Ray tasks (``compute_stage``): read a chunk
of the file (see _ray_source), validate its rows into Samples, score the arithmetic metrics.
A run with model-based metrics has one stage too, a pool of Ray actors (``JudgeStage``) that
does the same and then scores the model-based metrics: each actor holds a ModelSession (one
local model, or one HTTP client per judge endpoint it was dealt) for its whole life, opened in
the actor's own event loop; each judged batch also carries its actor's usage so far (see
_ray_usage).

Why the actors read their chunks themselves instead of taking the rows from a stage of tasks
before them: that stage's first worker had to start, import Ray Data and ragmeter and read a
chunk before any actor had a batch, and on a small machine it started at the same time as the
actors, on the same cores: traced on 2 cores, actors ready for seconds waited for their first
batch (benchmarks/results/scale_judged_ray_profile.json). Reading and validating a chunk costs
a few milliseconds; it runs in a thread of the actor, so the other batch's calls go on.

Out of a stage a row is two JSON strings (the sample, its scores): plain columns any Ray
version moves between nodes, and exactly what the driver writes back.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ragmeter.config import Settings
from ragmeter.executors._ray_source import chunk_samples
from ragmeter.executors._ray_usage import report
from ragmeter.executors.session import ModelSession
from ragmeter.io import json_line
from ragmeter.metrics.base import Metric, Score
from ragmeter.sample import Sample
from ragmeter.scheduler import compute_all


def encode_scores(scores: dict[str, Sequence[Score]], i: int) -> str:
    return json_line(
        {
            name: [col[i].value, col[i].status, col[i].reason, col[i].details]
            for name, col in scores.items()
        }
    )


def decode_scores(texts: Sequence[str], names: Sequence[str]) -> dict[str, list[Score]]:
    rows = [json.loads(t) for t in texts]
    return {n: [Score(*row[n]) for row in rows] for n in names}


@dataclass
class Chunks:
    """How a stage reads its chunks: the file, its kind, the arithmetic metrics and the rows
    scored at a time (``batch_size``)."""

    path: str
    kind: str
    metrics: list[Metric]
    batch_size: int

    def scored(self, batch: Any) -> Iterator[tuple[list[Sample], dict[str, list[Score]]]]:
        """Chunks of the file -> samples, numbered as in the whole file and validated (the
        driver checked the file, so this cannot fail on a file that did not change) ->
        arithmetic scores, ``batch_size`` rows at a time."""
        for chunk in batch.to_pylist():
            for samples in chunk_samples(self.path, self.kind, chunk, self.batch_size):
                yield samples, compute_all(self.metrics, samples)


def _rows(samples: Sequence[Sample], scores: dict[str, Sequence[Score]]) -> dict[str, list[str]]:
    return {
        "sample": [s.model_dump_json() for s in samples],
        "scores": [encode_scores(scores, i) for i in range(len(samples))],
    }


def compute_stage(
    batch: Any, *, path: str, kind: str, metrics: list[Metric], batch_size: int
) -> Iterator[dict[str, list[str]]]:
    """A run without model-based metrics: chunks -> rows with their arithmetic scores."""
    for samples, scores in Chunks(path, kind, metrics, batch_size).scored(batch):
        yield _rows(samples, scores)


class JudgeStage:
    """A Ray Data callable class: one per actor, one ModelSession per actor and endpoint.

    ``dealer`` hands out judge endpoints round-robin over ``base_url``'s list, one per batch
    (not one per actor: Ray Data may route every batch to whichever actor is free first, and
    a server dealt to an idle actor would sit idle too). An actor opens a session the first
    time it is dealt an endpoint and keeps it; every actor caches under the same
    ``cache_url``. The sessions are closed when Ray Data lets the actor go (``__del__``).
    """

    def __init__(
        self, metrics: list[Metric], settings: Settings, dealer: Any, chunks: Chunks
    ) -> None:
        self.metrics = metrics
        self.settings = settings
        self.dealer = dealer
        self.chunks = chunks
        self.sessions: dict[str | None, ModelSession] = {}
        self._opening: asyncio.Lock | None = None
        self._loop: asyncio.AbstractEventLoop | None = None  # the sessions' (Ray Data's)
        self.actor = uuid.uuid4().hex  # a restarted actor reports as a new one
        self.reports = 0

    async def _open(self) -> ModelSession:
        url = None if self.dealer is None else await self.dealer.next.remote()
        if self._opening is None:
            self._opening = asyncio.Lock()
            self._loop = asyncio.get_running_loop()
        async with self._opening:
            if url not in self.sessions:
                s = self.settings
                if url is not None:
                    s = s.model_copy(update={"base_url": url})
                session = ModelSession(self.metrics, s)
                await session.open()
                self.sessions[url] = session
        return self.sessions[url]

    async def __call__(self, batch: Any) -> dict[str, list[str]]:
        """Chunks -> rows scored by every metric. Reading, validating and the arithmetic run
        in a thread, so the calls of the batch the actor scores alongside keep going."""
        session = await self._open()
        rows: dict[str, list[str]] = {"sample": [], "scores": []}
        scored = self.chunks.scored(batch)
        while (part := await asyncio.to_thread(next, scored, None)) is not None:
            samples, scores = part
            scores.update(await session.score(samples))
            for key, values in _rows(samples, scores).items():
                rows[key].extend(values)
        n = len(rows["sample"])  # a chunk holds at least one row (_ray_source); be safe
        self.reports += 1  # this actor's usage so far, on the batch's first row (_ray_usage)
        usage = [report(self.actor, self.reports, self.sessions)] + [""] * (n - 1) if n else []
        return {**rows, "usage": usage}

    def __del__(self) -> None:
        """Ray Data's clean-up hook for a callable class: when the pipeline is done with an
        actor it drops its references, Ray calls the actor's ``__ray_shutdown__``, which
        lets go of this instance (a ``ray.data.ActorPoolStrategy`` offers no other). Not
        called when the actor is killed (``ray.shutdown`` of a Ray the run started, a
        crash): the process and its sockets end with it, silently.

        Why: on a Ray the user started, the actors exit after the run and the HTTP clients
        left open printed aiohttp's "Unclosed client session" / "Unclosed connector" on the
        user's console."""
        self.close()

    def close(self, timeout: float = 10.0) -> None:
        """Close every session in the event loop it was opened in (Ray Data runs an async
        callable class in a loop of its own, in another thread), waiting up to
        ``timeout`` seconds; never raises, as it runs in ``__del__``."""
        sessions = list(getattr(self, "sessions", {}).values())
        loop = getattr(self, "_loop", None)
        self.sessions = {}
        if not sessions or loop is None or loop.is_closed():
            return

        async def close_all() -> None:
            await asyncio.gather(*(session.close() for session in sessions), return_exceptions=True)

        try:
            if not loop.is_running():
                loop.run_until_complete(close_all())
            elif _running_loop() is loop:  # called in the loop itself: it cannot be waited on
                loop.create_task(close_all())
            else:
                asyncio.run_coroutine_threadsafe(close_all(), loop).result(timeout)
        except Exception:  # a clean-up that failed leaves what the process exit leaves
            return


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class Dealer:
    """Round-robin over the judge endpoints (a tiny Ray actor)."""

    def __init__(self, urls: list[str]) -> None:
        self.urls = urls
        self.n = 0

    def next(self) -> str:
        url = self.urls[self.n % len(self.urls)]
        self.n += 1
        return url

    def dealt(self) -> int:
        return self.n
