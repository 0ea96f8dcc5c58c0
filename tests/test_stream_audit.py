"""Streamed runs stopped, raced or starved (the 2026-11-27 audit): two runs into one --out,
the input written to while it is scored, Ctrl-C in a run that awaits nothing, SIGTERM, a
full disk. Each test failed before its fix."""

from __future__ import annotations

import errno
import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app
from ragmeter.errors import OutputError, RunAborted
from ragmeter.executors import streamed
from ragmeter.executors.streamed import ScoreWriter
from test_streaming import rows, write_jsonl

LEXICAL = ["token_f1", "mrr"]


def _run_json(out: Path) -> dict[str, Any]:
    return json.loads((out / "run.json").read_text())


def _ids(path: Path) -> list[str]:
    return [json.loads(line)["question_id"] for line in path.read_bytes().split(b"\n") if line]


@contextmanager
def _held(out: Path) -> Iterator[None]:
    """The lock another process's run holds on its --out (flock: per open file, so a
    descriptor of this process conflicts with ragmeter's own as another process's would)."""
    fd = os.open(out, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield
    finally:
        os.close(fd)


def _free(out: Path) -> bool:
    """No run holds ``out`` (its lock can be taken now)."""
    fd = os.open(out, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


# ---- two runs into one --out ----------------------------------------------------------------


@pytest.mark.parametrize("executor", ["stream", "local"])
def test_a_run_into_an_out_another_run_is_writing_is_refused(tmp_path: Path, executor: str) -> None:
    """Before: the second run passed the resume check, truncated the first's partial file and
    both ended ``complete`` (exit 0) over a scores.jsonl of torn, interleaved lines."""
    data = write_jsonl(tmp_path / "in.jsonl", rows(6))
    out = tmp_path / "run"
    kw: dict[str, Any] = {"executor": executor, "n_resamples": 20, "out": out}
    ragmeter.evaluate(str(data), LEXICAL, **kw)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with _held(out):
        for overwrite in (False, True):  # --overwrite replaces a run, never a live one
            with pytest.raises(OutputError, match="is in use: another run is writing"):
                ragmeter.evaluate(str(data), LEXICAL, overwrite=overwrite, **kw)
        cli = CliRunner().invoke(
            app, ["evaluate", str(data), "-m", ",".join(LEXICAL), "-o", str(out), "-q"]
        )
        assert cli.exit_code == 2 and "is in use" in cli.output, cli.output
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # nothing touched
    ragmeter.evaluate(str(data), LEXICAL, **kw)  # the other run ended: this one may run
    assert _run_json(out)["status"] == "complete" and _free(out)


def test_the_lock_is_let_go_however_a_run_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Complete, refused (other settings), crashed, interrupted: the next run may start."""
    data = write_jsonl(tmp_path / "in.jsonl", rows(6))
    out = tmp_path / "run"
    kw: dict[str, Any] = {"executor": "stream", "n_resamples": 20, "out": out, "batch_size": 2}
    ragmeter.evaluate(str(data), LEXICAL, **kw)
    assert _free(out)
    with pytest.raises(OutputError, match="other settings"):
        ragmeter.evaluate(str(data), ["token_f1"], **kw)
    assert _free(out)
    add = ScoreWriter.add

    def broken(self: ScoreWriter, samples: Any, scores: Any) -> None:
        if self.n_samples:
            raise RuntimeError("a bug")
        add(self, samples, scores)

    with monkeypatch.context() as patched:
        patched.setattr(ScoreWriter, "add", broken)
        with pytest.raises(RuntimeError):
            ragmeter.evaluate(str(data), LEXICAL, **kw)
    assert _run_json(out)["status"] == "crashed" and _free(out)


# ---- a full disk ----------------------------------------------------------------------------


class _FullAfter:
    """The partial file, on a disk that fills up in the middle of the ``n``-th write."""

    def __init__(self, fh: Any, n: int) -> None:
        self.fh, self.n = fh, n

    def write(self, data: Any) -> int:
        self.n -= 1
        if self.n == 0:
            self.fh.write(data[:37])  # a torn line, as a full disk leaves it
            raise OSError(errno.ENOSPC, "No space left on device")
        return int(self.fh.write(data))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.fh, name)


def test_a_full_disk_aborts_naming_the_file_and_keeps_whole_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: ``internal error: OSError: [Errno 28] No space left on device`` (exit 1), no
    file named, a torn last line in scores.jsonl.partial, run.json ``running``."""
    data = write_jsonl(tmp_path / "in.jsonl", rows(6))
    out = tmp_path / "run"
    init = ScoreWriter.__init__

    def on_a_small_disk(self: ScoreWriter, *args: Any) -> None:
        init(self, *args)
        self._fh = _FullAfter(self._fh, 2)  # type: ignore[assignment]

    monkeypatch.setattr(streamed.ScoreWriter, "__init__", on_a_small_disk)
    with pytest.raises(RunAborted) as raised:
        ragmeter.evaluate(str(data), LEXICAL, n_resamples=20, out=out, executor="stream",
                          batch_size=2)  # fmt: skip
    said = str(raised.value)
    assert f"cannot write {out / 'scores.jsonl.partial'} (No space left on device)" in said
    assert "after 2 rows" in said and "resume" in said
    doc = _run_json(out)
    assert doc["status"] == "aborted" and "No space left on device" in doc["error"]
    assert _ids(out / "scores.jsonl.partial") == ["q0", "q1"]  # whole rows only
    assert _free(out)
    cli = CliRunner().invoke(
        app,
        ["evaluate", str(data), "-m", ",".join(LEXICAL), "-o", str(out), "-q",
         "--n-resamples", "20", "--executor", "stream", "--batch-size", "2"],
    )  # fmt: skip
    assert cli.exit_code == 3 and "aborted: cannot write" in " ".join(cli.output.split())
