"""What a streamed run keeps: scores written to disk batch by batch, per-metric tallies in
memory, and the result built from them.

Why: a run over a million rows cannot keep a million Samples and fourteen million Scores
(several GiB). Each batch's rows go to ``scores.jsonl.partial`` as soon as they are scored
(the same records as a local run's scores.jsonl; renamed to scores.jsonl at the end, so a
crash keeps every finished batch); what the summary needs stays in memory: per metric, the
ok values as 8-byte floats (for the mean and the bootstrap CI) and the counts per status.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragmeter import _repr
from ragmeter._perf import gc_paused
from ragmeter.errors import RunAborted
from ragmeter.executors.notes import metric_notes, text_matched
from ragmeter.io import json_line, write_json
from ragmeter.manifest import MANIFEST, write_manifest
from ragmeter.metrics.base import Metric, Score
from ragmeter.result import Aggregate, EvaluationResult, aggregate_values
from ragmeter.sample import Sample

MAX_LISTED = 10_000  # failures / not-applicable rows listed in summary.json; the counts are exact
PARTIAL = "scores.jsonl.partial"


@dataclass
class Tally:
    values: array = field(default_factory=lambda: array("d"))
    counts: dict[str, int] = field(
        default_factory=lambda: {"ok": 0, "undefined": 0, "skipped": 0, "failed": 0}
    )
    text_matched: int = 0  # contexts matched by text, not ids: a note (executors/notes.py)


class ScoreWriter:
    """Appends each scored batch to the run directory and tallies it."""

    def __init__(self, out_dir: str | Path, metrics: Sequence[str]) -> None:
        self.out = Path(out_dir)
        self.metrics = list(metrics)
        self.tallies = {m: Tally() for m in self.metrics}
        self.failures: list[dict[str, Any]] = []
        self.not_applicable: list[dict[str, Any]] = []
        self.n_samples = 0
        self.on_add: Callable[[int], None] | None = None  # told the rows written so far
        self._fh = (self.out / PARTIAL).open("wb", buffering=0)  # unbuffered: see _write

    def add(self, samples: Sequence[Sample], scores: dict[str, Sequence[Score]]) -> None:
        # A batch's rows are acyclic: with the collector on, writing them rescanned the
        # batch's samples and scores again and again (28 of 66 us a row at 100k rows).
        with gc_paused():
            self._add(samples, scores)
        if self.on_add is not None:
            self.on_add(self.n_samples)

    def _add(self, samples: Sequence[Sample], scores: dict[str, Sequence[Score]]) -> None:
        batch = EvaluationResult(
            samples=list(samples), metrics=self.metrics, scores=scores, aggregates={}
        )
        self._write("".join(json_line(row) + "\n" for row in batch.records()).encode())
        for metric, n in text_matched(samples, scores).items():
            self.tallies[metric].text_matched += n
        for metric in self.metrics:
            tally = self.tallies[metric]
            for sample, sc in zip(samples, scores[metric], strict=True):
                tally.counts[sc.status] += 1
                if sc.status == "ok" and sc.value is not None:
                    tally.values.append(sc.value)
                elif sc.status != "ok":
                    into = self.failures if sc.status == "failed" else self.not_applicable
                    if len(into) < MAX_LISTED:
                        into.append(
                            {
                                "question_id": sample.question_id,
                                "metric": metric,
                                "status": sc.status,
                                "reason": sc.reason,
                            }
                        )
        self.n_samples += len(samples)

    def _write(self, data: bytes) -> None:
        """A batch's rows in one write; when it fails (disk full, quota), the batch's part is
        cut off again and the run aborted, saying which file and why.

        Why: written line by line through a buffer, a full disk left a torn last line in
        scores.jsonl.partial and ended with ``internal error: OSError: [Errno 28] No space
        left on device`` (exit 1), naming no file, and run.json still ``running`` (no room
        left to say otherwise). Now the partial file holds whole rows only, the space the
        batch took is freed for run.json ``aborted``, and the exit is 3 (aborted: the
        judged calls are cached, the same command resumes)."""
        start = self._fh.tell()
        view = memoryview(data)
        try:
            while view:
                view = view[self._fh.write(view) or 0 :]
        except OSError as exc:
            with suppress(OSError):
                self._fh.truncate(start)
                self._fh.seek(start)
            raise RunAborted(
                f"cannot write {self.out / PARTIAL} ({exc.strerror or exc}) after "
                f"{self.n_samples} rows: free space there (or choose another --out), then run "
                "the same command again to resume (judged calls already answered are cached)"
            ) from None

    def finish(self) -> Path:
        """Close and rename the scores file to scores.jsonl; its path."""
        os.fsync(self._fh.fileno())
        self._fh.close()
        final = self.out / "scores.jsonl"
        os.replace(self.out / PARTIAL, final)
        return final

    def abandon(self) -> None:
        """Close after an error; the partial file keeps every finished batch."""
        if not self._fh.closed:
            self._fh.close()


@dataclass
class StreamedResult:
    """The result of a streamed or Ray run: aggregates and counts, the scores on disk.

    Has the summary, exit code and failure rate of an ``EvaluationResult``, not its
    in-memory samples and scores: read ``scores_path`` (one JSON object per sample, the
    same records) for those.
    """

    metrics: list[str]
    aggregates: dict[str, Aggregate]
    n_samples: int
    out_dir: Path
    notes: list[str] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    manifest: dict[str, Any] = field(default_factory=dict)
    failure_rows: list[dict[str, Any]] = field(default_factory=list)
    not_applicable_rows: list[dict[str, Any]] = field(default_factory=list)

    def _summary_parts(self) -> tuple[str, list[tuple[str, str, str, str]], list[str]]:
        """Title, one row per metric, the notes line: never config, manifest or settings (the
        dataclass default printed them, base URLs included)."""
        title = f"StreamedResult({_repr.plural(self.n_samples, 'sample')}, "
        title += f"{_repr.plural(len(self.metrics), 'metric')}, in {_repr.quoted(self.out_dir)})"
        aggs = [
            self.aggregates.get(m) or Aggregate(m, None, None, None, 0, 0, 0, 0)
            for m in self.metrics
        ]
        return title, _repr.aggregate_rows(aggs), _repr.notes_line(self.notes)

    def __repr__(self) -> str:
        return _repr.text(*self._summary_parts())

    __str__ = __repr__

    def _repr_html_(self) -> str:
        title, rows, notes = self._summary_parts()
        return _repr.table_html(title, ("metric", "mean", "CI", "counts"), rows, notes)

    @property
    def scores_path(self) -> Path:
        return self.out_dir / "scores.jsonl"

    @property
    def n_failed(self) -> int:
        return sum(a.n_failed for a in self.aggregates.values())

    @property
    def n_not_applicable(self) -> int:
        return sum(a.n_undefined + a.n_skipped for a in self.aggregates.values())

    def failure_rate(self) -> float:
        attempted = sum(a.n - a.n_skipped for a in self.aggregates.values())
        return self.n_failed / attempted if attempted else 0.0

    def exit_code(self, max_failure_rate: float = 0.0) -> int:
        """As ``EvaluationResult.exit_code``: 1 when failed scores exceed the rate, else 0."""
        if not 0.0 <= max_failure_rate <= 1.0:
            raise ValueError(f"max_failure_rate must be in [0, 1], not {max_failure_rate}")
        if self.n_failed == 0:
            return 0
        return 1 if self.failure_rate() > max_failure_rate else 0

    def failures(self) -> list[dict[str, Any]]:
        """The (sample, metric) rows without a value, as listed in summary.json (at most
        MAX_LISTED of each kind; the aggregates' counts are exact)."""
        return self.failure_rows + self.not_applicable_rows

    def summary(self) -> dict[str, Any]:
        listed = len(self.failure_rows) + len(self.not_applicable_rows)
        out = {
            "n_samples": self.n_samples,
            "metrics": {m: self.aggregates[m].to_dict() for m in self.metrics},
            "n_failed": self.n_failed,
            "n_undefined": sum(a.n_undefined for a in self.aggregates.values()),
            "n_skipped": sum(a.n_skipped for a in self.aggregates.values()),
            "n_not_applicable": self.n_not_applicable,
            "failure_rate": round(self.failure_rate(), 6),
            "failures": self.failure_rows,
            "not_applicable": self.not_applicable_rows,
            "notes": self.notes,
            "usage": self.usage,
            "config": self.config,
        }
        if listed < self.n_failed + self.n_not_applicable:
            out["listed_rows_capped_at"] = MAX_LISTED
        return out

    def write(self) -> None:
        """summary.json and run.json (scores.jsonl was written batch by batch). A disk full
        by now aborts the run naming the file (it was ``internal error: OSError: [Errno
        28] No space left on device``, exit 1): the scores are complete, the calls cached."""
        target = self.out_dir / "summary.json"
        try:
            write_json(self.summary(), target)
            if self.manifest:
                target = self.out_dir / MANIFEST
                write_manifest(self.out_dir, self.manifest)
        except OSError as exc:
            raise RunAborted(
                f"cannot write {target} ({exc.strerror or exc}); {self.scores_path} is "
                "complete: free space there, then run the same command again (judged calls "
                "already answered are cached)"
            ) from None


def finish_result(
    writer: ScoreWriter,
    metrics: Sequence[Metric],
    *,
    notes: Sequence[str],
    n_resamples: int,
    confidence: float,
    seed: int,
    **fields: Any,
) -> StreamedResult:
    """Aggregates from the writer's tallies; the scores file renamed into place. ``notes``:
    the plan's; each metric's own follow, as a local run words and orders them."""
    writer.finish()
    aggregates = {
        m: aggregate_values(
            m, t.values, t.counts, n_resamples=n_resamples, confidence=confidence, seed=seed
        )
        for m, t in writer.tallies.items()
    }
    notes = list(notes)
    for metric in metrics:
        tally = writer.tallies[metric.name]
        notes += metric_notes(metric, aggregates[metric.name], tally.text_matched)
    return StreamedResult(
        metrics=writer.metrics,
        aggregates=aggregates,
        n_samples=writer.n_samples,
        out_dir=writer.out,
        notes=notes,
        failure_rows=writer.failures,
        not_applicable_rows=writer.not_applicable,
        **fields,
    )
