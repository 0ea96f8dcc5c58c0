"""A run's aggregates as read back from its directory: summary.json's when they describe the
scores in scores.jsonl, else computed from those scores.

Why: summary.json's mean, counts and CI were taken as they were, whatever scores.jsonl held,
so a scores.jsonl edited by hand (rows removed, values changed) kept its old aggregates: the
report said mean 0.296 over 50 samples for a file of 25 samples that all scored 1.0, beside
distributions and worst samples drawn from the 25.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ragmeter.metrics.base import Score
from ragmeter.result import Aggregate, aggregate

KEYS = ("mean", "ci_low", "ci_high", "n_ok", "n_undefined", "n_skipped", "n_failed")
COUNTS = KEYS[3:]


def _bootstrap(config: dict[str, Any]) -> dict[str, Any]:
    """The bootstrap settings summary.json's ``config`` records, when usable (else none: the
    defaults), so a recomputed CI is made as the run made its own."""
    n, level, seed = (config.get(k) for k in ("n_resamples", "confidence", "seed"))
    usable = (
        type(n) is int
        and (n == 0 or n >= 2)
        and isinstance(level, float)
        and 0 < level < 1
        and type(seed) is int
        and seed >= 0
    )
    return {"n_resamples": n, "confidence": level, "seed": seed} if usable else {}


def _describes(kept: Aggregate, read: Aggregate) -> bool:
    """Whether summary.json's aggregate has the counts and mean of the scores read."""
    if [getattr(kept, k) for k in COUNTS] != [getattr(read, k) for k in COUNTS]:
        return False
    if kept.mean is None or read.mean is None:
        return kept.mean is read.mean
    number = isinstance(kept.mean, int | float) and not isinstance(kept.mean, bool)
    return number and math.isclose(kept.mean, read.mean, rel_tol=1e-9, abs_tol=1e-12)


def _shown(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else repr(value)


def run_aggregates(
    entries: dict[str, Any],
    scores: dict[str, Sequence[Score]],
    config: dict[str, Any],
) -> tuple[dict[str, Aggregate], str | None]:
    """Each metric's aggregate: summary.json's entry when it describes the metric's scores,
    else the aggregate of the scores with the run's bootstrap settings (an older run without
    entries too); and a note naming the metrics whose entry said otherwise, or None."""
    out: dict[str, Aggregate] = {}
    differ: list[str] = []
    for metric, column in scores.items():
        entry = entries.get(metric)
        if isinstance(entry, dict) and all(k in entry for k in KEYS):
            kept = Aggregate(metric, *(entry[k] for k in KEYS))
            read = aggregate(metric, column, n_resamples=0)  # the mean and counts, no CI
            if _describes(kept, read):
                out[metric] = kept
                continue
            differ.append(
                f"{metric}: mean {_shown(kept.mean)} over {kept.n_ok!r} scored in summary.json, "
                f"{_shown(read.mean)} over {read.n_ok} in scores.jsonl"
            )
        out[metric] = aggregate(metric, column, **_bootstrap(config))
    if not differ:
        return out, None
    return out, (
        f"summary.json's aggregates are not those of scores.jsonl ({'; '.join(differ)}): was "
        "scores.jsonl edited? They are computed from scores.jsonl"
    )
