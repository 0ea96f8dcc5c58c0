"""`ragmeter compare`, `ragmeter report`, and evaluate's --by / --fail-under: exit codes 0/1/2."""

from __future__ import annotations

import json

from tests.conftest import EXAMPLES, make_row
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app

runner = CliRunner()
RUNS = EXAMPLES / "compare" / "runs"
A, B = str(RUNS / "baseline"), str(RUNS / "reranked")


def test_compare_prints_delta_ci_and_p_per_metric():
    res = runner.invoke(app, ["compare", A, B, "--by", "topic"])
    assert res.exit_code == 0, res.output
    out = res.output
    assert "B = reranked vs A = baseline: 36 paired samples" in out
    assert "mrr" in out and "+0.163" in out and "[+0.065, +0.274]" in out and "better" in out
    assert "token_f1" in out and "n.s." in out
    assert "slices by topic" in out and "small" in out


def test_compare_with_itself_all_deltas_zero_no_p_below_half():
    res = runner.invoke(app, ["compare", A, A, "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["metrics"] and all(m["delta"] == 0 for m in data["metrics"])
    assert all(m["p_value"] >= 0.5 and m["p_holm"] >= 0.5 for m in data["metrics"])


def test_compare_unpaired_exits_2_naming_ids(tmp_path):
    ragmeter.evaluate([make_row(i) for i in range(1, 4)], "token_f1").write(tmp_path / "a")
    ragmeter.evaluate([make_row(i) for i in range(2, 6)], "token_f1").write(tmp_path / "b")
    res = runner.invoke(app, ["compare", str(tmp_path / "a"), str(tmp_path / "b")])
    assert res.exit_code == 2
    assert "1 id(s) only in" in res.output and "q1" in res.output and "q4, q5" in res.output
    ok = runner.invoke(app, ["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--intersect"])
    assert ok.exit_code == 0, ok.output
    assert "compared on the 2 shared ids" in ok.output


def test_fail_on_regression_exits_1_exactly_when_a_metric_drops(tmp_path):
    improved = runner.invoke(app, ["compare", A, B, "--fail-on-regression"])
    assert improved.exit_code == 0, improved.output
    md = tmp_path / "comment.md"
    worse = runner.invoke(app, ["compare", B, A, "--fail-on-regression", "--markdown", str(md)])
    assert worse.exit_code == 1
    lines = [line for line in worse.output.splitlines() if line.startswith("gate failed:")]
    assert len(lines) == 2 and lines[0].startswith("gate failed: mrr: dropped -0.163")
    assert "**Worse** (Holm p < 0.05): mrr, ndcg@10" in md.read_text()
    lenient = runner.invoke(app, ["compare", B, A, "--fail-on-regression", "--alpha", "0.001"])
    assert lenient.exit_code == 0


def test_compare_markdown_format():
    res = runner.invoke(app, ["compare", A, B, "--format", "markdown"])
    assert res.exit_code == 0
    assert res.stdout.startswith("### ragmeter compare: `reranked` (B) vs `baseline` (A)")


def test_evaluate_fail_under_on_mean_and_ci_low(tmp_path):
    data = str(EXAMPLES / "compare" / "reranked.jsonl")
    base = ["evaluate", data, "-m", "mrr,token_f1", "--n-resamples", "200"]
    passed = runner.invoke(app, [*base, "--fail-under", "mrr=0.7,token_f1=0.3"])
    assert passed.exit_code == 0, passed.output
    out = tmp_path / "out"
    failed = runner.invoke(app, [*base, "--fail-under", "mrr=0.8,token_f1=0.5", "-o", str(out)])
    assert failed.exit_code == 1
    gates = [line for line in failed.output.splitlines() if line.startswith("gate failed:")]
    assert gates == [
        "gate failed: mrr: mean 0.736 < 0.8 (n=36)",
        "gate failed: token_f1: mean 0.321 < 0.5 (n=36)",
    ]
    assert (out / "scores.jsonl").exists()  # the outputs are written before the gate fails
    low = runner.invoke(app, [*base, "--fail-under", "mrr=0.7", "--gate-on", "ci-low"])
    assert low.exit_code == 1 and "mrr: CI lower bound" in low.output


def test_evaluate_bad_gate_or_column_exits_2_before_scoring():
    data = str(EXAMPLES / "compare" / "reranked.jsonl")
    bad = runner.invoke(app, ["evaluate", data, "-m", "mrr", "--fail-under", "faithfullness=0.6"])
    assert bad.exit_code == 2 and "unknown metric 'faithfullness'" in bad.output
    col = runner.invoke(app, ["evaluate", data, "-m", "mrr", "--by", "source"])
    assert col.exit_code == 2 and "no sample has a value in column 'source'" in col.output
    assert "mean" not in col.output  # nothing was scored


def test_evaluate_by_prints_slices():
    data = str(EXAMPLES / "compare" / "reranked.jsonl")
    res = runner.invoke(app, ["evaluate", data, "-m", "mrr", "--by", "topic"])
    assert res.exit_code == 0, res.output
    assert "slices by topic" in res.output and "council tax" in res.output


def test_report_command_writes_html(tmp_path):
    out = tmp_path / "r.html"
    res = runner.invoke(app, ["report", A, "--compare", B, "-o", str(out), "--by", "topic"])
    assert res.exit_code == 0, res.output
    html = out.read_text()
    assert "B = reranked vs A = baseline" in html and "Slices by topic" in html
