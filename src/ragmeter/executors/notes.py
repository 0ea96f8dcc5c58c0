"""The notes a run's summary gives per metric, worded once for the three executors.

Why one place: the local executor wrote each metric's notes (no CI, samples skipped, contexts
matched by text) from the scores it holds; the stream and Ray executors keep tallies, not
scores, and wrote only the skipped one. So the same file gave ``mrr: 3 sample(s) had no ids;
...`` locally and nothing from ``--executor stream`` or ``ray``. A streamed run now counts the
text-matched scores batch by batch (``text_matched`` on each batch, added up by the
ScoreWriter) and every executor words the notes here, from the aggregate and that count.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ragmeter.metrics.base import Metric, Score
from ragmeter.result import Aggregate
from ragmeter.sample import Sample


def text_matched(
    samples: Sequence[Sample], scores: Mapping[str, Sequence[Score]]
) -> dict[str, int]:
    """Per metric, how many of these scores matched retrieved contexts to reference contexts
    by normalised text. Only a sample without ids is matched so: when every sample has both
    id lists, the scores are not read (a retrieval-free run of a million rows reads none)."""
    if all(s.context_ids is not None and s.reference_context_ids is not None for s in samples):
        return {}
    counts = {}
    for name, column in scores.items():
        n = sum(1 for sc in column if sc.details.get("matched_by") == "text")
        if n:
            counts[name] = n
    return counts


def metric_notes(metric: Metric, agg: Aggregate, n_text_matched: int) -> list[str]:
    """A metric's notes, in this order: why it has no CI, the samples it skipped, the samples
    whose contexts it matched by text (``n_text_matched``, from ``text_matched``)."""
    notes = []
    if agg.mean is not None and agg.ci_note:
        notes.append(f"{metric.name}: {agg.ci_note}")
    if agg.n_skipped:
        notes.append(
            f"{metric.name}: {agg.n_skipped} sample(s) skipped: they lack {metric.required_text()}"
        )
    if n_text_matched:
        notes.append(
            f"{metric.name}: {n_text_matched} sample(s) had no ids; retrieved contexts were "
            "matched to reference contexts by normalised text"
        )
    return notes
