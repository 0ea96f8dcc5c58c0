"""What a Ray run leaves behind, on one small local Ray started by the test (as a user's own
``ray.init()``): a usage error leaves ``--out`` as it was, an aborted run says so in one line
(no Ray traceback), a crash ragmeter does not know is shown once and said in one line, the
notes are a local run's, and the judge actors close their HTTP clients when they exit."""

from __future__ import annotations

import io
import json
import logging
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import ragmeter
from fake_server import FakeOpenAIServer
from needs import require_module
from ragmeter.cli import app
from ragmeter.errors import ConfigError
from test_stream_notes import METRICS as NOTED_METRICS
from test_stream_notes import write_mixed
from test_streaming import rows

JUDGED = ["faithfulness", "mrr"]


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    ray = require_module("ray")
    require_module("ray.data")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture
def console(ray_cluster: Any) -> Iterator[io.StringIO]:
    """What Ray Data's console handler writes during the test. It writes to the stderr of
    the moment it was made (when ray.data was imported: under pytest, some earlier test's
    capture), so capfd cannot see it; it is pointed here instead."""
    handlers = [
        h
        for h in logging.getLogger("ray.data").handlers
        if isinstance(h, logging.StreamHandler) and not isinstance(h, logging.FileHandler)
    ]
    assert handlers, "Ray Data has no console handler: the test would prove nothing"
    buf = io.StringIO()
    streams = [h.setStream(buf) for h in handlers]
    try:
        yield buf
    finally:
        for h, stream in zip(handlers, streams, strict=True):
            h.setStream(stream)


def settings(url: str, **kw: Any) -> ragmeter.Settings:
    return ragmeter.Settings(
        judge="openai:m",
        base_url=url,
        cache=None,
        embedder="none",
        api_key_env="RAGMETER_TEST_UNSET",
        concurrency=2,
        **kw,
    )


def write_rows(path: Path, n: int) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows(n)))
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def files_of(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def test_a_usage_error_leaves_out_as_it_was(ray_cluster: Any, tmp_path: Path) -> None:
    """Before: --out was claimed (run.json "running") before the actors' CPU check, so the
    usage error left a run.json that refused the next run there ("holds a run with other
    settings") and read as a killed run to compare; with --overwrite, an earlier run's
    run.json was replaced by it."""
    data = write_rows(tmp_path / "in.jsonl", 4)
    judged = settings(f"http://127.0.0.1:{free_port()}/v1")  # the check comes before any call
    fresh = tmp_path / "fresh"
    with pytest.raises(ConfigError, match="lower --actors"):
        ragmeter.evaluate(str(data), JUDGED, settings=judged, out=fresh, executor="ray", actors=9)
    assert not fresh.exists()
    ragmeter.evaluate(str(data), ["mrr"], out=fresh)  # another run there is not refused

    earlier = files_of(fresh)
    with pytest.raises(ConfigError, match="lower --actors"):
        ragmeter.evaluate(
            str(data), JUDGED, settings=judged, out=fresh, executor="ray", actors=9, overwrite=True
        )
    assert files_of(fresh) == earlier
    assert json.loads(earlier["run.json"])["status"] == "complete"


def test_an_unreachable_judge_is_one_line(
    ray_cluster: Any, tmp_path: Path, capfd, console: io.StringIO
) -> None:
    """Before: exit 3 and the right last line, after about 400 lines of Ray Data's logging:
    the actor's error three times with its traceback and "please open an issue on the Ray
    project GitHub page"."""
    data = write_rows(tmp_path / "in.jsonl", 4)
    url = f"http://127.0.0.1:{free_port()}/v1"
    args = ["evaluate", str(data), "--judge", "openai:m", "--base-url", url, "-m", "faithfulness"]
    args += ["--executor", "ray", "-q", "-o", str(tmp_path / "out")]
    got = CliRunner().invoke(app, args, env={"OPENAI_API_KEY": "x", "COLUMNS": "300"})
    fd = capfd.readouterr()
    said = got.stderr + fd.err + fd.out + console.getvalue()
    assert got.exit_code == 3, (got.output, said)
    assert "aborted: openai:m at " in got.stderr and "is unreachable" in got.stderr
    assert "Traceback" not in said and "open an issue on the Ray project" not in said, said
    assert "JudgeUnreachable" not in said, said
    run = json.loads((tmp_path / "out" / "run.json").read_text())
    assert run["status"] == "aborted"


def test_a_crash_is_shown_once_and_said_in_one_line(
    ray_cluster: Any, tmp_path: Path, console: io.StringIO, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error ragmeter does not know (here the input file deleted once the chunks are
    planned) keeps Ray Data's report with its traceback, once; the run raises the task's own
    exception, whose text is one line. Before: the traceback twice from Ray Data, and the
    RayTaskError raised, whose text is the remote traceback plus Ray Data's retry advice."""
    import ragmeter.executors.ray_executor as ray_executor

    data = write_rows(tmp_path / "in.jsonl", 4)
    planned = ray_executor.plan_chunks

    def plan_then_delete(source: str, kind: str, rows_per_chunk: int) -> list[dict[str, int]]:
        chunks = planned(source, kind, rows_per_chunk)
        os.unlink(source)
        return chunks

    monkeypatch.setattr(ray_executor, "plan_chunks", plan_then_delete)
    with pytest.raises(FileNotFoundError) as got:
        ragmeter.evaluate(str(data), ["mrr"], out=tmp_path / "out", executor="ray")
    said = str(got.value)
    assert "\n" not in said and "No such file or directory" in said, said
    err = console.getvalue()
    assert "An exception was raised from a task" in err, err  # Ray's report is kept
    assert err.count("FileNotFoundError: [Errno 2]") == 1, err


def test_ray_writes_the_local_notes(ray_cluster: Any, tmp_path: Path) -> None:
    """Before: a Ray run had no "had no ids" note and no "no CI" note (a local run has)."""
    data = write_mixed(tmp_path / "in.jsonl")
    local = ragmeter.evaluate(str(data), NOTED_METRICS, n_resamples=50, out=tmp_path / "local")
    ray_run = ragmeter.evaluate(
        str(data), NOTED_METRICS, n_resamples=50, out=tmp_path / "ray", executor="ray", batch_size=2
    )
    assert any("had no ids" in n for n in local.notes)
    assert ray_run.notes == local.notes
    summaries = [json.loads((tmp_path / d / "summary.json").read_text()) for d in ("local", "ray")]
    assert summaries[0]["notes"] == summaries[1]["notes"]


def _judge_actor_logs(logs: Path) -> dict[int, Path]:
    """The judge actors' stderr files in the Ray session's logs, by process id."""
    found = {}
    for err in logs.glob("worker-*.err"):
        try:
            head = err.read_text(errors="replace")[:2000]
        except OSError:
            continue
        if "MapBatches(JudgeStage)" in head:
            found[int(err.stem.rsplit("-", 1)[1])] = err
    return found


def test_judge_actors_close_their_clients(ray_cluster: Any, tmp_path: Path) -> None:
    """Before: on a Ray the user started, the judge actors exited after the run with their
    HTTP clients open, and each printed aiohttp's "Unclosed client session" / "Unclosed
    connector" (forwarded to the user's console). Their stderr is read from the session's
    log files once they have exited."""
    logs = Path(ray_cluster._private.worker._global_node.get_logs_dir_path())
    before = set(_judge_actor_logs(logs))
    data = write_rows(tmp_path / "in.jsonl", 12)
    with FakeOpenAIServer() as a, FakeOpenAIServer() as b:
        ragmeter.evaluate(
            str(data),
            JUDGED,
            settings=settings(f"{a.url},{b.url}"),
            out=tmp_path / "out",
            executor="ray",
            actors=2,
            batch_size=3,
        )
        deadline = time.monotonic() + 90  # Ray Data lets the actors go once the run is done
        while True:
            actors = {p: e for p, e in _judge_actor_logs(logs).items() if p not in before}
            alive = [p for p in actors if Path(f"/proc/{p}").exists()]
            if actors and not alive:
                break
            assert time.monotonic() < deadline, f"judge actors {alive or 'none'} still there"
            time.sleep(0.5)
    time.sleep(0.5)  # the last lines of an exited process are in its file
    said = {p: e.read_text(errors="replace") for p, e in actors.items()}
    assert not any("Unclosed" in text for text in said.values()), said


def test_ray_reads_a_parquet_map_column_as_a_dict(ray_cluster: Any, tmp_path: Path) -> None:
    """Ray's chunk reader read a map column as (key, value) pairs, which validation refused
    ("expected an object, got list"), where local and stream runs read the dict."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    meta = pa.array([[("source", "wiki")], [("source", "news")]], pa.map_(pa.string(), pa.string()))
    table = pa.table(
        {
            "question": ["q1?", "q2?"],
            "answer": ["Paris.", "Rome."],
            "contexts": [["Paris is in France."], ["Rome is in Italy."]],
            "metadata": meta,
        }
    )
    path = tmp_path / "rows.parquet"
    pq.write_table(table, path)
    run = ragmeter.evaluate(
        str(path), ["k_precision"], executor="ray", out=tmp_path / "o", n_resamples=0
    )
    assert run.n_samples == 2


def test_no_more_judge_actors_than_chunks(ray_cluster: Any, tmp_path: Path) -> None:
    """A run of one chunk (3 rows, chunks of 256) started both asked-for actors, one of which
    had nothing to read (a worker process, its imports and client), and Ray Data warned that
    its pool "only received 1 input(s)"; the pool is now the chunks' count at most."""
    data = write_rows(tmp_path / "in.jsonl", 3)
    with FakeOpenAIServer() as srv:
        one = ragmeter.evaluate(
            str(data), JUDGED, settings=settings(srv.url), out=tmp_path / "one", executor="ray"
        )
        two = ragmeter.evaluate(
            str(data),
            JUDGED,
            settings=settings(srv.url),
            out=tmp_path / "two",
            executor="ray",
            batch_size=2,
        )
    assert one.usage["actors"] == 1 and two.usage["actors"] == 2


def test_an_input_written_to_during_a_ray_run_is_said(
    ray_cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the stream executor says it: the run ended 'complete' under the file's old sha256
    (a row appended or edited while Ray read it), or raised 'Ray returned N rows: a bug'."""
    from ragmeter.executors import ray_executor

    data, out = write_rows(tmp_path / "in.jsonl", 6), tmp_path / "out"
    real = ray_executor._run_pipeline

    def then_appended(*args: Any, **kw: Any) -> Any:
        extra = real(*args, **kw)
        with data.open("a") as fh:  # a log still being written
            fh.write(json.dumps(rows(7)[-1]) + "\n")
        return extra

    monkeypatch.setattr(ray_executor, "_run_pipeline", then_appended)
    with pytest.raises(ragmeter.DataError, match="the file changed while it was being scored"):
        ragmeter.evaluate(str(data), ["token_f1"], executor="ray", out=out, actors=1)
    run = json.loads((out / "run.json").read_text())
    assert run["status"] == "crashed" and "changed while it was being scored" in run["error"]
    assert not (out / "scores.jsonl").exists()
