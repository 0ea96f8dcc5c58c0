"""A report of runs whose every text is hostile (scraped web pages, odd ids, run directories
named by someone else): nothing runs, nothing is injected, the layout holds, and the page
opens in a browser in reasonable time. Each test failed before the fix it names."""

from __future__ import annotations

import re

from tests.conftest import make_row
from tests.needs import require_module

from ragmeter.testing import Evaluator

OVERRIDES = "\u202a\u202b\u202d\u202e"  # LRE, RLE, LRO, RLO: reorder what follows them
ISOLATE_OPEN, PDI = "\u2066\u2067\u2068", "\u2069"


def _deps() -> None:
    require_module("jinja2")
    require_module("matplotlib")


def _outside_isolates(html: str) -> list[int]:
    """Offsets of the page's bidi overrides not inside an isolate (FSI/LRI/RLI ... PDI)."""
    depth, loose = 0, []
    for i, ch in enumerate(html):
        if ch in ISOLATE_OPEN:
            depth += 1
        elif ch == PDI:
            depth = max(depth - 1, 0)
        elif ch in OVERRIDES and depth == 0:
            loose.append(i)
    return loose


def _two_runs(tmp_path, name_a: str, name_b: str):  # type: ignore[no-untyped-def]
    ev = Evaluator(judge="scripted")
    rows = [make_row(i) for i in range(6)]
    a = ev.evaluate(rows, ["token_f1"], n_resamples=20)
    b = ev.evaluate(
        [make_row(i, answer=f"Fact {i} is {'x ' * i}.") for i in range(6)],
        ["token_f1"],
        n_resamples=20,
    )
    a.write(tmp_path / name_a)
    b.write(tmp_path / name_b)
    return tmp_path / name_a, tmp_path / name_b


def test_a_right_to_left_override_in_a_run_name_stays_in_its_name(tmp_path):
    """A run directory named with U+202E reversed the rest of each heading that names it
    ("Comparison: B = ... vs A = ... (6 paired samples)", "Failed scores in ..."): only the
    summary lines isolated user text (<bdi>). Now each text holding bidi controls is in an
    isolate, one that a stray PDI in the text cannot close early."""
    _deps()
    from ragmeter.reporting import render_report

    a, b = _two_runs(tmp_path, "base\u202eline", "cand\u2069\u202eidate\u2067")
    html = render_report(a, b)
    assert "\u202e" in html
    assert _outside_isolates(html) == []
    assert html.count("\u2068") + html.count("\u2067") + html.count("\u2066") == html.count(PDI)
    # the browser tab's title too
    assert "<title>\u2068ragmeter report: cand" in html


def test_ordinary_text_is_left_alone():
    """The isolate and the line-break opportunities are added only where needed: a report of
    ordinary text is byte for byte what it was."""
    _deps()
    from ragmeter.reporting import isolated, shown

    assert isolated("plain text, 123") == "plain text, 123"
    assert shown("What is fact number 1?") == "What is fact number 1?"
    assert shown(3) == 3


def test_a_long_token_gets_line_break_opportunities_and_stays_escaped():
    """A question of one 100,000-character token made chromium take 30-55 s to open the page
    (``overflow-wrap: anywhere`` is quadratic in a token's length); it now gets a <wbr>
    every 100 characters, its text still escaped and whole once the <wbr> are removed."""
    _deps()
    from ragmeter.reporting import render_report

    token = "<b>&" + "A" * 100_000
    rows = [make_row(i) for i in range(4)]
    rows[1] = make_row(1, question=f"Q {token}", answer=f"x {token}")
    run = Evaluator(judge="scripted").evaluate(rows, ["token_f1"], n_resamples=20)
    html = render_report(run, worst=4)
    text = re.sub(r"<[^>]*>", " ", html.replace("<wbr>", " "))
    assert max(len(t) for t in text.split()) < 200
    assert "<b>" not in html
    assert "&lt;b&gt;&amp;" + "A" * 95 in html
    assert ("&lt;b&gt;&amp;" + "A" * 100_000) in html.replace("<wbr>", "")


def test_a_long_metric_name_does_not_widen_the_page(tmp_path):
    """A metric's name is any length the registry allows ([A-Za-z0-9_.-]+): one of 2,000
    characters made the page 2,000 px wide (its summary, slices and deltas cells, plain
    <td>, did not wrap as td.text did)."""
    _deps()
    from tests.needs import missing, require_module
    from tests.test_report_browser import CHROMIUM_ARGS, _chromium

    from ragmeter.metrics import registry
    from ragmeter.metrics.base import Metric, Score
    from ragmeter.reporting import report

    exe = _chromium()
    if exe is None:
        missing("chromium is not installed (`make test` runs apt-get install chromium)")
    sync_api = require_module("playwright.sync_api")
    name = "test_report_hostile_" + "m" * 2000
    if name not in registry._FIXED:
        registry.register(
            Metric(
                name=name,
                description="test-only: a long name",
                requires=(("answer",),),
                compute=lambda s: Score.ok(int(s.question_id[1:]) / 10),
                default=False,
            )
        )
    run = Evaluator(judge="scripted").evaluate(
        [make_row(i, topic="t") for i in range(6)], [name], n_resamples=20
    )
    out = report(run, out=tmp_path / "report.html", by="topic")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(out.as_uri(), wait_until="load")
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        width = page.evaluate("document.documentElement.scrollWidth")
        browser.close()
    assert width <= 1280


def test_a_chart_of_a_hostile_metric_name_warns_nothing():
    """A 3,000-character metric name (or one holding a control character) printed
    matplotlib's "constrained_layout not applied" and "Glyph 1 missing" warnings, with a
    source line, over ``ragmeter report``'s output; the chart is still drawn."""
    _deps()
    import warnings

    from ragmeter.reporting import charts

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        svg = charts.histogram([0.1, 0.5], "m" * 3000 + "\x01<x>", "h", [0.2])
    assert [str(w.message) for w in caught] == []
    assert svg.startswith("<svg") and "&lt;x&gt;" in svg
