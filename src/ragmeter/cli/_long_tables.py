"""Printing a long rich table (thousands of slices) in a fraction of rich's time.

Why: ``compare A B --by user`` with 4,000 slices spent 4 s of CPU in rich laying out the
slice table (every cell measured, then rendered, twice when the width is measured first),
more than the statistics; ``evaluate --by user`` spent 60% of its CPU the same way. A table
of one-line cells in a simple box needs none of that: each column is as wide as its widest
cell (plus its padding), each line is the cells padded and joined. The characters and the
styles are the ones rich prints for such a table, escape codes included (tests/
test_long_tables.py compares the bytes, off a terminal and on one); tables that do not
qualify (wrapping, other boxes or options, cells that rich would re-flow, too few rows to
matter) are left to rich. A cell of user text is a plain Text (cli._common.literal): its
characters as they are; a str cell is ragmeter's markup ("[yellow]small[/yellow]"), styled
as rich styles it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.markup import RE_TAGS
from rich.table import Table
from rich.text import Span, Text

from ragmeter.cli._common import CliConsole

LONG = 200  # rows from which the plain layout is used: below it rich takes a few ms
WIDEST = 10_000  # measuring a table at this width gives the width it needs
# ``print_table(..., blocks_below=WHENEVER_CUT)``: blocks at any width that would cut the
# table. Why for evaluate's summary: at 60 columns (a split pane) its means were "0.…" and
# its counts gone, with a note; the blocks show every value whole.
WHENEVER_CUT = WIDEST

# what rich would lay out otherwise: a tab (expanded), a line break (str.splitlines' set:
# rich measures a cell by it), control codes
_REFLOWED = re.compile("[\t\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")

Cell = tuple[str, tuple[Span, ...]]  # a cell's characters and its styles' spans in them


def print_table(console: Console, renderable: Any, blocks_below: int = 0) -> None:
    """On a terminal, rich fits a table to the window (long cells wrap or fold). Elsewhere
    (a CI log, a pipe) there is no window: rich's 80-column default would cut cells (the
    verdict to 'wor', a slice label to '[bold]t[/bol…'), so a table is printed as wide as it
    needs. A long one (thousands of slices) is laid out without rich's measuring, the same
    lines in a fraction of the time. ``blocks_below``: a terminal narrower than this many
    columns gets a table that would be cut as ``print_blocks``, one block a row."""
    if console.quiet or print_long(console, renderable):
        return  # quiet: its reader went away (a closed pipe, _common.reader_gone)
    if (
        console.is_terminal
        and console.width < blocks_below
        and isinstance(renderable, Table)
        and _cut_on_terminal(console, renderable)
    ):
        print_blocks(console, renderable)
        return
    if not console.is_terminal and isinstance(renderable, Text):
        # a legend or a gate line: one line in a CI log (rich broke it at 80 columns)
        console.print(renderable, soft_wrap=True)
        return
    if console.is_terminal or not isinstance(renderable, Table):
        console.print(renderable)
        if isinstance(renderable, Table) and _cut_on_terminal(console, renderable):
            console.print(_CUT.format(console.width), style="dim", highlight=False)
        return
    needed = console.measure(renderable, options=console.options.update_width(WIDEST)).maximum
    # a console of its own: Console.print(width=...) never goes beyond the console's width;
    # no emoji codes read, and a closed pipe outlived, as the CLI's consoles (cli._common)
    wide = CliConsole(file=console.file, width=max(console.width, needed), emoji=False)
    wide.print(renderable)
    console.quiet = console.quiet or wide.quiet  # its reader gone: so is the console's


def print_blocks(console: Console, table: Table) -> None:
    """``table`` as one block a row: its first cell (bold), then each other column as
    "header value" on a line of its own, as ``ragmeter metrics`` lists metrics. Why: under
    40 columns the summary of ``evaluate`` kept the metric and a cut "95% CI" ("[0.708, …")
    and dropped the mean and the ok/undef/skip/fail counts; a block shows every value whole
    at any width (a long one wraps)."""
    if table.title:
        console.print(table.title)
    headers = [str(c.header) for c in table.columns]
    pad = max(map(cell_len, headers[1:]), default=0)
    for i in range(table.row_count):
        cells = [_as_text(console, c._cells[i]) for c in table.columns]
        name = cells[0].copy()
        name.stylize("bold")
        console.print(Text.assemble((headers[0], "dim"), " ", name))
        for header, value in zip(headers[1:], cells[1:], strict=True):
            console.print(Text.assemble("  ", (header.ljust(pad), "dim"), "  ", value))


def _as_text(console: Console, value: Any) -> Text:
    """A cell as Text: a str is ragmeter's markup (``[red]1[/red]``), a Text the user's."""
    return value if isinstance(value, Text) else console.render_str(str(value))


_CUT = (
    "note: the table above is cut to this terminal's {} columns (… or columns missing): "
    "widen the window, or pipe the output (| cat, | less -S) for every cell whole"
)


def _cut_on_terminal(console: Console, table: Table) -> bool:
    """Whether rich cut a cell of ``table`` to fit the terminal. Why: at 40 columns a mean
    read "0.…" and the ok/undef/skip/fail columns were gone, without a word. Measured for
    tables under LONG rows only (measuring thousands of slices costs seconds)."""
    if table.row_count >= LONG:
        return False
    wide = console.options.update_width(WIDEST)  # at the console's width, clamped to it
    return console.measure(_unfolded(table), options=wide).minimum > console.width


def _unfolded(table: Table) -> Table:
    """``table`` with one character in each cell of a column that folds (a slice label):
    rich breaks a long word there over lines, cuts nothing, yet measures the word whole as
    the column's least width. Why: a 10,000-character label printed "the table above is
    cut" under a table with every cell whole, at any width. Other tables as they are."""
    if not any(c.overflow == "fold" and not c.no_wrap for c in table.columns):
        return table
    copy = Table(
        box=table.box,
        padding=table.padding,
        pad_edge=table.pad_edge,
        collapse_padding=table.collapse_padding,
        show_header=table.show_header,
        show_edge=table.show_edge,
        width=table.width,
        min_width=table.min_width,
        expand=table.expand,
    )
    for c in table.columns:
        if c.overflow == "fold" and not c.no_wrap:
            c = replace(c, header="x", _cells=["x"] * len(c._cells))
        copy.columns.append(replace(c, _index=len(copy.columns)))
    copy.rows = list(table.rows)
    return copy


def _qualifies(console: Console, table: Table) -> bool:
    """The table options whose layout ``plain_lines`` reproduces, and nothing else: rich's
    defaults, a SIMPLE_HEAD box, left/right padding only, left- or right-justified columns
    of no set width or style."""
    top, right, bottom, left = table.padding
    options = console.options
    return (
        table.row_count >= LONG
        and table.box is box.SIMPLE_HEAD
        and not (options.ascii_only or options.legacy_windows)  # rich swaps the box there
        and top == bottom == 0
        and table.pad_edge
        and not (table.collapse_padding and (left or right))
        and table.show_header
        and table.show_edge
        and not (table.show_footer or table.show_lines or table.leading or table.expand)
        and table.width is None
        and table.min_width is None
        and not (table.caption or table.row_styles or table.border_style or table.highlight)
        and table.style in ("", "none")
        and table.header_style == "table.header"
        and table.title_style is None
        and table.title_justify == "center"
        and all(
            c.justify in ("left", "right")
            and not (c.style or c.header_style or c.highlight or c.ratio)
            and c.width is None
            and c.min_width is None
            and c.max_width is None
            for c in table.columns
        )
    )


def plain_lines(console: Console, table: Table, width: int) -> Text | None:
    """The table as rich would print it at ``width``, or None when it does not qualify
    (``_qualifies``; a cell that is not a str or a Text of one line without a style of its
    own; a table wider than ``width``, which rich would wrap)."""
    if not _qualifies(console, table):
        return None
    _, pad_r, _, pad_l = table.padding
    markup: dict[str, Cell | None] = {}
    columns: list[list[Cell]] = []
    for c in table.columns:
        column = [_cell(console, cell, markup) for cell in [c.header, *c._cells]]
        if any(cell is None for cell in column):
            return None  # another renderable, or a style rich spreads over the padding
        cells: list[Cell] = column  # type: ignore[assignment]
        text = "".join(t for t, _ in cells)
        if _REFLOWED.search(text) or (
            c.justify == "right" and any(t != t.rstrip() for t, _ in cells)
        ):
            return None  # rich expands, breaks, or strips (right-justified) these
        columns.append(cells)
    # rich: each column its widest cell plus padding, at least 1; one space between columns
    widths = [max(1, max(cell_len(t) for t, _ in col) + pad_l + pad_r) for col in columns]
    total = sum(widths) + len(widths) + 1
    title = _title(console, table.title)
    if total > width or title is False or (title and cell_len(title[0]) > total):
        return None  # rich would wrap the table or its title
    lines = _Lines()
    if isinstance(title, tuple):
        # centred as rich's Text.align: the odd space on the right (str.center differs)
        left = total - cell_len(title[0])
        lines.add(" " * (left // 2) + title[0] + " " * (left - left // 2), title[1])
        lines.add("\n")
    lines.add(" " * total + "\n")
    justify = [c.justify == "right" for c in table.columns]
    for i in range(table.row_count + 1):
        header = i == 0
        lines.add(" ")
        for j, (col, w, right) in enumerate(zip(columns, widths, justify, strict=True)):
            text, spans = col[i]
            fill = " " * (w - pad_l - pad_r - cell_len(text))
            style = "table.header" if header else ""
            if w == pad_l + pad_r:  # no room for text: rich fills the cell in one piece
                lines.add(" " * w, style)
            else:  # rich styles a header's paddings and its text each apart
                shown, shift = (fill + text, len(fill)) if right else (text + fill, 0)
                lines.add(" " * pad_l, style)
                lines.add_cell(shown, spans, shift, style)
                lines.add(" " * pad_r, style)
            if j < len(columns) - 1:
                lines.add(" ")
        lines.add(" \n")
        if header:
            lines.add(" " + "─" * (total - 2) + " \n")
    lines.add(" " * total)
    return lines.text()


class _Lines:
    """The lines as one string and the spans of their styles, as rich's segments fall:
    a span wherever rich starts a segment with a style."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.spans: list[Span] = []
        self.pos = 0

    def add(self, text: str, style: str = "") -> None:
        if not text:
            return
        if style:
            self.spans.append(Span(self.pos, self.pos + len(text), style))
        self.parts.append(text)
        self.pos += len(text)

    def add_cell(self, shown: str, spans: tuple[Span, ...], shift: int, style: str) -> None:
        """A cell justified (``shown``: its characters and the fill, the characters ``shift``
        in); ``style`` over all of it, its own spans over its characters (later spans win in
        Text.render, as a cell's styles do over the header style in rich)."""
        if style:
            self.spans.append(Span(self.pos, self.pos + len(shown), style))
        if spans:
            start = self.pos + shift
            self.spans.extend(Span(start + s.start, start + s.end, s.style) for s in spans)
        self.parts.append(shown)
        self.pos += len(shown)

    def text(self) -> Text:
        return Text(
            "".join(self.parts), spans=self.spans, no_wrap=True, overflow="ignore", end="\n"
        )


def _cell(console: Console, cell: Any, markup: dict[str, Cell | None]) -> Cell | None:
    """A cell's characters and spans as rich shows them: a str is markup (and emoji codes,
    on a console that reads them), never highlighted in a table; a Text is its own
    characters and spans. None for anything else, and for a Text with a style, justify or
    overflow of its own (rich would spread the style over the padding, or lay it out)."""
    if isinstance(cell, str):
        if ":" not in cell and ("[" not in cell or not RE_TAGS.search(cell)):
            return cell, ()  # no tag, no emoji code: the characters as they are
        if cell not in markup:
            shown = console.render_str(cell, highlight=False)
            markup[cell] = _cell(console, shown, markup)
        return markup[cell]
    if not isinstance(cell, Text) or cell.style or cell.justify or cell.overflow:
        return None
    return cell.plain, tuple(cell.spans)


def _title(console: Console, title: Any) -> tuple[str, str] | bool | None:
    """The title's characters and style (rich's title style for a str, a Text's own);
    None for no title (rich prints none for ""); False for one the plain layout does not
    reproduce (spans, several lines, spaces rich would strip)."""
    if isinstance(title, str):
        title = console.render_str(title, style="table.title", highlight=False)
    if title is None or (isinstance(title, Text) and not title.plain):
        return None
    if not isinstance(title, Text) or title.spans or not isinstance(title.style, str):
        return False
    if _REFLOWED.search(title.plain) or title.plain != title.plain.rstrip():
        return False
    return title.plain, title.style


def print_long(console: Console, table: Any) -> bool:
    """Print ``table`` the fast way when ``plain_lines`` can; False when it cannot."""
    if not isinstance(table, Table):
        return False
    lines = plain_lines(console, table, console.width if console.is_terminal else 10**9)
    if lines is None:
        return False
    console.print(lines, soft_wrap=True)
    return True
