"""Choosing metrics by name: ``name@k`` parameters."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ragmeter import MetricError, get_metric

SRC = str(Path(__file__).resolve().parents[1] / "src")


@pytest.mark.parametrize(
    "name", ["ndcg@²", "hit@١٢", "precision@99999999999999999999", "recall@9223372036854775808"]
)
def test_k_that_is_not_an_ascii_int64_is_a_metric_error(name: str) -> None:
    # '²' passed str.isdigit() and int() raised a bare ValueError (CLI: internal error, exit
    # 1); a k beyond int64 made the compiled retrieval kernel fail and warn on every batch
    with pytest.raises(MetricError, match=f"k must be a positive integer, at most {2**63 - 1}"):
        get_metric(name)


def test_the_largest_k_still_scores() -> None:
    assert get_metric("precision@9223372036854775807").name == "precision@9223372036854775807"


def test_cli_bad_k_exits_2_before_any_work(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    row = {"question": "q", "context_ids": ["a"], "reference_context_ids": ["a"]}
    data.write_text(json.dumps(row) + "\n")
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "ragmeter", "evaluate", str(data), "-m", "ndcg@²,mrr", "--out", out],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"},
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr
    assert "ndcg@²" in proc.stderr and "k must be a positive integer" in proc.stderr
    assert not out.exists()


def test_ragmeter_metrics_says_which_k_a_run_without_m_uses() -> None:
    from typer.testing import CliRunner

    from ragmeter.cli import app
    from ragmeter.metrics.registry import default_metrics

    output = CliRunner().invoke(app, ["metrics"], env={"COLUMNS": "250"}).output
    lines = {line.split()[0]: line for line in output.splitlines() if line and line[0] != " "}
    defaults = [m.name for m in default_metrics() if "@" in m.name]
    assert defaults  # ndcg@10, precision@5, ...
    for name in defaults:
        prefix = name.split("@")[0]
        said = lines[f"{prefix}@k"].partition("(without -m: ")[2].partition(")")[0]
        assert name in said.split(", "), lines[f"{prefix}@k"]
