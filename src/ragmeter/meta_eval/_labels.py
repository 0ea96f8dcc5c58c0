"""The user's own human labels: per answer, "faithful or not", "relevant or not".

A labels file is ragmeter's usual sample file (JSONL, JSON, CSV, Parquet, read by
``io.load_file`` as ``evaluate`` reads it) whose rows carry ``label_<dimension>`` columns
(``label_faithfulness``, ``label_answer_relevance``, ``label_context_relevance``). The loader
keeps unknown columns in ``metadata``, so a label may also be given as
``metadata.label_<dimension>``. A label is 1/0, true/false or yes/no (any case, as a number,
a boolean or a string); blank or missing means "not labelled for that dimension".

Why fail fast here: every refusal below is found by reading the file, and said before a
model loads or a judge call is paid for (exit 2), naming the row and the field.

AUROC is the metric's power to rank the positives above the negatives (Mann-Whitney: a tie
counts 1/2), which needs both classes; its 95% CI is a stratified percentile bootstrap
(positives and negatives resampled apart, so each resample keeps both classes), seeded, so
a re-run prints the same interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import rankdata

from ragmeter.errors import DataError, Problem
from ragmeter.io import load_file
from ragmeter.meta_eval._pairs import DIMENSIONS
from ragmeter.meta_eval._scorers import RAGAS_METRICS
from ragmeter.metrics.registry import get_metric
from ragmeter.sample import Sample

LABELS_DATASET = "labels"
LABEL_PREFIX = "label_"
_TRUE = frozenset({"1", "true", "yes", "y"})
_FALSE = frozenset({"0", "false", "no", "n"})
N_BOOT = 2000
SEED = 0


@dataclass(frozen=True)
class LabelledSample:
    """One row of the labels file: its 1-based row, the sample, its labels per dimension."""

    row: int
    sample: Sample
    labels: dict[str, int]


def parse_label(value: Any) -> int | None:
    """1 / 0 for a binary label, None for "not labelled" (blank), ValueError otherwise.

    Why strict: a 0.7 or a "maybe" read as true or dropped silently would measure the
    metric against labels nobody gave."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value != value:  # NaN: a blank Parquet / pandas cell
            return None
        if value in (0, 1):
            return int(value)
        raise ValueError(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return 1
        if text in _FALSE:
            return 0
    raise ValueError(value)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def read_labels(path: str | Path) -> list[LabelledSample]:
    """Every row of the file with its labels; DataError listing each bad label or unknown
    ``label_*`` column (a misspelt dimension was otherwise ignored, its labels unused)."""
    samples = load_file(path)
    problems: list[Problem] = []
    out = []
    for row, sample in enumerate(samples, start=1):
        labels: dict[str, int] = {}
        for key, value in sample.metadata.items():
            if not key.startswith(LABEL_PREFIX):
                continue
            dim = key[len(LABEL_PREFIX) :]
            if dim not in DIMENSIONS:
                known = ", ".join(LABEL_PREFIX + d for d in DIMENSIONS)
                problems.append(Problem(row, key, f"unknown label column; known: {known}"))
                continue
            try:
                got = parse_label(value)
            except ValueError:
                problems.append(
                    Problem(
                        row,
                        key,
                        f"not a binary label: {_short(value)}; use 1/0, true/false or yes/no "
                        "(blank: not labelled)",
                    )
                )
                continue
            if got is not None:
                labels[dim] = got
        out.append(LabelledSample(row, sample, labels))
    if problems:
        raise DataError(problems, source=str(path))
    return out


def check_labels(
    rows: Sequence[LabelledSample], dims: Sequence[str] | None, source: str
) -> list[str]:
    """The dimensions to measure (``dims``, else every labelled one), each with labelled
    rows of both classes; DataError naming the column otherwise."""
    columns = ", ".join(LABEL_PREFIX + d for d in DIMENSIONS)
    labelled = [d for d in DIMENSIONS if any(d in r.labels for r in rows)]
    if not labelled:
        raise DataError(
            [
                Problem(
                    None,
                    None,
                    f"no label column: give one or more of {columns} "
                    "(1/0, true/false or yes/no per row)",
                )
            ],
            source=source,
        )
    wanted = list(dims) if dims is not None else labelled
    problems = []
    for d in wanted:  # a labelled row the metric cannot score: no judge call would tell
        metric = get_metric(RAGAS_METRICS[d])
        problems += [
            Problem(r.row, LABEL_PREFIX + d, f"labelled, but {metric.name} {why}")
            for r in rows
            if d in r.labels and (why := metric.missing(r.sample))
        ]
    for d in wanted:
        values = [r.labels[d] for r in rows if d in r.labels]
        if not values:
            problems.append(
                Problem(
                    None,
                    LABEL_PREFIX + d,
                    f"no row is labelled for {d} (--dimensions): label some rows, or leave it out",
                )
            )
        elif len(set(values)) == 1:
            cls = "positive (1)" if values[0] else "negative (0)"
            problems.append(
                Problem(
                    None,
                    LABEL_PREFIX + d,
                    f"all {len(values)} labelled row(s) are {cls}: AUROC is undefined with "
                    "one class; label rows of both classes, or leave the dimension out "
                    "(--dimensions)",
                )
            )
    if problems:
        raise DataError(problems, source=source)
    return wanted


def auroc(scores: Sequence[float], labels: Sequence[int]) -> float | None:
    """P(a positive scores above a negative), a tie counting 1/2; None with one class."""
    s, y = np.asarray(scores, dtype=float), np.asarray(labels, dtype=int)
    n_pos, n_neg = int(y.sum()), int((1 - y).sum())
    if not n_pos or not n_neg:
        return None
    ranks = rankdata(s)
    return float((ranks[y == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def auroc_ci(
    scores: Sequence[float], labels: Sequence[int], n_resamples: int = N_BOOT, seed: int = SEED
) -> tuple[float, float] | None:
    """Stratified percentile bootstrap 95% CI of ``auroc`` (module doc); None with one class."""
    s, y = np.asarray(scores, dtype=float), np.asarray(labels, dtype=int)
    pos, neg = s[y == 1], s[y == 0]
    if not pos.size or not neg.size:
        return None
    rng = np.random.default_rng(seed)
    n_pos, n_neg = pos.size, neg.size
    # resamples in batches of about 2e6 values: 2000 x 100k rows at once was 1.6 GB
    batch = max(1, min(n_resamples, 2_000_000 // (n_pos + n_neg)))
    stats: list[np.ndarray] = []
    for start in range(0, n_resamples, batch):
        k = min(batch, n_resamples - start)
        bp = pos[rng.integers(0, n_pos, size=(k, n_pos))]
        bn = neg[rng.integers(0, n_neg, size=(k, n_neg))]
        ranks = rankdata(np.concatenate([bp, bn], axis=1), axis=1)
        stats.append((ranks[:, :n_pos].sum(axis=1) - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))
    low, high = np.quantile(np.concatenate(stats), [0.025, 0.975])
    return float(low), float(high)


def accuracy(scores: Sequence[float], labels: Sequence[int], threshold: float = 0.5) -> float:
    """Share of rows where ``score >= threshold`` says what the label says."""
    s, y = np.asarray(scores, dtype=float), np.asarray(labels, dtype=int)
    return float(np.mean((s >= threshold).astype(int) == y))
