"""Opening the shared judge cache waits out a transient "database is locked"
(engine.cache._open_store): a Ray actor restarted after a kill once failed to open the cache
the other actors were writing to, and the run lost that batch."""

from __future__ import annotations

import sqlite3

import pytest

from ragmeter.engine.cache import CallCache, _open_store


class FlakyDb:
    """A connection whose first ``fails`` statements answer as a busy SQLite does."""

    def __init__(self, path, fails: int, message: str = "database is locked") -> None:
        self.db = sqlite3.connect(str(path), isolation_level=None)
        self.fails = fails
        self.message = message

    def execute(self, sql, *args):
        if self.fails:
            self.fails -= 1
            raise sqlite3.OperationalError(self.message)
        return self.db.execute(sql, *args)

    def executescript(self, sql):
        return self.db.executescript(sql)


def test_a_locked_store_is_retried_until_it_opens(tmp_path):
    db = FlakyDb(tmp_path / "c.sqlite", fails=3)
    _open_store(db, wait_s=5)
    assert db.fails == 0
    assert db.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in db.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"calls", "embeddings"} <= tables


def test_other_errors_and_a_lock_that_outlasts_the_wait_are_raised(tmp_path):
    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
        _open_store(FlakyDb(tmp_path / "a.sqlite", fails=1, message="disk I/O error"), wait_s=5)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        _open_store(FlakyDb(tmp_path / "b.sqlite", fails=10**6), wait_s=0.2)


def test_a_store_already_in_wal_is_opened_by_many_connections(tmp_path):
    caches = [CallCache(tmp_path) for _ in range(4)]
    caches[0].put("k", kind="verdict", backend="b", prompt_version=None, ok=True, value=0.5)
    assert caches[3].get("k").value == 0.5
