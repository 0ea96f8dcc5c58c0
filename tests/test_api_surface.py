"""The top-level Python API as the README shows it: sync calls inside a running event loop,
and the names it promises to export."""

from __future__ import annotations

import asyncio
import threading

from tests.conftest import make_row

import ragmeter


async def test_evaluate_and_dry_run_work_inside_a_running_event_loop() -> None:
    """In Jupyter a loop is already running: asyncio.run would refuse ("cannot be called from
    a running event loop") and leave the coroutine never awaited."""
    assert asyncio.get_running_loop() is not None
    result = ragmeter.evaluate([make_row(1), make_row(2)], ["token_f1", "mrr"])
    assert result.aggregates["token_f1"].n_ok == 2
    est = ragmeter.dry_run([make_row(1)], ["token_f1"], {"cache": "off"})
    assert est["samples"] == 1
    # the async form, for callers that can await
    same = await ragmeter.aevaluate([make_row(1), make_row(2)], ["token_f1", "mrr"])
    assert same.aggregates["mrr"] == result.aggregates["mrr"]


def test_evaluate_outside_a_loop_runs_in_the_calling_thread(monkeypatch) -> None:
    from ragmeter import runner

    seen: list[str] = []
    real = runner.aevaluate

    async def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(threading.current_thread().name)
        return await real(*args, **kwargs)

    monkeypatch.setattr(runner, "aevaluate", spy)
    runner.evaluate([make_row(1)], ["token_f1"])
    assert seen == [threading.current_thread().name]
