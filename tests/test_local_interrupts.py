"""The local executor stopped as the stream executor is (the 2026-11-27 audit): SIGTERM
(timeout, systemd, docker stop, a cancelled CI job) while rows are scored stops the run as
Ctrl-C does; once every row is scored, SIGTERM or Ctrl-C lets the run finish; a Ctrl-C in a
run of arithmetic metrics is felt; evaluate(executor="stream") keeps the result of a
run finished under a Ctrl-C. Each test but the last failed before its fix; the last is a
guard (an application's own SIGTERM handler is left alone)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ragmeter
import ragmeter.runner as runner
from fake_server import FakeOpenAIServer
from ragmeter.executors import stream
from test_streaming import rows, write_jsonl

LEXICAL = ["token_f1", "mrr"]


def _run_json(out: Path) -> dict[str, Any]:
    return json.loads((out / "run.json").read_text())


def _env() -> dict[str, str]:
    src = str(Path(ragmeter.__file__).resolve().parents[1])
    path = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "OPENAI_API_KEY": "sk-test", "PYTHONPATH": path}


def _cli(data: Path, out: Path, url: str) -> list[str]:
    """A local run (no --executor) of a judged metric, two calls at a time."""
    return [
        sys.executable, "-m", "ragmeter", "evaluate", str(data),
        "-m", "faithfulness,token_f1", "--judge", "openai:fake", "--base-url", url,
        "--embedder", "none", "--cache", str(out.parent / "cache"), "-o", str(out),
        "--concurrency", "2", "--no-preflight", "--n-resamples", "20", "-q",
    ]  # fmt: skip


def test_sigterm_stops_a_judged_local_run_and_the_same_command_resumes(tmp_path: Path) -> None:
    """Before: SIGTERM killed the run at once (exit -15), run.json ``running`` for ever and not
    a word. Now as Ctrl-C: run.json ``interrupted`` with the line saying where it got to, that
    line printed, exit 130; the same command resumes from the cache (every row once, the
    scores of an uninterrupted run, no answered call asked again)."""
    data = write_jsonl(tmp_path / "in.jsonl", rows(60))
    out = tmp_path / "run"
    with FakeOpenAIServer(latency=0.05) as srv:
        proc = subprocess.Popen(_cli(data, out, srv.url), env=_env(), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)  # fmt: skip
        deadline = time.monotonic() + 30
        while srv.calls < 10 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert proc.poll() is None, "the run ended before it could be stopped"
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=30)
        flat = " ".join(stderr.split())
        assert proc.returncode == 130, flat
        doc = _run_json(out)
        assert doc["status"] == "interrupted", doc
        assert doc["error"].startswith("interrupted: ") and "of 60 judged scores done" in flat
        assert f"kept in {tmp_path / 'cache'}; re-run the same command to resume" in flat
        asked = srv.calls
        again = subprocess.run(_cli(data, out, srv.url), env=_env(), capture_output=True,
                               text=True, timeout=60)  # fmt: skip
        assert again.returncode == 0, again.stderr
        resumed = srv.calls - asked
    assert _run_json(out)["status"] == "complete"
    got = [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]
    assert [r["question_id"] for r in got] == [f"q{i}" for i in range(60)]
    hits = json.loads((out / "summary.json").read_text())["usage"]["cache_hits"]
    assert hits >= 5, hits  # what the stopped run had answered
    with FakeOpenAIServer() as srv:  # the same rows, uninterrupted
        whole = ragmeter.evaluate(
            str(data), ["faithfulness", "token_f1"], n_resamples=20,
            settings=ragmeter.Settings(judge="openai:fake", base_url=srv.url, embedder="none",
                                       cache=str(tmp_path / "c2"), api_key_env="UNSET_KEY_X",
                                       preflight=False),
        )  # fmt: skip
        assert resumed + hits == srv.calls  # every call asked once or answered from the cache
    assert [r["faithfulness"] for r in got] == [s.value for s in whole.scores["faithfulness"]]


_SIGNAL_DURING_AGGREGATES = """
    import json, os, signal, sys
    import ragmeter, ragmeter.runner as runner
    aggregate = runner.aggregate
    def signalled(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)  # at each metric's: once is no special case
        return aggregate(*args, **kwargs)
    runner.aggregate = signalled
    res = ragmeter.evaluate(sys.argv[1], ["token_f1", "mrr"], out=sys.argv[2], n_resamples=20)
    print(len(res.samples), signal.getsignal(signal.SIGTERM) == signal.SIG_DFL)
"""


def test_sigterm_once_every_row_is_scored_lets_the_files_be_written(tmp_path: Path) -> None:
    """Before: killed while the aggregates were computed, run.json ``running``. Now the run
    finishes (files written, complete, exit 0) and SIGTERM's default is restored."""
    data = write_jsonl(tmp_path / "in.jsonl", rows(6))
    out = tmp_path / "run"
    script = textwrap.dedent(_SIGNAL_DURING_AGGREGATES)
    done = subprocess.run([sys.executable, "-c", script, str(data), str(out)], env=_env(),
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, (done.returncode, done.stderr)
    assert done.stdout.split() == ["6", "True"]
    assert _run_json(out)["status"] == "complete" and (out / "summary.json").exists()


def _ctrl_c() -> None:
    """What pressing Ctrl-C does: SIGINT to this process, whose asyncio.run cancels the run."""
    os.kill(os.getpid(), signal.SIGINT)


@pytest.fixture
def sigint_is_pythons() -> Iterator[None]:
    """asyncio.run handles SIGINT only where it has Python's default handler. A process
    started in the background by a non-interactive shell (a CI runner, ``nohup``) ignores
    SIGINT: Python's handler is put in place for the test, and the one found restored."""
    found = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, found)


@pytest.mark.usefixtures("sigint_is_pythons")
def test_ctrl_c_while_the_aggregates_are_computed_finishes_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the files were written, run.json ``complete``, then evaluate() raised a bare
    KeyboardInterrupt (the CLI said ``interrupted``, exit 130) and the result was lost. Now
    the run, every row scored, finishes and returns as its run.json says."""
    data = write_jsonl(tmp_path / "in.jsonl", rows(6))
    aggregate, pressed = runner.aggregate, []
    # the handler found (Python's default, or Ray's once an earlier test ran ray.init here)
    found = signal.getsignal(signal.SIGTERM)

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        if not pressed:  # once: a second Ctrl-C raises KeyboardInterrupt where it lands
            pressed.append(_ctrl_c())
        return aggregate(*args, **kwargs)

    monkeypatch.setattr(runner, "aggregate", interrupted)
    try:
        res = ragmeter.evaluate(str(data), LEXICAL, out=tmp_path / "run", n_resamples=20)
    except KeyboardInterrupt as exc:  # not let out: pytest would end the session
        status = _run_json(tmp_path / "run")["status"]
        pytest.fail(f"said interrupted ({str(exc)!r}) beside a run.json saying {status}")
    assert len(res.samples) == 6 and res.aggregates["token_f1"].n_ok == 6
    assert _run_json(tmp_path / "run")["status"] == "complete"
    assert signal.getsignal(signal.SIGTERM) == found  # restored after the run


@pytest.mark.usefixtures("sigint_is_pythons")
def test_ctrl_c_while_a_streamed_run_writes_its_summary_finishes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """evaluate(executor="stream") the same (its return is runner.py's): before, the result
    was lost and a bare KeyboardInterrupt raised beside a run.json saying ``complete``."""
    data = write_jsonl(tmp_path / "in.jsonl", rows(6))
    finish_result = stream.finish_result

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        _ctrl_c()
        return finish_result(*args, **kwargs)

    monkeypatch.setattr(stream, "finish_result", interrupted)
    kw: dict[str, Any] = {"out": tmp_path / "run", "n_resamples": 20, "executor": "stream"}
    try:
        res = ragmeter.evaluate(str(data), LEXICAL, **kw)
    except KeyboardInterrupt as exc:  # not let out: pytest would end the session
        status = _run_json(tmp_path / "run")["status"]
        pytest.fail(f"said interrupted ({str(exc)!r}) beside a run.json saying {status}")
    assert res.n_samples == 6 and _run_json(tmp_path / "run")["status"] == "complete"


@pytest.mark.usefixtures("sigint_is_pythons")
def test_ctrl_c_in_a_run_of_arithmetic_metrics_is_felt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: such a run awaited nothing, so it went on to write its files (``complete``)
    and only then said ``interrupted``, with no line. Now it stops where the scores were
    computed: run.json ``interrupted``, a line saying nothing is judged (no cache to name)."""
    data = write_jsonl(tmp_path / "in.jsonl", rows(6))
    compute_all = runner.compute_all

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        _ctrl_c()
        return compute_all(*args, **kwargs)

    monkeypatch.setattr(runner, "compute_all", interrupted)
    with pytest.raises(KeyboardInterrupt) as stopped:
        ragmeter.evaluate(str(data), LEXICAL, out=tmp_path / "run", n_resamples=20)
    monkeypatch.undo()  # the same command again, no Ctrl-C
    said = "interrupted: the scores of 6 rows were not written; nothing is judged: re-run the same"
    assert str(stopped.value).startswith(said)
    doc = _run_json(tmp_path / "run")
    assert doc["status"] == "interrupted" and doc["error"] == str(stopped.value)
    assert not (tmp_path / "run" / "summary.json").exists()
    res = ragmeter.evaluate(str(data), LEXICAL, out=tmp_path / "run", n_resamples=20)
    assert len(res.samples) == 6 and _run_json(tmp_path / "run")["status"] == "complete"


def test_an_applications_own_sigterm_handler_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A guard: SIGTERM is taken over only from its default; an application's handler sees
    it, the run goes on, and the handler is still there afterwards."""
    data = write_jsonl(tmp_path / "in.jsonl", rows(6))
    seen: list[int] = []

    def own(signum: int, frame: Any) -> None:
        seen.append(signum)

    compute_all = runner.compute_all

    def terminated(*args: Any, **kwargs: Any) -> Any:
        os.kill(os.getpid(), signal.SIGTERM)
        return compute_all(*args, **kwargs)

    monkeypatch.setattr(runner, "compute_all", terminated)
    previous = signal.signal(signal.SIGTERM, own)
    try:
        res = ragmeter.evaluate(str(data), LEXICAL, out=tmp_path / "run", n_resamples=20)
        assert signal.getsignal(signal.SIGTERM) is own
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert seen == [signal.SIGTERM] and len(res.samples) == 6
    assert _run_json(tmp_path / "run")["status"] == "complete"
