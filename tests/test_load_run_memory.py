"""load_run holds one record at a time: its memory is the run's, not the parsed file's.

Why: comparing two runs of a million samples peaked at 4.3 GiB, nearly all of it
``load_run``: every record parsed into a dict and held while the score columns and samples
were built, and each Sample with a fields set of its own (472 bytes). A clean scores.jsonl is
now read in one pass (``_run_records.read_clean``); these tests bound its peak (tracemalloc,
not time) and hold what it reads to the old reading, which still reads anything unusual.
"""

from __future__ import annotations

import copy
import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.test_runs_speed import _assert_same, _odd_run, _reference

from ragmeter import runs
from ragmeter.runs import load_run

METRICS = ["k_precision", "token_f1", "exact_match", "hit@5", "mrr"]


def _synthetic(directory: Path, n: int, details: bool = False) -> Path:
    """A run of ``n`` rows as a lexical run writes them, every text its own; with
    ``details``, each metric's details object in every row, as evaluate writes them."""
    directory.mkdir()
    with (directory / "scores.jsonl").open("w", encoding="utf-8") as fh:
        for i in range(n):
            row = {
                "question_id": f"q{i}",
                "question": f"Question number {i}?",
                "answer": f"the answer is {i}",
                "contexts": [f"context {i} about things"],
                "metadata": {"topic": ["a", "b"][i % 2]},
                **{m: (i % 97) / 97 for m in METRICS},
            }
            if details:
                row["details"] = {m: {"answer_tokens": i % 7, "best_context": 0} for m in METRICS}
            fh.write(json.dumps(row) + "\n")
    summary = {
        "metrics": {m: {} for m in METRICS},
        "config": {"n_resamples": 0, "confidence": 0.95, "seed": 0},
    }
    (directory / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    return directory


@pytest.mark.parametrize(("details", "bound_mib"), [(False, 28), (True, 40)])
def test_load_run_of_20000_rows_peaks_under_a_bound(
    tmp_path: Path, details: bool, bound_mib: int
) -> None:
    """The old reading peaked at 46 MiB here, 67 MiB with details (the records, then a fields
    set per Sample); one pass peaks at about 18 and 24 MiB, a little over what the run it
    returns holds."""
    path = _synthetic(tmp_path / "run", 20_000, details)
    tracemalloc.start()
    try:
        run = load_run(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(run.result.samples) == 20_000
    assert run.result.scores["mrr"][96].value == 96 / 97
    assert peak < bound_mib * 2**20, f"peak {peak / 2**20:.1f} MiB"
    if details:
        assert run.result.scores["mrr"][8].details == {"answer_tokens": 1, "best_context": 0}


def _old(directory: Path) -> tuple[list[Any], list[str], dict[str, Any]]:
    """The run as the reading of whole records reads it (what load_run did before)."""
    summary = json.loads((directory / "summary.json").read_text(encoding="utf-8"))
    problems: list[Any] = []
    samples, metrics, scores = runs._checked(summary, directory / "scores.jsonl", "x", problems)
    assert not problems
    return samples, metrics, scores


def _clean_odd_run(tmp_path: Path) -> Path:
    """The odd run of test_runs_speed (every status, reasons, details, null values, unicode,
    a blank line) without its int value: a file the one pass reads itself."""
    out = _odd_run(tmp_path)
    path = out / "scores.jsonl"
    lines = path.read_text(encoding="utf-8").split("\n")
    record = json.loads(lines[10])
    record["refusal_rate"] = 1.0
    lines[10] = json.dumps(record)
    path.write_text("\n".join(lines), encoding="utf-8")
    return out


def test_the_one_pass_reads_the_odd_run_as_the_old_reading_did(tmp_path: Path) -> None:
    out = _clean_odd_run(tmp_path)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    from ragmeter import _run_records

    assert _run_records.read_clean(out / "scores.jsonl", list(summary["metrics"])) is not None
    _assert_same(load_run(out), _reference(out))


def test_metrics_taken_from_the_records_are_read_as_before(tmp_path: Path) -> None:
    """An older summary.json without metrics: each key that is not a record's is a metric,
    in the order first seen, one seen first on a later row too."""
    out = _clean_odd_run(tmp_path)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    del summary["metrics"]
    (out / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    path = out / "scores.jsonl"
    lines = path.read_text(encoding="utf-8").split("\n")
    late = json.loads(lines[20])
    late["late_metric"] = 0.5
    late["status"] = {"late_metric": "failed"}
    lines[20] = json.dumps(late)
    path.write_text("\n".join(lines), encoding="utf-8")
    from ragmeter import _run_records

    assert _run_records.read_clean(path, []) is not None
    got, (samples, metrics, scores) = load_run(out).result, _old(out)
    assert got.metrics == metrics and got.metrics[-1] == "late_metric"
    assert got.samples == samples
    for metric in metrics:
        assert list(got.scores[metric]) == list(scores[metric]), metric
    assert got.scores["late_metric"][20].status == "failed"
    assert got.scores["late_metric"][0].reason == "no value recorded"


@pytest.mark.parametrize(
    "edit",
    [
        lambda r: r.update(mrr=1),  # an int: the checks look at it
        lambda r: r.update(mrr=float("nan")),  # written NaN: named not finite
        lambda r: r.update(question_id="q2"),  # a duplicate id: named with its first line
        lambda r: r.update(status={"mrr": None}),  # a status none of STATUSES
        lambda r: r.update(answer=5),  # a field a Sample validates
    ],
    ids=["int", "nan", "duplicate", "null-status", "int-answer"],
)
def test_anything_unusual_is_left_to_the_reading_that_names_it(
    tmp_path: Path, edit: Callable[[dict[str, Any]], None]
) -> None:
    out = _clean_odd_run(tmp_path)
    path = out / "scores.jsonl"
    lines = path.read_text(encoding="utf-8").split("\n")
    record = json.loads(lines[5])
    edit(record)
    lines[5] = json.dumps(record)
    path.write_text("\n".join(lines), encoding="utf-8")
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    from ragmeter import _run_records

    assert _run_records.read_clean(path, list(summary["metrics"])) is None


def test_samples_share_one_fields_set_that_copies_do_not_share(tmp_path: Path) -> None:
    """A shared set, not a frozenset: model_copy(update=...) updates the copy's own set."""
    run = load_run(_synthetic(tmp_path / "run", 3))
    first, second = run.result.samples[:2]
    assert first.model_fields_set is second.model_fields_set
    before = set(second.model_fields_set)
    changed = first.model_copy(update={"reference_answers": ["x"]})
    assert "reference_answers" in changed.model_fields_set
    assert second.model_fields_set == before == first.model_fields_set
    assert copy.deepcopy(first) == first
    with pytest.raises(Exception, match="frozen"):
        first.answer = "other"  # type: ignore[misc]


def test_a_status_before_its_metric_is_first_seen_is_read_as_before(tmp_path: Path) -> None:
    """Without metrics in summary.json a status can name a metric whose value comes only on
    a later row: the old reading gave that row its status ("failed"), not "undefined"."""
    out = _clean_odd_run(tmp_path)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    del summary["metrics"]
    (out / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    path = out / "scores.jsonl"
    lines = path.read_text(encoding="utf-8").split("\n")
    early, late = json.loads(lines[3]), json.loads(lines[20])
    early["status"] = {"late_metric": "failed"}
    early["reasons"] = {"late_metric": "timeout"}
    late["late_metric"] = 0.5
    lines[3], lines[20] = json.dumps(early), json.dumps(late)
    path.write_text("\n".join(lines), encoding="utf-8")
    got, (samples, metrics, scores) = load_run(out).result, _old(out)
    assert (got.metrics, got.samples) == (metrics, samples)
    for metric in metrics:
        assert list(got.scores[metric]) == list(scores[metric]), metric
    third = got.scores["late_metric"][3]
    assert (third.value, third.status, third.reason) == (None, "failed", "timeout")
