"""A metric of one's own compared where it is not registered (the CLI): by its direction."""

from __future__ import annotations

from pathlib import Path

import ragmeter
from ragmeter import Metric, Score
from ragmeter.metrics import registry


def test_a_lower_is_better_metric_compared_where_unregistered_is_worse_when_it_rises(
    tmp_path: Path,
) -> None:
    rows = [{"question_id": f"q{i}", "question": "Q?", "answer": f"A {i}"} for i in range(20)]
    for run, base in (("a", 1.0), ("b", 2.0)):
        metric = Metric(
            name="dir_latency",
            description="seconds",
            requires=(("answer",),),
            compute=lambda s, base=base: Score.ok(base + len(s.answer) / 100),
            direction="lower",
            value_range=None,
        )
        ragmeter.register_metric(metric)
        try:
            ragmeter.evaluate(rows, ["dir_latency"], out=tmp_path / run, n_resamples=0)
        finally:
            registry._FIXED.pop("dir_latency", None)
            registry._GIVEN.pop("dir_latency", None)
    (delta,) = ragmeter.compare(tmp_path / "a", tmp_path / "b").metrics
    assert delta.direction == "lower"  # was "higher": a rise of 1 s was "better"
    assert delta.worse(0.05) and not delta.better(0.05)
