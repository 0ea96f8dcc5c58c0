"""The command line: exit codes 0 / 2 / 1, outputs, and the metric listing."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from tests.conftest import LEXICAL
from typer.testing import CliRunner

from ragmeter import cli
from ragmeter.cli import app

runner = CliRunner()


def test_evaluate_prints_table_and_writes_outputs(tmp_path, example_jsonl):
    out = tmp_path / "out"
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(example_jsonl),
            "--out",
            str(out),
            "--metrics",
            ",".join(LEXICAL),
            "--n-resamples",
            "200",
        ],
    )
    assert result.exit_code == 0, result.output
    for name in ("k_precision", "token_f1", "mrr", "map", "unitxt_map", "ndcg@10"):
        assert name in result.output
    assert "95% CI" in result.output and "failures:" in result.output
    lines = (out / "scores.jsonl").read_text().splitlines()
    assert len(lines) == 25
    assert {"question_id", "k_precision", "ndcg@10"} <= set(json.loads(lines[0]))
    assert json.loads((out / "summary.json").read_text())["n_samples"] == 25


def test_evaluate_with_named_metrics(example_csv):
    result = runner.invoke(
        app, ["evaluate", str(example_csv), "-m", "map,hit@3", "--n-resamples", "10"]
    )
    assert result.exit_code == 0, result.output
    assert "hit@3" in result.output and "k_precision" not in result.output


def test_bad_input_exits_2(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"answer": "no question"}\n')
    result = runner.invoke(app, ["evaluate", str(bad)])
    assert result.exit_code == 2
    assert "row 1, field 'question'" in result.output


def test_internal_error_exits_1_without_traceback(monkeypatch, capsys, example_jsonl):
    def broken(*args, **kwargs):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr("ragmeter.cli.evaluate.run_evaluate", broken)
    monkeypatch.setattr(sys, "argv", ["ragmeter", "evaluate", str(example_jsonl), "-m", "mrr"])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert "internal error" in err and "simulated bug" in err
    assert "Traceback" not in err


def test_metrics_lists_names_fields_and_definitions():
    result = runner.invoke(app, ["metrics"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for name in (
        "k_precision",
        "token_recall",
        "token_precision",
        "token_f1",
        "exact_match",
        "mrr",
        "map",
        "unitxt_map",
        "ndcg@k",
        "precision@k",
        "recall@k",
        "hit@k",
    ):
        assert name in result.output
    assert "answer+contexts" in result.output
    assert "TREC" in result.output
    faithfulness = next(line for line in result.output.splitlines() if "faithfulness " in line)
    assert "needs fast (default): judge (can also use embedder); generate: judge" in (faithfulness)
    relevance = next(x for x in result.output.splitlines() if x.startswith("answer_relevance "))
    assert "fast (default): judge; generate: embedder, judge" in relevance
    # what compare calls better, per metric: a refusal rate is descriptive
    blocks = result.output.split("\nrefusal_rate ")
    assert "better: neither" in blocks[1].split("\nrefusal_accuracy ")[0]
    assert "better: higher" in blocks[0].split("\nk_precision ")[-1]


def test_installed_entry_point_exit_codes(tmp_path, example_jsonl):
    exe = [sys.executable, "-m", "ragmeter.cli"]
    ok = subprocess.run(
        [*exe, "evaluate", str(example_jsonl), "-m", "mrr", "--n-resamples", "10"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    missing = subprocess.run(
        [*exe, "evaluate", str(tmp_path / "nope.jsonl")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert missing.returncode == 2
    assert "file not found" in missing.stderr and "Traceback" not in missing.stderr
