"""A compare report sliced --by a column: each run's slices, labelled; a column only B has
slices the comparison (compare does) instead of failing the report."""

from __future__ import annotations

import pytest
from tests.conftest import make_row
from tests.needs import require_module

from ragmeter.testing import Evaluator


def _run(topic: bool, answer: str | None = None, every: int = 1):
    """6 rows, every ``every``-th answering ``answer`` instead of its own."""
    rows = [
        make_row(i, **({"topic": "odd" if i % 2 else "even"} if topic else {}))
        | ({"answer": answer} if answer and i % every == 0 else {})
        for i in range(6)
    ]
    return Evaluator(judge="scripted").evaluate(rows, ["token_f1"], n_resamples=50)


def _section(html: str, name: str) -> str:
    return html.split(f'<section id="{name}">', 1)[1].split("</section>", 1)[0]


@pytest.fixture(autouse=True)
def _deps():
    require_module("jinja2")
    require_module("matplotlib")


def test_a_column_only_in_b_slices_the_report_as_it_slices_the_comparison():
    from ragmeter.reporting import render_report

    html = render_report(_run(False), _run(True, "The sky is blue.", every=3), by="topic")
    assert "Slices by topic" in _section(html, "compare")  # the comparison is sliced
    slices = _section(html, "slices")
    a_part, b_part = slices.split('<h3 class="run">B = ', 1)
    assert "no sample has a value in column" in a_part and "<table" not in a_part
    assert b_part.count('<td class="text">odd</td>') == 1


def test_both_runs_slices_are_shown_each_labelled():
    from ragmeter.reporting import render_report

    a, b = _run(True), _run(True, "The sky is blue.", every=3)  # differences not constant
    html = render_report(a, b, by="topic")
    slices = _section(html, "slices")
    a_part, b_part = slices.split('<h3 class="run">B = ', 1)
    assert '<h3 class="run">A = ' in a_part
    # each table holds its own run's means: A's token_f1 is not B's
    mean_a, mean_b = a.aggregates["token_f1"].mean, b.aggregates["token_f1"].mean
    assert mean_a != mean_b
    assert f'<td class="num">{mean_a:.3f}</td>' in a_part
    assert f'<td class="num">{mean_b:.3f}</td>' in b_part
    assert f'<td class="num">{mean_b:.3f}</td>' not in a_part


def test_a_delta_a_rounding_error_outside_its_ci_is_drawn():
    """A delta a rounding error outside its CI (mean 0.39999999999999997, CI [0.4, 0.4], as
    compare gave for constant differences before its means took equal values whole):
    errorbar's negative xerr made the report of such a comparison crash with a ValueError."""
    from ragmeter.compare import compare
    from ragmeter.reporting import render_report
    from ragmeter.reporting.charts import delta_forest

    svg = delta_forest(["m"], [0.39999999999999997], [0.4], [0.4], ["better"], "t")
    assert svg.lstrip().startswith("<svg") or "<svg" in svg
    a, b = _run(True), _run(True, "The sky is blue.")
    m = compare(a, b).metric("token_f1")
    assert m.ci_low is not None and m.ci_low <= m.delta <= m.ci_high  # inside it now
    assert 'data-chart="delta-forest"' in render_report(a, b)
