"""A metric of one's own that hangs (a service with no time-out, a lock never released): with
``register_metric(metric, timeout=...)`` the sample it hangs on is a failed score saying so,
the run finishes and keeps every other score. Without a timeout nothing changes."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ragmeter
from ragmeter import Metric, MetricError, Score
from ragmeter.metrics import registry

ROWS = [
    {"question_id": "q1", "question": "What is X?", "answer": "X is a thing.", "contexts": ["X"]},
    {"question_id": "q2", "question": "What is Y?", "answer": "Y is."},
]
LIMIT = 0.2
SAYS = f"timed out after {LIMIT:g} s"


@pytest.fixture
def registered() -> Iterator[list[str]]:
    names: list[str] = []
    yield names
    for name in names:
        for table in (registry._FIXED, registry._GIVEN, registry._LIMITS):
            table.pop(name, None)
    for prefix in [p for p in registry._GIVEN_TEMPLATES if p.startswith("tmo_")]:
        registry._GIVEN_TEMPLATES.pop(prefix)
        registry._TEMPLATES.pop(prefix)


def _metric(name: str, **kw: Any) -> Metric:
    return Metric(name=name, description="test-only", requires=(("answer",),), **kw)


def _register(names: list[str], metric: Metric, **kw: Any) -> Metric:
    names.append(metric.name)
    return ragmeter.register_metric(metric, **kw)


def _hangs_on_q1(never: threading.Event) -> Any:
    def compute(sample: Any) -> Score:
        if sample.question_id == "q1":
            never.wait()  # a deadlock: nothing ever sets it (until the test ends)
        return Score.ok(0.5)

    return compute


def test_a_hung_sync_metric_fails_its_sample_and_the_run_keeps_the_rest(
    registered: list[str],
) -> None:
    never = threading.Event()
    _register(registered, _metric("tmo_sync", compute=_hangs_on_q1(never)), timeout=LIMIT)
    try:
        started = time.monotonic()
        result = ragmeter.evaluate(ROWS, "tmo_sync,refusal_rate", n_resamples=0)
        assert time.monotonic() - started < 10
    finally:
        never.set()  # let the abandoned thread end
    hung, fine = result.scores["tmo_sync"]
    assert (hung.value, hung.status) == (None, "failed")
    assert "tmo_sync" in (hung.reason or "") and SAYS in (hung.reason or "")
    assert (fine.value, fine.status) == (0.5, "ok")  # the sample after it is still scored
    assert [s.status for s in result.scores["refusal_rate"]] == ["ok", "ok"]
    agg = result.aggregates["tmo_sync"]
    assert (agg.n_ok, agg.n_failed, agg.mean) == (1, 1, 0.5)
    summary = result.summary()
    assert summary["metrics"]["tmo_sync"]["n_failed"] == summary["n_failed"] == 1
    assert [f["question_id"] for f in summary["failures"]] == ["q1"]


def test_a_hung_async_metric_is_cancelled_and_fails_its_sample(registered: list[str]) -> None:
    cancelled: list[str] = []

    async def acompute(sample: Any, resources: Any) -> Score:
        if sample.question_id == "q1":
            try:
                await asyncio.Event().wait()  # never set
            except asyncio.CancelledError:
                cancelled.append(sample.question_id)
                raise
        return Score.ok(0.25)

    _register(registered, _metric("tmo_async", acompute=acompute), timeout=LIMIT)
    result = ragmeter.evaluate(ROWS, "tmo_async", n_resamples=0)
    hung, fine = result.scores["tmo_async"]
    assert hung.status == "failed" and SAYS in (hung.reason or "")
    assert (fine.value, fine.status) == (0.25, "ok")
    assert cancelled == ["q1"]  # asyncio.wait_for cancelled it: nothing left running


def test_a_blocking_plain_acompute_is_limited_without_blocking_the_others(
    registered: list[str],
) -> None:
    never = threading.Event()

    def plain(sample: Any, resources: Any) -> Score:  # "acompute may be a plain function"
        return _hangs_on_q1(never)(sample)

    _register(registered, _metric("tmo_plain", acompute=plain), timeout=LIMIT)
    try:
        result = ragmeter.evaluate(ROWS, "tmo_plain", n_resamples=0)
    finally:
        never.set()
    assert [s.status for s in result.scores["tmo_plain"]] == ["failed", "ok"]
    assert SAYS in (result.scores["tmo_plain"][0].reason or "")


def test_the_abandoned_threads_late_result_is_ignored(registered: list[str]) -> None:
    late = threading.Event()

    def slow(sample: Any) -> Score:
        time.sleep(3 * LIMIT)
        late.set()
        return Score.ok(1.0)

    _register(registered, _metric("tmo_late", compute=slow), timeout=LIMIT)
    result = ragmeter.evaluate(ROWS[:1], "tmo_late", n_resamples=0)
    assert late.wait(5)  # the thread did finish, after its time-out ...
    time.sleep(0.05)
    score = result.scores["tmo_late"][0]
    assert (score.value, score.status) == (None, "failed")  # ... and its 1.0 went nowhere
    assert SAYS in (score.reason or "")


def test_a_run_with_a_hung_metric_writes_its_scores_and_the_process_exits(
    tmp_path: Path,
) -> None:
    """The hung thread is a daemon: a pool thread is joined at exit, which hung the process
    after the run had finished."""
    script = f"""
import threading, ragmeter
from ragmeter import Metric, Score
never = threading.Event()
ragmeter.register_metric(Metric(name="tmo_exit", description="d", requires=(("answer",),),
    compute=lambda s: never.wait() or Score.ok(1.0)), timeout={LIMIT})
result = ragmeter.evaluate({ROWS!r}, "tmo_exit,refusal_rate", n_resamples=0)
result.write({str(tmp_path / "out")!r})
print("done")
"""
    env = {"PYTHONPATH": str(Path(registry.__file__).parents[2]), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("done")
    records = [json.loads(line) for line in (tmp_path / "out" / "scores.jsonl").open()]
    assert [r["status"]["tmo_exit"] for r in records] == ["failed", "failed"]
    assert all(r["refusal_rate"] is not None for r in records)  # nothing computed lost
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["metrics"]["tmo_exit"]["n_failed"] == summary["n_failed"] == 2


def test_a_batch_metric_with_a_timeout_is_limited_per_sample(registered: list[str]) -> None:
    never = threading.Event()

    def batch(rows: Any, shared: Any) -> Any:
        never.wait()  # would hang the whole batch, beyond any per-sample limit

    compute = _hangs_on_q1(never)
    _register(registered, _metric("tmo_batch", compute=compute, compute_batch=batch), timeout=LIMIT)
    try:
        result = ragmeter.evaluate(ROWS, "tmo_batch", n_resamples=0)
    finally:
        never.set()
    assert [s.status for s in result.scores["tmo_batch"]] == ["failed", "ok"]


def test_a_template_takes_a_timeout(registered: list[str]) -> None:
    never = threading.Event()

    def factory(k: int) -> Metric:
        return _metric(f"tmo_at@{k}", compute=_hangs_on_q1(never))

    registry.register_template("tmo_at", factory, (1,), timeout=LIMIT)
    try:
        result = ragmeter.evaluate(ROWS, "tmo_at@2", n_resamples=0)
    finally:
        never.set()
    assert [s.status for s in result.scores["tmo_at@2"]] == ["failed", "ok"]


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "30", True])
def test_a_timeout_that_is_no_positive_number_is_refused_at_registration(
    bad: Any, registered: list[str]
) -> None:
    with pytest.raises(MetricError, match="'tmo_bad': timeout"):
        _register(registered, _metric("tmo_bad", compute=lambda s: Score.ok(0.5)), timeout=bad)
    assert "tmo_bad" not in registry._FIXED  # nothing half-registered


def test_registering_again_with_another_timeout_takes_it(registered: list[str]) -> None:
    never = threading.Event()
    mine = _metric("tmo_again", compute=_hangs_on_q1(never))
    _register(registered, mine)  # no limit first (a notebook cell), then one added
    assert _register(registered, mine, timeout=LIMIT) is ragmeter.get_metric("tmo_again")
    try:
        result = ragmeter.evaluate(ROWS, "tmo_again", n_resamples=0)
    finally:
        never.set()
    assert [s.status for s in result.scores["tmo_again"]] == ["failed", "ok"]


def test_without_a_timeout_a_sync_metric_runs_where_it_did(registered: list[str]) -> None:
    """The default (None) changes nothing: no thread, no limit."""
    seen: list[int] = []

    def compute(sample: Any) -> Score:
        seen.append(threading.get_ident())
        return Score.ok(0.5)

    _register(registered, _metric("tmo_none", compute=compute))
    result = ragmeter.evaluate(ROWS, "tmo_none", n_resamples=0)
    assert [s.value for s in result.scores["tmo_none"]] == [0.5, 0.5]
    assert set(seen) == {threading.get_ident()}


def test_an_error_inside_a_limited_metric_still_fails_its_sample_alone(
    registered: list[str],
) -> None:
    def boom(sample: Any) -> Score:
        if sample.question_id == "q1":
            raise ValueError("boom on q1")
        return Score.ok(0.5)

    _register(registered, _metric("tmo_boom", compute=boom), timeout=5)
    result = ragmeter.evaluate(ROWS, "tmo_boom", n_resamples=0)
    hung, fine = result.scores["tmo_boom"]
    assert hung.status == "failed" and "ValueError: boom on q1" in (hung.reason or "")
    assert (fine.value, fine.status) == (0.5, "ok")


def _sigint_as_at_a_terminal() -> None:
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_the_wait_for_a_limited_sync_metric_at_once() -> None:
    """The wait for the worker thread looks for Ctrl-C every 0.1 s: a timeout of minutes
    does not make Ctrl-C wait for it."""
    script = f"""
import threading, ragmeter
from ragmeter import Metric, Score
never = threading.Event()
def compute(sample):
    print("started", flush=True)
    never.wait()
ragmeter.register_metric(Metric(name="tmo_int", description="d", requires=(("answer",),),
    compute=compute), timeout=600)
try:
    ragmeter.evaluate({ROWS!r}, "tmo_int", n_resamples=0)
except KeyboardInterrupt as exc:
    print("interrupted", exc)
"""
    env = {"PYTHONPATH": str(Path(registry.__file__).parents[2]), "PATH": "/usr/bin:/bin"}
    # children inherit a blocked or ignored SIGINT (a CI job started in the background: the
    # child never saw the signal and the test hung): unblocked, and Python's own handler
    # back, as tests/test_cli_config.py does
    proc = subprocess.Popen(
        [sys.executable, "-u", "-c", script],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=_sigint_as_at_a_terminal,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "started"
        proc.send_signal(signal.SIGINT)
        started = time.monotonic()
        out, _ = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert time.monotonic() - started < 30  # not the 600 s of its timeout
    assert "interrupted" in out


def test_registering_a_template_again_with_another_timeout_takes_it() -> None:
    """As register's: the same factory again with a limit added (a notebook cell re-run).
    Before, the second call returned early and the template kept waiting for ever."""
    never = threading.Event()

    def factory(k: int) -> Metric:
        return _metric(f"tmo_tpl_again@{k}", compute=_hangs_on_q1(never))

    registry.register_template("tmo_tpl_again", factory, (1,))
    try:
        registry.register_template("tmo_tpl_again", factory, (1,), timeout=LIMIT)
        assert registry.timeout_of("tmo_tpl_again@3") == LIMIT
        try:
            result = ragmeter.evaluate(ROWS, "tmo_tpl_again@2", n_resamples=0)
        finally:
            never.set()
        assert [s.status for s in result.scores["tmo_tpl_again@2"]] == ["failed", "ok"]
        registry.register_template("tmo_tpl_again", factory, (1,), timeout=LIMIT)  # no error
    finally:
        for table in (registry._TEMPLATES, registry._GIVEN_TEMPLATES, registry._TEMPLATE_LIMITS):
            table.pop("tmo_tpl_again", None)
