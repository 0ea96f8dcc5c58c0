"""The command line says what the README and docs/cli.md say: help that shows every option
name and extra as written, errors that point at what is wrong, output a CI log keeps whole."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragmeter.cli import app

NARROW = {"COLUMNS": "80", "TERMINAL_WIDTH": "80"}
WIKIEVAL_ROW = {
    "question": "Question: When did the bridge open?",
    "answer": "Answer: The bridge opened in 1937.",
    "ungrounded_answer": "The bridge opened in 1950.",
    "poor_answer": "It is a bridge.",
    "context_v1": ["The bridge opened in 1937. It is orange."],
    "context_v2": ["The bridge opened in 1937. It is orange.", "Rivers flow."],
    "source": "Bridge",
}


def test_evaluate_help_shows_extras_and_whole_option_names() -> None:
    """Rich markup read ``ragmeter[otel]`` as a style tag ("needs ragmeter") and its panels
    cut long option names at 80 columns ("--max-failure-ra…")."""
    result = CliRunner().invoke(app, ["evaluate", "--help"], env=NARROW)
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    for extra in ("ragmeter[otel]", "ragmeter[ray]", "ragmeter[mlflow]"):
        assert extra in flat, flat
    for option in ("--max-failure-rate", "--structured-output", "--api-key-env", "--batch-size"):
        assert f"{option} " in result.output, result.output
    assert "…" not in result.output


@pytest.mark.parametrize("command", [[], ["models"]])
def test_command_lists_are_not_cut(command: list[str]) -> None:
    result = CliRunner().invoke(app, [*command, "--help"], env=NARROW)
    assert result.exit_code == 0, result.output
    listed = result.output.split("Commands", 1)[1]  # a guard: plain help cuts long lines
    assert "..." not in listed and "…" not in listed, listed


def test_one_bootstrap_resample_is_refused(example_jsonl) -> None:
    """One resample gave a zero-width "95% CI" that need not even hold the mean."""
    args = ["evaluate", str(example_jsonl), "-m", "k_precision", "--n-resamples", "1", "-q"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "--n-resamples" in result.output


def test_an_unknown_metric_is_not_blamed_on_the_input(example_jsonl) -> None:
    result = CliRunner().invoke(app, ["evaluate", str(example_jsonl), "-m", "nope"])
    assert result.exit_code == 2
    assert "unknown metric 'nope'" in result.output
    assert "in the input" not in result.output


def test_failure_and_note_lines_are_not_broken_in_a_log(tmp_path) -> None:
    """Outside a terminal each failure and note is one line, whatever its length."""
    qid = "q-" + "x" * 60
    row = {
        "question_id": qid,
        "question": "Where?",
        "answer": "Here.",
        "contexts": ["Somewhere else entirely."],
        "context_ids": ["c1"],
        "reference_context_ids": [],
    }
    other = {**row, "question_id": "q2", "reference_context_ids": ["c1"]}
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in (row, other)) + "\n")
    result = CliRunner().invoke(app, ["evaluate", str(data), "-m", "mrr", "-q"], env=NARROW)
    assert result.exit_code == 0, result.output
    line = next(ln for ln in result.output.splitlines() if qid in ln)
    assert "undefined:" in line and len(line) > 80, result.output


def test_meta_eval_progress_goes_to_stderr(tmp_path) -> None:
    """stdout holds the table and the RESULT line; progress went there too."""
    import fake_server

    data = tmp_path / "wikieval.jsonl"
    data.write_text(json.dumps(WIKIEVAL_ROW) + "\n")
    with fake_server.FakeOpenAIServer() as server:
        args = ["meta-eval", "wikieval", "--data", str(data), "--judge", "openai:fake"]
        args += ["--base-url", server.url, "--embedder", "none", "--cache", "off"]
        args += ["--baselines", "k_precision"]
        result = CliRunner().invoke(app, args, env={"OPENAI_API_KEY": "sk-test-not-real"})
    assert result.exit_code == 0, result.output
    assert "rows ·" in result.stderr, result.stderr
    assert "rows ·" not in result.stdout, result.stdout
    assert result.stdout.strip().splitlines()[-1].startswith("RESULT ")


def _run_with_stdout_closed(args: list[str], env: dict[str, str] | None = None) -> int:
    """The command with its stdout closed before it prints, as `| head -0` does."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragmeter", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )
    assert proc.stdout is not None
    proc.stdout.close()
    return proc.wait(timeout=120)


def test_compare_writes_its_files_when_stdout_closes_early(tmp_path) -> None:
    """Rich ends the process on a broken pipe; the files were written after the table."""
    runs = Path(__file__).resolve().parents[1] / "examples" / "compare" / "runs"
    json_out, md_out = tmp_path / "c.json", tmp_path / "c.md"
    args = ["compare", str(runs / "baseline"), str(runs / "reranked"), "--by", "topic"]
    _run_with_stdout_closed([*args, "--json", str(json_out), "--markdown", str(md_out)])
    assert json.loads(json_out.read_text())["n_paired"] == 36
    assert "mrr" in md_out.read_text()


def test_meta_eval_writes_its_results_when_stdout_closes_early(tmp_path) -> None:
    import fake_server

    data = tmp_path / "wikieval.jsonl"
    data.write_text(json.dumps(WIKIEVAL_ROW) + "\n")
    out = tmp_path / "meta.json"
    with fake_server.FakeOpenAIServer() as server:
        args = ["meta-eval", "wikieval", "--data", str(data), "--judge", "openai:fake"]
        args += ["--base-url", server.url, "--embedder", "none", "--cache", "off"]
        args += ["--baselines", "k_precision", "-o", str(out)]
        _run_with_stdout_closed(args, env={"OPENAI_API_KEY": "sk-test-not-real"})
    assert json.loads(out.read_text())["n_pairs_per_dimension"] == 1


def test_a_bad_structured_output_names_the_option(example_jsonl) -> None:
    args = ["evaluate", str(example_jsonl), "-m", "mrr", "--structured-output", "xml"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    flat = " ".join(result.output.split())
    assert (
        "--structured-output (structured_mode) must be auto, json_schema, json_object, none, "
        "not 'xml'" in flat
    )
