"""Numeric options out of their range are usage errors (exit 2, naming the option), said
before any work, never an internal error or a silently degenerate result."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app
from ragmeter.errors import ConfigError


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--seed", "-1"),
        ("--n-resamples", "0"),
        ("--n-resamples", "-1"),
        ("--concurrency", "0"),
        ("--concurrency", "5000"),
        ("--timeout", "0"),
        ("--timeout", "nan"),
        ("--actors", "0"),
        ("--batch-size", "0"),
        ("--max-failure-rate", "nan"),
        ("--max-failure-rate", "1.5"),
    ],
)
def test_evaluate_refuses_out_of_range_numbers(example_jsonl, monkeypatch, option, value) -> None:
    from ragmeter.cli import evaluate as cli_evaluate

    def no_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("scored with a bad option")

    monkeypatch.setattr(cli_evaluate, "run_evaluate", no_run)
    args = ["evaluate", str(example_jsonl), "-m", "k_precision", f"{option}={value}"]
    result = CliRunner().invoke(app, args)
    flat = " ".join(result.output.split())
    assert result.exit_code == 2, flat
    assert option.lstrip("-").replace("-", "_") in flat.replace("-", "_"), flat
    assert "Traceback" not in flat


def test_meta_eval_refuses_a_limit_below_one(tmp_path) -> None:
    data = tmp_path / "w.jsonl"
    data.write_text("{}\n")
    result = CliRunner().invoke(app, ["meta-eval", "wikieval", "--data", str(data), "--limit=0"])
    assert result.exit_code == 2 and "--limit" in result.output


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"seed": -1}, "seed must be an integer of 0 or more"),
        ({"n_resamples": -5}, r"n_resamples must be 0 \(no CI\) or an integer of 2 or more"),
        ({"confidence": 1.0}, "confidence must be between 0 and 1"),
    ],
)
def test_api_refuses_bad_bootstrap_settings_before_any_work(example_jsonl, kwargs, expected):
    """numpy refused a negative seed only when the first CI was drawn, after the scoring."""
    with pytest.raises(ConfigError, match=expected):
        ragmeter.evaluate(example_jsonl, ["k_precision"], **kwargs)


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--ray-address", "auto"], "--ray-address applies to --executor ray only"),
        (["--actors", "4", "--executor", "stream"], "--actors applies to --executor ray only"),
        (["--batch-size", "8"], "--batch-size applies to --executor stream or ray only"),
    ],
)
def test_an_executors_options_without_it_are_refused(tmp_path, extra, says):
    """They were silently ignored: --ray-address without --executor ray ran locally."""
    from typer.testing import CliRunner

    from ragmeter.cli import app

    data = tmp_path / "in.jsonl"
    data.write_text('{"question": "q", "answer": "a", "reference_answers": ["a"]}\n')
    out = tmp_path / "o"
    args = ["evaluate", str(data), "-m", "token_recall", "--out", str(out), *extra]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2, res.output
    assert says in " ".join(res.output.split())
    assert not out.exists()
