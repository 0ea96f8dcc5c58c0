"""Keeping bulk work fast: tuning the cyclic garbage collector for a run, then restoring it."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many acyclic objects.

    Samples, scores and their details hold no reference cycles, but allocating millions of
    them makes the collector rescan every live object again and again (a third of the run
    time at 100k samples). Reference counting still frees everything; the previous state
    is restored on exit.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


_relaxed: list[tuple[int, ...]] = []  # the threshold to restore, while any run is inside


@contextmanager
def relaxed_gc(threshold0: int = 20_000) -> Iterator[None]:
    """Collect the young generation less often during a run of many small calls.

    Each HTTP call allocates thousands of short-lived objects; CPython's default threshold
    (700) then runs the collector hundreds of times a second on the event loop, which is CPU
    the calls wait for. Restored when the last of overlapping runs exits (a Ray actor scores
    two batches at once: the first to finish must not restore it under the other, nor the
    second restore the relaxed value).
    """
    if not _relaxed:
        before = gc.get_threshold()
        _relaxed.append(before)
        gc.set_threshold(max(threshold0, before[0]), *before[1:])
    else:
        _relaxed.append(_relaxed[0])
    try:
        yield
    finally:
        restore = _relaxed.pop()
        if not _relaxed:
            gc.set_threshold(*restore)
