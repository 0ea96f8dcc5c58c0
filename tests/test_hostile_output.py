"""Hostile text from the user's data or arguments in every output ragmeter writes: the JSON
of ``compare --json FILE``, click's usage errors, the HTML report and its charts, and the
summary of ``evaluate`` on a narrow terminal. Each test failed before the fix it names."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import make_row
from tests.needs import require_module
from typer.testing import CliRunner

from ragmeter.cli import _common, app
from ragmeter.cli import evaluate as cli_evaluate
from ragmeter.cli._common import CliConsole

# A terminal acts on each: clear the screen (ESC, and the one-byte CSI U+009B), reverse what
# follows (U+202E RLO), isolate (U+2066), DEL, a line separator.
NASTY = ["a\x1b[2Jb", "c\x9b31md", "p\u202egnp.exe", "i\u2066j", "d\x7fe", "l\u2028m"]
# raw in a file shown with cat: a C0 or C1 control, DEL, a bidi control or separator
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def invoke(*args: Any, columns: int = 250) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": str(columns)})
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("hostile")
    out = []
    for changed in (False, True):
        rows = [
            {
                "question_id": f"q{i}",
                "question": "What is x?",
                "contexts": ["x is y."],
                "answer": "x is nothing known" if changed and i % 2 else "x is y",
                "metadata": {"topic": NASTY[i % len(NASTY)]},
            }
            for i in range(2 * len(NASTY))
        ]
        data = _write(root / f"{changed}.jsonl", rows)
        run = root / f"run{int(changed)}"
        code, said = invoke("evaluate", data, "--judge", "none", "-m", "k_precision", "-o", run)
        assert code == 0, said
        out.append(run)
    return out[0], out[1]


def test_json_visible_escapes_what_a_terminal_acts_on_and_keeps_the_values():
    from ragmeter.md_escape import json_visible

    data = {"v": NASTY, "ok": 'é 中文 👩\u200d💻 \\ " \t'}
    text = json_visible(json.dumps(data, ensure_ascii=False))
    assert not RAW.findall(text) and "\\u009b" in text and "\\u202e" in text
    assert json.loads(text) == data
    ordinary = json.dumps({"ok": "é 中文 — x"}, ensure_ascii=False)
    assert json_visible(ordinary) == ordinary


def test_compare_json_file_holds_no_raw_c1_or_bidi_control(runs, tmp_path):
    """Before: ``--json FILE`` wrote U+009B and U+202E raw (only ``-f json`` escaped them)."""
    a, b = runs
    path = tmp_path / "c.json"
    code, said = invoke("compare", a, b, "--by", "topic", "--json", path)
    assert code == 0, said
    text = path.read_text(encoding="utf-8")
    assert not RAW.findall(text), RAW.findall(text)
    assert sorted(s["value"] for s in json.loads(text)["slices"]) == sorted(NASTY)
    # the same JSON as the one printed on stdout (``--json -``)
    code, out = invoke("compare", a, b, "--by", "topic", "--json", "-")
    assert code == 0 and json.loads(out) == json.loads(text)


@pytest.mark.parametrize(
    "args",
    [
        ["compare", "a", "b", "extra\u202egnp.exe\x1b[2J"],  # unexpected extra argument
        ["evaluate", "d.jsonl", "--bo\u202egus\x9b"],  # no such option
        ["ev\u202eal\x1b[2J"],  # no such command
        ["models", "li\u2066st"],  # no such command, in a sub-group
        ["models", "list", "--x\u202e\x9b"],  # no such option, in a sub-group's command
    ],
    ids=["extra-argument", "no-such-option", "no-such-command", "sub-command", "sub-option"],
)
def test_a_usage_error_shows_the_argument_escaped(args):
    """Before: click escaped C0 and C1 in some of these, never U+202E or U+2066: the
    error line was reversed from there on the terminal."""
    code, out = invoke(*args)
    assert code == 2, out
    assert "Error:" in out and not RAW.findall(out), RAW.findall(out)
    assert "\\u202e" in out or "\\u2066" in out, out


def test_a_usage_error_of_plain_text_is_unchanged():
    code, out = invoke("compare", "a", "b", "extra")
    assert code == 2 and "Got unexpected extra argument(s) (extra)" in out, out


def _hostile_run(tmp_path: Path) -> Path:
    from ragmeter.testing import Evaluator

    rows = [
        make_row(i, question_id=f"q\x00{i}\x1b[2J", question=f"Why\x00 {i}\x9b31m? \x07")
        for i in range(6)
    ]
    run = Evaluator(judge="scripted").evaluate(rows, ["token_f1"], n_resamples=20)
    run.write(tmp_path / "run")
    return tmp_path / "run"


def test_the_report_shows_nul_and_other_controls_as_escapes(tmp_path):
    """Before: NUL, ESC, BEL and U+009B of a sample's id and question were written raw into
    the page (NUL a parse error browsers replace, the rest shown as nothing)."""
    require_module("jinja2")
    require_module("matplotlib")
    from ragmeter.reporting import render_report

    html = render_report(_hostile_run(tmp_path), worst=6)
    raw = re.findall("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]", html)
    assert not raw, raw
    assert "q\\x000\\x1b[2J" in html and "Why\\x00 0\\x9b31m? \\x07" in html


def test_chart_labels_show_bidi_and_control_characters_escaped():
    """Before: an RLO in a metric name went raw into the SVG's <text> (which takes no
    <bdi>): the rest of the label was reversed; a NUL or ESC went in raw too."""
    require_module("matplotlib")
    from ragmeter.reporting import charts

    name = "m\u202eabc\x00\x1b"
    svgs = [
        charts.histogram([0.1, 0.5], name, "h", [0.2]),
        charts.delta_forest([name], [0.1], [0.0], [0.2], ["better"], "f"),
        charts.scatter([0.1, 0.5], [0.2, 0.4], name, "s"),
    ]
    for svg in svgs:
        assert not RAW.findall(svg), RAW.findall(svg)
        assert "m\\u202eabc\\x00\\x1b" in svg


def _summary_on_a_terminal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, columns: int) -> str:
    got = CliConsole(width=columns, force_terminal=True, emoji=False, color_system=None)
    for module in (_common, cli_evaluate):
        monkeypatch.setattr(module, "console", got)
    rows = [make_row(i, answer="The sky." if i % 2 else f"Fact {i} is blue.") for i in range(8)]
    data = _write(tmp_path / "d.jsonl", rows)
    metrics = "token_f1,k_precision,exact_match"
    result = CliRunner().invoke(app, ["evaluate", str(data), "--judge", "none", "-m", metrics])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_summary_under_40_columns_is_one_block_a_metric(monkeypatch, tmp_path):
    """Before: at 30 columns the summary kept the metric (cut: "token…") and half of the CI
    ("[0.708, …"), and the mean and the ok/undef/skip/fail columns were gone."""
    out = _summary_on_a_terminal(monkeypatch, tmp_path, 30)
    assert "…" not in out and "the table above is cut" not in out, out
    summary = out.split("failures:")[0]
    assert all(len(line) <= 30 for line in summary.splitlines()), out
    for name in ("token_f1", "k_precision", "exact_match"):
        assert f"metric {name}\n" in out, out
    assert re.search(r"^  mean    \d\.\d{3}$", out, re.M), out
    assert re.search(r"^  95% CI  \[\d\.\d{3}, \d\.\d{3}\]$", out, re.M), out
    assert re.search(r"^  fail    0$", out, re.M), out


def test_the_summary_at_80_columns_is_still_the_table(monkeypatch, tmp_path):
    out = _summary_on_a_terminal(monkeypatch, tmp_path, 80)
    assert "┃ metric" in out and "metric token_f1" not in out, out
    assert re.search(r"│ token_f1 +│ +\d\.\d{3} │", out), out
