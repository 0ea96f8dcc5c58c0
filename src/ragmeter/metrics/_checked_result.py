"""What a user's metric returned, checked before a run counts it (``checked_result``).

A module of its own to keep registry.py (names -> metrics, ``register``) under 400 lines;
the registry re-exports ``checked_result`` and applies it to every registered metric.
"""

from __future__ import annotations

import decimal
import inspect
import math
import numbers
from typing import Any

import numpy as np

from ragmeter.metrics.base import Metric, Score, checked
from ragmeter.metrics.column import STATUSES
from ragmeter.redact import redact

# An ok value a run takes: np.bool_ too, as bool is (``Score(arr.mean() > 0.5)`` failed)
_NUMBERS = (numbers.Real, np.number, np.bool_)


def checked_result(metric: Metric, result: Any) -> Score:
    """``result`` when it is a Score a run can count, else a failed Score saying what is wrong:
    a value that is not a Score, an unknown status, or an ok value that is not a finite number
    within the metric's ``value_range`` (its mean and the gates assume it)."""
    if inspect.iscoroutine(result):
        result.close()  # never awaited: no "coroutine was never awaited" warning
    if not isinstance(result, Score):
        hint = " (an async function belongs in acompute)" if inspect.isawaitable(result) else ""
        return Score.failed(
            f"{metric.name} returned {type(result).__name__}, not a Score{hint}: return "
            "Score.ok(value), Score.undefined(reason) or Score.failed(reason)"
        )
    if result.status not in STATUSES:
        return Score.failed(
            f"{metric.name} returned status {result.status!r}; use one of {', '.join(STATUSES)}",
            **result.details,
        )
    if result.status != "ok":
        return _without_value(metric, result)
    value = result.value
    if isinstance(value, decimal.Decimal):  # a number, though not a numbers.Real
        value = float(value) if not value.is_snan() else math.nan  # float(sNaN) raises
    if not isinstance(value, _NUMBERS) or isinstance(value, np.complexfloating):
        return Score.failed(
            f"{metric.name} returned an ok Score whose value is {type(value).__name__}, "
            "not a number",
            **result.details,
        )
    try:
        # a plain float: numpy scalars, Fractions and bools were written to scores.jsonl as
        # strings ("1/3", "0.25") or true, which no reader of a run takes for a score
        value = float(value) + 0.0  # + 0.0: a -0.0 was written and averaged as "-0.0"
    except OverflowError:
        value = math.inf  # an int beyond any float (10**400): not finite, said below
    if not math.isfinite(value):
        return checked(Score(value, "ok", None, result.details))  # failed: not finite
    result = Score(value, "ok", result.reason, result.details)
    bounds = metric.value_range
    if bounds is not None and not bounds[0] <= float(value) <= bounds[1]:
        return Score.failed(
            f"{metric.name} computed {float(value):g}, outside its value_range "
            f"[{bounds[0]:g}, {bounds[1]:g}] (declare the range the metric's values take, "
            "or value_range=None when unbounded)",
            **result.details,
        )
    return result


def _without_value(metric: Metric, result: Score) -> Score:
    """A Score that is not ok, as a run can show it: no value (an ``undefined`` Score holding
    0.5 was written as 0.5 beside its status, though no mean counted it) and a reason in words
    (a missing one was written as "", a number as a number), secrets masked."""
    reason = result.reason
    if reason is None or (isinstance(reason, str) and not reason.strip()):
        reason = f"{metric.name} returned status {result.status!r} without a reason"
    elif not isinstance(reason, str):
        reason = str(reason)
    reason = redact(reason)  # a server's reply quoted with its key: masked, as a judge's
    if result.value is None and reason == result.reason:
        return result
    return Score(None, result.status, reason, result.details)
