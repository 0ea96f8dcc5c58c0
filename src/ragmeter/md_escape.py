"""User text in Markdown (a pull-request comment): shown as written, never read as syntax.

Why a module of its own: run names, metric names, slice labels and ids come from the user's
data, and Markdown turns much of it into something else (a table cell split by "|", a
heading from "#", a link from [t](url), emphasis eating "*"). Pure text, no ragmeter import.
"""

from __future__ import annotations

import re

# Every line break str.splitlines() knows (\r, \u2028, \x85, ...): any of them ends a
# Markdown line, so one in a slice label split its table row and started a heading.
_LINE_BREAK = re.compile(r"\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


# Markdown that would turn user text into code, links or images: `x` showed '&lt;' verbatim
# (entities are literal in code), [t](url) became a link and ![t](url) fetched an image;
# *x*, _x_ and ~~x~~ lost their marks to emphasis (an "_" inside a word is text: k_precision).
_MD_SYNTAX = re.compile(r"([\\`\[\]*~]|(?<![^\W_])_|_(?![^\W_]))")
# What starts a block at the start of a line: "# x" a heading, "- x" or "1. x" a list, "==="
# or "---" a heading of the line above (">" and "*" are escaped already: "&gt;", "\*").
_MD_LEAD = re.compile(r"^(\s*(?:\d+(?=[.)]))?)([#+=.)-])")


def md_inline(text: str) -> str:
    """User text (slice labels, ids in warnings) made safe for one Markdown line: HTML
    escaped, backslashes, backticks, brackets and emphasis marks escaped, line breaks as
    <br> (GitHub shows them as breaks inside the cell)."""
    return html_text(_MD_SYNTAX.sub(r"\\\1", text))


def md_line(text: str) -> str:
    """``md_inline`` for text that starts a line (a warning): a leading "#", "-", "1." is
    escaped, not a heading or a list."""
    return _MD_LEAD.sub(r"\1\\\2", md_inline(text))


def html_text(text: str) -> str:
    """Text inside raw HTML (the slices' <summary>, where Markdown escapes show verbatim)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _LINE_BREAK.sub("<br>", text)


def md_code(text: str) -> str:
    """User text (a run name) as one Markdown code span, shown exactly: no HTML escaping
    (entities are literal in code), a fence longer than any run of backticks inside, line
    breaks as spaces."""
    text = _LINE_BREAK.sub(" ", text)
    fence = "`" * (max(map(len, re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
