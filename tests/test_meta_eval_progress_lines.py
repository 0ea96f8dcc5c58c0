"""meta-eval's progress on stderr: a line at each tenth of the rows (and the last), not one per
row. Why: a labelled file of 30,000 rows wrote 60,000 progress lines into a CI log;
evaluate's plain progress already prints every 10% or 30 s."""

from __future__ import annotations

import re
from pathlib import Path

from tests.test_fit_calibration import _cli, _rows, _write

import fake_server
from ragmeter.cli.meta_eval import _progress_due


def test_a_line_each_tenth_and_the_last() -> None:
    shown = [i for i in range(1, 61) if _progress_due(f"ragas: {i}/60 rows", 1.0)]
    assert shown == [6, 12, 18, 24, 30, 36, 42, 48, 54, 60]
    assert _progress_due("ragas: 7/60 rows", 31.0)  # 30 s without a line: one now
    assert [i for i in range(1, 4) if _progress_due(f"baseline: {i}/3 rows", 0.0)] == [1, 2, 3]
    assert _progress_due("loading the judge", 0.0)  # any other message: always


def test_the_cli_prints_at_most_eleven_lines_per_kind(tmp_path: Path) -> None:
    data = _write(tmp_path / "l.jsonl", _rows(30))  # 60 labelled rows
    with fake_server.FakeOpenAIServer() as server:
        res = _cli(server, data)
    assert res.exit_code == 0, res.output
    for kind in ("ragas", "baseline"):
        lines = [ln for ln in res.stderr.splitlines() if re.match(rf"{kind}: \d+/60 rows", ln)]
        assert 1 <= len(lines) <= 11, lines
        assert lines[-1].startswith(f"{kind}: 60/60 rows")
