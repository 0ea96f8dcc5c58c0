"""executor="ray" gives what the local executor gives, on one small local Ray cluster: the
same rows and generated ids from awkward files, the same usage and run.json facts (judge
failures and retries included), and a judge that cannot be reached or a Ctrl-C recorded and
said as the stream executor does."""

from __future__ import annotations

import _thread
import json
import re
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ragmeter
from fake_server import FakeOpenAIServer
from needs import require_module
from test_streaming import rows

ARITHMETIC = ["k_precision", "token_f1", "mrr"]
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


def settings(url: str, cache: Path | None = None, **kw: Any) -> ragmeter.Settings:
    return ragmeter.Settings(
        judge="openai:m",
        base_url=url,
        cache=str(cache) if cache else None,
        embedder="none",
        api_key_env="RAGMETER_TEST_UNSET",
        concurrency=2,
        **kw,
    )


NASTY_ANSWERS = ["a\u2028b", "c\x85d", "e\u2029f", "plain"]


def nasty_jsonl(path: Path) -> Path:
    """A BOM, CRLF endings, blank and whitespace-only lines (one of them only U+3000, which
    str.strip removes and bytes.strip does not), raw line separators inside strings, rows
    without question_id, no final newline."""
    lines = []
    for i, r in enumerate(rows(9)):
        r = {k: v for k, v in r.items() if k != "question_id" or i % 2}
        r["answer"] += NASTY_ANSWERS[i % 4]
        lines.append(json.dumps(r, ensure_ascii=False))
        if i % 3 == 0:
            lines.append("  \t" if i else "\u3000")
    text = "\ufeff" + "\r\n".join(["", *lines])
    path.write_bytes(text.encode("utf-8"))
    return path


def nasty_parquet(path: Path) -> Path:
    """Row groups of 3 rows, no question_id (generated from the row number), an int column
    with a gap, pandas' unnamed index."""
    recs = [{k: v for k, v in r.items() if k != "question_id"} for r in rows(10)]
    table = pa.Table.from_pylist(recs).append_column(
        "bucket", pa.array([i if i % 4 else None for i in range(10)], pa.int64())
    )
    table = table.append_column("__index_level_0__", pa.array(range(10)))
    pq.write_table(table, path, row_group_size=3)
    return path


@pytest.mark.parametrize("make", [nasty_jsonl, nasty_parquet], ids=["jsonl", "parquet"])
def test_awkward_files_give_the_local_rows(ray_cluster: Any, tmp_path: Path, make) -> None:
    """Before: a BOM or a raw U+2028 in a string failed mid-run in a Ray task (read_text
    splits lines as str.splitlines does), and generated question_ids were numbered per batch
    (q00001-... in every batch) where a local run numbers the file's rows."""
    data = make(tmp_path / f"in.{make.__name__.split('_')[1]}")
    local = ragmeter.evaluate(str(data), ARITHMETIC, out=tmp_path / "local")
    result = ragmeter.evaluate(
        str(data), ARITHMETIC, out=tmp_path / "ray", executor="ray", batch_size=4
    )
    got = (tmp_path / "ray" / "scores.jsonl").read_text()
    assert got == (tmp_path / "local" / "scores.jsonl").read_text()
    assert result.summary()["metrics"] == local.summary()["metrics"]


def _faults(body: dict[str, Any], n_seen: int) -> str | None:
    text = json.dumps(body)
    if "treaty number 1 " in text:
        return "500" if n_seen == 1 else None  # retried, then answered
    if "treaty number 2 " in text:
        return "nologprobs"  # never a verdict: the score fails
    return None


USAGE = ("calls", "cache_hits", "failures", "retries", "prompt_tokens", "completion_tokens")


def test_usage_failures_and_judge_facts_equal_local(ray_cluster: Any, tmp_path: Path) -> None:
    """Before: a Ray run's usage had calls, cache hits and tokens only (no failures, retries,
    per_metric, per_backend, cost, judge), and its run.json no judge facts."""
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows(8)))
    # one server each: the fault function counts the bodies each has seen
    with FakeOpenAIServer(fault_fn=_faults) as one, FakeOpenAIServer(fault_fn=_faults) as two:
        urls = (one.url, two.url)
        local = ragmeter.evaluate(
            str(data), JUDGED, settings=settings(one.url, max_retries=2), out=tmp_path / "local"
        )
        ray_run = ragmeter.evaluate(
            str(data),
            JUDGED,
            settings=settings(two.url, max_retries=2),
            out=tmp_path / "ray",
            executor="ray",
            actors=2,
            batch_size=3,
        )
    want, got = local.usage, ray_run.usage
    assert want["failures"] > 0 and want["retries"] > 0  # the faults were seen
    for key in (*USAGE, "judge_tokens", "per_metric", "per_backend", "cost_usd", "judge"):
        assert got[key] == want[key], key
    assert got["unavailable"] == want["unavailable"]
    assert ray_run.summary()["failures"] == local.summary()["failures"]
    runs = [json.loads((tmp_path / d / "run.json").read_text()) for d in ("local", "ray")]
    for run, url in zip(runs, urls, strict=True):
        assert run["judge"].pop("base_url") == url
    assert runs[1]["judge"]["preflight"] == "ok"
    for key in ("judge", "embedder", "structured_output", "usage", "metrics", "input"):
        assert runs[1][key] == runs[0][key], key


def test_an_unreachable_judge_aborts_as_a_stream_run(ray_cluster: Any, tmp_path: Path) -> None:
    """Before: the actor's JudgeUnreachable came back as RayTaskError(UserCodeException)
    ("internal error", exit 1) and run.json stayed 'running'."""
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows(4)))
    with FakeOpenAIServer(fault_fn=lambda b, n: "401") as srv:
        with pytest.raises(ragmeter.errors.RunAborted) as stream:
            ragmeter.evaluate(
                str(data), JUDGED, settings=settings(srv.url), out=tmp_path / "s", executor="stream"
            )
        with pytest.raises(ragmeter.errors.RunAborted) as ray_run:
            ragmeter.evaluate(
                str(data), JUDGED, settings=settings(srv.url), out=tmp_path / "r", executor="ray"
            )
    assert type(ray_run.value) is type(stream.value)
    assert str(ray_run.value) == str(stream.value).replace(str(tmp_path / "s"), str(tmp_path / "r"))
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    assert run["status"] == "aborted" and "401" in run["error"] and "Traceback" not in run["error"]


def test_ctrl_c_is_recorded_and_said(ray_cluster: Any, tmp_path: Path) -> None:
    """Before: a Ctrl-C left run.json 'running' and the CLI said only 'interrupted'.

    The interrupt is sent by the server itself on the third judge request, so it lands while
    the run scores whatever the machine's load (a polling thread once came too late on a
    loaded CI run); SIGINT is Python's own handler for the test, as a shell started in the
    background may have left it ignored."""
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows(40)))
    sent = threading.Event()

    def interrupt_on_third_request(body: dict, n_seen: int) -> None:
        if srv.calls >= 3 and not sent.is_set():
            sent.set()
            _thread.interrupt_main()
        return None

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with FakeOpenAIServer(latency=0.3, fault_fn=interrupt_on_third_request) as srv:
            said, finished = "", None
            try:
                finished = ragmeter.evaluate(
                    str(data),
                    JUDGED,
                    settings=settings(srv.url, tmp_path / "cache"),
                    out=tmp_path / "r",
                    executor="ray",
                    batch_size=2,
                )
            except KeyboardInterrupt as exc:
                said = str(exc)
            calls = srv.calls
    finally:
        signal.signal(signal.SIGINT, previous)
    assert finished is None, (  # what the run did, should it ever end instead
        f"not interrupted: {calls} judge requests, interrupt sent: {sent.is_set()}, "
        f"usage {finished.usage}, notes {finished.notes}"
    )
    assert re.match(r"interrupted: \d+ of 40 rows written", said), said
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    assert run["status"] == "interrupted" and "re-run the same command" in run["error"]
    assert (tmp_path / "r" / "scores.jsonl.partial").exists()


def test_too_many_actors_is_refused_before_any_output(ray_cluster: Any, tmp_path: Path) -> None:
    """The CPU check ran after the output was opened: the usage error left an empty
    scores.jsonl.partial behind. And the run's Ray Data settings stay the run's: the user's
    own DataContext is as it was after it."""
    from ragmeter.errors import ConfigError

    ctx = ray_cluster.data.DataContext.get_current()
    before = (ctx.execution_options.preserve_order, ctx.enable_progress_bars)
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows(4)))
    out = tmp_path / "o"
    with FakeOpenAIServer() as server, pytest.raises(ConfigError, match="lower --actors"):
        ragmeter.evaluate(
            str(data), JUDGED, settings=settings(server.url), out=out, executor="ray", actors=9
        )
    assert not (out / "scores.jsonl.partial").exists()
    ragmeter.evaluate(str(data), ARITHMETIC, out=tmp_path / "ok", executor="ray")
    assert (ctx.execution_options.preserve_order, ctx.enable_progress_bars) == before


def test_ray_progress_goes_to_stderr(ray_cluster: Any, tmp_path: Path, capsys) -> None:
    """A Ray run printed no progress at all (the option was dropped); stream runs print
    theirs on stderr."""
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows(5)))
    ragmeter.evaluate(str(data), ARITHMETIC, out=tmp_path / "o", executor="ray", progress=True)
    got = capsys.readouterr()
    assert "ray: 5/5 rows" in got.err and "ray:" not in got.out
