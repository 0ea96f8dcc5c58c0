"""A metric with no scored value has no histogram, and the page says which: a run whose
every score failed showed an empty 'Score distributions' section with no word why."""

from __future__ import annotations

from tests.conftest import make_row
from tests.needs import require_module

from ragmeter import Score
from ragmeter.testing import Evaluator


def test_metrics_without_a_value_are_named_under_the_distributions():
    require_module("jinja2")
    require_module("matplotlib")
    from ragmeter.reporting import render_report

    result = Evaluator(judge="scripted").evaluate(
        [make_row(i) for i in range(4)], ["token_f1", "mrr"], n_resamples=20
    )
    result.scores["mrr"] = [Score.failed("judge error") for _ in result.samples]
    html = render_report(result)
    section = html.split('<section id="distributions">', 1)[1].split("</section>", 1)[0]
    assert section.count("<svg") == 1 and 'data-chart="dist-token_f1"' in section
    assert "No distribution for mrr: no scored value." in section
