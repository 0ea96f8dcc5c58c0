"""A dry run makes nothing: no cache directory, no SQLite store, no side file, and an
existing store is read (to count its hits) without a byte or its mtime changing.

Before, ``ragmeter evaluate DATA --dry-run --cache DIR`` (and ``dry_run(...,
settings={"cache": DIR})``) created DIR and an empty store: ``check_before_work`` and the
estimate's ``build_resources`` opened the cache as a run does. The refusals of a cache that
cannot be used are still said, before any work, with the run's words.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fake_server import FakeOpenAIServer
from ragmeter import runner
from ragmeter.cli import app
from ragmeter.config import Settings
from ragmeter.dry_run import dry_run
from ragmeter.errors import ConfigError

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "rag_turns.jsonl"
DEAD = "http://127.0.0.1:9/v1"  # nothing is sent in a dry run


def _rows(n: int) -> list[dict[str, Any]]:
    lines = EXAMPLES.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[:n]]


def _settings(cache: Path, base_url: str = DEAD) -> Settings:
    return Settings(
        judge="openai:m",
        base_url=base_url,
        cache=str(cache),
        api_key_env="RM_NOTHING_MADE_UNSET",
        embedder="none",
        preflight=False,
    )


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("name", ["calls", "calls/c.sqlite", "deeper/calls"])
def test_the_library_dry_run_creates_no_cache(tmp_path: Path, name: str) -> None:
    target = tmp_path / "nothing" / name
    est = dry_run(_rows(2), ["faithfulness"], _settings(target))
    assert est["calls"] > 0 and est["cache_hits"] == 0
    assert list(tmp_path.iterdir()) == []


def test_the_cli_dry_run_creates_no_cache(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in _rows(2)), encoding="utf-8")
    cache = tmp_path / "cache"
    args = ["evaluate", str(data), "--dry-run", "--cache", str(cache), "-m", "faithfulness"]
    args += ["--judge", "openai:m", "--base-url", DEAD, "--api-key-env", "RM_NOTHING_MADE_UNSET"]
    res = CliRunner().invoke(app, [*args, "--embedder", "none"])
    assert res.exit_code == 0, res.output
    assert not cache.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.jsonl"]


def test_the_default_cache_is_not_made_by_a_dry_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    settings = Settings(
        judge="openai:m", base_url=DEAD, api_key_env="RM_NOTHING_MADE_UNSET", embedder="none"
    )
    assert Path(str(settings.cache)).is_relative_to(tmp_path / "xdg")
    dry_run(_rows(2), ["faithfulness"], settings)
    assert not (tmp_path / "xdg").exists()


def test_an_existing_cache_is_read_unchanged_and_its_hits_counted(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with FakeOpenAIServer() as srv:
        url = srv.url  # the endpoint keys the cache; the dry run sends nothing to it
        runner.evaluate(_rows(2), ["faithfulness"], settings=_settings(cache, url))
    files = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in cache.iterdir()}
    assert "ragmeter-cache.sqlite" in files
    est = dry_run(_rows(6), ["faithfulness"], _settings(cache, url))
    assert est["cache_hits"] > 0 and est["calls"] > 0
    after = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in cache.iterdir()}
    assert after == files  # no byte, no mtime, no -wal/-shm added


def test_an_empty_store_is_read_as_holding_nothing(tmp_path: Path) -> None:
    """An SQLite file without our tables (made, never written) is ours, and answers none."""
    store = tmp_path / "c.sqlite"
    sqlite3.connect(store).close()  # a 0-byte file
    est = dry_run(_rows(2), ["faithfulness"], _settings(store))
    assert est["cache_hits"] == 0 and est["calls"] > 0
    assert store.read_bytes() == b"" and [p.name for p in tmp_path.iterdir()] == ["c.sqlite"]


def _refusal(settings: Settings, dry: bool) -> str:
    with pytest.raises(ConfigError) as info:
        if dry:
            dry_run(_rows(2), ["faithfulness"], settings)
        else:
            runner.evaluate(_rows(2), ["faithfulness"], settings=settings)
    return str(info.value)


@pytest.mark.parametrize("case", ["file-in-the-way", "under-a-file", "foreign", "a-directory"])
def test_unusable_caches_are_refused_by_the_dry_run_as_by_the_run(tmp_path: Path, case: str):
    blocker = tmp_path / "afile"
    blocker.write_text("not a cache\n")
    foreign = tmp_path / "foreign.sqlite"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE people (name TEXT)")
    con.commit()
    con.close()
    (tmp_path / "dir.sqlite").mkdir()
    target = {
        "file-in-the-way": blocker,
        "under-a-file": blocker / "sub" / "deeper",
        "foreign": foreign,
        "a-directory": tmp_path / "dir.sqlite",
    }[case]
    before = sorted(p.name for p in tmp_path.rglob("*"))
    dry = _refusal(_settings(target), dry=True)
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing made
    run = _refusal(_settings(target), dry=False)
    if case == "a-directory":  # the run: "(OperationalError: unable to open database file)"
        assert "the cache cannot be opened there (Is a directory)" in dry
        assert "the cache cannot be opened there" in run
    else:
        assert dry == run  # the run's words
    assert dry.startswith(f"--cache (cache) {target}: ")
    assert blocker.read_text() == "not a cache\n"
