"""Samples A scored and B did not (undefined, skipped or failed in B, same id): compare counts
them, says them in the terminal, --json and --markdown, and --fail-on-regression fails on
them (--allow-lost-scores accepts the undefined or skipped, never the failed). Before, such a
sample silently left the pairs: B could lose its score on many samples and pass the gate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app
from ragmeter.compare import compare
from ragmeter.gates import fail_on_regression
from ragmeter.metrics.base import Score

runner = CliRunner()
METRICS = ["mrr", "token_f1"]
LOST = "mrr: B has no score for 3 of the 5 samples A scored (3 undefined or skipped)"


def _rows(undefined: set[int]) -> list[dict[str, Any]]:
    """Five rows; those numbered in ``undefined`` have no reference context: mrr undefined."""
    return [
        make_row(
            i,
            **({"reference_context_ids": [], "reference_contexts": None} if i in undefined else {}),
        )
        for i in range(1, 6)
    ]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("lost")
    for name, undefined in (("a", set()), ("b", {1, 2, 3})):
        ragmeter.evaluate(_rows(undefined), METRICS, out=root / name, n_resamples=50)
    return {"a": root / "a", "b": root / "b"}


def _gates(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("gate failed:")]


def test_the_comparison_counts_the_scores_b_lost(runs: dict[str, Path]) -> None:
    cmp = compare(runs["a"], runs["b"])
    m = cmp.metric("mrr")
    assert (m.n, m.lost_b, m.lost_b_failed, m.not_applicable) == (2, 3, 0, 3)
    assert cmp.metric("token_f1").lost_b == 0
    assert f"{LOST}: compared on the 2 pair(s) left" in cmp.warnings
    data = json.loads(cmp.to_json())
    assert data["lost_scores"] == {"mrr": 3}
    row = next(x for x in data["metrics"] if x["metric"] == "mrr")
    assert (row["lost_b"], row["lost_b_failed"]) == (3, 0)
    assert "**Scores lost in B**: mrr (3 of 5 scored in A)" in cmp.to_markdown()
    # B scoring what A did not is no loss
    back = compare(runs["b"], runs["a"])
    assert back.metric("mrr").lost_b == 0 and json.loads(back.to_json())["lost_scores"] == {}
    assert fail_on_regression(back) == []


def test_the_regression_gate_fails_on_lost_scores_unless_allowed(runs: dict[str, Path]) -> None:
    a, b = str(runs["a"]), str(runs["b"])
    res = runner.invoke(app, ["compare", a, b, "--fail-on-regression"])
    assert res.exit_code == 1, res.output
    assert _gates(res.output) == [
        f"gate failed: {LOST}; to accept the undefined or skipped, --allow-lost-scores"
    ]
    text = " ".join(res.output.split())
    assert f"warning: {LOST}: compared on the 2 pair(s) left" in text
    assert "Pairs left out: mrr 3 (undefined or skipped 3; 3 scored in A only)." in text
    allowed = runner.invoke(app, ["compare", a, b, "--fail-on-regression", "--allow-lost-scores"])
    assert allowed.exit_code == 0, allowed.output
    assert f"warning: {LOST}" in " ".join(allowed.output.split())  # still said
    assert runner.invoke(app, ["compare", b, a, "--fail-on-regression"]).exit_code == 0
    alone = runner.invoke(app, ["compare", a, b, "--allow-lost-scores"])
    assert alone.exit_code == 2
    assert "--allow-lost-scores applies to --fail-on-regression only" in alone.output


def test_the_markdown_and_json_files_name_the_lost_scores(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    md, js = tmp_path / "c.md", tmp_path / "c.json"
    args = ["compare", str(runs["a"]), str(runs["b"]), "--markdown", str(md), "--json", str(js)]
    assert runner.invoke(app, args).exit_code == 0
    assert "**Scores lost in B**: mrr (3 of 5 scored in A)" in md.read_text()
    assert f"> {LOST}: compared on the 2 pair(s) left" in md.read_text()
    assert json.loads(js.read_text())["lost_scores"] == {"mrr": 3}


def _with_failures(failed: set[int]) -> Any:
    """token_f1 over five rows, the scores of the rows numbered in ``failed`` failed."""
    result = ragmeter.evaluate([make_row(i) for i in range(1, 6)], ["token_f1"], n_resamples=0)
    for i in failed:
        result.scores["token_f1"][i - 1] = Score.failed("judge error: HTTP 500")
    return result


def test_failures_on_samples_a_scored_fail_even_when_a_failed_as_many_others() -> None:
    """A failed q1 and q2, B failed q4 and q5: B's failures did not grow, but it lost two
    scores A had. The gate fails, and --allow-lost-scores does not excuse failures."""
    cmp = compare(_with_failures({1, 2}), _with_failures({4, 5}))
    m = cmp.metric("token_f1")
    assert (m.failed_a, m.failed_b, m.lost_b, m.lost_b_failed) == (2, 2, 2, 2)
    assert not m.lost_to_failures
    expected = ["token_f1: B has no score for 2 of the 3 samples A scored (2 failed)"]
    assert [str(f) for f in fail_on_regression(cmp)] == expected
    assert [str(f) for f in fail_on_regression(cmp, allow_lost_scores=True)] == expected
    # B failing more than A: one line for it, not a second one for the same samples
    more = compare(_with_failures(set()), _with_failures({4, 5}))
    assert [str(f) for f in fail_on_regression(more)] == [
        "token_f1: B failed 2 of 5 scores, A failed 0 (3 pair(s) left)"
    ]
    assert json.loads(more.to_json())["lost_scores"] == {"token_f1": 2}  # every one, in JSON
