"""Each run's summary carries its own size and CI level: a compare report labelled B's CIs
with A's level and said '10 samples' (A's) under 'B vs A' when B held 6."""

from __future__ import annotations

from tests.conftest import make_row
from tests.needs import require_module

from ragmeter.testing import Evaluator


def test_each_summary_has_its_runs_ci_level_and_the_meta_line_both_sizes():
    require_module("jinja2")
    require_module("matplotlib")
    from ragmeter.reporting import render_report

    ev = Evaluator(judge="scripted")
    rows = [make_row(i) for i in range(10)]
    a = ev.evaluate(rows, ["token_f1"], n_resamples=20, confidence=0.95)
    b = ev.evaluate(rows[:6], ["token_f1"], n_resamples=20, confidence=0.8)
    html = render_report(a, b, intersect=True)
    assert "run A (in-memory): 10 samples" in html and "run B (in-memory): 6 samples" in html
    summary = html.split('<section id="summary">', 1)[1].split("</section>", 1)[0]
    of_a, of_b = summary.split("Summary of B = ", 1)
    assert "<th>95% CI</th>" in of_a and "<th>80% CI</th>" in of_b
