"""--out never silently replaces files ragmeter did not write: a directory holding a
scores.jsonl, summary.json or scores.jsonl.partial but no run.json is refused before any work
(``--overwrite`` replaces them); other files are left beside the run; a resume of an
interrupted run (run.json beside its files) still works; a symbolic link to nothing is named."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import LEXICAL, make_row
from ragmeter import evaluate
from ragmeter.cli import app
from ragmeter.errors import OutputError
from ragmeter.manifest import check_out, prepare_out

METRICS = ",".join(LEXICAL[:2])
FOREIGN = "my own notes, not a run\n"


def _data(tmp_path: Path, n: int = 3) -> Path:
    path = tmp_path / "data.jsonl"
    path.write_text("\n".join(json.dumps(make_row(i)) for i in range(1, n + 1)) + "\n")
    return path


def _run(data: Path, out: Path, *extra: str) -> tuple[int, str]:
    args = ["evaluate", str(data), "-m", METRICS, "-o", str(out), "--n-resamples", "10"]
    result = CliRunner().invoke(app, [*args, *extra])
    return result.exit_code, " ".join(result.output.split())


@pytest.mark.parametrize("name", ["summary.json", "scores.jsonl", "scores.jsonl.partial"])
@pytest.mark.parametrize("executor", ["local", "stream"])
def test_foreign_output_file_is_refused_and_kept(tmp_path: Path, name: str, executor: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / name).write_text(FOREIGN)
    code, text = _run(_data(tmp_path), out, "--executor", executor)
    assert code == 2, text
    assert f"holds {name} but no run.json" in text and "--overwrite" in text
    assert (out / name).read_text() == FOREIGN
    assert sorted(p.name for p in out.iterdir()) == [name]  # nothing claimed, nothing written


def test_the_dry_run_refuses_it_too(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").write_text(FOREIGN)
    (out / "scores.jsonl").write_text(FOREIGN)
    code, text = _run(_data(tmp_path), out, "--dry-run")
    assert code == 2, text
    assert "holds scores.jsonl, summary.json but no run.json" in text and "them" in text
    with pytest.raises(OutputError, match=r"no run\.json"):
        check_out(out, {"x": 1})
    check_out(out, {"x": 1}, overwrite=True)  # --overwrite: accepted


def test_a_dangling_symlink_named_summary_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(OutputError, match=r"holds summary\.json"):
        prepare_out(out, {"x": 1})
    assert not (out / "run.json").exists()


def test_overwrite_replaces_them(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").write_text(FOREIGN)
    code, text = _run(_data(tmp_path), out, "--overwrite")
    assert code == 0, text
    assert json.loads((out / "summary.json").read_text())["n_samples"] == 3


def test_other_files_are_left_beside_the_run(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "README.md").write_text(FOREIGN)
    (out / "my_scores.jsonl").write_text(FOREIGN)
    code, text = _run(_data(tmp_path), out)
    assert code == 0, text
    assert (out / "README.md").read_text() == FOREIGN
    assert (out / "my_scores.jsonl").read_text() == FOREIGN
    assert (out / "scores.jsonl").is_file() and (out / "run.json").is_file()


@pytest.mark.parametrize("status", ["running", "interrupted", "aborted", "crashed"])
def test_a_claimed_partial_run_still_resumes(tmp_path: Path, status: str) -> None:
    """What a stream run killed midway leaves: run.json (its status) and the partial file."""
    data, out = _data(tmp_path), tmp_path / "out"
    assert _run(data, out, "--executor", "stream")[0] == 0
    os.replace(out / "scores.jsonl", out / "scores.jsonl.partial")
    (out / "summary.json").unlink()
    doc = json.loads((out / "run.json").read_text())
    (out / "run.json").write_text(json.dumps({**doc, "status": status}))
    for executor in ("stream", "local"):
        code, text = _run(data, out, "--executor", executor)
        assert code == 0, (executor, text)
        assert json.loads((out / "run.json").read_text())["status"] == "complete"


def test_api_refuses_before_any_work(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "scores.jsonl").write_text(FOREIGN)
    with pytest.raises(OutputError, match=r"overwrite=True"):
        evaluate([make_row(1)], LEXICAL[:1], out=out, n_resamples=10)
    assert (out / "scores.jsonl").read_text() == FOREIGN


def test_the_input_as_the_partial_file_is_refused_even_with_overwrite(tmp_path: Path) -> None:
    """The stream executor truncates scores.jsonl.partial when it starts: were it the input,
    the rows would be gone."""
    out = tmp_path / "out"
    out.mkdir()
    data = out / "scores.jsonl.partial"
    data.write_text(_data(tmp_path).read_text())
    code, text = _run(data, out, "--executor", "stream", "--format", "jsonl", "--overwrite")
    assert code == 2, text
    assert "would replace the input" in text
    assert len(data.read_text().splitlines()) == 3


@pytest.mark.parametrize("shape", ["dangling", "loop", "under_dangling"])
def test_a_symlink_to_nothing_is_named(tmp_path: Path, shape: str) -> None:
    link = tmp_path / "link"
    if shape == "loop":
        link.symlink_to(link)
        target = str(link)
    else:
        target = str(tmp_path / "nowhere" / "deep")
        link.symlink_to(target)
    out = link / "sub" if shape == "under_dangling" else link
    code, text = _run(_data(tmp_path), out)
    assert code == 2, text
    assert f"{link} is a symbolic link to {target}, which does not exist" in text
    assert "File exists" not in text
    for call in (prepare_out, check_out):  # the dry run's check says the same
        with pytest.raises(OutputError, match="is a symbolic link to"):
            call(out, {"x": 1})


def test_a_run_json_of_another_tool_is_named_as_such_and_kept(tmp_path: Path) -> None:
    """Before: "holds a run with other settings (bootstrap_seed: null there, 0 now; ...)",
    every setting listed as missing, as if it were a ragmeter run."""
    out = tmp_path / "out"
    out.mkdir()
    theirs = '{"experiment": "mine", "lr": 0.1}\n'
    (out / "run.json").write_text(theirs)
    code, text = _run(_data(tmp_path), out)
    assert code == 2, text
    assert 'holds a run.json ragmeter did not write (no "schema": "ragmeter.run/1"' in text
    assert "--overwrite" in text and "null there" not in text
    assert (out / "run.json").read_text() == theirs
    assert sorted(p.name for p in out.iterdir()) == ["run.json"]


def test_a_run_of_a_newer_ragmeter_is_not_resumed(tmp_path: Path) -> None:
    """Before: with its fingerprint matching, it was resumed and rewritten as this version's
    schema; with another fingerprint, refused as "other settings"."""
    data, out = _data(tmp_path), tmp_path / "out"
    code, text = _run(data, out)
    assert code == 0, text
    doc = json.loads((out / "run.json").read_text())
    newer = json.dumps({**doc, "schema": "ragmeter.run/2"})
    (out / "run.json").write_text(newer)
    code, text = _run(data, out)
    assert code == 2, text
    assert 'a run.json of another ragmeter version (schema "ragmeter.run/2"' in text
    assert (out / "run.json").read_text() == newer
    code, text = _run(data, out, "--overwrite")
    assert code == 0, text
    assert json.loads((out / "run.json").read_text())["schema"] == "ragmeter.run/1"
