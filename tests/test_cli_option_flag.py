"""``--option NAME=VALUE`` on evaluate and meta-eval: a metric option on the command line.

Why: options came only from a ``--config`` file, so the calibration ``meta-eval labels
--fit-calibration`` had just written (whose last line says "use it with --option
faithfulness_calibration=...") could not be used without writing a settings file first.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

from ragmeter.cli import app
from ragmeter.config import settings_from_options
from ragmeter.errors import DataError
from ragmeter.metric_options import parse_option_items

runner = CliRunner()


def test_values_are_read_as_json_when_they_are() -> None:
    got = parse_option_items(
        ["evidence_k=0", "group_verdicts=on", "answer_correctness_weights=[0.5, 0.5]",
         "faithfulness_calibration=runs/cal.json", 'x="3"', "y = a=b "]
    )  # fmt: skip
    assert got == {
        "evidence_k": 0,
        "group_verdicts": "on",
        "answer_correctness_weights": [0.5, 0.5],
        "faithfulness_calibration": "runs/cal.json",
        "x": "3",
        "y": "a=b",
    }


@pytest.mark.parametrize("item", ["evidence_k", "=3", "evidence_k=", "evidence_k=  "])
def test_a_malformed_item_is_refused_naming_it(item: str) -> None:
    with pytest.raises(DataError, match="expected NAME=VALUE"):
        parse_option_items([item])


def test_the_command_line_is_merged_over_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[ragmeter.options]\nevidence_k = 5\ngroup_verdicts = "on"\n')
    s = settings_from_options(config, option_items=["evidence_k=0"])
    assert s.options == {"evidence_k": 0, "group_verdicts": "on"}
    assert settings_from_options(config).options == {"evidence_k": 5, "group_verdicts": "on"}


def _data(tmp_path: Path) -> Path:
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(make_row(i)) + "\n" for i in (1, 2)))
    return data


def test_evaluate_records_the_options_given(tmp_path: Path) -> None:
    data, out = _data(tmp_path), tmp_path / "out"
    args = ["evaluate", str(data), "-m", "k_precision", "-o", str(out)]
    res = runner.invoke(app, [*args, "--option", "evidence_k=0", "--option", "group_verdicts=on"])
    assert res.exit_code == 0, res.output
    options = json.loads((out / "run.json").read_text())["settings"]["options"]
    assert options == {"evidence_k": 0, "group_verdicts": "on"}


@pytest.mark.parametrize(
    ("item", "said"),
    [
        ("evidnce_k=0", "did you mean 'evidence_k'"),
        ("evidence_k=-1", "options.evidence_k"),
        ("evidence_k", "expected NAME=VALUE"),
        ("faithfulness_calibration=nope.json", "no such file"),
    ],
)
def test_evaluate_refuses_a_bad_option_before_any_work(
    tmp_path: Path, item: str, said: str
) -> None:
    data, out = _data(tmp_path), tmp_path / "out"
    res = runner.invoke(app, ["evaluate", str(data), "-m", "k_precision", "-o", str(out),
                              "--option", item])  # fmt: skip
    assert res.exit_code == 2, res.output
    assert said in " ".join(res.output.split())
    assert not out.exists()


def test_meta_eval_takes_the_option_too(tmp_path: Path) -> None:
    """meta-eval labels --option faithfulness_calibration=...: a calibration fitted on one
    labelled set is checked on another; a missing file is refused before any model loads."""
    data = _data(tmp_path)
    res = runner.invoke(
        app,
        ["meta-eval", "labels", "--data", str(data), "--judge", "openai:m",
         "--base-url", "http://127.0.0.1:9/v1", "--option", "faithfulness_calibration=no.json"],
    )  # fmt: skip
    assert res.exit_code == 2, res.output
    assert "faithfulness_calibration" in res.output and "no such file" in res.output
