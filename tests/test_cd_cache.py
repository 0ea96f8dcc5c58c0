"""The judge cache never serves what it cannot read back, and refuses, naming the file,
a store of a layout it does not know (before any work, leaving the file as it is)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

from fake_server import FakeOpenAIServer
from ragmeter import runner
from ragmeter.cli import app
from ragmeter.config import Settings
from ragmeter.engine.cache import DB_NAME, CallCache
from ragmeter.errors import ConfigError

SAMPLES = [make_row(i) for i in range(1, 4)]


def _settings(url: str, cache: Path) -> Settings:
    return Settings(
        judge="openai:m",
        base_url=url,
        cache=str(cache),
        api_key_env="RM_CD_UNSET",
        embedder="none",
        preflight=False,
        max_retries=0,
    )


@pytest.mark.parametrize(
    ("mode", "damage"),
    [
        ("generate", "'{not json'"),  # structured replies (statements) and verdicts
        ("fast", "'{not json'"),  # verdict probabilities
        ("fast", "'[1, 2]'"),  # JSON, but no option -> probability map
        ("fast", """'{"yes": "high"}'"""),
    ],
)
def test_a_damaged_stored_answer_is_asked_again_and_replaced(
    tmp_path: Path, mode: str, damage: str
) -> None:
    """It was served: every later run failed those scores ("internal error:
    JSONDecodeError", "TypeError"...) until the cache was deleted."""
    metric = "faithfulness"
    with FakeOpenAIServer() as srv:
        settings = _settings(srv.url, tmp_path).merged(modes={metric: mode})
        first = runner.evaluate(SAMPLES, [metric], settings=settings)
        sent = srv.calls
        with sqlite3.connect(tmp_path / DB_NAME) as con:
            damaged = con.execute(f"UPDATE calls SET value = {damage}").rowcount
        assert damaged == sent > 0
        again = runner.evaluate(SAMPLES, [metric], settings=settings)
        assert srv.calls == 2 * sent  # every damaged answer asked again
        third = runner.evaluate(SAMPLES, [metric], settings=settings)
        assert srv.calls == 2 * sent  # and the new answers replaced them
    values = [s.value for s in first.scores[metric]]
    assert [s.status for s in again.scores[metric]] == ["ok"] * len(SAMPLES)
    assert [s.value for s in again.scores[metric]] == values
    assert [s.value for s in third.scores[metric]] == values
    assert third.usage["cache_hits"] == sent and third.usage["calls"] == 0


def test_a_vector_stored_short_is_a_miss_not_a_crash(tmp_path: Path) -> None:
    cache = CallCache(tmp_path)
    cache.put_vectors("e", [("k", np.ones(4, dtype=np.float32))])
    with sqlite3.connect(tmp_path / DB_NAME) as con:
        con.execute("UPDATE embeddings SET vector = substr(vector, 1, 8)")
    assert cache.get_vectors(["k"]) == {}
    cache.close()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _foreign_store(path: Path, user_version: int, calls_sql: str) -> Path:
    path.mkdir()
    db = path / DB_NAME
    con = sqlite3.connect(db)
    con.executescript(f"{calls_sql}; PRAGMA user_version = {user_version};")
    con.close()
    return db


@pytest.mark.parametrize(
    ("user_version", "calls_sql", "said"),
    [
        (  # a newer ragmeter's store: refused by its layout version
            99,
            "CREATE TABLE calls (key TEXT PRIMARY KEY, kind TEXT, ok INTEGER, value TEXT)",
            "made by a newer ragmeter",
        ),
        (  # another layout, unmarked: refused by the columns it lacks
            0,
            "CREATE TABLE calls (key TEXT PRIMARY KEY, kind TEXT, payload BLOB)",
            "lacks the columns",
        ),
    ],
)
def test_a_store_of_another_layout_is_refused_before_work_and_left_alone(
    tmp_path: Path, user_version: int, calls_sql: str, said: str
) -> None:
    """Every score failed mid-run ("internal error: OperationalError: no such column")."""
    db = _foreign_store(tmp_path / "c", user_version, calls_sql)
    before = _digest(db)
    with pytest.raises(ConfigError, match=said):
        CallCache(tmp_path / "c")
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in SAMPLES), encoding="utf-8")
    with FakeOpenAIServer() as srv:
        base = ["evaluate", str(data), "-m", "faithfulness", "--judge", "openai:m"]
        base += ["--base-url", srv.url, "--no-preflight", "--cache", str(tmp_path / "c")]
        for extra in ([], ["--dry-run"]):
            got = CliRunner().invoke(app, [*base, *extra])
            assert got.exit_code == 2, got.output
            assert said in got.output and str(db) in " ".join(got.output.split())
        assert srv.calls == 0
    assert _digest(db) == before
    assert sorted(p.name for p in db.parent.iterdir()) == [DB_NAME]


def test_a_store_of_this_layout_is_marked_and_reopened(tmp_path: Path) -> None:
    CallCache(tmp_path).close()
    with sqlite3.connect(tmp_path / DB_NAME) as con:
        marked = con.execute("PRAGMA user_version").fetchone()[0]
    assert marked > 0
    cache = CallCache(tmp_path)  # reopened as its own
    assert cache.count()["calls"] == 0
    cache.close()
