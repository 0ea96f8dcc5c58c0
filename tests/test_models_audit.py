"""Audit of the model store: a file rewritten with its old size and mtime, and an install
stopped by SIGTERM (tiny fake chunk packages, temp dirs, a child process for the signal)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.test_embedded import N_PARTS, _site, fake  # noqa: F401  (the fixture)

from ragmeter.backends import model_store

ROOT = Path(__file__).resolve().parent.parent


def test_rewritten_file_with_its_old_mtime_is_not_trusted(fake) -> None:  # noqa: F811
    """`cp -p`, `rsync -a` or `touch -r` put the old mtime on a different file of the same
    size: the sidecar must not vouch for it (llama.cpp would load the wrong bytes)."""
    path = model_store.assemble(fake)
    st = path.stat()
    with path.open("r+b") as f:  # rewritten in place, same size
        f.write(b"X" * 8)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the old mtime put back
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns
    assert not model_store.is_verified(fake, path, quick=True)  # `models list`, dry runs
    assert not model_store.is_verified(fake, path)
    assert model_store.ensure_model("fake").read_bytes() == fake.__dict__["_blob"]  # repaired
    assert model_store.is_verified(fake, path, quick=True)  # and the new sidecar trusted


def test_replaced_file_with_its_old_mtime_is_not_trusted(fake) -> None:  # noqa: F811
    path = model_store.assemble(fake)
    st = path.stat()
    other = path.with_name("other.gguf")
    other.write_bytes(b"Y" * st.st_size)
    os.utime(other, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(other, path)
    assert not model_store.is_verified(fake, path, quick=True)


def test_sigterm_during_install_removes_the_temp_file(fake) -> None:  # noqa: F811
    """`timeout`, `docker stop`, a cancelled CI job: SIGTERM mid-assembly left the half file
    (up to 1 GiB) in the cache dir; it must go, and nothing take the model's name."""
    home = Path(os.environ["RAGMETER_HOME"])
    script = textwrap.dedent(
        f"""
        import os, signal, sys
        sys.path.insert(0, {str(_site(fake))!r})  # the fake chunk packages
        from ragmeter.backends import model_store
        from ragmeter.backends.model_store import EmbeddedModel
        model = EmbeddedModel(key="1.5b", name="local:fake", filename="fake.gguf",
            sha256={fake.sha256!r}, size={fake.size}, dist_prefix="fakechunk-part",
            n_parts={N_PARTS}, version="0.2.0", upstream="Fake/Model", extra="local")
        model_store.MODELS.clear()
        model_store.MODELS["1.5b"] = model
        real_fsync = os.fsync
        def term_then_fsync(fd):  # the signal arrives with the temp file written
            os.kill(os.getpid(), signal.SIGTERM)
            real_fsync(fd)
        os.fsync = term_then_fsync
        from ragmeter.cli import app
        app(["models", "install"])
        """
    )
    src = os.environ.get("PYTHONPATH", str(ROOT / "src"))  # the ragmeter under test
    env = {**os.environ, "RAGMETER_HOME": str(home), "PYTHONPATH": src}
    proc = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert proc.returncode != -signal.SIGTERM, "died without cleaning up"
    assert os.listdir(home / "models") == []  # no temp file, nothing under the model's name


def test_sigterm_handler_is_restored_after_install(fake, monkeypatch) -> None:  # noqa: F811
    from typer.testing import CliRunner

    from ragmeter.cli import app

    monkeypatch.setattr(model_store, "MODELS", {"1.5b": fake})
    before = signal.getsignal(signal.SIGTERM)
    res = CliRunner().invoke(app, ["models", "install"])
    assert res.exit_code == 0, res.output
    assert signal.getsignal(signal.SIGTERM) == before


def test_install_of_a_verified_model_removes_a_killed_assemblys_leftover(
    fake,  # noqa: F811
    monkeypatch,
) -> None:
    """A `--force` install killed with SIGKILL leaves its temp file beside a verified model;
    `models install` then said "already verified" and left it there for ever."""
    from typer.testing import CliRunner

    from ragmeter.cli import app

    monkeypatch.setattr(model_store, "MODELS", {"1.5b": fake})
    path = model_store.assemble(fake)
    leftover = path.with_name(".fake.gguf.k1ll3d.part")
    leftover.write_bytes(b"h" * 1234)
    res = CliRunner().invoke(app, ["models", "install"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "already verified" in res.output
    assert "removed 1,234 bytes left by an interrupted assembly" in res.output
    assert sorted(os.listdir(path.parent)) == ["fake.gguf", "fake.gguf.verified.json"]


def test_a_live_assemblys_temp_file_is_left_alone(fake) -> None:  # noqa: F811
    from ragmeter.backends import _model_files

    path = model_store.assemble(fake)
    live = path.with_name(".fake.gguf.l1ve.part")
    live.write_bytes(b"being written")
    with _model_files.assembly_lock(path) as locked:  # another assembler holds the lock
        assert locked
        assert model_store.clear_leftovers(fake) == 0
    assert live.exists()
    assert model_store.clear_leftovers(fake) == len(b"being written")
    assert not live.exists()


def test_user_gguf_replaced_with_its_old_mtime_gets_its_own_sha(tmp_path, monkeypatch) -> None:
    """The digest names a gguf:PATH judge in cache keys: a different file of the same size
    with the old mtime put back must not be taken for the old one (and its cached verdicts)."""
    monkeypatch.setenv("RAGMETER_HOME", str(tmp_path / "home"))
    path = tmp_path / "judge.gguf"
    path.write_bytes(b"GGUF" + b"a" * 60)
    first = model_store.gguf_sha256(path)
    st = path.stat()
    other = tmp_path / "other.gguf"
    other.write_bytes(b"GGUF" + b"b" * 60)
    os.utime(other, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(other, path)
    second = model_store.gguf_sha256(path)
    assert first != second and second == model_store.sha256_file(path)


def test_a_model_file_without_its_record_or_chunks_is_available_and_verified_on_load(
    fake,  # noqa: F811
    monkeypatch,
) -> None:
    """Assembled, then its chunk packages uninstalled and its sha256 record lost (a copied
    directory): availability said "not installed", though loading hashes and accepts it."""
    from ragmeter.availability import _embedded_problem

    path = model_store.assemble(fake)
    for sidecar in path.parent.glob(path.name + ".*"):  # its sha256 record, lost
        sidecar.unlink()

    def uninstalled(dist: str, version: str) -> Path:
        raise FileNotFoundError(f"package {dist}=={version} is not installed")

    monkeypatch.setattr(model_store, "locate_part", uninstalled)
    st = model_store.status([fake])[0]
    assert st.assembled and not st.verified and st.parts_installed == 0
    assert _embedded_problem("fake") is None
    assert model_store.ensure_model("fake") == path  # hashed now, and the record written
    assert model_store.is_verified(fake, path, quick=True)
