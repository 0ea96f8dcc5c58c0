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
