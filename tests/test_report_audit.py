"""An adversarial user's report: large runs, hostile text, degenerate runs, the CLI contract.
Each test failed before the fix it names."""

from __future__ import annotations

import json
import re

from tests.conftest import make_row
from tests.needs import require_module
from typer.testing import CliRunner

from ragmeter.cli import app
from ragmeter.testing import Evaluator


def _deps() -> None:
    require_module("jinja2")
    require_module("matplotlib")


def _runs(n: int, metrics: list[str], **b_overrides):  # type: ignore[no-untyped-def]
    ev = Evaluator(judge="scripted")
    a = ev.evaluate([make_row(i) for i in range(n)], metrics, n_resamples=20)
    rows_b = [make_row(i, answer=f"Fact {i} is {'x ' * (i % 7)}.") for i in range(n)]
    return a, ev.evaluate(rows_b, metrics, n_resamples=20)


def test_movers_build_evidence_for_the_listed_samples_only(monkeypatch):
    """Every changed pair had its evidence built, then all but ``worst`` were dropped: 22 of
    the 30 seconds a report of two 30,000-sample runs took."""
    _deps()
    from ragmeter.compare import compare
    from ragmeter.reporting import build

    a, b = _runs(120, ["token_f1"])
    cmp = compare(a, b)
    calls = []
    real = build.evidence_of
    monkeypatch.setattr(build, "evidence_of", lambda d, s: calls.append(1) or real(d, s))
    moved = build.movers(cmp, "token_f1", 3)
    assert sum(len(v) for v in moved.values()) <= 6
    assert len(moved["regressions"]) == 3
    assert len(calls) == 2 * sum(len(v) for v in moved.values())  # A's and B's evidence


def _running(path):  # type: ignore[no-untyped-def]
    """A run directory whose run.json says it is still running (killed mid-run)."""
    manifest = path / "run.json"  # EvaluationResult.write writes none: evaluate's own
    doc = json.loads(manifest.read_text()) if manifest.exists() else {}
    manifest.write_text(json.dumps({**doc, "status": "running"}))
    return path


def test_an_unfinished_run_is_said_at_the_top_and_on_the_terminal(tmp_path):
    """A report of a run whose run.json says "running" exited 0 with "wrote" and no warning,
    and the page said so only in a note at its foot, after every mean and list."""
    _deps()
    a, _ = _runs(8, ["token_f1"])
    a.write(tmp_path / "a")
    _running(tmp_path / "a")
    out = tmp_path / "r.html"
    res = CliRunner().invoke(app, ["report", str(tmp_path / "a"), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "warning: not a finished run" in res.stderr
    html = out.read_text()
    top = html.index('<section id="summary">')
    assert 'class="warning unfinished">not a finished run' in html[:top]


def test_a_compared_unfinished_run_is_said_once_at_the_top(tmp_path):
    _deps()
    from ragmeter.reporting import render_report

    a, b = _runs(8, ["token_f1"])
    a.write(tmp_path / "a")
    b.write(tmp_path / "b")
    _running(tmp_path / "b")
    html = render_report(tmp_path / "a", tmp_path / "b")
    top = html.index('<section id="summary">')
    assert html[:top].count("not a finished run") == 1
    section = html[html.index('<section id="compare">') :]
    assert "not a finished run" not in section[: section.index("</section>")]


def test_run_bs_notes_are_on_the_page(tmp_path):
    """Only A's notes were shown: B's (here: contexts matched by text, no ids) were lost."""
    _deps()
    from ragmeter.reporting import render_report

    ev = Evaluator(judge="scripted")
    rows = [make_row(i) for i in range(6)]
    a = ev.evaluate(rows, ["mrr"], n_resamples=20)
    no_ids = [make_row(i, context_ids=None, reference_context_ids=None) for i in range(6)]
    b = ev.evaluate(no_ids, ["mrr"], n_resamples=20)
    assert b.notes and not a.notes
    html = render_report(a, b)
    assert re.search(r"<h3>Notes of B = [^<]*</h3>", html)
    assert all(n in html for n in b.notes)


def test_a_column_of_many_distinct_values_shows_the_furthest_slices_and_says_how_many_more(
    tmp_path,
):
    """``--by`` a column of 20,000 distinct values wrote 40,000 slice rows (9 MB; chromium
    took 13 s to open the page). Now the 50 furthest per metric, and the count of the rest."""
    _deps()
    from ragmeter.reporting import render_report

    shown = 50  # reporting.build.MAX_SLICES
    n = shown + 12
    ev = Evaluator(judge="scripted")
    rows_a = [make_row(i, metadata={"user": f"u{i}"}) for i in range(n)]
    rows_b = [make_row(i, metadata={"user": f"u{i}"}, answer=f"Fact {i}.") for i in range(n)]
    a = ev.evaluate(rows_a, ["token_f1"], n_resamples=20)
    b = ev.evaluate(rows_b, ["token_f1"], n_resamples=20)
    alone = render_report(a, by="user")
    section = alone[alone.index('<section id="slices">') :]
    section = section[: section.index("</section>")]
    assert section.count("<tr><td>token_f1</td>") == shown
    assert "token_f1: 12 more slices are not shown" in section
    both = render_report(a, b, by="user")
    compared = both[both.index('<section id="compare">') :]
    compared = compared[: compared.index("<h3>Biggest regressions")]
    assert compared.count("<tr><td>token_f1</td>") == shown
    assert "token_f1: 12 more slices are not shown" in compared


def test_a_scatter_of_many_distinct_pairs_stays_small():
    """A continuous metric (a judge's P(yes), an embedding similarity) over 50,000 samples
    drew 50,000 vector points: a 32 MB <svg> per metric, 11 s to write. Past 5,000 distinct
    points the points are an inline PNG (no request: a data: URI); axes and text stay SVG."""
    _deps()
    import numpy as np

    from ragmeter.reporting import charts

    rng = np.random.default_rng(0)
    a = rng.random(6000)
    b = np.clip(a + rng.normal(0, 0.1, a.size), 0, 1)
    svg = charts.scatter(a, b, "faithfulness", "t")
    assert len(svg) < 300_000
    assert 'href="data:image/png;base64,' in svg and "<text" in svg
    small = charts.scatter(a[:50], b[:50], "faithfulness", "s")
    assert "<image" not in small  # a few points stay vector


def test_an_empty_slice_label_is_named_and_the_lists_say_which_samples_they_hold(tmp_path):
    """A slice of samples whose column is "" had a blank label cell: a row of nothing, read
    as a rendering fault or as the missing values (those are "(missing)"). And a run of
    30,000 samples showed 5 under "Worst samples per metric" without saying which 5."""
    _deps()
    from ragmeter.reporting import render_report

    rows = [make_row(i, metadata={"source": ["", "kb", None][i % 3]}) for i in range(9)]
    run = Evaluator(judge="scripted").evaluate(rows, ["token_f1"], n_resamples=20)
    html = render_report(run, by="source", worst=2)
    section = html[html.index('<section id="slices">') :]
    assert 'class="text"></td>' not in section[: section.index("</section>")]
    assert "(empty string)</span>" in section and "(missing)" in section
    assert "Each metric's 2 lowest-scored samples" in html


def test_a_crashed_runs_error_line_shows_no_secret(tmp_path):
    """The note of a crashed run quotes run.json's error line: its API key and a URL's
    credentials were on the page (the manifest masked them, the notes did not)."""
    _deps()
    from ragmeter.reporting import render_report

    a, _ = _runs(4, ["token_f1"])
    a.write(tmp_path / "a")
    key = "sk-proj-" + "abcdefghijklmnopqrstuvwxyz0123456789"
    error = f"AuthenticationError: bad key {key} at https://user:hunter2@api.example.com/v1"
    (tmp_path / "a" / "run.json").write_text(json.dumps({"status": "crashed", "error": error}))
    html = render_report(tmp_path / "a")
    assert "not a finished run" in html and "AuthenticationError" in html
    assert key not in html and "hunter2" not in html


def test_a_lower_is_better_metrics_worst_samples_are_its_highest():
    """A plugin metric where lower is better (an error rate) had its lowest values, its best
    samples, listed as its worst."""
    _deps()
    from ragmeter.metrics import registry
    from ragmeter.metrics.base import Metric, Score
    from ragmeter.reporting import render_report

    name = "test_report_error_rate"
    if name not in registry._FIXED:
        registry.register(
            Metric(
                name=name,
                description="test-only: lower is better",
                requires=(("answer",),),
                compute=lambda s: Score.ok(int(s.question_id[1:]) / 10),
                default=False,
                direction="lower",
            )
        )
    run = Evaluator(judge="scripted").evaluate(
        [make_row(i) for i in range(8)], [name], n_resamples=20
    )
    html = render_report(run, worst=2)
    worst = html[html.index('<section id="worst">') :]
    assert re.findall(r'class="sample worst"[^>]*data-qid="(q\d)"', worst) == ["q7", "q6"]
    assert "(highest values: lower is better)" in worst
