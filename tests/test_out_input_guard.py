"""--out guards the input as well as the settings: a finished run is never replaced by a run
of another dataset without --overwrite, while the same input resumes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import LEXICAL, make_row
from ragmeter import evaluate
from ragmeter.cli import app
from ragmeter.errors import OutputError

METRICS = ",".join(LEXICAL[:4])


def _write(path: Path, n: int) -> Path:
    path.write_text("\n".join(json.dumps(make_row(i)) for i in range(1, n + 1)) + "\n")
    return path


def _run(data: Path, out: Path, *extra: str) -> tuple[int, str]:
    args = ["evaluate", str(data), "-m", METRICS, "-o", str(out), "--n-resamples", "20"]
    result = CliRunner().invoke(app, [*args, *extra])
    return result.exit_code, " ".join(result.output.split())


def test_other_dataset_is_refused_and_the_run_kept(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = _write(tmp_path / "a.jsonl", 5)
    assert _run(first, out)[0] == 0
    kept = (out / "scores.jsonl").read_text()
    code, text = _run(_write(tmp_path / "b.jsonl", 3), out)
    assert code == 2, text
    assert "holds a run with other input" in text and "--overwrite" in text
    assert 'input.file: "a.jsonl" there, "b.jsonl" now' in text
    assert "input.sha256:" in text
    assert (out / "scores.jsonl").read_text() == kept  # the finished run is untouched
    assert json.loads((out / "run.json").read_text())["status"] == "complete"


def test_same_name_other_content_is_refused(tmp_path: Path) -> None:
    out, data = tmp_path / "out", tmp_path / "rows.jsonl"
    assert _run(_write(data, 5), out)[0] == 0
    code, text = _run(_write(data, 4), out)
    assert code == 2, text
    assert "input.sha256:" in text and "input.file" not in text


def test_same_input_resumes_and_overwrite_replaces(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = _write(tmp_path / "a.jsonl", 5)
    assert _run(first, out)[0] == 0
    assert _run(first, out)[0] == 0  # the same input: a resume
    other = _write(tmp_path / "b.jsonl", 3)
    code, text = _run(other, out, "--overwrite")
    assert code == 0, text
    assert len((out / "scores.jsonl").read_text().splitlines()) == 3
    assert json.loads((out / "run.json").read_text())["input"]["file"] == "b.jsonl"


def test_the_same_bytes_under_another_name_resume(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = _write(tmp_path / "a.jsonl", 5)
    assert _run(first, out)[0] == 0
    moved = tmp_path / "moved" / "renamed.jsonl"
    moved.parent.mkdir()
    moved.write_bytes(first.read_bytes())
    code, text = _run(moved, out)
    assert code == 0, text


def test_stream_executor_checks_the_input_too(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert _run(_write(tmp_path / "a.jsonl", 5), out, "--executor", "stream")[0] == 0
    code, text = _run(_write(tmp_path / "b.jsonl", 3), out, "--executor", "stream")
    assert code == 2 and "holds a run with other input" in text


def test_interrupted_run_records_its_input(tmp_path: Path) -> None:
    """The run.json written before any scoring names the input, so a run killed midway is
    guarded as well."""
    from ragmeter.manifest import prepare_out

    out = tmp_path / "out"
    prepare_out(out, {"x": 1}, input_={"file": "a.jsonl", "sha256": "0" * 64, "rows": 2})
    assert json.loads((out / "run.json").read_text())["input"]["file"] == "a.jsonl"
    with pytest.raises(OutputError, match="other input"):
        prepare_out(out, {"x": 1}, input_={"file": "a.jsonl", "sha256": "1" * 64, "rows": 2})


def test_in_memory_rows_are_compared_by_their_hash(tmp_path: Path) -> None:
    out = tmp_path / "out"
    rows = [make_row(i) for i in range(1, 4)]
    evaluate(rows, LEXICAL[:2], out=out, n_resamples=10)
    evaluate(rows, LEXICAL[:2], out=out, n_resamples=10)  # a resume
    with pytest.raises(OutputError, match=r"input\.rows_sha256"):
        evaluate(rows[:2], LEXICAL[:2], out=out, n_resamples=10)
