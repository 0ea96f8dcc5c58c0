"""The CI level a comparison or a run was made at, shown as it is: 0.975 is "97.5% CI" in
compare's Markdown and table and in the report, where ``round`` made it "98% CI" (and 0.999
"100% CI"), a level no run had."""

from __future__ import annotations

import re

import pytest
from tests.conftest import make_row

import ragmeter
from ragmeter.compare import compare
from ragmeter.compare_render import to_rich


@pytest.fixture(scope="module")
def runs_975():
    rows = [make_row(i, answer=f"Fact {i % 3} is blue.") for i in range(1, 13)]
    a = ragmeter.evaluate(rows, "token_f1", n_resamples=50, confidence=0.975)
    b = ragmeter.evaluate(
        [{**r, "answer": r["answer"] + " Also."} for r in rows],
        "token_f1",
        n_resamples=50,
        confidence=0.975,
    )
    return a, b


@pytest.mark.parametrize("level, shown", [(0.975, "97.5% CI"), (0.999, "99.9% CI")])
def test_compare_shows_the_ci_level_it_was_made_at(runs_975, level, shown):
    from rich.console import Console

    cmp = compare(*runs_975, confidence=level, n_resamples=50)
    assert f"| {shown} of delta |" in cmp.to_markdown()
    console = Console(width=200, record=True)
    for part in to_rich(cmp):
        console.print(part)
    text = console.export_text()
    assert shown in text and f"{shown}: paired bootstrap" in text
    assert not re.search(r"\b(98|100)% CI", cmp.to_markdown() + text)


def test_the_report_shows_each_ci_level_as_made(runs_975):
    pytest.importorskip("jinja2")
    pytest.importorskip("matplotlib")
    from ragmeter.reporting import render_report

    page = render_report(runs_975[0], compare(*runs_975, confidence=0.975, n_resamples=50))
    heads = re.findall(r"<th>([^<]*% CI)</th>", page)
    assert heads and set(heads) == {"97.5% CI"}  # both summaries and the comparison
