"""The slices' CIs are made as the run's own: its confidence, its resamples (0: no CI) and its
seed. ``evaluate --by`` and ``report --by`` gave every slice a 95% CI of 1000 resamples, a
run made at 90% or without CIs (``n_resamples=0``: "[v, v]") included."""

from __future__ import annotations

import io
import json
import re
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rich.console import Console
from tests.conftest import make_row
from tests.needs import require_module
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import _gates, app
from ragmeter.errors import DataError
from ragmeter.result import EvaluationResult, bootstrap_ci
from ragmeter.slices import slice_summary

ANSWERS = ["Fact {i} is that the sky is blue.", "The sky is blue.", "Grass.", "No idea at all."]
SETTINGS = ragmeter.Settings(judge="none", embedder="none", cache=None)


def _rows() -> list[dict[str, Any]]:
    """8 users of 6 rows, their token_f1 spread over a few values."""
    rows = []
    for i in range(48):
        row = make_row(i, answer=ANSWERS[(i * 7 + i // 8) % 4].format(i=i))
        row["metadata"] = {"user": f"u{i % 8}"}
        rows.append(row)
    return rows


def _direct(result: EvaluationResult, label: str, **kw: Any) -> tuple[float, float]:
    """A slice's CI by the one-slice bootstrap, at the given settings."""
    values = [
        sc.value
        for s, sc in zip(result.samples, result.scores["token_f1"], strict=True)
        if s.metadata["user"] == label and sc.status == "ok"
    ]
    seed = kw.pop("seed") ^ zlib.crc32(f"token_f1/{label}".encode())
    return bootstrap_ci(np.asarray(values), seed=seed, **kw)


def _printed_slices(result: EvaluationResult, monkeypatch: pytest.MonkeyPatch) -> str:
    out = io.StringIO()
    console = Console(file=out, width=200, emoji=False)
    monkeypatch.setattr(_gates, "console", console)
    _gates.finish_evaluate(result, "user", {}, "mean")
    return out.getvalue()


def test_a_90_percent_runs_slices_have_its_90_percent_cis(monkeypatch: pytest.MonkeyPatch):
    result = ragmeter.evaluate(
        _rows(), ["token_f1"], settings=SETTINGS, confidence=0.9, n_resamples=300, seed=7
    )
    rows = slice_summary(result, "user")
    kw = {"confidence": 0.9, "n_resamples": 300, "seed": 7}
    assert all(r.ci_low is not None for r in rows)
    for r in rows:
        assert (r.ci_low, r.ci_high) == _direct(result, r.value, **dict(kw))
    printed = _printed_slices(result, monkeypatch)
    assert "90% CI" in printed and "95% CI" not in printed
    for r in rows:
        low, high = _direct(result, r.value, **dict(kw))
        assert re.search(rf" {r.value} .*\[{low:.3f}, {high:.3f}\]", printed)


def test_a_run_without_cis_has_slices_without_cis(monkeypatch: pytest.MonkeyPatch):
    result = ragmeter.evaluate(_rows(), ["token_f1"], settings=SETTINGS, n_resamples=0)
    assert result.aggregates["token_f1"].ci_low is None  # the overall: no CI
    rows = slice_summary(result, "user")
    assert rows and all(r.ci_low is None and r.ci_high is None for r in rows)
    printed = _printed_slices(result, monkeypatch)
    lines = [line for line in printed.splitlines() if " token_f1 " in line]
    assert len(lines) == 8 and all("[" not in line and " — " in line for line in lines)


def test_evaluate_by_gives_the_slices_the_runs_resamples(tmp_path: Path):
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in _rows()))
    args = ["evaluate", str(data), "--judge", "none", "--embedder", "none", "--cache", "off"]
    args += ["-m", "token_f1", "--by", "user", "--n-resamples", "40", "--seed", "3"]
    res = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    result = ragmeter.evaluate(_rows(), ["token_f1"], settings=SETTINGS, n_resamples=40, seed=3)
    for label in (f"u{i}" for i in range(8)):
        low, high = _direct(result, label, confidence=0.95, n_resamples=40, seed=3)
        assert re.search(rf" {label} .*\[{low:.3f}, {high:.3f}\]", res.output), label


@pytest.mark.parametrize("n_resamples", [300, 0])
def test_report_by_makes_the_slices_as_the_run_recorded(tmp_path: Path, n_resamples: int):
    require_module("jinja2")
    require_module("matplotlib")
    from ragmeter.reporting import render_report

    out = tmp_path / "run"
    kw = {"confidence": 0.9, "n_resamples": n_resamples, "seed": 5}
    result = ragmeter.evaluate(_rows(), ["token_f1"], settings=SETTINGS, out=out, **kw)
    html = render_report(out, by="user")
    section = html.split('<section id="slices">', 1)[1].split("</section>", 1)[0]
    assert "<th>90% CI</th>" in section
    for label in (f"u{i}" for i in range(8)):
        row = section.split(f'<td class="text">{label}</td>', 1)[1].split("</tr>", 1)[0]
        if n_resamples:
            low, high = _direct(result, label, **dict(kw))
            assert f"[{low:.3f}, {high:.3f}]" in row
        else:
            assert "[" not in row and "—" in row


def test_a_recorded_bootstrap_no_bootstrap_can_use_is_an_error_not_a_default():
    from ragmeter.slices import recorded_bootstrap

    assert recorded_bootstrap({}) == {"n_resamples": 1000, "confidence": 0.95, "seed": 0}
    fingerprint = {"n_resamples": 0, "confidence": 0.8, "bootstrap_seed": 9}
    assert recorded_bootstrap({}, {"fingerprint": fingerprint}) == {
        "n_resamples": 0,
        "confidence": 0.8,
        "seed": 9,
    }
    with pytest.raises(DataError, match="confidence = 95"):
        recorded_bootstrap({"confidence": 95})
