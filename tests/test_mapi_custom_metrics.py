"""A user's own metric: its definition is checked when it is made or registered, and what it
returns on each sample is checked before a run counts it."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest

import ragmeter
from ragmeter import Metric, MetricError, Mode, Score
from ragmeter.errors import DataError
from ragmeter.metrics import registry

ROWS = [
    {"question_id": "q1", "question": "What is X?", "answer": "X is a thing.", "contexts": ["X"]},
    {"question_id": "q2", "question": "What is Y?", "answer": "Y is."},
]


def _metric(name: str = "mapi_metric", **kw: Any) -> Metric:
    kw.setdefault("compute", lambda sample: Score.ok(0.5))
    return Metric(name=name, description="test-only", requires=(("answer",),), **kw)


@pytest.fixture
def registered() -> Iterator[list[str]]:
    """Names registered by the test, removed after it."""
    names: list[str] = []
    yield names
    for name in names:
        registry._FIXED.pop(name, None)
        registry._GIVEN.pop(name, None)


def _register(names: list[str], metric: Metric) -> Metric:
    out = ragmeter.register_metric(metric)
    names.append(metric.name)
    return out


async def _async_half(sample: Any, resources: Any) -> Score:
    return Score.ok(0.5)


@pytest.mark.parametrize(
    ("kw", "says"),
    [
        ({"compute": None}, "exactly one of compute"),
        ({"acompute": _async_half}, "exactly one of compute"),
        ({"compute": _async_half}, "compute is an async function"),
        ({"requires": ()}, "requires must be groups"),
        ({"requires": ("answer",)}, "requires must be groups"),
        ({"requires": (("anwser",),)}, "unknown field(s) 'anwser'"),
        ({"needs": frozenset({"jduge"})}, "unknown resource(s) 'jduge'"),
        ({"modes": (("m", Mode(needs=frozenset({"gpu"}))),), "default_mode": "m"}, "'gpu'"),
        ({"modes": (("m", Mode()),), "default_mode": "x"}, "default_mode must be one of"),
        ({"value_range": (1.0, 0.0)}, "low < high"),
        ({"value_range": (0.0, math.inf)}, "finite"),
        ({"direction": "up"}, "direction 'up'"),
    ],
)
def test_a_definition_that_cannot_work_is_refused_when_made(kw: dict, says: str) -> None:
    args = {"name": "mapi_bad", "description": "d", "requires": (("answer",),)}
    args["compute"] = lambda sample: Score.ok(0.5)
    args.update(kw)
    with pytest.raises(MetricError, match=f"'mapi_bad'.*{_escaped(says)}"):
        Metric(**args)


def _escaped(text: str) -> str:
    import re

    return re.escape(text)


@pytest.mark.parametrize("name", ["a,b", "a b", "a=b", "", " lead", "a:b", "mine@5", "ndcg@10"])
def test_a_name_that_cannot_be_selected_is_refused(name: str, registered: list[str]) -> None:
    with pytest.raises(MetricError):
        _register(registered, _metric(name))
    assert name not in registry._FIXED or name == "ndcg@10"
    assert ragmeter.get_metric("ndcg@10").description.startswith("nDCG")  # still the built-in


def test_a_built_in_or_twice_registered_name_is_a_metric_error(registered: list[str]) -> None:
    before = ragmeter.get_metric("mrr")
    with pytest.raises(MetricError, match="'mrr' is a built-in metric"):
        _register(registered, _metric("mrr"))
    assert ragmeter.get_metric("mrr") is before
    _register(registered, _metric("mapi_twice"))
    with pytest.raises(MetricError, match="'mapi_twice' is already registered"):
        ragmeter.register_metric(_metric("mapi_twice"))


def _statuses(result: Any, name: str) -> list[tuple[Any, str, str | None]]:
    return [(s.value, s.status, s.reason) for s in result.scores[name]]


@pytest.mark.parametrize(
    ("compute", "says"),
    [
        (lambda s: None, "returned NoneType, not a Score"),
        (lambda s: 0.5, "returned float, not a Score"),
        (lambda s: Score("0.5"), "value is str, not a number"),
        (lambda s: Score(0.5, "good"), "status 'good'"),
        (lambda s: Score.ok(5.0), "computed 5, outside its value_range [0, 1]"),
        (lambda s: Score(-0.5), "computed -0.5, outside its value_range [0, 1]"),
    ],
)
def test_a_result_no_run_can_count_is_a_failed_score_saying_why(
    compute: Any, says: str, registered: list[str]
) -> None:
    name = "mapi_result"
    _register(registered, _metric(name, compute=compute))
    result = ragmeter.evaluate(ROWS, name, n_resamples=0)  # never a crash, never an ok value
    for value, status, reason in _statuses(result, name):
        assert (value, status) == (None, "failed")
        assert name in reason and says in reason
    assert result.aggregates[name].n_failed == len(ROWS)


def test_values_inside_the_range_or_unbounded_are_kept(registered: list[str]) -> None:
    seven, three = (lambda s: Score.ok(7)), (lambda s: Score.ok(3))
    _register(registered, _metric("mapi_unbounded", compute=seven, value_range=None))
    _register(registered, _metric("mapi_scale", compute=three, value_range=(1, 5)))
    result = ragmeter.evaluate(ROWS, "mapi_unbounded,mapi_scale", n_resamples=0)
    assert result.aggregates["mapi_unbounded"].mean == 7
    assert result.aggregates["mapi_scale"].mean == 3


def test_async_results_are_checked_and_a_plain_acompute_is_awaited_only_when_needed(
    registered: list[str],
) -> None:
    async def too_big(sample: Any, resources: Any) -> Score:
        return Score.ok(2.0)

    def plain(sample: Any, resources: Any) -> Score:
        return Score.ok(0.25)

    _register(registered, _metric("mapi_async_big", compute=None, acompute=too_big))
    _register(registered, _metric("mapi_plain", compute=None, acompute=plain))
    result = ragmeter.evaluate(ROWS, "mapi_async_big,mapi_plain", n_resamples=0)
    assert {s.status for s in result.scores["mapi_async_big"]} == {"failed"}
    assert "outside its value_range" in (result.scores["mapi_async_big"][0].reason or "")
    assert [s.value for s in result.scores["mapi_plain"]] == [0.25, 0.25]


def test_evaluate_takes_a_registered_metric_object(registered: list[str]) -> None:
    mine = _metric("mapi_object")
    _register(registered, mine)
    rows = [{**r, "context_ids": ["a"], "reference_context_ids": ["a"]} for r in ROWS]
    chosen = [mine, ragmeter.get_metric("refusal_rate"), ragmeter.get_metric("ndcg@3")]
    result = ragmeter.evaluate(rows, chosen, n_resamples=0)
    assert list(result.metrics) == ["mapi_object", "refusal_rate", "ndcg@3"]
    assert result.aggregates["mapi_object"].mean == 0.5


def test_an_unregistered_metric_object_is_a_usage_error_naming_register() -> None:
    with pytest.raises(DataError, match="'mapi_loose' is not registered: register it first"):
        ragmeter.evaluate(ROWS, [_metric("mapi_loose")], n_resamples=0)
