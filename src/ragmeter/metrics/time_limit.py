"""A time limit on one call of a user's metric (``register_metric(metric, timeout=...)``).

Why it exists: a metric of one's own that calls a service with no time-out of its own (a
network call, a lock that is never released) hung ``ragmeter evaluate`` on that sample
forever; only Ctrl-C ended it, and the run's other scores with it. With a limit, the call
that outlives it is a failed Score ("timed out after 30 s") and the run goes on.

Why failed and not undefined: undefined means the metric has no value for the sample by
definition; a call that did not finish is something that went wrong, as a judge call's
time-out is, so it counts towards ``--max-failure-rate`` like one.

Why per metric and no run-wide limit: the built-in judged metrics already limit each judge
call (``timeout`` of the judge, 60 s, retried), so a second limit on them would cut short a
sample whose many calls each kept within theirs; only the metric's author knows how long
one of its calls may take. The default, None, changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
import math
import numbers
import threading
import time
from collections.abc import Callable
from typing import Any

from ragmeter.errors import MetricError
from ragmeter.metrics.base import Metric, Score

_SLICE_S = 0.1  # how often a wait for a sync metric looks for Ctrl-C


def seconds(name: str, timeout: Any) -> float | None:
    """``timeout`` as seconds, or None (no limit); MetricError for anything else, when the
    metric is registered rather than on every sample."""
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, numbers.Real):
        raise MetricError(
            f"metric {name!r}: timeout is {type(timeout).__name__}; give seconds as a number "
            "(e.g. timeout=30) or None for no limit"
        )
    value = float(timeout)
    if not (math.isfinite(value) and value > 0):
        raise MetricError(
            f"metric {name!r}: timeout {timeout!r}: give a positive, finite number of seconds "
            "(or None for no limit)"
        )
    return value


def interrupted() -> bool:
    """Whether the run's task is being cancelled (Ctrl-C). Why asked before each sample:
    arithmetic metrics run in the event loop's thread and await nothing, so a cancel was
    felt only once every sample was computed; a slow metric of one's own (minutes, hours)
    went on to the end after Ctrl-C, then the local executor threw its scores away."""
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no event loop here (a Ray actor's thread): nothing cancels it
        return False
    return task is not None and task.cancelling() > 0


def timed_out(name: str, limit: float) -> Score:
    return Score.failed(f"{name} timed out after {limit:g} s (its registered timeout)")


def limited(metric: Metric, limit: float | None) -> Metric:
    """``metric`` whose ``compute`` / ``acompute`` gives up after ``limit`` seconds (None:
    ``metric`` itself).

    ``acompute`` is awaited under ``asyncio.wait_for``, which cancels it. It must await its
    slow work: a blocking call inside it (``requests.get``) stops the whole event loop,
    which no limit can interrupt; put such code in ``compute``, or run it with
    ``asyncio.to_thread``. A plain function given as ``acompute`` is run as ``compute`` is.

    ``compute`` runs in a worker thread (``compute_batch`` is then not used). Python cannot
    kill a thread: on a time-out the thread is abandoned (a daemon, so it never keeps the
    process alive at exit), whatever it returns later is dropped, and the run goes on to the
    next sample. Each hung call leaves one such thread waiting on whatever it waits for.
    """
    if limit is None:
        return metric
    if metric.compute is not None:
        sync = metric.compute

        def compute(sample: Any) -> Score:
            return _in_thread(metric.name, limit, lambda: sync(sample))

        # compute_batch scores every sample in one call, which no per-sample limit can
        # bound: dropped, so each sample goes through the limited compute (same rows)
        return dataclasses.replace(metric, compute=compute, compute_batch=None)
    given = metric.acompute
    assert given is not None

    async def acompute(sample: Any, resources: Any) -> Any:
        if not inspect.iscoroutinefunction(given):  # a plain function may block: a thread
            result = await _awaited_in_thread(metric.name, limit, lambda: given(sample, resources))
        else:
            result = given(sample, resources)
        if not inspect.isawaitable(result):
            return result
        try:
            return await asyncio.wait_for(result, limit)
        except TimeoutError:
            return timed_out(metric.name, limit)

    return dataclasses.replace(metric, acompute=acompute)


def _in_thread(name: str, limit: float, call: Callable[[], Any]) -> Any:
    """``call()``'s result or exception, or a failed Score once ``limit`` seconds pass.
    Waited in slices so a Ctrl-C (the run's task cancelled) stops the wait, as it stops a
    run between samples."""
    outcome: list[tuple[bool, Any]] = []
    done = threading.Event()

    def work() -> None:
        try:
            outcome.append((True, call()))
        except BaseException as exc:  # raised where the run called the metric
            outcome.append((False, exc))
        finally:
            done.set()

    threading.Thread(target=work, name=f"ragmeter metric {name}", daemon=True).start()
    deadline = time.monotonic() + limit
    while not done.wait(max(0.0, min(_SLICE_S, deadline - time.monotonic()))):
        if interrupted():
            raise asyncio.CancelledError
        if time.monotonic() >= deadline:
            return timed_out(name, limit)  # the thread's late outcome is never read
    ok, value = outcome[0]
    if not ok:
        raise value
    return value


async def _awaited_in_thread(name: str, limit: float, call: Callable[[], Any]) -> Any:
    """``call()`` in a daemon thread, awaited up to ``limit`` seconds without blocking the
    event loop (``asyncio.to_thread``'s pool is joined at exit: a hung call hung the exit)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if not future.done():  # abandoned after a time-out: the late outcome is dropped
            (future.set_result if ok else future.set_exception)(value)

    def work() -> None:
        try:
            outcome: tuple[bool, Any] = (True, call())
        except BaseException as exc:
            outcome = (False, exc)
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits for it
            loop.call_soon_threadsafe(settle, *outcome)

    threading.Thread(target=work, name=f"ragmeter metric {name}", daemon=True).start()
    try:
        return await asyncio.wait_for(future, limit)
    except TimeoutError:
        return timed_out(name, limit)
