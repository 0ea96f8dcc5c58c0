"""A scores.jsonl edited by hand is a data error naming the row and field, never an internal
error: a null status (KeyError: None), details that are no object (ValueError from dict()),
a score of 10**400 (OverflowError), an answer or context that is no text (pydantic's
ValidationError, naming no row)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import make_row

import ragmeter

CASES = {
    "null status": ({"status": {"k_precision": None}}, "row 3, field 'status.k_precision'"),
    "details text": ({"details": {"k_precision": "ab"}}, "row 3, field 'details.k_precision'"),
    "number answer": ({"answer": 5}, "row 3, field 'answer'"),
    "number context": ({"contexts": [1]}, "row 3, field 'contexts.0'"),
}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "run"
    ragmeter.evaluate([make_row(i) for i in range(1, 5)], ["k_precision"], out=out)
    return out


def _edited(run: Path, tmp_path: Path, line: str) -> Path:
    import shutil

    edited = tmp_path / "edited"
    shutil.copytree(run, edited)
    lines = (edited / "scores.jsonl").read_text().splitlines()
    lines[2] = line
    (edited / "scores.jsonl").write_text("\n".join(lines) + "\n")
    return edited


@pytest.mark.parametrize("case", list(CASES))
def test_an_edited_record_is_named_by_row_and_field(run: Path, tmp_path: Path, case: str) -> None:
    change, where = CASES[case]
    record = {**json.loads((run / "scores.jsonl").read_text().splitlines()[2]), **change}
    with pytest.raises(ragmeter.DataError) as err:
        ragmeter.load_run(_edited(run, tmp_path, json.dumps(record)))
    assert where in str(err.value)


def test_a_score_no_float_can_hold_is_said_not_finite(run: Path, tmp_path: Path) -> None:
    record = json.loads((run / "scores.jsonl").read_text().splitlines()[2])
    record["k_precision"] = 0.123456789
    line = json.dumps(record).replace("0.123456789", str(10**400))
    with pytest.raises(ragmeter.DataError, match="a score must be finite, not 1000") as err:
        ragmeter.load_run(_edited(run, tmp_path, line))
    assert "row 3, field 'k_precision'" in str(err.value) and len(str(err.value)) < 300
