"""A run directory whose scores.jsonl was cut short says so, and re-running resumes it."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import make_row

import ragmeter
from ragmeter.runs import load_run


def test_a_scores_file_cut_short_names_its_line_column_and_the_way_out(tmp_path: Path) -> None:
    """It said "row 2: invalid JSON: Unterminated string starting at": no file, no column,
    nothing on what happened or what to do."""
    data = [make_row(1), make_row(2)]
    out = tmp_path / "run"
    ragmeter.evaluate(data, ["k_precision"], out=out, n_resamples=10)
    scores = out / "scores.jsonl"
    whole = scores.read_bytes()
    scores.write_bytes(whole[:-40])
    with pytest.raises(ragmeter.DataError) as info:
        load_run(out)
    (problem,) = info.value.problems
    assert problem.row == 2
    assert problem.message.startswith("scores.jsonl: invalid JSON: ")
    assert "(column " in problem.message
    assert "cut short" in problem.message and "re-run" in problem.message
    ragmeter.evaluate(data, ["k_precision"], out=out, n_resamples=10)  # the same command
    assert scores.read_bytes() == whole
    assert len(load_run(out).result.samples) == 2
