"""evaluate's and meta-eval's prose, read in a CI log (stdout not a terminal, 80 columns).

Before: rich wrapped every line at 80 columns, so ``wrote /long/out/scores.jsonl, ...``,
``judge calls: ... failed`` and ``faithfulness: per sample ... (330 computed after prefix
reuse)`` came out broken mid-sentence (a grep for the path or the count found half a line).
And "judge tokens: N" summed every model's tokens: an embedder's, a Hugging Face scorer's or
the answer reward model's too, none of them a judge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import fake_server
from ragmeter.cli import app
from test_meta_eval import ROWS as WIKI_ROWS

NARROW = {"COLUMNS": "80", "OPENAI_API_KEY": "sk-test-not-a-real-key"}
ROW = {
    "question": "Tell me about Rome.",
    "answer": "Rome is the capital of Italy. It has four million people. The Tiber runs "
    "through it.",
    "contexts": ["Rome is the capital of Italy. About 4 million people live there."],
}
DEEP = "a_rather_long_directory_name_for_the_output_of_a_run/" * 2


def _data(tmp_path: Path, n: int = 2) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps({**ROW, "question_id": f"q{i}"}) + "\n" for i in range(n)))
    return path


def _invoke(*args: Any) -> Any:
    return CliRunner().invoke(app, [str(a) for a in args], env=NARROW)


def _only_line(out: str, start: str) -> str:
    lines = [x for x in out.splitlines() if x.startswith(start)]
    assert len(lines) == 1, out
    return lines[0]


def test_evaluate_wrote_and_usage_lines_are_one_line_each(tmp_path: Path) -> None:
    out_dir = tmp_path / DEEP / "run"
    with fake_server.FakeOpenAIServer() as server:
        result = _invoke(
            *("evaluate", _data(tmp_path), "-m", "faithfulness,answer_relevance"),
            *("--judge", "openai:m", "--base-url", server.url, "--embedder", "none"),
            *("--cache", "off", "-o", out_dir, "--quiet"),
        )
    assert result.exit_code == 0, result.output
    wrote = _only_line(result.stdout, "wrote ")
    assert wrote == f"wrote {out_dir}/scores.jsonl, summary.json and run.json"
    usage = _only_line(result.stdout, "judge tokens: ")
    assert "calls: " in usage and "cached: 0" in usage and "progress counted scores" in usage
    summary = json.loads((out_dir / "summary.json").read_text())["usage"]
    assert usage.startswith(f"judge tokens: {summary['judge_tokens']}  calls: {summary['calls']}")
    for name in ("faithfulness", "answer_relevance"):
        assert _only_line(result.stdout, f"  {name}: per sample ").endswith("completion tokens")


def _result_with_usage(usage: dict[str, Any]) -> Any:
    from ragmeter import evaluate

    rows = [{**ROW, "question_id": f"q{i}"} for i in range(3)]
    result = evaluate(rows, ["k_precision"], n_resamples=20)
    result.usage = usage
    return result


def _tally(calls: int, prompt: int, completion: int, computed: int = 0) -> dict[str, int]:
    return {
        "calls": calls,
        "cache_hits": 0,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "judge_tokens": prompt + completion,
        "computed_tokens": computed,
    }


def _printed(monkeypatch: pytest.MonkeyPatch, capsys: Any, usage: dict[str, Any]) -> str:
    from ragmeter.cli.evaluate import print_result

    monkeypatch.setenv("COLUMNS", "80")
    print_result(_result_with_usage(usage), title="t")
    return capsys.readouterr().out


def test_a_per_sample_usage_line_is_not_broken(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """The brief's own example: "(330 computed after prefix reuse)" on a line of its own."""
    judge = _tally(6, 2334, 3, computed=990)
    usage = {**judge, "judge": "local:1.5b", "per_backend": {"local:1.5b": judge}}
    usage["per_metric"] = {"k_precision": judge}
    out = _printed(monkeypatch, capsys, usage)
    line = _only_line(out, "  k_precision: per sample ")
    assert line == (
        "  k_precision: per sample 2.0 calls, 778 prompt + 1 completion tokens "
        "(330 computed after prefix reuse)"
    )


def test_judge_tokens_are_the_judges_other_models_said_apart(
    monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """A run whose reward model read 700 tokens beside the judge's 1,000: "judge tokens:
    1700" before; now the judge's 1000, and the reward model on a line naming it."""
    judge, reward = _tally(4, 990, 10), _tally(3, 700, 0)
    total = _tally(7, 1690, 10)
    usage = {**total, "judge": "openai:m", "per_metric": {"k_precision": total}}
    usage["per_backend"] = {"openai:m": judge, "hf:reward+abc123": reward}
    out = _printed(monkeypatch, capsys, usage)
    assert _only_line(out, "judge tokens: ").startswith("judge tokens: 1000  calls: 4  cached: 0")
    other = _only_line(out, "other model tokens: ")
    assert other.startswith("other model tokens: 700  calls: 3  cached: 0 (hf:reward+abc123)")
    assert "(judge and other models)" in _only_line(out, "  k_precision: per sample 2.3 calls")


def test_no_judge_only_other_models(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """--judge none with a reward model: no "judge tokens" line claiming its tokens."""
    reward = _tally(3, 700, 0)
    usage = {**reward, "judge": None, "per_metric": {"k_precision": reward}}
    usage["per_backend"] = {"hf:reward": reward}
    out = _printed(monkeypatch, capsys, usage)
    assert "judge tokens" not in out
    assert _only_line(out, "other model tokens: ").startswith("other model tokens: 700  calls: 3")


def test_a_real_run_with_a_reward_model_counts_it_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The judge (a fake server) and answer_reward's Hugging Face model (its logit faked, no
    weights loaded) in one run: the judge line is the server's tokens alone."""
    from ragmeter.backends import hf

    monkeypatch.setattr(hf.HFRewardModel, "_logit", lambda self, q, a: (0.5, 7))
    model = tmp_path / "rm"
    model.mkdir()
    (model / "config.json").write_text("{}")
    (model / "model.safetensors").write_bytes(b"not weights: never loaded")
    config = tmp_path / "c.toml"
    config.write_text(f'[options]\nreward_model = "{model}"\n')
    out_dir = tmp_path / "run"
    with fake_server.FakeOpenAIServer() as server:
        result = _invoke(
            *("evaluate", _data(tmp_path, 3), "-m", "faithfulness,answer_reward"),
            *("--judge", "openai:m", "--base-url", server.url, "--embedder", "none"),
            *("--cache", "off", "-o", out_dir, "--quiet", "--config", config),
        )
    assert result.exit_code == 0, result.output
    usage = json.loads((out_dir / "summary.json").read_text())["usage"]
    judge = usage["per_backend"][usage["judge"]]
    assert usage["judge_tokens"] == judge["judge_tokens"] + 3 * 7  # the JSON total: all models
    line = _only_line(result.stdout, "judge tokens: ")
    assert line.startswith(f"judge tokens: {judge['judge_tokens']}  calls: {judge['calls']}  ")
    other = _only_line(result.stdout, "other model tokens: ")
    assert other.startswith("other model tokens: 21  calls: 3  cached: 0 (hf:rm")


def test_meta_eval_usage_and_wrote_lines_are_one_line_each(tmp_path: Path) -> None:
    data = tmp_path / "wikieval.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in WIKI_ROWS))
    out_file = tmp_path / DEEP / "meta.json"
    out_file.parent.mkdir(parents=True)
    with fake_server.FakeOpenAIServer() as server:
        result = _invoke(
            *("meta-eval", "wikieval", "--data", data, "--judge", "openai:m"),
            *("--base-url", server.url, "--embedder", "none", "--cache", "off"),
            *("--baselines", "k_precision", "--dimensions", "faithfulness", "-o", out_file),
        )
    assert result.exit_code == 0, result.output
    assert _only_line(result.stdout, "wrote ") == f"wrote {out_file}"
    usage = _only_line(result.stdout, "judge calls: ")
    assert usage.endswith("answered from the cache (no tokens billed now); 0 failed")


def test_dry_run_notes_are_one_line_each(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from ragmeter.cli.evaluate import print_estimate

    monkeypatch.setenv("COLUMNS", "80")
    note = "faithfulness: " + "a long caveat of the estimate, " * 4 + "said once"
    est = {"per_metric": {}, "calls": 0, "cache_hits": 0, "prompt_tokens": 0}
    est.update(completion_tokens=0, cost_usd=0.0, caveats=[note], notes=[note])
    print_estimate(est)
    out = capsys.readouterr().out
    assert out.count(f"note: {note}\n") == 2, out
