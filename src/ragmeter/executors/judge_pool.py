"""In-process judges kept loaded across runs: the embedded or a GGUF judge, loaded once and
lent to every run that asks for the same judge settings.

Why: ``evaluate`` builds its judge, scores and closes it, which for an in-process judge means
loading the model (seconds, ~1.5 GB) on every call. A test suite calling ``evaluate`` once per
test function paid one load per test. A pool, given to ``evaluate`` / ``aevaluate`` as
``judge_pool`` (``ragmeter.testing.Evaluator`` and the pytest fixture hold one), lends the same
loaded judge to each run instead; the run wraps it in its own cache, retries and accounting
and leaves it open. Reuse does not change a score: the llama.cpp judge decodes every prompt
in aligned KV blocks (``backends/llama_kv.py``), so its verdicts do not depend on what it
judged before, in this run or an earlier one.

Only in-process judges are pooled: a remote judge's HTTP client belongs to the event loop of
the run that made it, and building one costs nothing.
"""

from __future__ import annotations

import threading
from typing import Any

from ragmeter import resources
from ragmeter.config import Settings


def judge_key(s: Settings) -> tuple[Any, ...]:
    """What decides an in-process judge's answers and memory: model, window, threads, seed."""
    return (s.judge, s.n_ctx, s.n_threads, s.seed)


class JudgePool:
    """``pool(settings)`` -> the loaded in-process judge for those settings, built and loaded
    on the first ask. ``close()`` releases every model; the pool may be used again after.

    Thread-safe: runs started from several threads at once wait for one load, then share the
    judge, whose single worker thread takes their calls one by one.
    """

    def __init__(self) -> None:
        self._judges: dict[tuple[Any, ...], Any] = {}
        self._lock = threading.Lock()
        self.loads = 0  # judges built and loaded so far (a reused one is not counted again)

    def __call__(self, s: Settings) -> Any:
        key = judge_key(s)
        with self._lock:
            judge = self._judges.get(key)
            if judge is None:
                judge = resources._build_judge(s)  # looked up at call time (tests stand in)
                judge.load()  # fails here, with install instructions, as an unpooled run
                self._judges[key] = judge
                self.loads += 1
            return judge

    def __len__(self) -> int:
        return len(self._judges)

    def __repr__(self) -> str:
        return f"JudgePool({len(self)} judge(s) loaded)"

    def close(self) -> None:
        """Release every kept model (each judge's close: worker thread, llama.cpp context)."""
        with self._lock:
            judges, self._judges = list(self._judges.values()), {}
        for judge in judges:
            judge.close()
