"""``--overwrite`` into a directory holding an earlier run: the old run's result files
(scores.jsonl, summary.json, scores.jsonl.partial) go when the new run claims the directory,
before any scoring, so a reader half-way (a CI step, ``compare``, ``load_run``) or after the
new run crashed or was stopped never sees the old scores as this run's; files ragmeter does
not write are left. Before 2026-11-27 the old files stayed until the new run wrote its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import ragmeter
from ragmeter.errors import DataError, OutputError
from ragmeter.executors.streamed import ScoreWriter
from ragmeter.manifest import prepare_out
from ragmeter.out_lock import release_out
from ragmeter.result import EvaluationResult
from test_streaming import rows, write_jsonl

OLD, NEW = ["token_f1", "mrr"], ["k_precision"]
NOTES = "my notes, not a run\n"


def _finished_run(tmp_path: Path) -> tuple[Path, Path]:
    """A finished run of OLD in tmp_path/run, with a file of the user's own beside it."""
    data = write_jsonl(tmp_path / "in.jsonl", rows(5))
    out = tmp_path / "run"
    ragmeter.evaluate(str(data), OLD, n_resamples=20, out=out)
    (out / "README.md").write_text(NOTES)
    return data, out


def _names(out: Path) -> list[str]:
    return sorted(p.name for p in out.iterdir())


def _status(out: Path) -> Any:
    return json.loads((out / "run.json").read_text())["status"]


def test_the_claim_removes_the_old_runs_results_only(tmp_path: Path) -> None:
    """Read half-way: once claimed, DIR holds the new run.json ("running") and no old scores."""
    _, out = _finished_run(tmp_path)
    (out / "scores.jsonl.partial").write_text("{}\n")  # an earlier interrupted run's rows
    prepare_out(out, {"metrics": NEW}, overwrite=True)
    try:
        assert _names(out) == ["README.md", "run.json"]
        assert (out / "README.md").read_text() == NOTES
        assert _status(out) == "running"
        with pytest.raises(DataError, match="not a finished run"):
            ragmeter.load_run(out)
    finally:
        release_out(out)


def test_a_crashed_overwrite_leaves_no_old_scores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, out = _finished_run(tmp_path)

    def bug(self: EvaluationResult, path: Any) -> None:
        raise RuntimeError("a bug in a writer")

    with monkeypatch.context() as patched:
        patched.setattr(EvaluationResult, "to_jsonl", bug)
        with pytest.raises(RuntimeError):
            ragmeter.evaluate(str(data), NEW, n_resamples=20, out=out, overwrite=True)
    assert _status(out) == "crashed"
    assert "summary.json" not in _names(out) and "scores.jsonl" not in _names(out)
    with pytest.raises(DataError, match="crashed"):
        ragmeter.load_run(out)  # was: the old run's token_f1 and mrr, with a note
    ragmeter.evaluate(str(data), NEW, n_resamples=20, out=out)  # resumed, no --overwrite
    assert _status(out) == "complete"
    assert ragmeter.load_run(out).result.metrics == NEW


def test_an_interrupt_before_scoring_in_a_stream_overwrite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C (or SIGTERM, which the executors turn into it) after the claim, before the first
    batch: run.json ``interrupted``, no old scores, the stale scores.jsonl.partial of an
    earlier interrupted run gone (it was named as "the rows it scored"); the same command
    without --overwrite resumes, the old settings are refused."""
    data, out = _finished_run(tmp_path)
    (out / "scores.jsonl.partial").write_text('{"question_id": "stale"}\n')

    def stopped(self: ScoreWriter, *args: Any) -> None:
        raise KeyboardInterrupt

    kw: dict[str, Any] = {"n_resamples": 20, "out": out, "executor": "stream", "batch_size": 2}
    with monkeypatch.context() as patched:
        patched.setattr(ScoreWriter, "__init__", stopped)
        with pytest.raises(KeyboardInterrupt):
            ragmeter.evaluate(str(data), NEW, overwrite=True, **kw)
    assert _status(out) == "interrupted"
    assert _names(out) == ["README.md", "run.json"]
    with pytest.raises(DataError, match="interrupted") as said:
        ragmeter.load_run(out)
    assert "scores.jsonl.partial" not in str(said.value)
    with pytest.raises(OutputError, match="other settings"):
        ragmeter.evaluate(str(data), OLD, **kw)
    ragmeter.evaluate(str(data), NEW, **kw)
    assert _status(out) == "complete"
    ids = [json.loads(line)["question_id"] for line in (out / "scores.jsonl").open()]
    assert ids == [f"q{i}" for i in range(5)]
    assert (out / "README.md").read_text() == NOTES


def test_a_directory_in_the_way_is_refused_before_the_claim(tmp_path: Path) -> None:
    _, out = _finished_run(tmp_path)
    (out / "summary.json").unlink()
    (out / "summary.json").mkdir()
    before = (out / "run.json").read_text()
    with pytest.raises(OutputError, match=r"directory named summary\.json"):
        prepare_out(out, {"metrics": NEW}, overwrite=True)
    assert (out / "run.json").read_text() == before  # nothing claimed
    assert (out / "scores.jsonl").exists()
