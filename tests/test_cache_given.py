"""A --cache that cannot be opened exits 2 before any work, whatever the metrics, as the
exit-code table of docs/cli.md says ("a --cache that cannot be opened (a file in the way, ...)").

Before, the cache was opened only when a model-based metric was planned: ``--cache afile -m
mrr`` exited 0 while ``--cache afile -m faithfulness`` and ``--cache afile --judge none``
exited 2. The default cache (not given) is still not opened for a run that cannot use it
(``executors/common.check_before_work``).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app
from ragmeter.config import Settings
from ragmeter.errors import ConfigError

runner = CliRunner()


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(make_row(i)) + "\n" for i in range(1, 3)))
    return path


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    path = tmp_path / "afile"
    path.write_text("not a cache\n")
    return path


@pytest.fixture
def foreign(tmp_path: Path) -> Path:
    path = tmp_path / "foreign.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE people (name TEXT)")
    con.commit()
    con.close()
    return path


@pytest.mark.parametrize("dry", [False, True], ids=["run", "dry-run"])
@pytest.mark.parametrize(
    "extra", [["-m", "mrr"], ["--judge", "none", "-m", "mrr"]], ids=["m-mrr", "judge-none-m-mrr"]
)
def test_a_given_cache_in_the_way_exits_2_without_a_judged_metric(
    data: Path, a_file: Path, extra: list[str], dry: bool
) -> None:
    args = ["evaluate", str(data), "--cache", str(a_file), *extra, "-q"]
    res = runner.invoke(app, args + (["--dry-run"] if dry else []))
    said = _flat(res.output)
    assert res.exit_code == 2, said
    refusal = f"--cache (cache) {a_file}: {a_file} is a file: give a directory, or --cache off"
    assert refusal in said
    assert a_file.read_text() == "not a cache\n"  # never changed


def test_with_a_judged_metric_it_was_refused_already(data: Path, a_file: Path) -> None:
    """What the run without one is held to: the same line, the same exit."""
    args = ["evaluate", str(data), "--cache", str(a_file), "--judge", "none", "-q"]
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    assert f"{a_file} is a file: give a directory, or --cache off" in _flat(res.output)


def test_a_foreign_store_and_the_library_are_refused_alike(data: Path, foreign: Path) -> None:
    res = runner.invoke(app, ["evaluate", str(data), "--cache", str(foreign), "-m", "mrr"])
    assert res.exit_code == 2, res.output
    assert "is not a ragmeter cache" in _flat(res.output)
    with pytest.raises(ConfigError, match="is not a ragmeter cache"):
        ragmeter.evaluate(str(data), ["mrr"], settings=Settings(cache=str(foreign)))


def test_the_default_cache_is_not_made_for_a_run_that_cannot_use_it(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a cache the user gave is checked whatever the metrics: the default one, never
    asked for, is not made (nor refused) by a run of metrics that need no model."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    default = Path(str(Settings().cache))
    assert default.is_relative_to(tmp_path / "xdg")
    res = runner.invoke(app, ["evaluate", str(data), "-m", "mrr", "-q"])
    assert res.exit_code == 0, res.output
    assert not default.exists()
