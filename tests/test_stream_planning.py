"""A streamed run plans its metrics on every row of the file, as a local run does: a metric
whose inputs only the last rows hold is chosen, not silently left out."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import ragmeter
from ragmeter.executors.source import check_file
from ragmeter.metrics.registry import list_metrics
from ragmeter.plan import FieldPresence, fields_feed, plan_metrics
from ragmeter.sample import Sample

# No judge and no embedder (--judge none: a named judge that cannot be had, such as a missing
# GGUF file, is refused before any work): the default metrics are the arithmetic ones, and no
# model is loaded or called.
NO_MODELS = {"judge": "none", "embedder": "none", "cache": "off"}
REFERENCE_METRICS = {"token_recall", "token_precision", "token_f1", "exact_match"}


def late_references(n: int = 2000, first_with: int = 1501) -> list[dict[str, Any]]:
    """Rows whose ``reference_answers`` appear only from row ``first_with`` on."""
    out = []
    for i in range(1, n + 1):
        row: dict[str, Any] = {
            "question_id": f"q{i}",
            "question": f"Where was treaty {i} signed?",
            "answer": f"Treaty {i} was signed in Paris in {1900 + i % 90}.",
            "contexts": [f"Treaty {i} was signed in Paris in {1900 + i % 90}."],
        }
        if i >= first_with:
            row["reference_answers"] = [f"Paris, {1900 + i % 90}" if i % 3 else "Rome"]
        out.append(row)
    return out


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def read_rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_stream_chooses_the_local_metrics_when_inputs_appear_late(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "in.jsonl", late_references())
    settings = ragmeter.Settings(**NO_MODELS)
    local = ragmeter.evaluate(str(data), settings=settings, n_resamples=50, out=tmp_path / "lo")
    streamed = ragmeter.evaluate(
        str(data),
        settings=settings,
        n_resamples=50,
        out=tmp_path / "st",
        executor="stream",
        batch_size=300,
    )
    local_summary, stream_summary = local.summary(), streamed.summary()
    assert set(stream_summary["metrics"]) >= REFERENCE_METRICS
    assert set(stream_summary["metrics"]) == set(local_summary["metrics"])
    assert stream_summary["metrics"] == local_summary["metrics"]
    assert stream_summary["metrics"]["token_f1"]["n_ok"] == 500
    assert stream_summary["notes"] == local_summary["notes"]
    assert read_rows(tmp_path / "st" / "scores.jsonl") == read_rows(
        tmp_path / "lo" / "scores.jsonl"
    )


def test_a_named_metric_whose_inputs_appear_late_is_scored(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "in.jsonl", late_references())
    streamed = ragmeter.evaluate(
        str(data), ["token_f1"], n_resamples=10, out=tmp_path / "st", executor="stream"
    )
    assert streamed.summary()["metrics"]["token_f1"]["n_ok"] == 500


def test_check_file_counts_field_combinations_not_rows(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "in.jsonl", late_references())
    presence = FieldPresence()
    assert check_file(data, batch_size=300, presence=presence) == 2000
    base = frozenset({"question", "question_id", "metadata", "answer", "contexts"})
    assert presence.counts == {base: 1500, base | {"reference_answers"}: 500}


def test_planning_on_field_counts_equals_planning_on_the_samples() -> None:
    """Every metric, every combination of the optional fields: ``fields_feed`` says what
    ``Metric.missing`` says, and the plan on counts is the plan on the samples."""
    optional = {
        "contexts": ["c"],
        "context_ids": ["d"],
        "answer": "a",
        "reference_answers": ["r"],
        "reference_contexts": ["rc"],
        "reference_context_ids": ["d"],
        "is_answerable": True,
    }
    assert set(optional) | {"question", "question_id", "metadata"} == set(Sample.model_fields)
    for k in range(len(optional) + 1):
        for combo in itertools.combinations(optional, k):
            sample = Sample.model_construct(
                question="q", question_id="1", metadata={}, **{f: optional[f] for f in combo}
            )
            presence = FieldPresence()
            presence.add(sample)
            (present,) = presence.counts
            for metric in list_metrics():
                assert fields_feed(metric, present) == (metric.missing(sample) is None), (
                    metric.name,
                    combo,
                )
            if any(m.missing(sample) is None for m in list_metrics() if m.default):
                by_samples = plan_metrics([sample], None, [], {"judge", "embedder", "scorer"})
                by_counts = plan_metrics(presence, None, [], {"judge", "embedder", "scorer"})
                assert [m.name for m in by_counts] == [m.name for m in by_samples]
