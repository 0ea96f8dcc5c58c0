"""Short reprs for results and reports: what a notebook or REPL shows for ``r`` or ``print(r)``.

Why a module of its own: the dataclass default printed every sample, context, score, the
config and the manifest (tens of kilobytes for 25 samples, and the settings a run recorded),
for ``EvaluationResult``, ``Run`` and the meta-eval reports alike. Here they share one
bounded layout: a title and at most ``MAX_ROWS`` rows of cells, as text or as an HTML table.
Every cell comes from user data (metric names, notes, paths, judge names), so each is shown
with its control characters escaped (``md_escape.visible``: a newline or an ANSI escape in a
metric name neither breaks the layout nor acts on the terminal), URLs without credentials
(``redact.public_text``), cut to ``MAX_CELL`` characters, and HTML-escaped in the table.
Settings and config are never shown: they are not passed here at all.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from ragmeter.md_escape import visible
from ragmeter.redact import public_text

MAX_ROWS = 20  # rows shown; the rest are counted ("... N more")
MAX_CELL = 60  # characters of one cell (a metric name, a note, a path)

Row = Sequence[str]


def cell(value: Any, limit: int = MAX_CELL) -> str:
    """``value`` as one line fit to show: secrets masked, controls escaped, cut to ``limit``."""
    text = visible(public_text(str(value)))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def quoted(value: Any, limit: int = 200) -> str:
    """``value`` as a Python string literal (``repr`` escapes every non-printable character),
    secrets masked, cut to ``limit`` characters: for a path shown as ``Run('runs/a', ...)``."""
    text = public_text(str(value))
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def num(value: float | None) -> str:
    """A number with 3 decimals, "—" where there is none."""
    return "—" if value is None else f"{value:.3f}"


def interval(low: float | None, high: float | None) -> str:
    """``[low, high]`` with 3 decimals, or "—" when there is no interval."""
    return "—" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"


def counts(**n: int) -> str:
    """``ok 23, skipped 2``: each non-zero count by name (``ok 0`` when all are zero)."""
    said = [f"{k} {v}" for k, v in n.items() if v]
    return ", ".join(said) or f"{next(iter(n), 'n')} 0"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def text(title: str, rows: Sequence[Row], footer: Sequence[str] = ()) -> str:
    """The title, then the first ``MAX_ROWS`` rows indented with their columns aligned, a
    "... N more" line for the others, then the footer lines. Cells must come from ``cell``
    (the caller's choice of what to escape is kept out of here, the layout is not)."""
    shown = list(rows[:MAX_ROWS])
    widths = [max(len(r[i]) for r in shown) for i in range(len(shown[0]))] if shown else []
    lines = [title]
    for row in shown:
        padded = [c.ljust(w) for c, w in zip(row[:-1], widths, strict=False)]
        lines.append(("  " + "  ".join([*padded, row[-1]])).rstrip())
    if len(rows) > MAX_ROWS:
        lines.append(f"  ... {len(rows) - MAX_ROWS} more")
    lines += [f"  {line}" for line in footer]
    return "\n".join(lines)


def table_html(title: str, header: Row, rows: Sequence[Row], footer: Sequence[str] = ()) -> str:
    """The same content as ``text`` as a small HTML table (no script, style sheet or other
    asset): every title, header, cell and footer HTML-escaped."""
    esc = html.escape
    out = [f"<div><strong>{esc(title)}</strong>", "<table>"]
    out.append("<tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr>")
    for row in rows[:MAX_ROWS]:
        out.append("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>")
    if len(rows) > MAX_ROWS:
        out.append(f'<tr><td colspan="{len(header)}">... {len(rows) - MAX_ROWS} more</td></tr>')
    out.append("</table>")
    out += [f"<p>{esc(line)}</p>" for line in footer]
    out.append("</div>")
    return "\n".join(out)


def aggregate_rows(aggregates: Sequence[Any]) -> list[tuple[str, str, str, str]]:
    """One row per metric aggregate (``result.Aggregate``): name, mean, CI, counts."""
    return [
        (
            cell(a.metric),
            num(a.mean),
            interval(a.ci_low, a.ci_high),
            counts(ok=a.n_ok, undefined=a.n_undefined, skipped=a.n_skipped, failed=a.n_failed),
        )
        for a in aggregates
    ]


def notes_line(notes: Sequence[Any]) -> list[str]:
    """``notes: N, first: ...`` (the first note as one short line), or nothing."""
    if not notes:
        return []
    return [f"{plural(len(notes), 'note')}, first: {cell(notes[0], 100)}"]
