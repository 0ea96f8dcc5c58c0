"""The report in a real browser: Debian's chromium driven by Playwright, network blocked.

Playwright's own browser download cannot be used here; the test launches the system
chromium (`apt-get install chromium`, which `make test` does when it is missing). Under CI a
missing browser or playwright is a failure, not a skip.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.conftest import judged_rows
from tests.needs import missing, require_module

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


def _chromium() -> str | None:
    for candidate in ("/usr/bin/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


@pytest.fixture(scope="module")
def browser():
    exe = _chromium()
    if exe is None:
        missing("chromium is not installed (`make test` runs apt-get install chromium)")
    sync_api = require_module("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def report_file(tmp_path_factory):
    require_module("jinja2")
    require_module("matplotlib")
    from ragmeter.reporting import report
    from ragmeter.testing import Evaluator

    metrics = ["faithfulness", "context_relevance", "answer_relevance", "token_f1"]
    ev = Evaluator(judge="scripted")
    a = ev.evaluate(judged_rows(), metrics, n_resamples=200)
    b = ev.evaluate(judged_rows(lie="The sky is also green."), metrics, n_resamples=200)
    out = tmp_path_factory.mktemp("browser") / "report.html"
    return report(a, b, out=out, by="topic")


def test_report_renders_offline_with_charts_and_expandable_evidence(report_file, browser):
    page = browser.new_page()
    requests: list[str] = []
    blocked: list[str] = []
    errors: list[str] = []

    def route(r):  # type: ignore[no-untyped-def]
        if r.request.url.startswith("file:"):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("request", lambda req: requests.append(req.url))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(report_file.as_uri(), wait_until="load")

    assert blocked == []
    assert requests == [report_file.as_uri()]  # the page itself, nothing else
    assert errors == []

    charts = page.locator("figure.chart")
    assert charts.count() == 4 + 1 + 4  # distributions, delta forest, A-vs-B scatters
    for i in range(charts.count()):
        svg = charts.nth(i).locator("svg")
        box = svg.bounding_box()
        assert box is not None and box["width"] > 100 and box["height"] > 100, i
        assert svg.locator("path").count() > 5, i  # axes, ticks, bars or points drawn
        assert svg.locator("text").count() > 3, i  # labels are text, not outlines

    row = page.locator('details.worst[data-metric="faithfulness"]').first
    evidence = row.locator(".evidence")
    assert not evidence.is_visible()
    row.locator("summary").click()
    assert evidence.is_visible()
    text = evidence.inner_text()
    assert "The moon is made of cheese." in text
    assert "no" in text.split("The moon is made of cheese.", 1)[1][:40]
    assert blocked == [] and errors == []
    page.close()


def test_the_network_guard_catches_an_external_request(browser, tmp_path):
    """Negative control: the same guard sees (and blocks) a page that does fetch something."""
    page_file = tmp_path / "leaky.html"
    page_file.write_text('<!DOCTYPE html><html><body><img src="http://example.invalid/x.png">')
    page = browser.new_page()
    blocked: list[str] = []

    def route(r):  # type: ignore[no-untyped-def]
        if r.request.url.startswith("file:"):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.goto(page_file.as_uri(), wait_until="load")
    assert blocked == ["http://example.invalid/x.png"]
    page.close()


LONG = "x" * 10_000  # one token: a URL, base64, an id


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory):
    """A run whose text fights the layout: 10,000-character tokens in an id, a question, an
    answer, a context and a slice label; an id with a right-to-left override (U+202E)."""
    require_module("jinja2")
    require_module("matplotlib")
    from tests.conftest import make_row

    from ragmeter.reporting import report
    from ragmeter.testing import Evaluator

    rows = [make_row(i, metadata={"source": "web" if i % 2 else "kb"}) for i in range(6)]
    rows[0] = make_row(0, question=f"Q {LONG}", answer=f"A {LONG}", metadata={"source": LONG})
    rows[0]["contexts"][1] = f"C {LONG}"
    rows[1] = make_row(1, question_id="\u202eq1", question="first second third", answer="x")
    rows[2] = make_row(2, question_id=f"L{LONG}", reference_answers=["..."])  # undefined
    run = Evaluator(judge="scripted").evaluate(rows, ["token_f1"], n_resamples=20)
    out = tmp_path_factory.mktemp("hostile") / "report.html"
    return report(run, out=out, by="source", worst=6)


def test_long_tokens_wrap_instead_of_widening_the_page(hostile_report, browser):
    """The page was 85,000 px wide (a slice label, an id, a question of one long token): every
    table and summary line scrolled sideways; now the text wraps, numbers stay on one line."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(hostile_report.as_uri(), wait_until="load")
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    wide = page.evaluate(
        """() => [...document.querySelectorAll('body *')]
             .filter(e => e.scrollWidth > e.clientWidth + 1 && !e.closest('pre, svg'))
             .map(e => e.tagName + '.' + e.className)"""
    )
    assert wide == []
    lines = page.evaluate(  # numbers are not broken into lines
        """() => [...document.querySelectorAll('td.num')].filter(td => td.textContent.trim())
             .map(td => { const r = document.createRange(); r.selectNodeContents(td);
                          return new Set([...r.getClientRects()].map(b => b.top)).size; })"""
    )
    assert lines and set(lines) == {1}
    page.close()


def test_a_right_to_left_override_in_an_id_does_not_reverse_the_question(hostile_report, browser):
    """An id with U+202E reversed the rest of its summary line: the question "first second
    third" read "driht dnoces tsrif". Each user text is isolated (<bdi>)."""
    page = browser.new_page()
    page.goto(hostile_report.as_uri(), wait_until="load")
    summary = page.locator('details.worst[data-qid="\u202eq1"] > summary').first
    xs = summary.evaluate(
        """s => {
             const walker = document.createTreeWalker(s, NodeFilter.SHOW_TEXT);
             let node; const out = {};
             while ((node = walker.nextNode())) {
               for (const w of ['first', 'third']) {
                 const i = node.data.indexOf(w);
                 if (i >= 0) {
                   const r = document.createRange(); r.setStart(node, i); r.setEnd(node, i + 1);
                   out[w] = r.getBoundingClientRect().left;
                 }
               }
             }
             return out;
           }"""
    )
    assert set(xs) == {"first", "third"}
    assert xs["first"] < xs["third"]  # read left to right, as written
    page.close()
