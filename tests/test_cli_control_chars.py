"""Control characters in the user's data never reach a terminal raw from ragmeter.

A slice label, an id, a metric name or a server's error text is printed by the CLI; rich
passed an ESC in it to the terminal as it was, so a label "\\x1b[2J" cleared the screen,
"\\x1b]0;t\\x07" set the window's title, "\\x1b]8;;url\\x1b\\\\" made a hidden link, and
U+202E reversed the rest of the line (rich drops only \\a \\b \\v \\f \\r, silently). They are
shown as their escapes (``\\x1b``), on a terminal and in a pipe, in the tables, the lines,
the JSON and the Markdown that ``compare`` prints.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from ragmeter.cli import _common, _gates, app
from ragmeter.cli import compare as cli_compare
from ragmeter.cli import evaluate as cli_evaluate
from ragmeter.cli._common import CliConsole, literal
from ragmeter.compare_render import to_markdown
from ragmeter.md_escape import md_code, md_inline

# What each one does on a terminal: clear the screen, a hidden link, set the title, a CSI of
# C1, overwrite the line, erase a character, DEL, reverse what follows (bidi override).
NASTY = [
    "a\x1b[2Jb",
    "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\",
    "\x1b]0;title\x07t",
    "c\x9b31md",
    "ok\rEVIL",
    "x\x08\x08y",
    "d\x7fe",
    "p\u202egnp.exe",
]
SHOWN = [
    "a\\x1b[2Jb",
    "\\x1b]8;;http://evil\\x1b\\click\\x1b]8;;\\x1b\\",
    "\\x1b]0;title\\x07t",
    "c\\x9b31md",
    "ok\\rEVIL",
    "x\\x08\\x08y",
    "d\\x7fe",
    "p\\u202egnp.exe",
]
# Raw in the output: any of these is the terminal acting on the data, not showing it.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
SGR = re.compile("\x1b\\[[0-9;]*m")  # rich's own colours on a terminal


def _raw(text: str) -> list[str]:
    return RAW.findall(SGR.sub("", text).replace("\r\n", "\n"))


def _rows(changed: bool = False) -> list[dict[str, Any]]:
    rows = []
    for i in range(2 * len(NASTY)):
        answer = "x is nothing known" if changed and i % 2 else "x is y"
        rows.append(
            {
                "question_id": f"q{i}",
                "question": "What is x?",
                "contexts": ["x is y."],
                "answer": answer,
                "metadata": {"topic": NASTY[i % len(NASTY)]},
            }
        )
    return rows


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def invoke(*args: Any) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("ctl")
    a, b = root / "a", root / "b"
    for rows, out in ((_rows(), a), (_rows(changed=True), b)):
        data = _write(root / f"{out.name}.jsonl", rows)
        code, said = invoke("evaluate", data, "--judge", "none", "-m", "k_precision", "-o", out)
        assert code == 0, said
    return a, b


@pytest.fixture(params=[False, True], ids=["pipe", "terminal"])
def terminal(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """The CLI's stdout console as a pipe, or as a terminal (colours, a window to fit)."""
    if request.param:  # no file: sys.stdout as it is when printing, the runner's
        got = CliConsole(width=250, force_terminal=True, emoji=False)
        for module in (_common, _gates, cli_compare, cli_evaluate):
            monkeypatch.setattr(module, "console", got)
    return bool(request.param)


def test_visible_shows_each_control_character_as_its_escape():
    from ragmeter.md_escape import visible

    assert [visible(x) for x in NASTY] == SHOWN
    assert visible("line\nnext\ttab", keep="\n\t") == "line\nnext\ttab"
    assert visible("line\nnext\ttab") == "line\\nnext\\ttab"
    # ordinary text as it was: accents, CJK, emoji, a zero-width joiner, markup, backslashes
    ordinary = "é 中文 👩\u200d💻 [b]x[/b] C:\\tmp k_precision"
    assert visible(ordinary) == ordinary


def test_literal_and_cell_print_no_control_sequence_on_a_terminal():
    from ragmeter.cli._common import cell

    for text in NASTY:
        out = io.StringIO()
        console = Console(file=out, width=80, force_terminal=True, emoji=False)
        console.print(literal(text, "bold"), cell(text))
        assert not _raw(out.getvalue()), repr(out.getvalue())
    assert cell("a\nb").plain == "a\\nb" and literal("a\nb").plain == "a\nb"


def test_evaluate_by_shows_control_characters_escaped(runs, terminal, tmp_path):
    data = _write(tmp_path / "d.jsonl", _rows())
    code, out = invoke("evaluate", data, "--judge", "none", "-m", "k_precision", "--by", "topic")
    assert code == 0, out
    assert not _raw(out), [x for x in _raw(out)]
    for shown in SHOWN:
        assert shown in out, (shown, out)


def test_compare_table_shows_control_characters_escaped(runs, terminal):
    a, b = runs
    code, out = invoke("compare", a, b, "--by", "topic")
    assert code == 0, out
    assert not _raw(out), [x for x in _raw(out)]
    for shown in SHOWN:
        assert shown in out, (shown, out)


def test_compare_json_on_stdout_holds_no_raw_control_character(runs):
    a, b = runs
    code, out = invoke("compare", a, b, "--by", "topic", "-f", "json")
    assert code == 0, out
    assert not _raw(out), [x for x in _raw(out)]
    assert sorted({s["value"] for s in json.loads(out)["slices"]}) == sorted(NASTY)


def test_compare_markdown_shows_control_characters_escaped(runs, tmp_path):
    a, b = runs
    code, out = invoke("compare", a, b, "--by", "topic", "-f", "markdown")
    assert code == 0, out
    path = tmp_path / "c.md"
    code, said = invoke("compare", a, b, "--by", "topic", "--markdown", path)
    assert code == 0, said
    written = path.read_text()
    for text in (out, written):
        assert not _raw(text), [x for x in _raw(text)]
        assert "a\\x1b\\[2Jb" in text and "p\\u202egnp.exe" in text and "ok\\rEVIL" not in text


def test_markdown_escapes_leave_no_control_character():
    for text in NASTY:
        for said in (md_inline(text), md_code(text)):
            assert not _raw(said), repr(said)
    assert md_code("run\x1b[31m") == "`run\\x1b[31m`"
    # line breaks are still <br> in a cell, as before
    assert md_inline("a\r\nb\x85c") == "a<br>b<br>c"


class _Run:
    def __init__(self, name: str) -> None:
        self.name = name


def test_markdown_of_hostile_labels_keeps_the_table_and_pings_nobody():
    """| splits no cell, no tag or comment is HTML, no @mention, #issue, image or link."""
    import markdown_it

    from ragmeter.compare import compare

    labels = [
        "a|b",
        "x\ny",
        "`code`",
        "<script>alert(1)</script>",
        "<!-- hidden -->",
        "@octocat",
        "see #123",
        "![img](http://tracker/p.png)",
        "[click](http://evil)",
        "\x1b[2J",
        "中文👩\u200d💻\u202e",
        "L" * 10_000,
    ]
    import ragmeter

    rows = [
        {
            "question_id": f"q{i}",
            "question": "What is x?",
            "contexts": ["x is y."],
            "answer": "x is y",
            "metadata": {"topic": labels[i % len(labels)]},
        }
        for i in range(2 * len(labels))
    ]
    run = ragmeter.evaluate(rows, "k_precision", n_resamples=10)
    md = to_markdown(compare(run, run, by="topic", n_resamples=10))
    table = md.split("<details>", 1)[1].split("</details>", 1)[0].strip().splitlines()[2:]
    assert len(table) == 2 + len(labels), table  # header, rule, one row per label
    assert all(line.count("|") - line.count("\\|") == 10 for line in table), table
    html = markdown_it.MarkdownIt("commonmark").enable(["table"]).render(md)
    for bad in ("<script", "<!--", "<img", 'href="http://evil', "\x1b", "\u202e"):
        assert bad not in html, bad
    assert "@\u200b" not in md and "@&#8203;octocat" in md and "#&#8203;123" in md


WIDE_LABELS = [
    "L" * 10_000,
    "中文标签很宽",
    "emoji 👩\u200d💻🎉",
    "zero\u200bwidth\u200d",
    "rtl \u202eevil\u202c end",
    "[link=http://evil]click[/link]",
    "[/]",
    "[",
]


@pytest.mark.parametrize("columns", [80, 250])
def test_long_and_wide_labels_keep_the_table_on_a_terminal(tmp_path, monkeypatch, columns):
    """A 10k-character label folds in its column, CJK and emoji are measured as wide, markup
    is text, and a bidi override is shown, not obeyed: every line fits the window. Before,
    the long label also printed "note: the table above is cut", with every cell whole."""
    rows = [
        {
            "question_id": f"q{i}",
            "question": "What is x?",
            "contexts": ["x is y."],
            "answer": "x is y",
            "metadata": {"topic": WIDE_LABELS[i % len(WIDE_LABELS)]},
        }
        for i in range(2 * len(WIDE_LABELS))
    ]
    data = _write(tmp_path / "d.jsonl", rows)
    got = CliConsole(width=columns, force_terminal=True, emoji=False, color_system=None)
    for module in (_common, _gates, cli_evaluate):
        monkeypatch.setattr(module, "console", got)
    code, out = invoke("evaluate", data, "--judge", "none", "-m", "k_precision", "--by", "topic")
    assert code == 0, out
    assert not _raw(out), [x for x in _raw(out)]
    from rich.cells import cell_len

    table = out.split("slices by topic", 1)[1]
    assert all(cell_len(line) <= columns for line in table.splitlines()), table
    # the long label folded whole, not cut; no note that the table is cut (it said so)
    assert out.count("L") == 10_000 and "…" not in out, out
    assert "the table above is cut" not in out, out[-300:]
    if columns == 250:  # the other labels fit their column whole
        for label in ["rtl \\u202eevil\\u202c end", *WIDE_LABELS[1:4], *WIDE_LABELS[5:]]:
            assert f" {label} " in table, label


def test_a_long_label_folded_whole_is_not_called_cut(tmp_path, monkeypatch):
    """No control character here: only the 10k label that rich folds over lines. The note
    "the table above is cut to this terminal's 250 columns" was printed under it."""
    rows = [
        {
            "question_id": f"q{i}",
            "question": "What is x?",
            "contexts": ["x is y."],
            "answer": "x is y",
            "metadata": {"topic": ["L" * 10_000, "中文"][i % 2]},
        }
        for i in range(4)
    ]
    data = _write(tmp_path / "d.jsonl", rows)
    got = CliConsole(width=250, force_terminal=True, emoji=False, color_system=None)
    for module in (_common, _gates, cli_evaluate):
        monkeypatch.setattr(module, "console", got)
    code, out = invoke("evaluate", data, "--judge", "none", "-m", "k_precision", "--by", "topic")
    assert code == 0, out
    assert out.count("L") == 10_000 and " 中文 " in out
    assert "the table above is cut" not in out, out[-300:]


def test_an_id_with_a_line_break_cannot_forge_a_line_of_output(tmp_path):
    """Each failure is one line. An id "q0\\nEVIL: ..." printed a line of its own that read
    as ragmeter's; the break is shown as \\n now."""
    rows = [
        {"question_id": "q0\nnote: all scores passed", "question": "What is x?", "contexts": []},
        {"question_id": "q1", "question": "What is x?", "contexts": ["x is y."]},
    ]
    rows = [{**r, "answer": "x is y"} for r in rows]
    data = _write(tmp_path / "d.jsonl", rows)
    code, out = invoke("evaluate", data, "--judge", "none", "-m", "k_precision")
    assert code == 0, out
    assert "  q0\\nnote: all scores passed · k_precision · undefined: " in out, out
    assert not any(line.startswith("note: all scores") for line in out.splitlines()), out


def test_metrics_show_a_custom_metrics_description_and_formula_escaped():
    import ragmeter
    from ragmeter import Metric, Score
    from ragmeter.metrics import registry

    metric = Metric(
        name="ctl_metric",
        description="share\x1b[2J of answers",
        requires=(("answer",),),
        compute=lambda sample: Score.ok(0.5),
        formula="n\x9b31m / N\u202e",
    )
    ragmeter.register_metric(metric)
    try:
        code, out = invoke("metrics")
    finally:
        registry._FIXED.pop("ctl_metric", None)
        registry._GIVEN.pop("ctl_metric", None)
    assert code == 0, out
    assert not _raw(out), [x for x in _raw(out)]
    assert "    share\\x1b[2J of answers" in out and "    n\\x9b31m / N\\u202e" in out
