"""A run B that failed where A scored: compare warns and the regression gate fails; the
report shows both runs' summaries and failures, and why pairs were left out. The runs are
real: answer_relevance judged through tests/fake_server.py, B's server failing with HTTP 500."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import make_row
from tests.needs import require_module
from typer.testing import CliRunner

import ragmeter
from fake_server import FakeOpenAIServer
from ragmeter.cli import app
from ragmeter.compare import compare
from ragmeter.config import Settings

runner = CliRunner()
METRICS = ["answer_relevance", "token_f1"]


def _fails_on(numbers: set[int]):
    """A fault for the judge calls about the questions with these numbers (every retry)."""

    def fault(body: dict, n_seen: int) -> str | None:
        text = json.dumps(body)
        return "500" if any(f"fact number {i}?" in text for i in numbers) else None

    return fault


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """a: all scored; lost: every judged call failed; part: 4 of 5 failed. token_f1 of q1
    is undefined in every run (no reference answer), a pair left out for no failure."""
    root = tmp_path_factory.mktemp("runs")
    rows = [make_row(i) for i in range(1, 6)]
    rows[0]["reference_answers"] = [""]
    out = {}
    for name, numbers in (("a", set()), ("lost", set(range(1, 6))), ("part", {1, 2, 3, 4})):
        with FakeOpenAIServer(fault_fn=_fails_on(numbers)) as srv:
            settings = Settings(
                judge="openai:m", base_url=srv.url, api_key_env="RM_CF_UNSET", embedder="none",
                cache=str(root / f"cache-{name}"), preflight=False, max_retries=0,
            )  # fmt: skip
            ragmeter.evaluate(rows, METRICS, settings=settings, out=root / name, n_resamples=50)
        out[name] = root / name
    return out


def test_the_runs_failed_as_scripted(runs):
    lost = ragmeter.runs.load_run(runs["lost"]).result.aggregates["answer_relevance"]
    part = ragmeter.runs.load_run(runs["part"]).result.aggregates["answer_relevance"]
    assert (lost.n_ok, lost.n_failed, part.n_ok, part.n_failed) == (0, 5, 1, 4)


def test_a_metric_lost_to_failures_fails_the_gate_and_is_warned_without_it(runs):
    a, lost, part = (str(runs[k]) for k in ("a", "lost", "part"))
    gated = runner.invoke(app, ["compare", a, lost, "--fail-on-regression"])
    assert gated.exit_code == 1, gated.output
    gates = [line for line in gated.output.splitlines() if line.startswith("gate failed:")]
    assert gates == [
        "gate failed: answer_relevance: B failed 5 of 5 scores, A failed 0 "
        "(no pair left to compare)"
    ]
    plain = runner.invoke(app, ["compare", a, lost])
    assert plain.exit_code == 0, plain.output
    text = " ".join(plain.output.split())
    assert (
        "warning: answer_relevance: B failed 5 of 5 scores, A failed 0: no pair left to compare"
        in text
    )
    assert "Pairs left out: answer_relevance 5 (failed in B 5); token_f1 1 (undefined or " in text
    # fewer scores, some pairs left: still a regression, said with both counts
    fewer = runner.invoke(app, ["compare", a, part, "--fail-on-regression"])
    assert fewer.exit_code == 1
    assert "gate failed: answer_relevance: B failed 4 of 5 scores, A failed 0 (1 pair(s) left)" in (
        fewer.output
    )
    # B failing less than A is no regression, but the lost pairs are still said
    better = runner.invoke(app, ["compare", lost, a, "--fail-on-regression"])
    assert better.exit_code == 0, better.output
    said = " ".join(better.output.split())
    assert "answer_relevance: no pair scored in both runs; left out 5 (failed in A 5)" in said


def test_the_comparison_counts_why_pairs_were_left_out(runs, tmp_path):
    m = compare(runs["a"], runs["part"]).metric("answer_relevance")
    assert (m.n, m.n_excluded, m.failed_a, m.failed_b, m.not_applicable) == (1, 4, 0, 4, 0)
    f1 = compare(runs["a"], runs["part"]).metric("token_f1")
    assert (f1.n, f1.failed_a, f1.failed_b, f1.not_applicable) == (4, 0, 0, 1)
    md = compare(runs["a"], runs["lost"]).to_markdown()
    assert "**More failed scores in B**: answer_relevance (5 vs 0 in A)" in md
    data = json.loads(compare(runs["a"], runs["lost"]).to_json())
    row = next(x for x in data["metrics"] if x["metric"] == "answer_relevance")
    assert (row["failed_a"], row["failed_b"], row["not_applicable"]) == (0, 5, 0)


def _section(html: str, name: str) -> str:
    return html.split(f'<section id="{name}">', 1)[1].split("</section>", 1)[0]


def test_the_report_shows_both_runs_summaries_and_failures(runs, tmp_path):
    require_module("jinja2")
    require_module("matplotlib")
    out = tmp_path / "r.html"
    res = runner.invoke(
        app, ["report", str(runs["a"]), "--compare", str(runs["lost"]), "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    html = out.read_text()
    summary = _section(html, "summary")
    assert "<h2>Summary of A = a</h2>" in summary and "<h2>Summary of B = lost</h2>" in summary
    b_rows = summary.split("Summary of B = lost", 1)[1]
    # B's answer_relevance: 0 ok, 0 undefined, 0 skipped, 5 failed
    cells = '<td class="num">0</td>' * 3 + '<td class="num worse">5</td>'
    assert cells in b_rows
    failures = _section(html, "failures")
    assert "Failed scores in A = a (0)" in failures and "Failed scores in B = lost (5)" in failures
    b_failed = failures.split("Failed scores in B = lost", 1)[1].split("<h3", 1)[0]
    assert b_failed.count('<td class="text">answer_relevance</td>') == 5
    assert "500" in b_failed  # the judge's error is the reason
    deltas = html.split('<table id="deltas">', 1)[1].split("</table>", 1)[0]
    assert '<th class="text">pairs left out</th>' in deltas
    assert '<td class="text">5 (failed in B 5)</td>' in deltas
    assert '<td class="text">1 (undefined or skipped 1)</td>' in deltas
    assert "answer_relevance: B failed 5 of 5 scores, A failed 0: no pair left to compare" in html


def test_the_report_lists_failed_and_not_applicable_scores_apart(runs, tmp_path):
    """'Failures (5)' counted 4 failed and 1 undefined together; summary.json keeps them apart."""
    require_module("jinja2")
    require_module("matplotlib")
    from ragmeter.reporting import render_report

    failures = _section(render_report(runs["part"]), "failures")
    assert "Failures (" not in failures
    assert "Failed scores (4)" in failures
    assert "Not applicable (undefined or skipped) (1)" in failures
    failed, na = failures.split("Not applicable (undefined or skipped)", 1)
    assert failed.count('<td class="text">failed</td>') == 4 and "undefined" not in failed
    assert na.count('<td class="text">undefined</td>') == 1 and "token_f1" in na
