"""``worst=0`` (``--worst 0``) lists no sample, and the report says so rather than claiming
that no sample moved ("none") or that none was scored ("no scored sample")."""

from __future__ import annotations

from tests.conftest import make_row
from tests.needs import require_module

from ragmeter.testing import Evaluator


def _runs():
    ev = Evaluator(judge="scripted")
    rows = [make_row(i) for i in range(4)]
    a = ev.evaluate(rows, ["token_f1"], n_resamples=20)
    b = ev.evaluate(
        [r | {"answer": "no"} if i % 2 else r for i, r in enumerate(rows)],
        ["token_f1"],
        n_resamples=20,
    )
    return a, b


def test_worst_zero_says_the_lists_are_not_shown_not_that_they_are_empty():
    require_module("jinja2")
    require_module("matplotlib")
    from ragmeter.reporting import render_report

    a, b = _runs()
    html = render_report(a, b, worst=0)
    assert "0/2/2" in html  # two regressions of token_f1 exist
    assert '<p class="reason">none</p>' not in html
    assert "no scored sample" not in html
    assert html.count("Not listed: the report was made with worst = 0") == 2
    assert "<details" not in html


def test_worst_one_lists_one_regression():
    require_module("jinja2")
    require_module("matplotlib")
    from ragmeter.reporting import render_report

    a, b = _runs()
    html = render_report(a, b, worst=1)
    assert "Not listed" not in html
    assert html.count('class="sample mover regressions"') == 1
