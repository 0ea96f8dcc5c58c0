"""Fitting a wide table to a narrow terminal: its columns folded into several tables, each
led by the columns that say which row is which.

Why: ``compare A B`` at 60 columns printed its ten columns cut evenly by rich: the metric
column was gone (every row "…"), the means cut to "mean…", and a note said the table was
cut. A user saw numbers without knowing which metric they were for. Folded, every part
repeats the metric (and, for slices, the slice), so nothing said is cut off its row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

WIDEST = 10_000  # measuring at this width gives a cell's natural width


def fold(
    console: Console, table: Table, width: int, keep: int, first: Sequence[int] = ()
) -> list[Table]:
    """``table`` as one or more tables no wider than ``width`` where the cells allow: each
    has the ``keep`` leading columns, then as many of the others as fit, taken ``first``
    first, then left to right (each part shows its columns in the table's order). A part
    always gets one column besides the kept ones, so a window narrower than that still
    shows it (rich wraps the kept columns there, the only wrapping ones)."""
    n = len(table.columns)
    widths = _widths(console, table) if keep < n else []
    if keep >= n or sum(widths) + _extra(table, n) <= width:
        return [table]
    rest = [*first, *(i for i in range(keep, n) if i not in first)]
    groups: list[list[int]] = []
    while rest:
        group = list(range(keep))
        while rest and (
            len(group) == keep
            or sum(widths[i] for i in [*group, rest[0]]) + _extra(table, len(group) + 1) <= width
        ):
            group.append(rest.pop(0))
        groups.append(sorted(group))
    return [_part(table, group, index) for index, group in enumerate(groups)]


def _widths(console: Console, table: Table) -> list[int]:
    """Each column's natural width, its padding included."""
    _, pad_r, _, pad_l = table.padding
    seen: dict[str, int] = {}
    return [
        max(_width(console, cell, seen) for cell in [c.header, *c._cells]) + pad_l + pad_r
        for c in table.columns
    ]


def _width(console: Console, cell: Any, seen: dict[str, int]) -> int:
    """A cell's natural width: its longest line. Why not rich's Measurement alone: it took
    5 s over a 4,000-slice table; a Text or a markup str is measured by its characters."""
    if isinstance(cell, str):
        if cell not in seen:
            seen[cell] = _width(console, console.render_str(cell, highlight=False), seen)
        return seen[cell]
    if isinstance(cell, Text):
        return max(map(cell_len, cell.plain.splitlines() or [""]))
    return Measurement.get(console, console.options.update_width(WIDEST), cell).maximum


def _extra(table: Table, n_columns: int) -> int:
    """The characters a table adds to its cells: its edges and the rules between columns
    (rich's Table._extra_width for ``n_columns`` columns)."""
    if not table.box:
        return 0
    return (2 if table.show_edge else 0) + n_columns - 1


def _part(table: Table, columns: list[int], index: int) -> Table:
    """The table with only ``columns`` (same rows, options and styles); the first part keeps
    the title, the others say they continue it."""
    title = table.title if index == 0 else Text("(continued)", style="table.title")
    part = Table(
        title=title,
        box=table.box,
        padding=table.padding,
        show_header=table.show_header,
        show_edge=table.show_edge,
        header_style=table.header_style,
    )
    part.columns = [replace(table.columns[i], _index=n) for n, i in enumerate(columns)]
    part.rows = list(table.rows)
    return part
