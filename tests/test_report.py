"""The HTML report's content, rendered from real judged scores (scripted judge) and run files."""

from __future__ import annotations

import re

import pytest
from tests.conftest import EXAMPLES, judged_rows
from tests.needs import require_module

from ragmeter.reporting.evidence import context_lines, evidence_of
from ragmeter.sample import Sample
from ragmeter.testing import Evaluator

JUDGED = ["faithfulness", "context_relevance", "answer_relevance", "token_f1"]
RUNS = EXAMPLES / "compare" / "runs"


def _report_deps() -> None:
    """jinja2 and matplotlib (the report extra): skipped without them, failed under CI."""
    require_module("jinja2")
    require_module("matplotlib")


@pytest.fixture(scope="module")
def judged_runs(tmp_path_factory):
    """Run A (answers with an invented statement) and run B (without), written to disk."""
    _report_deps()
    root = tmp_path_factory.mktemp("runs")
    ev = Evaluator(judge="scripted")
    a = ev.evaluate(judged_rows(), JUDGED, n_resamples=200)
    b = ev.evaluate(judged_rows(lie="The sky is also green."), JUDGED, n_resamples=200)
    a.write(root / "a")
    b.write(root / "b")
    return root / "a", root / "b"


@pytest.fixture(scope="module")
def report_html(judged_runs, tmp_path_factory):
    from ragmeter.reporting import report

    out = tmp_path_factory.mktemp("report") / "report.html"
    report(judged_runs[0], judged_runs[1], out=out, by="topic", worst=3)
    return out


def test_report_is_self_contained(report_html):
    html = report_html.read_text()
    assert not re.search(r"https?://", html)  # no URL at all: nothing to fetch, no namespace
    assert not re.search(r"<(script|link|img|iframe)\b", html)
    assert "@import" not in html and "url(" not in html.replace("url(#", "")
    # 4 distributions + 1 forest + 4 scatters, ids never shared between charts
    assert html.count("<svg") == 9
    ids = re.findall(r'\bid="([^"]+)"', html)
    assert len(ids) == len(set(ids))


def test_report_sections_and_evidence(report_html):
    html = report_html.read_text()
    for section in ("summary", "compare", "distributions", "slices", "worst", "failures"):
        assert f'<section id="{section}">' in html
    assert "Slices by topic" in html and "small slice" in html
    # the worst faithfulness sample shows its invented statement judged unsupported
    worst = html.split('data-metric="faithfulness"', 1)[1].split("</details>", 1)[0]
    assert "The moon is made of cheese." in worst
    assert '<td class="no">no</td>' in worst and "evidence" in worst
    # failures carry their reasons; the manifest is shown
    assert "no contexts: nothing to check the answer against" in html
    assert "&#34;metrics&#34;" in html or "&quot;metrics&quot;" in html


def test_report_compare_section_shows_both_answers(report_html):
    html = report_html.read_text()
    section = html.split('<section id="compare">', 1)[1].split("</section>", 1)[0]
    assert "A's answer" in section and "B's answer" in section
    assert "The sky is also green." in section and "The moon is made of cheese." in section


def test_report_of_the_example_runs(tmp_path):
    _report_deps()
    from ragmeter.reporting import render_report

    html = render_report(RUNS / "baseline", RUNS / "reranked", by="topic")
    assert "B = reranked vs A = baseline (36 paired samples)" in html
    assert html.count("<svg") == 3 + 1 + 3


def test_evidence_of_context_relevance_marks_needed_sentences():
    sample = Sample(
        question="Which colour is the sky?",
        question_id="x",
        contexts=["The sky is blue. Grass is green.", "Snow is white."],
    )
    assert [(c.number, c.context) for c in context_lines(sample.contexts)] == [
        (1, 0),
        (2, 0),
        (3, 1),
    ]
    details = {"kept_numbers": [1], "p_yes": {"1": 0.9, "2": 0.1}, "total_sentences": 3}
    ev = evidence_of(details, sample)
    assert [(s.number, s.marked, s.p_yes) for s in ev.sentences] == [
        (1, True, 0.9),
        (2, False, 0.1),
        (3, False, None),
    ]
    assert ev.other == [("total_sentences", "3")]
    generate = evidence_of(
        {"statements": ["A.", "B."], "verdicts": ["yes", "no"], "reasons": ["ok", "absent"]},
        sample,
    )
    assert [(i.text, i.verdict, i.reason) for i in generate.items] == [
        ("A.", "yes", "ok"),
        ("B.", "no", "absent"),
    ]
    assert evidence_of({}, sample).empty


def test_single_run_report_shows_context_relevance_evidence(judged_runs):
    from ragmeter.reporting import render_report

    html = render_report(judged_runs[0], worst=7)
    assert '<section id="compare">' not in html and html.count("<svg") == 4
    worst = html.split('<section id="worst">', 1)[1]
    cr = worst.split("<h3>context_relevance</h3>", 1)[1].split("<h3>", 1)[0]
    # the sentence the judge found needed is marked, with its P(yes); the other is not
    assert '<tr class="marked"><td>[1]</td><td class="text">Fact 1 is that the sky is blue.' in cr
    assert '<tr class=""><td>[2]</td><td class="text">Grass is green.</td>' in cr
    assert "judged needed to answer the question" in cr


def _chart(html: str, metric: str) -> str:
    return html.split(f'data-chart="dist-{metric}">', 1)[1].split("</figure>", 1)[0]


def test_compare_distributions_show_both_runs(judged_runs, report_html):
    """With --compare each distribution holds A's and B's values (B's means were nowhere on the
    page's charts before) and says which is which; a single-run report keeps one mean."""
    from ragmeter.reporting import render_report
    from ragmeter.runs import load_run

    html = report_html.read_text()
    a, b = (load_run(p).result for p in judged_runs)
    for metric in ("faithfulness", "token_f1"):
        chart = _chart(html, metric)
        means = [a.aggregates[metric].mean, b.aggregates[metric].mean]
        assert f"A mean {means[0]:.3f}" in chart and f"B mean {means[1]:.3f}" in chart
    assert "outlined (dashed mean line)" in html
    single = _chart(render_report(judged_runs[0]), "faithfulness")
    assert "B mean" not in single and f"mean {a.aggregates['faithfulness'].mean:.3f}" in single


def test_compare_worst_samples_of_each_run(report_html):
    """Each run's weakest samples, labelled: B's invented statement ("The sky is also green.")
    is among B's worst faithfulness samples, and A's among A's."""
    html = report_html.read_text()
    worst = html.split('<section id="worst">', 1)[1].split("</section>", 1)[0]
    rows = re.findall(
        r'<details class="sample worst" data-metric="faithfulness"[^>]*'
        r'data-run="([AB])">(.*?)</details>',
        worst,
        re.S,
    )
    by_run = {r: " ".join(body for run, body in rows if run == r) for r in "AB"}
    assert "The moon is made of cheese." in by_run["A"]
    assert "The sky is also green." in by_run["B"]
    assert "The moon is made of cheese." not in by_run["B"]
