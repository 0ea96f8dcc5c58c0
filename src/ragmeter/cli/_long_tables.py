"""Printing a long rich table (thousands of slices) in a fraction of rich's time.

Why: ``compare A B --by user`` with 4,000 slices spent 4 s of CPU in rich laying out the
slice table (every cell measured, then rendered, twice when the width is measured first),
more than the statistics. A table of plain cells in a simple box needs none of that: each
column is as wide as its widest cell, each line is the cells padded and joined. The lines
are the ones rich prints for such a table (tests/test_long_tables.py compares them); tables
that do not qualify (wrapping, other boxes, styled cells, too few rows to matter) are left
to rich. A cell of user text is a plain Text (cli._common.literal): its characters as they are.
"""

from __future__ import annotations

from typing import Any

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

LONG = 200  # rows from which the plain layout is used: below it rich takes a few ms
WIDEST = 10_000  # measuring a table at this width gives the width it needs


def print_table(console: Console, renderable: Any) -> None:
    """On a terminal, rich fits a table to the window (long cells wrap or fold). Elsewhere
    (a CI log, a pipe) there is no window: rich's 80-column default would cut cells (the
    verdict to 'wor', a slice label to '[bold]t[/bol…'), so a table is printed as wide as it
    needs. A long one (thousands of slices) is laid out without rich's measuring, the same
    lines in a fraction of the time."""
    if print_long(console, renderable):
        return
    if console.is_terminal or not isinstance(renderable, Table):
        console.print(renderable)
        return
    needed = console.measure(renderable, options=console.options.update_width(WIDEST)).maximum
    # a console of its own: Console.print(width=...) never goes beyond the console's width;
    # no emoji codes read, as the CLI's consoles (cli._common)
    wide = Console(file=console.file, width=max(console.width, needed), emoji=False)
    wide.print(renderable)


def plain_lines(console: Console, table: Table, width: int) -> Text | None:
    """The table as rich would print it at ``width``, or None when it does not qualify:
    fewer than LONG rows, a box other than SIMPLE_HEAD with no padding, a cell that is not
    a string or unstyled Text of one line, or a table wider than ``width`` (rich would wrap
    it)."""
    if table.row_count < LONG or table.box is not box.SIMPLE_HEAD or table.padding != (0, 0, 0, 0):
        return None
    raw = [[c.header, *c._cells] for c in table.columns]
    shown = [[_shown(console, cell) for cell in col] for col in raw]
    columns = [[cell for cell in col if cell is not None] for col in shown]
    if any(len(a) != len(b) for a, b in zip(columns, raw, strict=True)):
        return None  # a styled or other renderable: rich's own layout
    if any("\n" in cell for col in columns for cell in col):
        return None
    widths = [max(cell_len(cell) for cell in col) for col in columns]
    inner = sum(widths) + len(widths) - 1
    title = _shown(console, table.title, title=True) if table.title is not None else None
    if inner + 2 > width or (table.title is not None and title is None):
        return None
    if title is not None and ("\n" in title or cell_len(title) > inner + 2):
        return None  # rich would wrap it

    def line(cells: list[str]) -> str:
        padded = []
        for cell, w, col in zip(cells, widths, table.columns, strict=True):
            pad = " " * (w - cell_len(cell))
            padded.append(pad + cell if col.justify == "right" else cell + pad)
        return " " + " ".join(padded) + " "

    out = Text(no_wrap=True, overflow="ignore", end="\n")
    if title is not None:
        out.append(title.center(inner + 2) + "\n", "italic")
    out.append(" " * (inner + 2) + "\n")
    out.append(line([col[0] for col in columns]) + "\n", "bold")
    out.append(" " + "─" * inner + " \n")
    for i in range(table.row_count):
        out.append(line([col[i + 1] for col in columns]) + "\n")
    out.append(" " * (inner + 2))
    return out


def _shown(console: Console, cell: Any, title: bool = False) -> str | None:
    """The characters rich shows for a cell: a str is markup (and emoji codes, on a console
    that reads them); a Text is its own characters; None for anything else, and for a Text
    with styles (a title's may be rich's title style only)."""
    if isinstance(cell, str):
        return console.render_str(cell).plain if "[" in cell or ":" in cell else cell
    if not isinstance(cell, Text) or cell.spans:
        return None
    return cell.plain if cell.style in (("", "table.title") if title else ("",)) else None


def print_long(console: Console, table: Any) -> bool:
    """Print ``table`` the fast way when ``plain_lines`` can; False when it cannot."""
    if not isinstance(table, Table):
        return False
    lines = plain_lines(console, table, console.width if console.is_terminal else 10**9)
    if lines is None:
        return False
    console.print(lines, soft_wrap=True)
    return True
