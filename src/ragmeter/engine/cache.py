"""A persistent SQLite cache of judge and embedding calls.

Every finished call is committed on its own (WAL journal), so a run killed at any moment
keeps all the work done before it, and a re-run repeats none of it. Keys hash everything
that determines an answer: backend, model, the full messages, the decoding parameters
(temperature, seed, max_tokens, schema, options) and the prompt version. Values hold model
output only: no headers, no keys (one in the raw text or error is masked, as in reports).

Only successful answers are served. A failed call (output that failed validation, a reply
without logprobs, a NaN logprob) is stored, with its error and raw output, for diagnosis
(rows with ``ok = 0``), but ``get`` never returns it: a server fault is not an answer, and
replaying it made a fixed server look broken until the cache was deleted (a NaN vector is
not stored at all). A later run asks again; a failure never replaces a stored success. An
answer that cannot be read back (not JSON, not the shape its kind of call returns, a vector
of the wrong size or not finite: a damaged file) is a miss: asked again, and replaced.

The file records its layout (``PRAGMA user_version``); a store made by a newer ragmeter, or
whose tables lack columns this one reads, is refused with a ConfigError naming the file.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from ragmeter.errors import ConfigError, RunAborted
from ragmeter.redact import redact

_F = TypeVar("_F")

CACHE_FORMAT = 1  # bump to invalidate every stored entry after a change in what we store
DB_NAME = "ragmeter-cache.sqlite"
SCHEMA_VERSION = 1  # the tables' layout, as PRAGMA user_version (0: written before it was)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    key TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    backend TEXT NOT NULL,
    prompt_version TEXT,
    ok INTEGER NOT NULL,
    value TEXT,
    error TEXT,
    raw TEXT,
    prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 1,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS embeddings (
    key TEXT PRIMARY KEY,
    backend TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vector BLOB NOT NULL,
    created REAL NOT NULL
);
"""


_KEEP_SUCCESS = (
    " ON CONFLICT(key) DO UPDATE SET error = excluded.error, raw = excluded.raw, "
    "prompt_tokens = excluded.prompt_tokens, completion_tokens = excluded.completion_tokens, "
    "attempts = excluded.attempts, created = excluded.created WHERE calls.ok = 0"
)


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def call_key(
    *, backend: str, kind: str, messages: Any, params: Mapping[str, Any], prompt_version: str | None
) -> str:
    """The cache key of one judge call: a sha256 over everything that decides the answer."""
    payload = {
        "format": CACHE_FORMAT,
        "backend": backend,
        "kind": kind,
        "messages": messages,
        "params": dict(params),
        "prompt_version": prompt_version,
    }
    return hashlib.sha256(_canonical(payload).encode()).hexdigest()


def embedding_key(backend: str, text: str) -> str:
    payload = {"format": CACHE_FORMAT, "backend": backend, "text": text}
    return hashlib.sha256(_canonical(payload).encode()).hexdigest()


@dataclass
class CachedCall:
    ok: bool
    value: Any  # the JSON-decoded value when ok
    error: str | None
    raw: str | None
    prompt_tokens: int
    completion_tokens: int
    attempts: int


def _open_store(db: sqlite3.Connection, wait_s: float = 30.0, path: Path | None = None) -> None:
    """Switch the store to WAL and create its tables, waiting while another process holds it.

    Why not rely on the connection's timeout alone: changing the journal mode needs the
    database to itself, and SQLite may answer "database is locked" at once instead of
    calling the busy handler (a Ray actor restarted after a kill failed to open the shared
    cache that way while the other actors wrote to it). WAL is a property of the file, so
    once any process has set it, reading it back is enough.
    """
    deadline = time.monotonic() + wait_s
    delay = 0.02
    while True:
        try:
            _check_version(db, path)
            _check_layout(db, path)  # all read-only: a store we refuse is left as it is
            mode = db.execute("PRAGMA journal_mode").fetchone()[0]
            if str(mode).lower() != "wal":
                db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode survives a killed process (only power loss drops the tail)
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(_SCHEMA)
            # set even when set: a write, so a file we may not write fails here, not mid-run
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            return
        except sqlite3.OperationalError as exc:
            transient = "locked" in str(exc) or "busy" in str(exc)
            if not transient or time.monotonic() >= deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.5)


def _columns(db: Any, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def _needed_columns() -> dict[str, set[str]]:
    mem = sqlite3.connect(":memory:")
    try:
        mem.executescript(_SCHEMA)
        return {table: _columns(mem, table) for table in ("calls", "embeddings")}
    finally:
        mem.close()


_NEEDED = _needed_columns()


def _where(path: Path | None) -> str:
    return f"--cache (cache) {path}" if path is not None else "the cache"


def _check_version(db: Any, path: Path | None) -> int:
    """The store's layout version; ConfigError, before anything is written, when a newer
    ragmeter made it."""
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise ConfigError(
            f"{_where(path)}: made by a newer ragmeter (cache layout {version}, this version "
            f"reads {SCHEMA_VERSION}): upgrade ragmeter, or give another --cache directory "
            "(the file is left as it is)"
        )
    return version


def _check_layout(db: Any, path: Path | None) -> None:
    """ConfigError when a table of the store lacks columns this version reads or writes.

    Why: a store of another layout failed every call mid-run, each score an "internal
    error: OperationalError: no such column" with nothing naming the cache."""
    for table, needed in _NEEDED.items():
        found = _columns(db, table)
        lacking = sorted(needed - found)
        if found and lacking:  # a table not there yet is created
            raise ConfigError(
                f"{_where(path)}: its table {table!r} lacks the columns {', '.join(lacking)} "
                "(made by another version of ragmeter?): give another --cache directory "
                "(the file is left as it is)"
            )


def _readable(kind: str, value: Any) -> bool:
    """Whether a stored value has the shape its kind of call returns (verdict
    probabilities: option -> a probability; a structured value is checked by its schema).

    A probability must be a finite number in [0, 1], and there must be some: a damaged row
    holding ``{"yes": NaN}``, ``{"yes": 7}`` or ``{}`` was served as the judge's answer and
    came out as a NaN, impossible or crashing score instead of being asked again.
    """

    def probs(v: Any) -> bool:
        return (
            isinstance(v, dict)
            and bool(v)
            and all(type(p) in (int, float) and 0.0 <= p <= 1.0 for p in v.values())
        )

    if kind == "option_probs":
        return probs(value)
    if kind == "option_probs_list":
        return isinstance(value, list) and all(map(probs, value))
    return True


def _aborts_when_damaged(method: _F) -> _F:
    """A store that breaks mid-run (a file damaged on disk, a disk full, a lock held past the
    timeout) ends the run naming the file and the way out: every later call would fail the
    same way, as "internal error: DatabaseError" on each score, naming nothing."""

    @functools.wraps(method)
    def wrapper(self: CallCache, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            raise RunAborted(
                f"the judge cache {self.path} failed ({type(exc).__name__}: {exc}): answers "
                "already stored stay; move the file aside (or run with --cache off) and "
                "re-run the same command"
            ) from exc

    return wrapper  # type: ignore[return-value]


def fits_options(value: Any, options: Sequence[str]) -> bool:
    """Whether stored verdict probabilities (one dict, or a list of them) name only
    ``options``: the key holds the options, so another name is a damaged or edited row."""
    wanted = set(options)
    items = value if isinstance(value, list) else [value]
    return all(isinstance(v, dict) and set(v) <= wanted for v in items)


def read_only_uri(db: Path) -> str:
    """The URI that reads the store at ``db`` without changing or adding any file. Why not
    ``mode=ro`` alone: it leaves a WAL store's ``-wal`` and ``-shm`` files behind. With no
    ``-wal`` every answer is in the main file, read by ``immutable=1`` with no side files."""
    uri = f"{db.resolve().as_uri()}?mode=ro"
    return uri if Path(f"{db}-wal").exists() else f"{uri}&immutable=1"


class CallCache:
    """SQLite-backed store; safe to share between threads and processes. ``read_only`` (a
    dry run): an existing store read, its version and layout checked, nothing made or
    changed."""

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        path = Path(path)
        if path.suffix not in (".sqlite", ".db"):
            path = path / DB_NAME
        if not read_only:
            path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            read_only_uri(path) if read_only else str(path),
            timeout=30.0,
            check_same_thread=False,
            isolation_level=None,  # autocommit: one commit per write
            uri=read_only,
        )
        try:
            if read_only:
                _check_version(self._db, path)
                _check_layout(self._db, path)
            else:
                _open_store(self._db, path=path)
        except BaseException:
            self._db.close()
            raise
        # a store without our tables answers nothing (read only, none are made)
        self.empty = read_only and not all(_columns(self._db, t) for t in _NEEDED)

    # -- judge calls ---------------------------------------------------------------------
    @_aborts_when_damaged
    def get(self, key: str) -> CachedCall | None:
        """The successful answer stored under ``key``, or None (also for a stored failure)."""
        if self.empty:
            return None
        with self._lock:
            row = self._db.execute(
                "SELECT kind, value, error, raw, prompt_tokens, completion_tokens, attempts "
                "FROM calls WHERE key = ? AND ok = 1",
                (key,),
            ).fetchone()
        if row is None:
            return None
        kind, value, error, raw, pt, ct, attempts = row
        try:
            decoded = json.loads(value) if value is not None else None
        except (TypeError, ValueError):  # a damaged row: asked again, then replaced
            return None
        if decoded is None or not _readable(kind, decoded):
            return None
        return CachedCall(True, decoded, error, raw, pt, ct, attempts)

    @_aborts_when_damaged
    def put(
        self,
        key: str,
        *,
        kind: str,
        backend: str,
        prompt_version: str | None,
        ok: bool,
        value: Any = None,
        error: str | None = None,
        raw: str | None = None,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
        attempts: int = 1,
    ) -> None:
        encoded = _canonical(value) if value is not None else None
        raw, error = (redact(t) if t else t for t in (raw, error))  # keys masked, as in reports
        # A success replaces whatever is there; a failure replaces only a failure, so two
        # processes asking at once (Ray actors) never lose the one that got an answer.
        upsert = "" if ok else _KEEP_SUCCESS
        with self._lock:
            self._db.execute(
                f"INSERT {'OR REPLACE ' if ok else ''}INTO calls (key, kind, backend, "
                "prompt_version, ok, value, error, raw, prompt_tokens, completion_tokens, "
                f"attempts, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?){upsert}",
                (
                    key,
                    kind,
                    backend,
                    prompt_version,
                    int(ok),
                    encoded,
                    error,
                    raw,
                    prompt_tokens,
                    completion_tokens,
                    attempts,
                    time.time(),
                ),
            )

    # -- embeddings ----------------------------------------------------------------------
    @_aborts_when_damaged
    def get_vectors(self, keys: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        if self.empty:
            return found
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for key, dim, blob in self._db.execute(
                    f"SELECT key, dim, vector FROM embeddings WHERE key IN ({marks})", chunk
                ):
                    fits = isinstance(blob, bytes) and dim > 0 and len(blob) == 4 * dim
                    vec = np.frombuffer(blob, dtype=np.float32, count=dim) if fits else None
                    if vec is not None and np.isfinite(vec).all():  # else asked again
                        found[key] = vec.copy()
        return found

    @_aborts_when_damaged
    def put_vectors(self, backend: str, items: Iterable[tuple[str, np.ndarray]]) -> None:
        now = time.time()
        rows = [
            (k, backend, int(v.shape[0]), np.asarray(v, dtype=np.float32).tobytes(), now)
            for k, v in items
            if np.isfinite(v).all()  # a NaN vector is a fault (fp16 overflow), not an answer
        ]
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.executemany(
                    "INSERT OR REPLACE INTO embeddings (key, backend, dim, vector, created) "
                    "VALUES (?, ?, ?, ?, ?)",
                    rows,
                )
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    @_aborts_when_damaged
    def count(self) -> dict[str, int]:
        """Answers ``get`` serves (``calls``), failures kept (``failed_calls``), embeddings."""
        with self._lock:
            ok, failed = self._db.execute(
                "SELECT COALESCE(SUM(ok = 1), 0), COALESCE(SUM(ok = 0), 0) FROM calls"
            ).fetchone()
            vecs = self._db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
        return {"calls": ok, "failed_calls": failed, "embeddings": vecs}

    def close(self) -> None:
        with self._lock:
            self._db.close()
