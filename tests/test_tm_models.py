"""The model store with a read-only or full cache dir, a killed or concurrent assembly, and
what `ragmeter models list` says of a corrupt file (tiny fake chunk packages, temp dirs)."""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path

import pytest
from tests.test_embedded import fake  # noqa: F401  (the fixture: 12 fake chunk packages)
from typer.testing import CliRunner

from ragmeter.backends import _model_files, model_store
from ragmeter.backends.model_store import EmbeddedModel, ModelNotAvailable


def _as_default(monkeypatch: pytest.MonkeyPatch, model: EmbeddedModel) -> None:
    monkeypatch.setattr(model_store, "MODELS", {"1.5b": model})
    monkeypatch.setattr(model_store, "DEFAULT_MODEL", model)


def test_read_only_cache_dir_is_named_with_the_way_out(fake, monkeypatch) -> None:  # noqa: F811
    def refuse(**kw):  # what mkstemp raises in a directory this user cannot write
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(_model_files.tempfile, "mkstemp", refuse)
    with pytest.raises(ModelNotAvailable) as info:
        model_store.ensure_model("fake")
    msg = str(info.value)
    assert f"cannot assemble fake.gguf in {model_store.models_dir()}: Permission denied" in msg
    assert "set RAGMETER_HOME" in msg and "ragmeter models install" in msg

    from ragmeter.cli import app

    _as_default(monkeypatch, fake)
    res = CliRunner().invoke(app, ["models", "install"])
    assert res.exit_code == 2, res.output  # a configuration problem, said; not a traceback
    assert "Permission denied" in res.output and res.exception.__class__ is SystemExit


class _FullDisk:
    """A file whose writes fail as on a full disk, after the first one."""

    def __init__(self, real):  # type: ignore[no-untyped-def]
        self.real, self.writes = real, 0

    def __enter__(self):  # type: ignore[no-untyped-def]
        return self

    def __exit__(self, *exc):  # type: ignore[no-untyped-def]
        self.real.close()

    def write(self, block: bytes) -> int:
        self.writes += 1
        if self.writes > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return self.real.write(block)


def test_full_disk_mid_write_leaves_nothing_and_says_so(fake, monkeypatch) -> None:  # noqa: F811
    real_fdopen = os.fdopen
    monkeypatch.setattr(
        _model_files.os, "fdopen", lambda fd, mode: _FullDisk(real_fdopen(fd, mode))
    )
    with pytest.raises(ModelNotAvailable, match="No space left on device") as info:
        model_store.assemble(fake)
    assert "nothing was written in its place" in str(info.value)
    assert os.listdir(model_store.models_dir()) == []  # no temp file, nothing renamed


def test_leftover_of_a_killed_assembly_is_removed(fake) -> None:  # noqa: F811
    """SIGKILL or a power cut skips every cleanup: the next assembly removes the temp file
    (up to 1 GiB for the real model) instead of leaving it in the cache dir for ever."""
    home = model_store.models_dir()
    home.mkdir(parents=True)
    (home / ".fake.gguf.k1ll3d.part").write_bytes(b"half a model")
    (home / "other.gguf").write_bytes(b"not ours")
    path = model_store.assemble(fake)
    assert sorted(os.listdir(home)) == ["fake.gguf", "fake.gguf.verified.json", "other.gguf"]
    assert path.read_bytes() == fake.__dict__["_blob"]


def test_second_assembler_waits_and_finds_the_file_verified(fake) -> None:  # noqa: F811
    """Two processes (here threads with their own lock handles) assembling at once: the
    second waits for the first instead of writing a second 1 GiB temp file beside it."""
    second_writes: list[int] = []
    results: dict[str, Path] = {}
    started = threading.Event()

    def second() -> None:
        started.set()
        results["second"] = model_store.assemble(
            fake, progress=lambda done, total: second_writes.append(done)
        )

    thread = threading.Thread(target=second)

    def first_progress(done: int, total: int) -> None:
        if not thread.is_alive() and not started.is_set():
            thread.start()
            started.wait()
            threading.Event().wait(0.3)  # room for the second to write, were it not waiting

    results["first"] = model_store.assemble(fake, progress=first_progress)
    thread.join(10)
    assert results["first"] == results["second"] == model_store.model_path(fake)
    assert second_writes == []
    assert results["first"].read_bytes() == fake.__dict__["_blob"]
    assert sorted(os.listdir(model_store.models_dir())) == ["fake.gguf", "fake.gguf.verified.json"]


def test_models_list_says_a_wrong_size_file_is_corrupt(fake, monkeypatch) -> None:  # noqa: F811
    from ragmeter.cli import app

    _as_default(monkeypatch, fake)
    path = model_store.model_path(fake)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"cut short")
    res = CliRunner().invoke(app, ["models", "list"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "no: corrupt" in res.output and "unverified" not in res.output
    assert f"fake is corrupt: 9 bytes, the pinned file has {fake.size:,}" in res.output
    path.write_bytes(fake.__dict__["_blob"])  # the right bytes, never hashed: not claimed
    res = CliRunner().invoke(app, ["models", "list"], env={"COLUMNS": "200"})
    assert "unverified" in res.output and "sha256 not checked yet" in res.output
