"""The default plan: when no metric applies, the error says why."""

from __future__ import annotations

import pytest

from ragmeter.errors import DataError
from ragmeter.io import load
from ragmeter.plan import FieldPresence, plan_metrics


def _presence(samples: list) -> FieldPresence:
    fp = FieldPresence()
    for s in samples:
        fp.add(s)
    return fp


def test_no_metric_applies_says_which_model_is_missing_not_that_fields_are() -> None:
    # the rows feed context_relevance, which needs a judge: the old message said no row
    # had the fields any metric needs
    samples = load([{"question": "q", "contexts": ["c"]}])
    for rows in (samples, _presence(samples)):
        with pytest.raises(DataError) as info:
            plan_metrics(rows, None, [], available_needs=set())
        text = str(info.value)
        assert "context_relevance (no judge available)" in text
        assert "no row has" not in text


def test_no_metric_applies_for_lack_of_fields_still_says_so() -> None:
    with pytest.raises(DataError, match="every metric needs fields that no row has"):
        plan_metrics(load([{"question": "q"}]), None, [], available_needs=set())
