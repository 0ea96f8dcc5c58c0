"""The gates called from Python check their arguments as the CLI checks its options.

Before: ``fail_under(result, {"m": float("nan")})`` passed every run (``mean < nan`` is never
true), a string threshold raised a TypeError from the comparison, True gated at 1, and
``fail_on_regression(cmp, allow_lost_scores="no")`` excused the scores B lost ("no" is
truthy); ``alpha="0.05"`` raised a TypeError."""

from __future__ import annotations

import pytest
from tests.conftest import make_row

import ragmeter
from ragmeter.compare import compare
from ragmeter.errors import DataError
from ragmeter.gates import fail_on_regression, fail_under


@pytest.fixture(scope="module")
def result():
    return ragmeter.evaluate([make_row(i) for i in range(1, 6)], "token_f1", n_resamples=50)


@pytest.mark.parametrize(
    ("threshold", "said"),
    [
        (float("nan"), "token_f1=nan: not a finite number"),
        ("0.5", "token_f1='0.5': not a number"),
        (True, "token_f1=True: not a number"),
        (2, "token_f1=2 is outside token_f1's range [0, 1]"),
    ],
)
def test_fail_under_refuses_a_threshold_that_gates_nothing(result, threshold, said):
    with pytest.raises(DataError, match="fail_under") as err:
        fail_under(result, {"token_f1": threshold})
    assert said in str(err.value)


def test_fail_under_still_gates_good_thresholds(result):
    mean = result.aggregates["token_f1"].mean
    assert fail_under(result, {"token_f1": 0}) == []
    (failed,) = fail_under(result, {"token_f1": min(1.0, mean + 0.01)})
    assert failed.metric == "token_f1"
    with pytest.raises(ValueError, match="'mean' or 'ci_low'"):  # a DataError, a ValueError
        fail_under(result, {"token_f1": 0.1}, on="median")
    with pytest.raises(DataError, match="must be a dict"):
        fail_under(result, ["token_f1"])


@pytest.mark.parametrize(
    ("kwargs", "said"),
    [
        ({"allow_lost_scores": "no"}, "field 'allow_lost_scores': must be True or False, not 'no'"),
        ({"alpha": "0.05"}, "field 'alpha': must be a number in (0, 1), not '0.05'"),
        ({"alpha": True}, "field 'alpha': must be a number in (0, 1), not True"),
        ({"alpha": float("nan")}, "field 'alpha': must be a number in (0, 1), not nan"),
    ],
)
def test_fail_on_regression_refuses_arguments_it_would_misread(result, kwargs, said):
    cmp = compare(result, result)
    with pytest.raises(DataError, match="fail_on_regression") as err:
        fail_on_regression(cmp, **kwargs)
    assert said in str(err.value)
    assert fail_on_regression(cmp, alpha=0.05, allow_lost_scores=True) == []


def test_a_mean_just_under_its_threshold_reads_below_it():
    """'mean 1.000 < 1.0' for a mean of 0.9999999: the line contradicted itself."""
    from ragmeter.gates import _below, _short

    assert _below(0.9999999, 1.0) == "0.9999999" and _below(0.5, 0.8) == "0.500"
    assert len(_short("<html>" + "x" * 12_000)) == 120  # a judge's HTML error on one line
