"""Found by an audit of the Ray executor (2026-11-27), as a user meets it: a cluster that
refuses the client says why; SIGTERM stops a Ray run as Ctrl-C does and the same command
resumes it; an interrupted run that judges nothing says so; a Parquet file of one big row
group is shared by the actors. Each test failed before its fix.

The SIGTERM test runs the CLI in a process of its own, which starts its own local Ray (as
``ragmeter evaluate --executor ray`` does): ``ray.init`` in that process is what replaced
SIGTERM's default, and a test process sent SIGTERM would end the test run."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ragmeter
from fake_server import FakeOpenAIServer
from needs import require_module
from ragmeter.errors import ConfigError
from ragmeter.executors._ray_cluster import connect
from ragmeter.executors._ray_source import plan_chunks, read_chunk
from ragmeter.executors.source import iter_raw
from test_streaming import rows

AUTH = (
    "ray.exceptions.AuthenticationError: RPC error: InvalidAuthToken: Authentication token "
    "is missing or incorrect."
)


class _RefusingRay:
    """``ray.init`` as Ray 2.60 fails on a cluster started with token authentication: a
    ConnectionError naming only the address, raised from a RuntimeError whose text is the
    traceback that ends in the reason."""

    def init(self, **kw: Any) -> None:
        try:
            raise RuntimeError(
                "Failed to connect to GCS. Last connection error: Traceback (most recent call "
                'last):\n  File "python/ray/includes/common.pxi", line 119, in '
                f"ray._raylet.check_status\n{AUTH}\n"
            )
        except RuntimeError as exc:
            raise ConnectionError("Failed to connect to Ray cluster at 10.0.0.5:6379") from exc


def test_a_refused_connection_says_why() -> None:
    """Before: after Ray's 20 s of retries, "cannot start the Ray run on --ray-address
    10.0.0.5:6379: Failed to connect to Ray cluster at 10.0.0.5:6379", and not a word of the
    missing token."""
    with pytest.raises(ConfigError) as got:
        connect(_RefusingRay(), "10.0.0.5:6379")
    said = str(got.value)
    assert said.startswith("cannot start the Ray run on --ray-address 10.0.0.5:6379: ")
    assert said.endswith(AUTH), said
    assert "Traceback" not in said


def _cli(data: Path, out: Path, url: str) -> list[str]:
    return [
        sys.executable, "-m", "ragmeter", "evaluate", str(data), "--executor", "ray",
        "--actors", "1", "--batch-size", "4", "-m", "faithfulness,mrr", "--judge",
        "openai:fake", "--base-url", url, "--embedder", "none", "--concurrency", "2",
        "--cache", str(out.parent / "cache"), "-o", str(out), "--n-resamples", "20", "-q",
    ]  # fmt: skip


def _env() -> dict[str, str]:
    src = str(Path(ragmeter.__file__).resolve().parents[1])
    path = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "OPENAI_API_KEY": "sk-test", "PYTHONPATH": path}


def test_sigterm_stops_a_ray_run_as_ctrl_c_and_the_same_command_resumes(tmp_path: Path) -> None:
    """Before: SIGTERM (timeout, systemd, docker stop, a cancelled CI job) ended a Ray run at
    once with Ray's stack dump and exit status 15: run.json said ``running`` for ever and
    nothing said how far it got, where a stream run says ``interrupted: N of M rows
    written`` and exits 130. Now the same, and the re-run scores every row once, with the
    answered calls from the cache."""
    require_module("ray")
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows(24)))
    out = tmp_path / "run"
    proc: list[subprocess.Popen[str]] = []

    def sigterm_on_the_sixth_request(body: dict[str, Any], n_seen: int) -> None:
        if srv.calls == 6:  # the preflight, 5 judged rows asked (3+ answered): scoring
            proc[0].send_signal(signal.SIGTERM)
        return None

    with FakeOpenAIServer(latency=0.2, fault_fn=sigterm_on_the_sixth_request) as srv:
        proc.append(subprocess.Popen(_cli(data, out, srv.url), env=_env(), text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE))  # fmt: skip
        _, stderr = proc[0].communicate(timeout=120)
        asked = srv.calls
        doc = json.loads((out / "run.json").read_text())
        assert proc[0].returncode == 130, stderr[-2000:]
        assert re.search(r"interrupted: \d+ of 24 rows written", stderr), stderr[-2000:]
        assert doc["status"] == "interrupted" and "re-run the same command" in doc["error"]
        again = subprocess.run(_cli(data, out, srv.url), env=_env(), capture_output=True,
                               text=True, timeout=120)  # fmt: skip
        assert again.returncode == 0, again.stderr[-2000:]
        resumed = srv.calls - asked
    assert json.loads((out / "run.json").read_text())["status"] == "complete"
    got = [json.loads(line)["question_id"] for line in (out / "scores.jsonl").open()]
    assert got == [f"q{i}" for i in range(24)]
    summary = json.loads((out / "summary.json").read_text())
    hits = summary["usage"]["cache_hits"]  # answered before the SIGTERM: not asked again
    assert hits >= 3 and resumed <= 24 - hits + 1, (hits, resumed)  # + the preflight


@pytest.fixture(scope="module")
def ray_cluster() -> Any:
    ray = require_module("ray")
    require_module("ray.data")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def test_an_interrupted_arithmetic_run_says_nothing_is_judged(
    ray_cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: "... judged calls not kept (the cache is off); re-run the same command to
    resume" for a run that judges nothing (a stream run says "nothing is judged")."""
    from ragmeter.executors.streamed import ScoreWriter

    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows(8)))
    add = ScoreWriter.add

    def ctrl_c_after_the_first_batch(self: ScoreWriter, samples: Any, scores: Any) -> None:
        add(self, samples, scores)
        raise KeyboardInterrupt

    monkeypatch.setattr(ScoreWriter, "add", ctrl_c_after_the_first_batch)
    out = tmp_path / "o"
    with pytest.raises(KeyboardInterrupt) as said:
        ragmeter.evaluate(str(data), ["mrr", "token_f1"], out=out, executor="ray", batch_size=2)
    assert str(said.value).startswith("interrupted: 2 of 8 rows written"), said.value
    assert str(said.value).endswith(
        "nothing is judged: re-run the same command to score them again"
    ), said.value
    assert json.loads((out / "run.json").read_text())["error"] == str(said.value)


def _numbered(batches: Any) -> list[tuple[Any, int]]:
    return [(r, n) for b in batches for r, n in zip(b.records, b.rows, strict=True)]


def test_a_big_row_group_is_cut_into_chunks(tmp_path: Path) -> None:
    """Before: a row group was one chunk, so a file pandas or pyarrow wrote (one row group
    up to a million rows) was one chunk: a 3,000-row file was judged by one actor, whatever
    --actors said. Groups of 1, 50, 2 and 7 rows, 5 rows a chunk: the 50 and the 7 are cut."""
    path = tmp_path / "in.parquet"
    table = pa.table({"question": [f"q{i}" for i in range(60)]})
    with pq.ParquetWriter(path, table.schema) as w:
        for at, n in ((0, 1), (1, 50), (51, 2), (53, 7)):
            w.write_table(table.slice(at, n))
    chunks = plan_chunks(path, "parquet", 5)
    assert [c["row"] for c in chunks] == [0, *range(1, 51, 5), 51, 53, 58]
    got = [x for c in chunks for x in _numbered(read_chunk(str(path), "parquet", c, 3))]
    assert got == _numbered(iter_raw(path, 3))  # every row once, numbered as in the file
    big = tmp_path / "big.parquet"  # one group of 100 rows, 1 row a chunk: 32 pieces at most
    pq.write_table(pa.table({"question": [f"q{i}" for i in range(100)]}), big)
    chunks = plan_chunks(big, "parquet", 1)
    assert len(chunks) == 25 and sum(c["take"] for c in chunks) == 100  # 4 rows each
    got = [x for c in chunks for x in _numbered(read_chunk(str(big), "parquet", c, 7))]
    assert got == _numbered(iter_raw(big, 7))


def test_a_one_row_group_parquet_file_is_judged_by_every_actor(
    ray_cluster: Any, tmp_path: Path
) -> None:
    """The run that met it: ``--actors 2`` on a pandas-written file; usage.actors was 1."""
    path = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pylist(rows(12)), path)
    with FakeOpenAIServer() as srv:
        kw: dict[str, Any] = {
            "settings": ragmeter.Settings(
                judge="openai:m",
                base_url=srv.url,
                cache=None,
                embedder="none",
                api_key_env="RAGMETER_TEST_UNSET",
                concurrency=2,
            ),
            "n_resamples": 20,
        }
        ray_run = ragmeter.evaluate(
            str(path), ["faithfulness", "mrr"], out=tmp_path / "r", executor="ray", actors=2,
            batch_size=4, **kw,
        )  # fmt: skip
        local = ragmeter.evaluate(str(path), ["faithfulness", "mrr"], out=tmp_path / "l", **kw)
    assert ray_run.usage["actors"] == 2
    assert (tmp_path / "r" / "scores.jsonl").read_text() == (
        tmp_path / "l" / "scores.jsonl"
    ).read_text()
    assert len(local.samples) == 12
