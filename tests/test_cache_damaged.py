"""A judge cache that breaks mid-run (a file damaged on disk, a full disk) ends the run naming
the file and the way out; before, each later score failed as "internal error: DatabaseError:
database disk image is malformed", naming nothing, and the run went on failing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fake_server import FakeOpenAIServer
from ragmeter.cli import app
from ragmeter.engine.cache import CallCache
from ragmeter.errors import RunAborted


class _Breaking:
    """A connection whose reads fail once ``broken`` is set, as a damaged file's do."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db, self.broken = db, False

    def execute(self, sql: str, *args: Any) -> Any:
        if self.broken and sql.lstrip().upper().startswith("SELECT"):
            raise sqlite3.DatabaseError("database disk image is malformed")
        return self.db.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)


def test_a_damaged_store_aborts_naming_the_file(tmp_path: Path) -> None:
    cache = CallCache(tmp_path / "c")
    db = _Breaking(cache._db)
    cache._db = db  # type: ignore[assignment]
    assert cache.get("k") is None
    db.broken = True
    with pytest.raises(RunAborted, match=r"judge cache .*ragmeter-cache.sqlite failed .*malformed"):
        cache.get("k")
    cache.close()


def test_the_cli_run_stops_with_exit_3_and_says_which_file(tmp_path: Path, monkeypatch) -> None:
    init = CallCache.__init__

    def breaking_init(self: CallCache, path: Any) -> None:
        init(self, path)
        db = _Breaking(self._db)
        db.broken = True
        self._db = db  # type: ignore[assignment]

    monkeypatch.setattr(CallCache, "__init__", breaking_init)
    data = tmp_path / "in.jsonl"
    row = {"question": "Capital of Italy?", "answer": "Rome.", "contexts": ["Rome is the capital."]}
    data.write_text(json.dumps(row) + "\n")
    with FakeOpenAIServer() as server:
        args = ["evaluate", str(data), "-m", "faithfulness", "--judge", "openai:m"]
        args += ["--base-url", server.url, "--cache", str(tmp_path / "c"), "--embedder", "none"]
        res = CliRunner().invoke(
            app,
            [*args, "-o", str(tmp_path / "out")],
            env={"OPENAI_API_KEY": "sk-test-not-a-real-key"},
        )
    assert res.exit_code == 3, res.output
    assert "judge cache" in res.output and "malformed" in res.output
    assert "internal error" not in res.output
