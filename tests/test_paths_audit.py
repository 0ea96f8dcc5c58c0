"""Paths as users have them: names at the file system's length limit, compressed inputs.
Each was an internal error (a traceback, exit 1), a file that could not be written, or one
"not UTF-8" problem per row, where a clear error naming the problem was due."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import make_row
from tests.needs import require_module
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app
from ragmeter.errors import DataError
from ragmeter.io import write_json, write_jsonl

runner = CliRunner()
TOO_LONG = "x" * 256  # one byte over the 255 of ext4, tmpfs, APFS, btrfs, xfs


def _jsonl(n: int = 3) -> bytes:
    return "".join(json.dumps(make_row(i)) + "\n" for i in range(1, n + 1)).encode()


def _cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, " ".join(result.output.split())


def test_an_input_name_too_long_is_a_data_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="cannot read file: File name too long"):
        ragmeter.load(str(tmp_path / f"{TOO_LONG}.jsonl"))


def test_evaluate_an_input_name_too_long_exits_2_naming_it(tmp_path: Path) -> None:
    code, text = _cli("evaluate", str(tmp_path / f"{TOO_LONG}.jsonl"), "-m", "token_f1")
    assert code == 2, text
    assert "internal error" not in text and "File name too long" in text, text


def test_a_run_name_too_long_is_a_data_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"not a run directory: .*\(File name too long\)"):
        ragmeter.load_run(tmp_path / TOO_LONG)


def test_compare_a_run_name_too_long_exits_2(tmp_path: Path) -> None:
    code, text = _cli("compare", str(tmp_path / TOO_LONG), str(tmp_path / "b"))
    assert code == 2, text
    assert "internal error" not in text and "File name too long" in text, text


@pytest.mark.parametrize(
    ("name", "compress", "kind"),
    [
        ("data.jsonl.gz", gzip.compress, "gzip"),
        ("data.jsonl", gzip.compress, "gzip"),  # compressed under a plain name
        ("data.csv.bz2", bz2.compress, "bzip2"),
        ("data.json.xz", lzma.compress, "xz"),
    ],
)
def test_a_compressed_input_is_named_compressed(
    tmp_path: Path, name: str, compress: object, kind: str
) -> None:
    path = tmp_path / name
    path.write_bytes(compress(_jsonl()))  # type: ignore[operator]
    for fmt in (None, "jsonl"):
        with pytest.raises(DataError) as info:
            ragmeter.load(str(path), format=fmt)
        assert len(info.value.problems) == 1, info.value  # not one "not UTF-8" a row
        said = info.value.problems[0].message
        assert f"{name} is a {kind}-compressed file" in said and "decompress it first" in said


def test_evaluate_a_gzip_input_with_format_exits_2_saying_compressed(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl.gz"
    path.write_bytes(gzip.compress(_jsonl()))
    code, text = _cli("evaluate", str(path), "--format", "jsonl", "-m", "token_f1", "-q")
    assert code == 2, text
    assert "gzip-compressed" in text and "not UTF-8" not in text, text


def test_an_uncompressed_input_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "BZh data.JSONL"  # a name that starts like a bzip2 header: bytes decide
    path.write_bytes(_jsonl())
    assert len(ragmeter.load(str(path))) == 3


@pytest.mark.parametrize("stem", ["r" * 250, "é" * 125])  # 250 bytes each, under 255
def test_atomic_writes_accept_names_near_the_limit(tmp_path: Path, stem: str) -> None:
    target = tmp_path / f"{stem}.json"
    write_json({"a": 1}, target)
    assert json.loads(target.read_text(encoding="utf-8")) == {"a": 1}
    lines = tmp_path / f"{stem[:-1]}.jsonl"
    write_jsonl([{"b": 2}], lines)
    assert lines.read_text(encoding="utf-8") == '{"b":2}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([target.name, lines.name])


@pytest.mark.parametrize(
    "name",
    [
        "run-2024-01-01T10:00.parquet",  # a time in the name: "Unrecognized filesystem type"
        "file:rows.parquet",  # "File URI cannot be relative"
        "s3:/rows.parquet",  # a local directory named "s3:": "Missing bucket name"
    ],
)
def test_a_parquet_name_with_a_colon_is_read_as_a_local_file(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Relative, as users type them (an absolute path is never taken for a URI)."""
    monkeypatch.chdir(tmp_path)
    pa, pq = require_module("pyarrow"), require_module("pyarrow.parquet")
    plain, path = tmp_path / "plain.parquet", tmp_path / name
    pq.write_table(pa.Table.from_pylist([make_row(i) for i in range(1, 4)]), str(plain))
    path.parent.mkdir(exist_ok=True)
    plain.rename(path)  # pyarrow would read the name as a URI when writing too
    assert [s.question_id for s in ragmeter.load(name)] == ["q1", "q2", "q3"]
    out = tmp_path / "out"
    code, text = _cli("evaluate", name, "-m", "token_f1", "-q", "--executor", "stream", "-o", "out")
    assert code == 0, text
    assert len((out / "scores.jsonl").read_text(encoding="utf-8").splitlines()) == 3


@pytest.mark.parametrize("given", [".", "sub/..", "./"])
def test_a_run_given_as_dot_is_named_as_its_directory(
    tmp_path: Path, given: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, run = tmp_path / "rows.jsonl", tmp_path / "run A"
    data.write_bytes(_jsonl())
    code, text = _cli("evaluate", str(data), "-m", "token_f1", "-q", "-o", str(run))
    assert code == 0, text
    (run / "sub").mkdir()
    monkeypatch.chdir(run)
    assert ragmeter.load_run(given).name == "run A"
    code, text = _cli("compare", str(run), given)
    assert code == 0 and "B = run A vs A = run A:" in text, text
    code, text = _cli("compare", given, str(run), "--markdown", "-")
    assert code == 0 and "compare: `run A` (B) vs `run A` (A)" in text, text


def test_a_cache_name_too_long_exits_2_naming_it(tmp_path: Path) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_bytes(_jsonl())
    cache = str(tmp_path / TOO_LONG)
    for extra in ((), ("--dry-run",)):
        code, text = _cli("evaluate", str(data), "-m", "token_f1", "-q", "--cache", cache, *extra)
        assert code == 2, text
        assert "internal error" not in text and "File name too long" in text, text


def test_an_out_name_too_long_exits_2_naming_it(tmp_path: Path) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_bytes(_jsonl())
    for extra in ((), ("--dry-run",)):
        out = str(tmp_path / TOO_LONG)
        code, text = _cli("evaluate", str(data), "-m", "token_f1", "-q", "-o", out, *extra)
        assert code == 2, text
        assert "internal error" not in text and "File name too long" in text, text


def test_report_and_compare_outputs_named_too_long_exit_2(tmp_path: Path) -> None:
    data, run = tmp_path / "rows.jsonl", tmp_path / "run"
    data.write_bytes(_jsonl())
    code, text = _cli("evaluate", str(data), "-m", "token_f1", "-q", "-o", str(run))
    assert code == 0, text
    long_file = str(tmp_path / f"{TOO_LONG}.html")
    for args in (
        ("report", str(run), "-o", long_file),
        ("report", str(tmp_path / TOO_LONG), "-o", str(tmp_path / "r.html")),
        ("compare", str(run), str(run), "--json", long_file),
    ):
        code, text = _cli(*args)
        assert code == 2, (args, text)
        assert "internal error" not in text and "File name too long" in text, (args, text)


def test_a_full_disk_keeps_the_previous_report_whole(tmp_path: Path) -> None:
    """RLIMIT_FSIZE stands in for a full disk: writes past 1,000 bytes fail (EFBIG)."""
    page = tmp_path / "report.html"
    page.write_text("the last run's page", encoding="utf-8")
    code = (
        "import resource, signal, sys\n"
        "from pathlib import Path\n"
        "from ragmeter.reporting import write_out\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))\n"
        "try:\n"
        "    write_out(Path(sys.argv[1]), 'x' * 50_000)\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(page)], capture_output=True, text=True, check=True
    )
    assert done.stdout.startswith("OutputError --out"), done.stdout + done.stderr
    assert page.read_text(encoding="utf-8") == "the last run's page"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]  # no temporary file left


def test_a_streamed_run_names_a_compressed_or_too_long_input(tmp_path: Path) -> None:
    hidden = tmp_path / "rows.jsonl"  # gzip bytes under a plain .jsonl name
    hidden.write_bytes(gzip.compress(_jsonl()))
    for path, said in ((hidden, "gzip-compressed"), (tmp_path / f"{TOO_LONG}.jsonl", "too long")):
        out = str(tmp_path / "out")
        code, text = _cli(
            "evaluate", str(path), "-m", "token_f1", "-q", "--executor", "stream", "-o", out
        )
        assert code == 2, text
        assert said in text and "not UTF-8" not in text and "internal error" not in text, text


def test_parquet_bytes_under_a_jsonl_name_are_named_parquet_by_the_local_executor(
    tmp_path: Path,
) -> None:
    """One "invalid JSON" problem per row of a Parquet file's bytes, never naming Parquet."""
    import pandas as pd

    path = tmp_path / "data.jsonl"
    pd.DataFrame([make_row(i) for i in range(1, 4)]).to_parquet(path)
    with pytest.raises(DataError) as err:
        ragmeter.load(str(path))
    assert len(err.value.problems) == 1
    assert "data.jsonl is a Parquet file" in str(err.value), str(err.value)
