"""The evaluation result: per-sample scores, aggregates with bootstrap CIs, failures, exports."""

from __future__ import annotations

import os
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ragmeter import _repr
from ragmeter._perf import gc_paused
from ragmeter.manifest import write_manifest
from ragmeter.metrics.base import Score
from ragmeter.metrics.column import ScoreColumn
from ragmeter.sample import Sample
from ragmeter.stats import _resampled_means, mean_of


@dataclass(frozen=True)
class Aggregate:
    metric: str
    mean: float | None
    ci_low: float | None
    ci_high: float | None
    n_ok: int
    n_undefined: int
    n_skipped: int
    n_failed: int

    @property
    def n(self) -> int:
        return self.n_ok + self.n_undefined + self.n_skipped + self.n_failed

    @property
    def ci_note(self) -> str | None:
        """Why there is no CI (None when there is one): with fewer than 2 scored values there
        is no spread to resample, and [v, v] would read as certainty; with more, the run
        asked for none (n_resamples=0). It said "no CI from 40 scored samples" for the
        latter, as if 40 samples were too few."""
        if self.ci_low is not None and self.ci_high is not None:
            return None
        if self.n_ok >= 2:
            return f"no CI: the run asked for none (n_resamples=0), {self.n_ok} scored samples"
        plural = "" if self.n_ok == 1 else "s"
        return f"no CI from {self.n_ok} scored sample{plural}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "mean": self.mean,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "n_ok": self.n_ok,
            "n_undefined": self.n_undefined,
            "n_skipped": self.n_skipped,
            "n_failed": self.n_failed,
        }


def bootstrap_ci(
    values: np.ndarray, *, n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean, reproducible for a given seed.

    Resampling n values with replacement is the same as drawing how often each distinct
    value is picked from a multinomial. Metric scores take few distinct values (ratios of
    small counts, 0/1 hits), so for large n the counts are drawn instead of n indices per
    resample: same distribution, a fraction of the time. Otherwise indices are drawn.
    Either in blocks, so memory stays bounded (``stats._resampled_means``, which the
    slices' CIs share). Equal values give [v, v] at once: every resample's mean
    is v, which the arithmetic gave as 0.6999999999999998 for three scores of 0.7 (a CI
    beside its mean, a ``ci_low`` gate at 0.7 failed).
    """
    values = np.asarray(values, dtype=float)
    n = len(values)
    if n == 0:
        raise ValueError("no values")
    if n == 1 or n_resamples <= 0 or np.ptp(values) == 0:
        v = mean_of(values)
        return v, v
    means = _resampled_means(values, n_resamples, np.random.default_rng(seed))
    alpha = (1 - confidence) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return float(low), float(high)


def aggregate(
    name: str,
    scores: Sequence[Score],
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> Aggregate:
    if isinstance(scores, ScoreColumn):  # the arrays, without building a Score per row
        return aggregate_values(
            name,
            scores.ok_values(),
            scores.counts(),
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
        )
    counts = {"ok": 0, "undefined": 0, "skipped": 0, "failed": 0}
    values = []
    for s in scores:
        counts[s.status] += 1
        if s.status == "ok" and s.value is not None:
            values.append(s.value)
    return aggregate_values(
        name, values, counts, n_resamples=n_resamples, confidence=confidence, seed=seed
    )


def aggregate_values(
    name: str,
    values: Any,
    counts: dict[str, int],
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> Aggregate:
    """The aggregate of a metric from its ok values (any float sequence, e.g. a streamed
    run's ``array('d')``) and its counts per status."""
    arr = np.asarray(values, dtype=float)
    n = (counts["ok"], counts["undefined"], counts["skipped"], counts["failed"])
    if not arr.size:
        return Aggregate(name, None, None, None, *n)
    if arr.size < 2 or n_resamples == 0:  # one value has no spread to resample; 0 resamples
        # ask for no CI: either way none, not a zero-width [v, v] that reads as certainty
        return Aggregate(name, mean_of(arr), None, None, *n)
    # One seed per metric so adding a metric never changes another metric's interval.
    low, high = bootstrap_ci(
        arr, n_resamples=n_resamples, confidence=confidence, seed=seed ^ zlib.crc32(name.encode())
    )
    return Aggregate(name, mean_of(arr), low, high, *n)


@dataclass
class EvaluationResult:
    """Scores of every (sample, metric), their aggregates, and everything that went wrong."""

    samples: list[Sample]
    metrics: list[str]
    scores: dict[str, Sequence[Score]]  # metric -> one Score per sample, in sample order
    aggregates: dict[str, Aggregate]
    notes: list[str] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    manifest: dict[str, Any] = field(default_factory=dict)  # run.json (see manifest.py)

    def _summary_parts(self) -> tuple[str, list[tuple[str, str, str, str]], list[str]]:
        """Title, one row per metric and the notes line shared by ``__repr__`` and
        ``_repr_html_``: counts and aggregates only, never samples, config or settings."""
        title = f"{_repr.plural(len(self.samples), 'sample')}, "
        title += _repr.plural(len(self.metrics), "metric")
        status = self.manifest.get("status") if isinstance(self.manifest, dict) else None
        if isinstance(status, str):
            title += f", status {_repr.cell(status, 20)}"
        aggs = [
            self.aggregates.get(m) or Aggregate(m, None, None, None, 0, 0, 0, 0)
            for m in self.metrics
        ]
        return (
            f"EvaluationResult({title})",
            _repr.aggregate_rows(aggs),
            _repr.notes_line(self.notes),
        )

    def __repr__(self) -> str:
        """A few lines whatever the number of samples: the dataclass default printed every
        sample, score, the config and the manifest (tens of kB for 25 samples)."""
        title, rows, notes = self._summary_parts()
        return _repr.text(title, rows, notes)

    __str__ = __repr__

    def _repr_html_(self) -> str:
        """The same summary as a small HTML table, for notebooks."""
        title, rows, notes = self._summary_parts()
        return _repr.table_html(title, ("metric", "mean", "CI", "counts"), rows, notes)

    def score(self, metric: str, question_id: str) -> Score:
        for sample, sc in zip(self.samples, self.scores[metric], strict=True):
            if sample.question_id == question_id:
                return sc
        raise KeyError(question_id)

    def failures(self) -> list[dict[str, Any]]:
        """Every (sample, metric) without a value: status and reason."""
        rows = []
        for metric in self.metrics:
            for sample, sc in zip(self.samples, self.scores[metric], strict=True):
                if sc.status != "ok":
                    rows.append(
                        {
                            "question_id": sample.question_id,
                            "metric": metric,
                            "status": sc.status,
                            "reason": sc.reason,
                        }
                    )
        return rows

    @property
    def n_failed(self) -> int:
        """Scores that should have a value and do not (judge, model or internal error)."""
        return sum(a.n_failed for a in self.aggregates.values())

    @property
    def n_not_applicable(self) -> int:
        """Scores without a value by definition (undefined) or for lack of inputs (skipped)."""
        return sum(a.n_undefined + a.n_skipped for a in self.aggregates.values())

    def failure_rate(self) -> float:
        """Failed scores over the scores a run had to compute (skipped ones excluded)."""
        attempted = sum(a.n - a.n_skipped for a in self.aggregates.values())
        return self.n_failed / attempted if attempted else 0.0

    def exit_code(self, max_failure_rate: float = 0.0) -> int:
        """What the CLI exits with for this result: 0 when every requested score was computed
        or is not applicable by definition, 1 when the share of failed scores exceeds
        ``max_failure_rate`` (0.0: any failure). Usage errors (2) and aborted runs (3) raise
        before a result exists."""
        if not 0.0 <= max_failure_rate <= 1.0:
            raise ValueError(f"max_failure_rate must be in [0, 1], not {max_failure_rate}")
        if self.n_failed == 0:
            return 0
        return 1 if self.failure_rate() > max_failure_rate else 0

    def records(self) -> list[dict[str, Any]]:
        """One self-describing JSON-ready object per sample.

        The sample itself (question_id, question, answer, contexts, context_ids when given,
        metadata = the pass-through columns) comes first so that a run directory alone is
        enough to compare, slice and report; then one key per metric; then status / reasons /
        details for the metrics that need them. Readers accept rows without the sample keys
        (runs written before they were added).
        """
        rows = []
        # each metric's Scores as a list, built once (a ScoreColumn builds them when read)
        columns = {m: list(self.scores[m]) for m in self.metrics}
        for i, sample in enumerate(self.samples):
            row: dict[str, Any] = {
                "question_id": sample.question_id,
                "question": sample.question,
                "answer": sample.answer,
                "contexts": sample.contexts,
            }
            if sample.context_ids is not None:
                row["context_ids"] = sample.context_ids
            row["metadata"] = dict(sample.metadata)
            reasons: dict[str, str] = {}
            status: dict[str, str] = {}
            details: dict[str, Any] = {}
            for metric in self.metrics:
                sc = columns[metric][i]
                row[metric] = sc.value
                if sc.status != "ok":
                    status[metric] = sc.status
                    reasons[metric] = sc.reason or ""
                if sc.details:
                    details[metric] = sc.details
            if status:
                row["status"] = status
                row["reasons"] = reasons
            if details:
                row["details"] = details
            rows.append(row)
        return rows

    def to_pandas(self) -> Any:
        """A DataFrame: one row per sample, one column per metric (None where undefined)."""
        import pandas as pd

        frame = pd.DataFrame([{"question_id": s.question_id} for s in self.samples])
        for metric in self.metrics:
            frame[metric] = [sc.value for sc in self.scores[metric]]
        return frame

    def summary(self) -> dict[str, Any]:
        """Aggregates, and what has no value split by why: ``failures`` (status failed: something
        went wrong) apart from ``not_applicable`` (undefined or skipped: nothing to compute)."""
        rows = self.failures()
        return {
            "n_samples": len(self.samples),
            "metrics": {m: self.aggregates[m].to_dict() for m in self.metrics},
            "n_failed": self.n_failed,
            "n_undefined": sum(a.n_undefined for a in self.aggregates.values()),
            "n_skipped": sum(a.n_skipped for a in self.aggregates.values()),
            "n_not_applicable": self.n_not_applicable,
            "failure_rate": round(self.failure_rate(), 6),
            "failures": [r for r in rows if r["status"] == "failed"],
            "not_applicable": [r for r in rows if r["status"] != "failed"],
            "notes": self.notes,
            "usage": self.usage,
            "config": self.config,
        }

    def to_jsonl(self, path: str | Path) -> None:
        from ragmeter.io import write_jsonl

        with gc_paused():  # a row per sample, all acyclic: see _perf.gc_paused
            rows = self.records()
        write_jsonl(rows, path)

    def write(self, out_dir: str | Path) -> tuple[Path, Path]:
        """Write scores.jsonl, summary.json and run.json (the manifest) into out_dir, each
        atomically (temp file + rename); returns the paths of the first two."""
        from ragmeter.errors import OutputError
        from ragmeter.io import write_json

        if not isinstance(out_dir, str | os.PathLike) or not str(out_dir).strip():
            # a number was pathlib's TypeError; "" is ".": the run was written into the cwd
            said = f"write() takes a directory path (str or pathlib.Path), not {out_dir!r}"
            raise OutputError(said)
        out = Path(out_dir).expanduser()  # "~/runs/a" made a directory named "~" here
        if out.exists() and not out.is_dir():
            raise OutputError(
                f"write(): {out} is a file: give a directory (scores.jsonl, summary.json and "
                "run.json are written into it)"
            )
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(f"write(): {out} cannot be created ({exc.strerror})") from None
        # an error while writing (a full disk) propagates as it is: evaluate(out=) records
        # it in run.json as a crash; each file is atomic, so none is left half written
        scores_path, summary_path = out / "scores.jsonl", out / "summary.json"
        self.to_jsonl(scores_path)
        write_json(self.summary(), summary_path)
        if self.manifest:
            write_manifest(out, self.manifest)
        return scores_path, summary_path
