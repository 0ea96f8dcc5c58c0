"""The two stages a Ray run maps over its batches, and how batches carry samples and scores.

Stage 1 (Ray tasks): read a chunk of the file (see _ray_source), validate its rows into
Samples, score the arithmetic metrics. Stage 2 (a pool of Ray actors, only when judged
metrics are asked for): each actor holds a ModelSession (one local model, or one HTTP client
per judge endpoint it was dealt) for its whole life, opened in the actor's own event loop,
and scores the model-based metrics; each judged batch also carries its actor's usage so far
(see _ray_usage).

Between stages a row is two JSON strings (the sample, its scores so far): plain columns any
Ray version moves between nodes, and exactly what the driver writes back.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator, Sequence
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


def _column(batch: Any, name: str) -> list[Any]:
    return batch.column(name).to_pylist()


def compute_stage(
    batch: Any, *, path: str, kind: str, metrics: list[Metric], batch_size: int
) -> Iterator[dict[str, list[str]]]:
    """Chunks of the file (see _ray_source) -> samples, numbered as in the whole file and
    validated (the driver checked the file, so this cannot fail on a file that did not
    change) -> arithmetic scores, ``batch_size`` rows at a time."""
    for chunk in batch.to_pylist():
        for samples in chunk_samples(path, kind, chunk, batch_size):
            scores = compute_all(metrics, samples)
            yield {
                "sample": [s.model_dump_json() for s in samples],
                "scores": [encode_scores(scores, i) for i in range(len(samples))],
            }


class JudgeStage:
    """A Ray Data callable class: one per actor, one ModelSession per actor and endpoint.

    ``dealer`` hands out judge endpoints round-robin over ``base_url``'s list, one per batch
    (not one per actor: Ray Data may route every batch to whichever actor is free first, and
    a server dealt to an idle actor would sit idle too). An actor opens a session the first
    time it is dealt an endpoint and keeps it; every actor caches under the same
    ``cache_url``.
    """

    def __init__(self, metrics: list[Metric], settings: Settings, dealer: Any) -> None:
        self.metrics = metrics
        self.settings = settings
        self.dealer = dealer
        self.sessions: dict[str | None, ModelSession] = {}
        self._opening: asyncio.Lock | None = None
        self.actor = uuid.uuid4().hex  # a restarted actor reports as a new one
        self.reports = 0

    async def _open(self) -> ModelSession:
        url = None if self.dealer is None else await self.dealer.next.remote()
        if self._opening is None:
            self._opening = asyncio.Lock()
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
        session = await self._open()
        samples = [Sample.model_validate_json(t) for t in _column(batch, "sample")]
        judged = await session.score(samples)
        out = []
        for i, text in enumerate(_column(batch, "scores")):
            row = json.loads(text)
            row.update(json.loads(encode_scores(judged, i)))
            out.append(json_line(row))
        self.reports += 1  # this actor's usage so far, on the batch's first row (_ray_usage)
        usage = [report(self.actor, self.reports, self.sessions)] + [""] * (len(out) - 1)
        return {"sample": _column(batch, "sample"), "scores": out, "usage": usage}


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
