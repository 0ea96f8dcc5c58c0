"""Streamed runs stopped, raced or starved (the 2026-11-27 audit): two runs into one --out,
the input written to while it is scored, Ctrl-C in a run that awaits nothing, SIGTERM, a
full disk. The tests of each defect failed before its fix; the lock's release and a
SIGKILLed run's resume are guards of those fixes (they passed before too)."""

from __future__ import annotations

import asyncio
import errno
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import ragmeter
from fake_server import FakeOpenAIServer
from ragmeter.cli import app
from ragmeter.errors import DataError, OutputError, RunAborted
from ragmeter.executors import streamed
from ragmeter.executors.stream import astream_evaluate
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


def test_an_out_that_cannot_be_opened_runs_unlocked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A directory writable but not readable (mode -wx; root ignores modes, so os.open is
    made to refuse): the run goes on unlocked, as before, not an internal error."""
    from ragmeter import out_lock

    data = write_jsonl(tmp_path / "in.jsonl", rows(3))

    real_open = os.open

    def refused(path: Any, flags: int, *args: Any) -> int:
        if os.path.isdir(path):  # the lock's open; the files written there open as ever
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args)

    monkeypatch.setattr(out_lock.os, "open", refused)
    res = ragmeter.evaluate(str(data), LEXICAL, n_resamples=20, out=tmp_path / "o")
    assert res.summary()["n_samples"] == 3


# ---- the input written to while it is scored --------------------------------------------------


@pytest.mark.parametrize("change", ["appended", "edited", "truncated"])
def test_an_input_written_to_during_a_streamed_run_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    """Before: rows appended after the validation pass (a log still being written) were
    scored unvalidated, a duplicate id among them, and the run ended ``complete`` with
    run.json naming the old row count and sha256; an edited row was scored as edited, a cut
    file scored short, both under the old hash."""
    data = write_jsonl(tmp_path / "in.jsonl", rows(6))
    out = tmp_path / "run"
    add = ScoreWriter.add
    more = rows(8)[6:] + rows(1)  # q6, q7 and q0 again

    def then_change(self: ScoreWriter, samples: Any, scores: Any) -> None:
        add(self, samples, scores)
        if self.n_samples == 2:
            lines = data.read_text().splitlines(keepends=True)
            if change == "appended":
                lines += [json.dumps(r) + "\n" for r in more]
            elif change == "edited":
                lines[4] = lines[4].replace("Paris", "Rome!")
            else:
                lines = lines[:3]
            data.write_text("".join(lines))

    monkeypatch.setattr(ScoreWriter, "add", then_change)
    with pytest.raises(DataError, match="the file changed while it was being scored") as raised:
        ragmeter.evaluate(
            str(data), LEXICAL, n_resamples=20, out=out, executor="stream", batch_size=2
        )
    assert "re-run with --overwrite" in str(raised.value)
    doc = _run_json(out)
    assert doc["status"] == "crashed" and "the file changed while" in doc["error"], doc
    assert not (out / "scores.jsonl").exists()  # no complete run of neither version
    assert len(_ids(out / "scores.jsonl.partial")) <= 6  # no appended row was scored


def test_an_unchanged_input_still_completes_and_resumes(tmp_path: Path) -> None:
    """The end-of-run check passes an untouched file (its bytes hashed again)."""
    data = write_jsonl(tmp_path / "in.jsonl", rows(7))
    kw: dict[str, Any] = {"n_resamples": 20, "out": tmp_path / "o", "executor": "stream"}
    for _ in range(2):
        res = ragmeter.evaluate(str(data), LEXICAL, batch_size=3, **kw)
        assert res.n_samples == 7 and _run_json(tmp_path / "o")["status"] == "complete"


# ---- Ctrl-C and SIGTERM -----------------------------------------------------------------------


def test_ctrl_c_stops_a_run_that_awaits_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """asyncio.run turns Ctrl-C into a cancellation of the run's task, felt at an await.
    Before: arithmetic metrics await nothing, so the run went on to its end, then the CLI
    said ``interrupted`` (exit 130) beside a run.json saying ``complete``."""
    data = write_jsonl(tmp_path / "in.jsonl", rows(8))
    out = tmp_path / "run"
    add = ScoreWriter.add

    def ctrl_c_after_the_first_batch(self: ScoreWriter, samples: Any, scores: Any) -> None:
        add(self, samples, scores)
        if self.n_samples == 2:
            task = asyncio.current_task()
            assert task is not None
            task.cancel()  # what asyncio.Runner's SIGINT handler does

    monkeypatch.setattr(ScoreWriter, "add", ctrl_c_after_the_first_batch)
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(astream_evaluate(str(data), LEXICAL, out=out, n_resamples=20, batch_size=2))
    doc = _run_json(out)
    assert doc["status"] == "interrupted", doc
    assert doc["error"].startswith("interrupted: 2 of 8 rows written")
    assert doc["error"].endswith("nothing is judged: re-run the same command to score them again")
    assert _ids(out / "scores.jsonl.partial") == ["q0", "q1"]


def _cli(data: Path, out: Path, url: str) -> list[str]:
    return [
        sys.executable, "-m", "ragmeter", "evaluate", str(data), "--executor", "stream",
        "-m", "faithfulness,token_f1", "--judge", "openai:fake", "--base-url", url,
        "--embedder", "none", "--cache", str(out.parent / "cache"), "-o", str(out),
        "--batch-size", "5", "--n-resamples", "20", "-q",
    ]  # fmt: skip


def _env() -> dict[str, str]:
    src = str(Path(ragmeter.__file__).resolve().parents[1])
    path = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "OPENAI_API_KEY": "sk-test", "PYTHONPATH": path}


def _stop_midway(cmd: list[str], out: Path, sig: int) -> subprocess.CompletedProcess[str]:
    """Start the run, send ``sig`` once its second batch is written, wait for its end."""
    proc = subprocess.Popen(cmd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)  # fmt: skip
    partial, deadline = out / "scores.jsonl.partial", time.monotonic() + 30
    while time.monotonic() < deadline and proc.poll() is None:
        if partial.exists() and partial.read_bytes().count(b"\n") >= 10:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be stopped"
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=30)
    return subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_stopped_judged_run_resumes_to_the_uninterrupted_scores(tmp_path: Path, sig: int) -> None:
    """SIGTERM (timeout, systemd, docker stop, a cancelled CI job) ends a streamed run as
    Ctrl-C does: run.json ``interrupted`` saying where it got to, exit 130. Before: killed
    at once, run.json ``running`` for ever and not a word. SIGKILL cannot be caught: its
    run.json stays ``running``, and its lock on --out dies with it (the re-run is no "run
    in use"). Either way the same command resumes: every row once, the scores of an
    uninterrupted run, no answered call asked again."""
    data = write_jsonl(tmp_path / "in.jsonl", rows(60))
    out = tmp_path / "run"
    with FakeOpenAIServer(latency=0.05) as srv:
        stopped = _stop_midway(_cli(data, out, srv.url), out, sig)
        doc = _run_json(out)
        if sig == signal.SIGTERM:
            assert stopped.returncode == 130, stopped.stderr
            assert "interrupted: " in stopped.stderr and "of 60 rows written" in stopped.stderr
            assert doc["status"] == "interrupted" and "re-run the same command" in doc["error"]
        else:
            assert stopped.returncode == -signal.SIGKILL and doc["status"] == "running"
        asked = srv.calls  # every request the stopped run made
        again = subprocess.run(_cli(data, out, srv.url), env=_env(), capture_output=True,
                               text=True, timeout=60)  # fmt: skip
        assert again.returncode == 0, again.stderr
        resumed_calls = srv.calls - asked
    assert _run_json(out)["status"] == "complete" and not (out / "scores.jsonl.partial").exists()
    got = [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]
    assert [r["question_id"] for r in got] == [f"q{i}" for i in range(60)]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_samples"] == 60 and summary["usage"]["cache_hits"] >= 10
    assert resumed_calls <= 60 - 10 + 1  # + the preflight
    with FakeOpenAIServer() as srv:  # the same rows, uninterrupted
        whole = ragmeter.evaluate(
            str(data), ["faithfulness", "token_f1"], n_resamples=20,
            settings=ragmeter.Settings(judge="openai:fake", base_url=srv.url, embedder="none",
                                       cache=str(tmp_path / "c2"), api_key_env="UNSET_KEY_X"),
        )  # fmt: skip
    assert [r["faithfulness"] for r in got] == [s.value for s in whole.scores["faithfulness"]]


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


@pytest.mark.parametrize("full_at", ["summary.json", "run.json"])
def test_a_full_disk_while_the_summary_is_written_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, full_at: str
) -> None:
    """Every row scored, then no room for summary.json or run.json. Before: ``internal
    error: OSError: [Errno 28] No space left on device`` (exit 1), naming no file."""
    data = write_jsonl(tmp_path / "in.jsonl", rows(4))
    out = tmp_path / "run"
    real = streamed.write_json

    def full(doc: Any, path: Any) -> None:
        if Path(path).name == full_at and doc.get("status", "complete") == "complete":
            raise OSError(errno.ENOSPC, "No space left on device")
        real(doc, path)

    monkeypatch.setattr(streamed, "write_json", full)
    if full_at == "run.json":
        monkeypatch.setattr(streamed, "write_manifest", lambda o, m: full(m, Path(o) / full_at))
    cli = CliRunner().invoke(
        app,
        ["evaluate", str(data), "-m", ",".join(LEXICAL), "-o", str(out), "-q",
         "--n-resamples", "20", "--executor", "stream", "--batch-size", "2"],
    )  # fmt: skip
    said = " ".join(cli.output.split())
    assert cli.exit_code == 3, cli.output
    assert f"aborted: cannot write {out / full_at} (No space left on device)" in said
    assert len(_ids(out / "scores.jsonl")) == 4  # the scores are complete
