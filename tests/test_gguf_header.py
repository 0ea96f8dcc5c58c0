"""A ``--judge gguf:PATH`` file that is no GGUF model is refused up front (exit 2), from its
first bytes (``backends.gguf_header``), saying what the file is instead.

Before: only the file's being there was checked; an HTML page, an empty or truncated
download passed validation and planning, the lexical metrics were computed, and every judged
score failed when llama.cpp could not load the file ("Failed to load model from file"), exit 1.
"""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

from ragmeter import availability
from ragmeter.availability import judge_problem
from ragmeter.cli import app
from ragmeter.config import Settings

runner = CliRunner()
HEADER_V3 = b"GGUF" + struct.pack("<I", 3) + bytes(16)
HTML = b"<!DOCTYPE html><html><body>403 Forbidden</body></html>\n"
LFS = b"version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 986\n"


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def llama_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if llama-cpp-python were installed: the header check comes after that one."""
    real = availability._found
    monkeypatch.setattr(availability, "_found", lambda m: m == "llama_cpp" or real(m))


@pytest.fixture
def no_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("scoring started before the judge's file was checked")

    monkeypatch.setattr("ragmeter.runner.compute_all", forbidden)
    monkeypatch.setattr("ragmeter.executors.session.build_resources", forbidden)
    monkeypatch.setattr(sys.modules["ragmeter.dry_run"], "build_resources", forbidden)


def gguf_problem(path: Path) -> str | None:
    """The check itself, imported here so that the CLI tests below run (and fail) on code
    without it."""
    from ragmeter.backends.gguf_header import gguf_problem as problem

    return problem(path)


def _file(tmp_path: Path, content: bytes, name: str = "m.gguf") -> Path:
    path = tmp_path / name
    path.write_bytes(content)
    return path


@pytest.mark.parametrize(
    "content, said",
    [
        (b"", "is empty (0 bytes)"),
        (HTML, "starts with b'<!DO' (an HTML page? a download that saved an error or login"),
        (LFS, "starts with b'vers' (a Git LFS pointer? the model itself was not fetched)"),
        (b"hello, world\n", "starts with b'hell', not b'GGUF' as a GGUF model does"),
        (b"GGUF" + struct.pack("<I", 3) + b"abcd", "is 12 bytes long, shorter than a GGUF header"),
        (b"GGUF" + struct.pack("<I", 1) + bytes(16), "is GGUF version 1, which llama.cpp does"),
        (b"tjgg" + bytes(20), "an old GGML file, which llama.cpp no longer reads"),
    ],
)
def test_what_the_file_is_instead_is_said(tmp_path: Path, content: bytes, said: str) -> None:
    assert said in (gguf_problem(_file(tmp_path, content)) or "")


def test_a_gguf_header_passes_whatever_follows(tmp_path: Path) -> None:
    """Versions 2 and 3 in this machine's byte order; the other order is named."""
    order = "<" if sys.byteorder == "little" else ">"
    for version in (2, 3):
        head = b"GGUF" + struct.pack(f"{order}I", version) + bytes(16)
        assert gguf_problem(_file(tmp_path, head)) is None
        assert gguf_problem(_file(tmp_path, head + b"\x07" * 100)) is None
    swapped = b"GGUF" + struct.pack(f"{'>' if order == '<' else '<'}I", 3) + bytes(16)
    assert "-endian GGUF file (version 3)" in (gguf_problem(_file(tmp_path, swapped)) or "")


def test_only_the_header_is_read(tmp_path: Path) -> None:
    """A model is gigabytes: the check reads its first bytes, never the whole file."""
    io_stats = Path("/proc/self/io")
    if not io_stats.exists():
        pytest.skip("needs /proc/self/io to count the bytes read")
    path = tmp_path / "big.gguf"
    with path.open("wb") as f:
        f.write(HEADER_V3)
        f.truncate(4 << 30)  # sparse: 4 GiB that take no room

    def bytes_read() -> int:
        stats = dict(line.split(": ") for line in io_stats.read_text().splitlines())
        return int(stats["rchar"])

    before = bytes_read()
    assert gguf_problem(path) is None
    assert bytes_read() - before < 1 << 20


def test_judge_problem_names_the_file_and_the_fix(tmp_path: Path, llama_found: None) -> None:
    good = _file(tmp_path, HEADER_V3, "good.gguf")
    assert judge_problem(Settings(judge=f"gguf:{good}")) is None
    page = _file(tmp_path, HTML, "page.gguf")
    why = judge_problem(Settings(judge=f"gguf:{page}")) or ""
    assert why.startswith(f"the file {page} is no GGUF model llama.cpp can load: it starts with")
    assert why.endswith("give a .gguf file: --judge gguf:PATH")


@pytest.mark.parametrize("dry", [False, True])
@pytest.mark.parametrize("metrics", [None, "faithfulness,token_f1"])
def test_a_damaged_gguf_judge_is_refused_before_any_work(
    tmp_path: Path, llama_found: None, no_scoring: None, dry: bool, metrics: str | None
) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(make_row(i)) + "\n" for i in range(1, 4)))
    page = _file(tmp_path, HTML, "page.gguf")
    args = ["evaluate", str(data), "--judge", f"gguf:{page}", "-q", "--cache", "off"]
    args += (["-m", metrics] if metrics else []) + (["--dry-run"] if dry else [])
    res = runner.invoke(app, args)
    text = _flat(res.output)
    assert res.exit_code == 2, text
    assert f"the file {page} is no GGUF model llama.cpp can load: it starts with b'<!DO'" in text
    assert "download the model again" in text


def test_an_empty_gguf_from_a_config_file_is_refused(
    tmp_path: Path, llama_found: None, no_scoring: None
) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(make_row(1)) + "\n")
    empty = _file(tmp_path, b"", "empty.gguf")
    config = tmp_path / "r.toml"
    config.write_text(f'[ragmeter]\njudge = "gguf:{empty}"\n')
    res = runner.invoke(app, ["evaluate", str(data), "--config", str(config), "-q"])
    assert res.exit_code == 2, res.output
    assert f"the file {empty} is no GGUF model llama.cpp can load: it is empty" in _flat(res.output)


def test_a_local_judge_built_directly_checks_the_header_before_hashing(tmp_path: Path) -> None:
    """``LocalJudge(path)`` (Python, not through the settings) hashed the whole file first and
    failed only at load; the header check comes before the hash (needs no llama.cpp)."""
    from ragmeter.backends import llamacpp
    from ragmeter.errors import ModelNotAvailable

    page = tmp_path / "page.gguf"
    page.write_bytes(b"<!DOCTYPE html><html>Sign in</html>")
    with pytest.raises(ModelNotAvailable, match=r"is no GGUF model .* starts with b'<!DO'"):
        llamacpp.LocalJudge(page)


def test_a_directory_given_as_the_gguf_is_said_to_be_no_file(
    tmp_path: Path, llama_found: None
) -> None:
    """It said "does not exist" of a directory that does."""
    why = judge_problem(Settings(judge=f"gguf:{tmp_path}"))
    assert why is not None and f"the GGUF file {tmp_path} is not a file" in why
