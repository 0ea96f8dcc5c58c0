"""A metric author's own metric as a run meets it: what it returns, raises or takes too long
over is told per sample, masked, and stoppable; registering it again is no error."""

from __future__ import annotations

import asyncio
import decimal
import json
import re
import signal
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
    {"question_id": f"q{i}", "question": f"What is {i}?", "answer": f"It is {i}."}
    for i in range(1, 4)
]
KEY = "sk-mapiAuditSecretKey0123456789"


@pytest.fixture
def registered() -> Iterator[list[str]]:
    """Names registered by the test, removed after it."""
    names: list[str] = []
    yield names
    for name in names:
        registry._FIXED.pop(name, None)
        registry._GIVEN.pop(name, None)


def _register(names: list[str], name: str, compute: Any) -> Metric:
    metric = Metric(name=name, description="test-only", requires=(("answer",),), compute=compute)
    names.append(name)
    return ragmeter.register_metric(metric)


def _leaky(sample: Any) -> Score:
    if sample.question_id == "q2":
        raise RuntimeError(f"the server refused key {KEY}")
    if sample.question_id == "q3":
        return Score.failed(f"the server said: bad key {KEY}")
    return Score.ok(0.5)


@pytest.mark.parametrize("executor", ["local", "stream"])
def test_a_sync_metrics_exception_or_reason_never_writes_a_key(
    tmp_path: Path, registered: list[str], executor: str
) -> None:
    _register(registered, "mapi_leaky", _leaky)
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    out = tmp_path / "run"
    ragmeter.evaluate(str(data), ["mapi_leaky"], out=out, executor=executor, n_resamples=0)
    written = (out / "scores.jsonl").read_text()
    assert KEY not in written and KEY[3:] not in written
    rows = [json.loads(line) for line in written.splitlines()]
    assert rows[0]["mapi_leaky"] == 0.5  # only the samples that failed, failed
    assert (
        rows[1]["reasons"]["mapi_leaky"]
        == "internal error: RuntimeError: the server refused key ***"
    )
    assert rows[2]["reasons"]["mapi_leaky"] == "the server said: bad key ***"


@pytest.mark.parametrize(
    ("value", "expected"),
    [(decimal.Decimal("0.25"), 0.25), (decimal.Decimal("1"), 1.0), (-0.0, 0.0)],
)
def test_a_decimal_or_negative_zero_is_written_as_a_plain_float(
    registered: list[str], value: Any, expected: float
) -> None:
    _register(registered, "mapi_number", lambda s: Score(value))
    result = ragmeter.evaluate(ROWS, ["mapi_number"], n_resamples=0)
    got = [s.value for s in result.scores["mapi_number"]]
    assert got == [expected] * 3
    assert all(type(v) is float and str(v) == str(expected) for v in got)  # not "-0.0"
    assert str(result.aggregates["mapi_number"].mean) == str(expected)


@pytest.mark.parametrize("value", [decimal.Decimal("NaN"), decimal.Decimal("sNaN")])
def test_a_decimal_nan_is_a_failed_score_not_a_crash(registered: list[str], value: Any) -> None:
    _register(registered, "mapi_dnan", lambda s: Score(value))
    result = ragmeter.evaluate(ROWS, ["mapi_dnan"], n_resamples=0)
    assert {(s.status, s.value) for s in result.scores["mapi_dnan"]} == {("failed", None)}
    assert "non-finite" in (result.scores["mapi_dnan"][0].reason or "")


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (None, "Score.ok takes a number, not NoneType (Score.undefined(reason) when"),
        ("high", "Score.ok takes a number, not str"),
        ([0.5], "Score.ok takes a number, not list"),
    ],
)
def test_score_ok_of_no_number_is_a_failed_score_saying_so(value: Any, says: str) -> None:
    score = Score.ok(value, why="kept")
    assert (score.value, score.status, score.details) == (None, "failed", {"why": "kept"})
    assert score.reason is not None and score.reason.startswith(says)


def test_score_ok_of_an_int_beyond_any_float_is_failed_not_an_overflow() -> None:
    score = Score.ok(10**400)
    assert (score.value, score.status) == (None, "failed")
    assert "non-finite" in (score.reason or "")


def test_score_ok_none_in_a_run_says_what_to_return(registered: list[str]) -> None:
    _register(registered, "mapi_oknone", lambda s: Score.ok(None))
    result = ragmeter.evaluate(ROWS, ["mapi_oknone"], n_resamples=0)
    reasons = {s.reason for s in result.scores["mapi_oknone"]}
    assert reasons == {
        "Score.ok takes a number, not NoneType (Score.undefined(reason) when the sample has "
        "no value)"
    }


def test_registering_the_same_metric_again_is_no_error(registered: list[str]) -> None:
    mine = Metric(
        name="mapi_again", description="d", requires=(("answer",),), compute=lambda s: Score.ok(1)
    )
    first = ragmeter.register_metric(mine)
    registered.append("mapi_again")
    assert ragmeter.register_metric(mine) is first
    assert ragmeter.register_metric(first) is first  # what register returned, too
    other = Metric(
        name="mapi_again", description="d", requires=(("answer",),), compute=lambda s: Score.ok(0)
    )
    with pytest.raises(MetricError, match="'mapi_again' is already registered"):
        ragmeter.register_metric(other)
    with pytest.raises(MetricError, match="'mrr' is a built-in metric"):
        ragmeter.register_metric(ragmeter.get_metric("mrr"))
    assert [s.value for s in ragmeter.evaluate(ROWS, ["mapi_again"]).scores["mapi_again"]] == [
        1.0
    ] * 3


@pytest.mark.parametrize("executor", ["local", "stream"])
def test_ctrl_c_stops_a_slow_sync_metric_at_the_next_sample(
    tmp_path: Path, registered: list[str], executor: str
) -> None:
    calls: list[str] = []

    def slow(sample: Any) -> Score:
        calls.append(sample.question_id)
        if len(calls) == 1:
            signal.raise_signal(signal.SIGINT)  # as Ctrl-C while this sample is computed
        time.sleep(0.01)
        return Score.ok(0.5)

    _register(registered, "mapi_slow", slow)
    rows = [{"question_id": f"q{i}", "question": "Q?", "answer": f"A {i}"} for i in range(40)]
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert threading.current_thread() is threading.main_thread()  # where SIGINT is felt
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt, match="interrupted"):
            ragmeter.evaluate(
                str(data), ["mapi_slow"], out=tmp_path / "run", executor=executor, n_resamples=0
            )
    finally:
        signal.signal(signal.SIGINT, previous)
    assert calls == ["q0"]  # it went on through all 40 samples, then said "interrupted"


def test_the_check_for_ctrl_c_needs_no_event_loop(registered: list[str]) -> None:
    """A Ray actor computes in a thread without a running loop: it scores as before."""
    metric = _register(registered, "mapi_noloop", lambda s: Score.ok(0.5))
    sample = ragmeter.load(ROWS[:1])[0]
    assert metric.compute is not None and metric.compute(sample).value == 0.5
    got = asyncio.run(asyncio.to_thread(metric.compute, sample))
    assert got.value == 0.5


@pytest.fixture
def templates() -> Iterator[None]:
    """The templates as they were before the test, restored after it."""
    before = dict(registry._TEMPLATES)
    yield
    registry._TEMPLATES.clear()
    registry._TEMPLATES.update(before)
    getattr(registry, "_GIVEN_TEMPLATES", {}).clear()


def _top(k: int) -> Metric:
    return Metric(
        name=f"mapi_top@{k}",
        description="k",
        requires=(("answer",),),
        compute=lambda s: Score.ok(k),
    )


@pytest.mark.parametrize(
    ("prefix", "factory", "ks", "says"),
    [
        ("ndcg", _top, (5,), "'ndcg' is a built-in template"),  # replaced the built-in ndcg@k
        ("mapi-top", _top, (5,), "lower-case letters and '_'"),  # registered, never found
        ("a@b", _top, (5,), "lower-case letters and '_'"),
        ("mapi_top", _top, (0,), "default_ks must be positive integers"),
        ("mapi_top", lambda k: _top(k + 1), (1,), "factory(1) gave mapi_top@2, not mapi_top@1"),
        ("mapi_top", lambda k: None, (1,), "factory(1) gave NoneType"),
        ("mapi_top", lambda k: 1 / 0, (1,), "factory(1) raised ZeroDivisionError"),
    ],
)
def test_a_template_that_cannot_work_is_refused_when_registered(
    templates: None, prefix: str, factory: Any, ks: tuple[int, ...], says: str
) -> None:
    ndcg = ragmeter.get_metric("ndcg@10")
    with pytest.raises(MetricError, match=re.escape(says)):
        registry.register_template(prefix, factory, ks)
    assert prefix == "ndcg" or prefix not in registry._TEMPLATES
    assert ragmeter.get_metric("ndcg@10").description == ndcg.description  # still the built-in
    assert "ndcg@k" in [m.name for m in ragmeter.list_metrics()]  # listings still work


def test_a_templates_results_are_checked_as_a_registered_metrics(templates: None) -> None:
    registry.register_template("mapi_top", _top, (1,))
    registry.register_template("mapi_top", _top, (1,))  # the same again: no error
    with pytest.raises(MetricError, match="'mapi_top' is already registered"):
        registry.register_template("mapi_top", lambda k: _top(k), (1,))
    result = ragmeter.evaluate(ROWS, ["mapi_top@1", "mapi_top@3"], n_resamples=0)
    assert [s.value for s in result.scores["mapi_top@1"]] == [1.0] * 3
    three = result.scores["mapi_top@3"][0]  # 3 was an ok score of a metric in [0, 1]
    assert (three.status, three.value) == ("failed", None)
    assert "mapi_top@3 computed 3, outside its value_range [0, 1]" in (three.reason or "")


def test_a_numpy_bool_is_taken_as_a_bool_is(registered: list[str]) -> None:
    import numpy as np

    _register(registered, "mapi_npbool", lambda s: Score(np.bool_(s.question_id == "q1")))
    result = ragmeter.evaluate(ROWS, ["mapi_npbool"], n_resamples=0)
    assert [(s.status, s.value) for s in result.scores["mapi_npbool"]] == [
        ("ok", 1.0),
        ("ok", 0.0),
        ("ok", 0.0),
    ]


def test_a_non_ascii_name_is_refused_saying_ascii(registered: list[str]) -> None:
    """'métrique' was refused as not "letters, digits, ...", though é is a letter."""
    with pytest.raises(MetricError, match="the name must be ASCII letters"):
        _register(registered, "métrique", lambda s: Score.ok(1))
