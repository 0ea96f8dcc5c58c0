"""Meta-eval as a demanding user meets it: the --out file is never left half-written, an
interrupted or aborted run says what it kept, a result that cannot be written is still shown,
and bad rows are refused before any judge call."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"


def test_a_write_cut_short_leaves_the_earlier_file_whole(tmp_path: Path) -> None:
    """A full disk while writing --out (here a file-size limit, as EFBIG) left the earlier
    run's JSON cut short under its name: it was written in place. Now it is written beside
    and renamed, so the old file stays whole, no temporary file is left, and OutputError
    says why."""
    out = tmp_path / "me.json"
    before = json.dumps({"agreement": {"faithfulness": 0.9}})
    out.write_text(before, encoding="utf-8")
    script = textwrap.dedent(
        f"""
        import resource, signal, sys
        sys.path.insert(0, {str(SRC)!r})
        from ragmeter.errors import OutputError
        from ragmeter.meta_eval import MetaEvalReport
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead
        report = MetaEvalReport([], "j", {{}}, {{"pairs": ["x" * 100] * 100}})
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        try:
            report.write({str(out)!r})
        except OutputError as exc:
            print("OutputError:", exc)
        """
    )
    got = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert got.returncode == 0, got.stderr
    assert "OutputError: --out" in got.stdout and "cannot be written" in got.stdout
    assert out.read_text(encoding="utf-8") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["me.json"]


def test_the_json_written_is_strict_json(tmp_path: Path) -> None:
    """The payload is JSON any reader takes: a non-finite number is null, not a bare NaN."""
    from ragmeter.meta_eval import MetaEvalReport

    report = MetaEvalReport([], "j", {}, {"agreement": {"faithfulness": float("nan")}})
    written = report.write(tmp_path / "me.json")

    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in the JSON")

    got = json.loads(written.read_text(encoding="utf-8"), parse_constant=refuse)
    assert got == {"agreement": {"faithfulness": None}}


@pytest.fixture()
def data(tmp_path: Path) -> Path:
    from test_meta_eval import ROWS

    path = tmp_path / "wikieval.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n", encoding="utf-8")
    return path
