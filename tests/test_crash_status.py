"""An unexpected exception after ``--out`` was claimed (a bug, a disk error, MemoryError)
leaves run.json ``crashed`` with the error (secrets masked), keeps what an abort keeps, and
propagates unchanged. Before 2026-11-27 run.json said ``running`` for ever: ``compare`` read
it as a live or killed run, and the error was on no disk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app
from ragmeter.config import Settings
from ragmeter.executors.streamed import ScoreWriter
from ragmeter.redact import register_secret
from ragmeter.result import EvaluationResult
from test_streaming import rows, write_jsonl

METRICS = ["token_f1", "k_precision", "mrr"]
SECRET = "crash-test-private-value-7431"  # not key-shaped: masked only because registered


def _run_json(out: Path) -> dict[str, Any]:
    return json.loads((out / "run.json").read_text())


def _check_crashed(out: Path, data: Path, tmp_path: Path, kind: str, said: str) -> None:
    """run.json says crashed with the error, the secret nowhere; compare says crashed."""
    doc = _run_json(out)
    assert doc["status"] == "crashed", doc
    assert doc["error"] == f"{kind}: {said} ***", doc["error"]
    assert doc["fingerprint"] and doc["input"]["rows"] == 5
    for path in out.iterdir():
        assert SECRET not in path.read_text(errors="replace"), path
    other = tmp_path / "other"
    ragmeter.evaluate(str(data), METRICS, n_resamples=20, out=other)
    res = CliRunner().invoke(app, ["compare", str(out), str(other)])
    text = " ".join(res.output.split())
    assert res.exit_code == 2, res.output
    assert f"the run in {out} crashed (run.json: status 'crashed'; {kind}: {said} ***)" in text
    assert SECRET not in res.output and "still running" not in text


def _resumes(data: Path, out: Path, **kw: Any) -> None:
    """The same run into the same --out completes (accepted as for an aborted run)."""
    ragmeter.evaluate(str(data), METRICS, n_resamples=20, out=out, **kw)
    assert _run_json(out)["status"] == "complete"
    assert len((out / "scores.jsonl").read_text().splitlines()) == 5
    assert not (out / "scores.jsonl.partial").exists()


def test_local_run_crash_is_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    register_secret(SECRET)
    data = write_jsonl(tmp_path / "in.jsonl", rows(5))
    out = tmp_path / "run"

    def writer_bug(self: EvaluationResult, path: Any) -> None:
        raise RuntimeError(f"a bug in a custom writer, given {SECRET}")

    with monkeypatch.context() as patched:
        patched.setattr(EvaluationResult, "to_jsonl", writer_bug)
        with pytest.raises(RuntimeError) as raised:
            ragmeter.evaluate(str(data), METRICS, n_resamples=20, out=out)
    assert SECRET in str(raised.value)  # unchanged
    _check_crashed(out, data, tmp_path, "RuntimeError", "a bug in a custom writer, given")
    _resumes(data, out)


def test_local_run_on_a_full_disk_aborts_naming_the_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the stream executor's: it was 'internal error: OSError: [Errno 28] No space left on
    device' (exit 1), naming no file, with run.json 'crashed'."""
    data = write_jsonl(tmp_path / "in.jsonl", rows(5))
    out = tmp_path / "run"

    def disk_full(self: EvaluationResult, path: Any) -> None:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(EvaluationResult, "to_jsonl", disk_full)
        res = CliRunner().invoke(
            app,
            ["evaluate", str(data), "-m", ",".join(METRICS), "-o", str(out), "--n-resamples", "20"],
        )
    said = " ".join(res.output.split())
    assert res.exit_code == 3, res.output
    assert f"cannot write into {out} (No space left on device): free space there" in said
    assert "internal error" not in said
    doc = _run_json(out)
    assert doc["status"] == "aborted" and "No space left on device" in doc["error"]
    _resumes(data, out)


def test_stream_run_crash_keeps_the_batches_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    register_secret(SECRET)
    data = write_jsonl(tmp_path / "in.jsonl", rows(5))
    out = tmp_path / "run"
    add = ScoreWriter.add

    def second_batch_fails(self: ScoreWriter, samples: Any, scores: Any) -> None:
        if self.n_samples >= 2:
            raise RuntimeError(f"a bug in a custom metric, given {SECRET}")
        add(self, samples, scores)

    with monkeypatch.context() as patched:
        patched.setattr(ScoreWriter, "add", second_batch_fails)
        with pytest.raises(RuntimeError, match=SECRET):
            ragmeter.evaluate(
                str(data), METRICS, n_resamples=20, out=out, executor="stream", batch_size=2
            )
    partial = out / "scores.jsonl.partial"  # the first batch, kept as an abort keeps it
    assert [json.loads(line)["question_id"] for line in partial.read_text().splitlines()] == [
        "q0",
        "q1",
    ]
    _check_crashed(out, data, tmp_path, "RuntimeError", "a bug in a custom metric, given")
    _resumes(data, out, executor="stream", batch_size=2)


def test_an_abort_and_ctrl_c_are_not_crashes(tmp_path: Path) -> None:
    """``crash_recorded`` leaves RunAborted and KeyboardInterrupt to the executors' own
    handlers (aborted / interrupted), but a Ctrl-C none of them caught does not leave
    "running"; it writes nothing without --out."""
    from ragmeter.errors import JudgeUnreachable
    from ragmeter.manifest import crash_recorded, write_manifest

    out = tmp_path / "run"
    out.mkdir()
    write_manifest(out, {"status": "running"})
    with pytest.raises(JudgeUnreachable), crash_recorded(out, lambda s, u: {"status": s}):
        raise JudgeUnreachable("judge gone")
    assert _run_json(out) == {"status": "running"}
    # the executor's own line is kept; a Ctrl-C none caught leaves "interrupted", not "running"
    own = {"status": "interrupted", "error": "interrupted: 3 of 9 rows written"}
    write_manifest(out, own)
    with pytest.raises(KeyboardInterrupt), crash_recorded(out, lambda s, u: {"status": s}):
        raise KeyboardInterrupt
    assert _run_json(out) == own
    write_manifest(out, {"status": "running"})
    with pytest.raises(KeyboardInterrupt), crash_recorded(out, lambda s, u: {"status": s}):
        raise KeyboardInterrupt
    assert _run_json(out)["status"] == "interrupted"
    with pytest.raises(ValueError), crash_recorded(None, lambda s, u: {"status": s}):
        raise ValueError("no --out")


@pytest.mark.parametrize("fails", ["building the manifest", "writing run.json"])
def test_a_failed_crash_record_never_masks_the_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails: str
) -> None:
    """Disk full while writing run.json ``crashed``: the run's own exception propagates."""
    from ragmeter import manifest as manifest_module

    def broken(*args: Any) -> Any:
        raise OSError(28, "No space left on device")

    def manifest(status: str, usage: Any) -> Any:
        return broken() if fails == "building the manifest" else {"status": status}

    if fails == "writing run.json":
        monkeypatch.setattr(manifest_module, "write_manifest", broken)
    with pytest.raises(MemoryError) as raised, manifest_module.crash_recorded(tmp_path, manifest):
        raise MemoryError("the run's own")
    assert str(raised.value) == "the run's own" and not (tmp_path / "run.json").exists()


@pytest.mark.slow  # starts a Ray cluster
def test_ray_run_crash_is_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from needs import require_module

    ray = require_module("ray")
    require_module("ray.data")
    register_secret(SECRET)
    data = write_jsonl(tmp_path / "in.jsonl", rows(5))
    out = tmp_path / "run"
    add = ScoreWriter.add

    def second_batch_fails(self: ScoreWriter, samples: Any, scores: Any) -> None:
        if self.n_samples >= 2:  # on the driver, where Ray's batches are written
            raise RuntimeError(f"a bug in a custom metric, given {SECRET}")
        add(self, samples, scores)

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        with monkeypatch.context() as patched:
            patched.setattr(ScoreWriter, "add", second_batch_fails)
            with pytest.raises(RuntimeError, match=SECRET):
                ragmeter.evaluate(
                    str(data), METRICS, n_resamples=20, out=out, executor="ray", batch_size=2
                )
        assert (out / "scores.jsonl.partial").read_text().count("\n") == 2
        _check_crashed(out, data, tmp_path, "RuntimeError", "a bug in a custom metric, given")
        _resumes(data, out, executor="ray", batch_size=2)
    finally:
        ray.shutdown()


@pytest.mark.parametrize("executor", ["local", "stream"])
def test_an_aborted_runs_error_is_masked_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, executor: str
) -> None:
    """An abort's run.json ``error`` was written as ``str(exc)``, unmasked, where a crash's
    is masked: a secret in the abort's message reached the disk."""
    from ragmeter.errors import JudgeUnreachable

    register_secret(SECRET)
    data = write_jsonl(tmp_path / "in.jsonl", rows(5))
    out = tmp_path / "run"

    def unreachable(*args: Any, **kwargs: Any) -> Any:
        raise JudgeUnreachable(f"the judge refused the key {SECRET}")

    if executor == "local":  # the judged metrics' calls: where an abort comes from
        monkeypatch.setattr("ragmeter.runner.run_model_metrics", unreachable)
    else:  # the stream executor scores a batch's metrics in one guarded block
        monkeypatch.setattr("ragmeter.executors.stream.compute_all", unreachable)
    judged = Settings(judge="openai:m", base_url="http://127.0.0.1:9/v1", preflight=False)
    with pytest.raises(JudgeUnreachable):
        ragmeter.evaluate(
            str(data),
            [*METRICS, "faithfulness"],
            n_resamples=20,
            out=out,
            executor=executor,
            settings=judged,
        )
    doc = _run_json(out)
    assert doc["status"] == "aborted" and "the judge refused the key ***" in doc["error"], doc
    assert SECRET not in (out / "run.json").read_text()
