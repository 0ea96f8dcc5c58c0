"""Test-only pieces shared by the engine tests: a tiny judged metric and sample rows.

The metric lives here, not in the library: it asks the judge for one structured verdict per
sample, the way the real judged metrics do, and turns an error reply into a failed Score.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ragmeter.metrics import registry
from ragmeter.metrics.base import Metric, Mode, Score


class Support(BaseModel):
    supported: bool
    confidence: float


async def _judged(sample: Any, resources: Any) -> Score:
    messages = [
        {"role": "system", "content": "Does the context support the answer?"},
        {"role": "user", "content": f"Q: {sample.question}\nA: {sample.answer}"},
    ]
    reply = await resources.judge.structured(
        messages, Support, prompt_version="test-1", max_tokens=64
    )
    if not reply.ok:
        return Score.failed(f"judge error: {reply.error}", raw=reply.raw)
    return Score.ok(1.0 if reply.value.supported else 0.0)


TEST_METRIC = Metric(
    name="test_judged_support",
    description="test-only judged metric",
    requires=(("question", "answer"),),
    acompute=_judged,
    needs=frozenset({"judge"}),
    default=False,
    modes=(("fast", Mode(needs=frozenset({"judge"}))),),  # one mode, so --mode can name it
    default_mode="fast",
)


def ensure_registered() -> str:
    if TEST_METRIC.name not in registry._FIXED:
        registry.register(TEST_METRIC)
    return TEST_METRIC.name


def rows(n: int, prefix: str = "q") -> list[dict[str, Any]]:
    return [
        {
            "question_id": f"{prefix}{i}",
            "question": f"question number {i}?",
            "answer": f"answer {i}",
            "contexts": [f"context {i}"],
        }
        for i in range(n)
    ]
