"""A long table printed without rich's layout (cli._long_tables) is byte for byte what rich
prints, off a terminal and on one (escape codes included), user text literal.

Why: ``evaluate --by user`` over 4,000 slices spent 60% of its CPU in rich's table layout;
its slice table (padding (0, 1), a styled "small" cell) was not one the fast layout took."""

from __future__ import annotations

import io
import sys
from typing import Any

import pytest
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ragmeter.cli import _gates, _long_tables
from ragmeter.cli._common import literal, table_title
from ragmeter.slices import SliceRow

# markup, emoji codes, a trailing backslash, wide characters, spaces at either end
LABELS = ["[/x]", "[bold]t[/bold]", "a:smile:b", "tail\\", "wide 中文", " lead", "trail "]


def _slice_rows(n: int, ci: bool = True) -> list[SliceRow]:
    return [
        SliceRow(
            "k_precision",
            "user",
            f"{LABELS[i % len(LABELS)]}{i}",
            3 + i % 12,
            (i % 7) / 7,
            (i % 5) / 10 if ci else None,
            0.5 + (i % 5) / 10 if ci else None,
            (i % 7) / 7 - 0.4,
            3 + i % 12 < 10,
        )
        for i in range(n)
    ]


def _console(terminal: bool, emoji: bool = False) -> tuple[io.StringIO, Console]:
    out = io.StringIO()
    color = "truecolor" if terminal else None
    return out, Console(
        file=out, width=250, force_terminal=terminal, color_system=color, emoji=emoji
    )


def _rich_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_long_tables, "print_long", lambda console, table: False)


@pytest.mark.parametrize("terminal", [False, True])
@pytest.mark.parametrize("ci", [True, False])
def test_evaluates_slice_table_is_rich_s_bytes_without_rich_s_layout(
    monkeypatch: pytest.MonkeyPatch, terminal: bool, ci: bool
) -> None:
    rows = _slice_rows(400, ci)
    printed = []
    for fast in (False, True):
        out, console = _console(terminal)
        monkeypatch.setattr(_gates, "console", console)
        with monkeypatch.context() as m:
            if fast:  # rich's layout never runs
                m.setattr(Table, "__rich_console__", lambda *a, **k: sys.exit("laid out"))
            else:
                _rich_only(m)
            _gates.print_slices(rows, "[b]user", 0.9)
        printed.append(out.getvalue())
    assert printed[0] == printed[1]
    assert "slices by [b]user" in printed[1] and "90% CI" in printed[1]
    assert all(f"{label}{i} " in printed[1] for i, label in enumerate(LABELS))
    if terminal:
        assert "\x1b[33msmall\x1b[0m" in printed[1]  # the yellow flag is kept


def _table(padding: Any, title: Any, empty_last: bool, rows: int = 200) -> Table:
    table = Table(title=title, box=box.SIMPLE_HEAD, padding=padding)
    for i, header in enumerate(("metric", "x[b]", "n", "95% CI", "")):
        left = i in (0, 1, 4)
        table.add_column(literal(header), justify="left" if left else "right")
    for i in range(rows):
        label = f"{LABELS[i % len(LABELS)]}{i}"
        flag = "" if empty_last or i % 2 else "[yellow]small[/yellow]"
        cell = literal(label) if i % 3 else label.replace("[/x]", "x")  # str: markup
        table.add_row(literal("k"), cell, str(i), f"[{i / 1000:.3f}, 0.5]", flag)
    return table


@pytest.mark.parametrize("terminal", [False, True])
@pytest.mark.parametrize(
    ("padding", "title", "empty_last", "emoji"),
    [
        # titles: an even and an odd width left over to centre in (str.center differs);
        # rich's style, markup with it, none; no title
        ((0, 0), table_title("slices by x"), False, False),
        ((0, 0), table_title("slices by xy"), True, False),  # an empty column: 1 wide
        ((0, 1), table_title("slices by x"), False, True),
        ((0, 1), "slices by xy", True, False),
        ((0, 2, 0, 1), Text("plain"), False, False),
        ((0, 1), None, True, True),
        ((0, 0), "", False, False),
    ],
)
def test_plain_lines_are_rich_s_bytes(
    terminal: bool, emoji: bool, padding: Any, title: Any, empty_last: bool
) -> None:
    expected, console = _console(terminal, emoji)
    console.print(_table(padding, title, empty_last))
    got, console = _console(terminal, emoji)
    lines = _long_tables.plain_lines(console, _table(padding, title, empty_last), 250)
    assert lines is not None
    console.print(lines, soft_wrap=True)
    assert got.getvalue() == expected.getvalue()


@pytest.mark.parametrize(
    "change",
    [
        lambda t: setattr(t, "box", box.SIMPLE),
        lambda t: setattr(t, "show_lines", True),
        lambda t: setattr(t, "expand", True),
        lambda t: setattr(t.columns[2], "justify", "center"),
        lambda t: setattr(t.columns[1], "min_width", 40),
        lambda t: t.add_row("k", "tab\there", "1", "2", ""),
        lambda t: t.add_row("k", Text("styled", style="red"), "1", "2", ""),
        lambda t: t.add_row("k", "x", "1 ", "2", ""),  # rich strips it, right-justified
        lambda t: setattr(t, "title", "[i]styled[/i] title"),
    ],
)
def test_tables_rich_lays_out_otherwise_are_left_to_rich(change: Any) -> None:
    table = _table((0, 1), table_title("t"), False)
    change(table)
    assert _long_tables.plain_lines(Console(emoji=False), table, 10**9) is None
