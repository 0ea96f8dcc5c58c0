"""A Ctrl-C that no executor handler catches (a second one, landing while the aggregates are
computed) leaves run.json "interrupted", not "running" for ever; a run already "complete"
keeps its status."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import make_row

import ragmeter
from ragmeter import runner


def _status(out: Path) -> str:
    return str(json.loads((out / "run.json").read_text())["status"])


def test_a_ctrl_c_past_the_handlers_leaves_run_json_interrupted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def late_ctrl_c(*args: object, **kw: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "aggregate", late_ctrl_c)
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        ragmeter.evaluate([make_row(i) for i in (1, 2)], ["token_f1"], out=out)
    assert _status(out) == "interrupted"
    doc = json.loads((out / "run.json").read_text())
    assert "re-run the same command" in doc["error"]
    monkeypatch.undo()
    ragmeter.evaluate([make_row(i) for i in (1, 2)], ["token_f1"], out=out)  # resumes
    assert _status(out) == "complete"


def test_a_ctrl_c_after_the_files_are_written_keeps_complete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    real = ragmeter.EvaluationResult.write

    def written_then_ctrl_c(self: ragmeter.EvaluationResult, path: object) -> object:
        real(self, path)
        raise KeyboardInterrupt

    monkeypatch.setattr(ragmeter.EvaluationResult, "write", written_then_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        ragmeter.evaluate([make_row(1)], ["token_f1"], out=out)
    assert _status(out) == "complete"
