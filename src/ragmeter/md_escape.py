"""User text in Markdown (a pull-request comment): shown as written, never read as syntax.

Why a module of its own: run names, metric names, slice labels and ids come from the user's
data, and Markdown turns much of it into something else (a table cell split by "|", a
heading from "#", a link from [t](url), emphasis eating "*"), and GitHub reads more into a
comment than Markdown does (see ``_GITHUB``). A terminal reads more still: ``visible``
shows its control characters as escapes, for the CLI's consoles and for Markdown printed on
stdout (``compare --markdown -``). Pure text, no ragmeter import.
"""

from __future__ import annotations

import re

# Every line break str.splitlines() knows (\r, \u2028, \x85, ...): any of them ends a
# Markdown line, so one in a slice label split its table row and started a heading.
_LINE_BREAK = re.compile(r"\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029\t"  # kept by html_text: <br> (a tab: a space)


# What a terminal acts on instead of showing: C0 controls (ESC starts the sequences that clear
# the screen "\x1b[2J", set the window title "\x1b]0;t\x07", hide a link "\x1b]8;;url\x1b\\";
# "\r" and "\b" overwrite what was printed), DEL, C1 controls ("\x9b" is a one-byte CSI), and
# the bidirectional controls and line separators that reorder or split what follows
# (U+202E shows "gpj.exe" as "exe.jpg": Trojan Source). rich passed all of these raw from a
# slice label, an id or a server's error text to the terminal (it drops only \a \b \v \f \r).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(char: str) -> str:
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def visible(text: str, keep: str = "") -> str:
    """``text`` with each control character (``_CONTROL``) but those in ``keep`` written as
    its Python escape (``\\x1b``, ``\\r``, ``\\u202e``): shown, never acted on. ``keep="\\n"``
    for a message of several lines; nothing kept for a table cell (one row, one line)."""
    return _CONTROL.sub(lambda m: m.group() if m.group() in keep else _escaped(m.group()), text)


# What json.dumps(ensure_ascii=False) and pydantic-core leave raw in a string and a terminal
# acts on when the file is shown (``cat compare.json``): DEL, the C1 controls ("\x9b" is a
# one-byte CSI) and the bidirectional controls and separators (U+202E reverses what follows).
# JSON escapes C0 itself; these occur only inside strings, so a \u escape is the same JSON.
_JSON_RAW = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def json_visible(text: str) -> str:
    """JSON text with each ``_JSON_RAW`` character as its ``\\uXXXX`` escape: the same
    values to ``json.loads``, never a control sequence when the file is printed."""
    if text.isascii() and "\x7f" not in text:  # the common case: nothing to look for
        return text
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


# Markdown that would turn user text into code, links or images: `x` showed '&lt;' verbatim
# (entities are literal in code), [t](url) became a link and ![t](url) fetched an image;
# *x*, _x_ and ~~x~~ lost their marks to emphasis (an "_" inside a word is text: k_precision).
_MD_SYNTAX = re.compile(r"([\\`\[\]*~]|(?<![^\W_])_|_(?![^\W_]))")
# What starts a block at the start of a line: "# x" a heading, "- x" or "1. x" a list, "==="
# or "---" a heading of the line above (">" and "*" are escaped already: "&gt;", "\*").
_MD_LEAD = re.compile(r"^(\s*(?:\d+(?=[.)]))?)([#+=.)-])")

# What GitHub makes of plain text in a comment, on top of Markdown: "@alice" or "@org/team"
# notifies them (a CI bot's comment pinging people), "#12", "GH-12" and "owner/repo#12" link
# an issue, a word of 7 or more hex digits a commit, ":tada:" is an emoji, and "https://x",
# "www.x" and "a@b.co" become links. An entity cannot stop any of these: "&#64;alice" is
# decoded to "@alice" before GitHub looks for mentions in the rendered text, and pings. So an
# invisible zero-width space goes where each pattern would go on ("@\u200balice": no name
# follows the "@"), and the comment shows the text as written. Words that merely hold an "@"
# (ndcg@10) or an "_" (k_precision) are left as they are. Code spans need none of this:
# GitHub links, pings and emojifies nothing inside code, and cmark-gfm autolinks no code.
_ZWSP = "\u200b"
_GITHUB = re.compile(
    r"(?<![a-z0-9])@(?=[a-z0-9])"  # a mention: @alice, @org/team
    r"|@(?=[\w.+-]*\.[a-z0-9])"  # an e-mail address (cmark-gfm links it): a@b.co
    r"|#(?=[0-9])"  # an issue: #12, owner/repo#12
    r"|(?<![a-z0-9])gh-(?=[0-9])"  # an issue: GH-12
    r"|:(?=[a-z0-9_+-]+:)"  # an emoji: :tada:, :+1:
    r"|:(?=//)"  # a link: https://x
    r"|www(?=\.)",  # a link: www.x
    re.IGNORECASE | re.ASCII,
)
# A commit: GitHub links a hex word of 7 to 40 digits that names one (any length is cut here).
# A run of digits alone is a number (a count, an id), which GitHub leaves as written: it
# keeps its digits together, so a number copied from the comment is the number.
_HEX_WORD = re.compile(
    r"(?<![a-z0-9])(?=[0-9]*[a-f])[0-9a-f]{7,}(?![a-z0-9])", re.IGNORECASE | re.ASCII
)


def _github_plain(text: str) -> str:
    """``text`` with a zero-width space wherever GitHub would read a mention, an issue or
    commit reference, an emoji or a bare link: no hex run of 7 digits is left whole."""
    text = _HEX_WORD.sub(lambda m: _ZWSP.join(re.findall(".{1,6}", m.group())), text)
    return _GITHUB.sub(lambda m: m.group() + _ZWSP, text)


def md_inline(text: str) -> str:
    """User text (slice labels, ids in warnings) made safe for one Markdown line: HTML
    escaped, backslashes, backticks, brackets and emphasis marks escaped, line breaks as
    <br> (GitHub shows them as breaks inside the cell), GitHub's mentions, references,
    emojis and bare links broken by a zero-width space (written ``&#8203;``, so the comment's
    source shows it), "$" (GitHub's math) as GitHub's documented ``<span>$</span>``."""
    text = html_text(_MD_SYNTAX.sub(r"\\\1", _github_plain(text)))
    return text.replace(_ZWSP, "&#8203;").replace("$", "<span>$</span>")


def md_line(text: str) -> str:
    """``md_inline`` for text that starts a line (a warning): a leading "#", "-", "1." is
    escaped, not a heading or a list."""
    return _MD_LEAD.sub(r"\1\\\2", md_inline(text))


def html_text(text: str) -> str:
    """Text inside raw HTML (the slices' <summary>, where Markdown escapes show verbatim);
    control characters ``visible`` (line breaks are ``<br>``, a tab is a space to HTML)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _LINE_BREAK.sub("<br>", visible(text, keep=_BREAKS))


def md_code(text: str) -> str:
    """User text (a run name) as one Markdown code span, shown exactly: no HTML escaping
    (entities are literal in code), a fence longer than any run of backticks inside, line
    breaks as spaces."""
    text = visible(_LINE_BREAK.sub(" ", text), keep="\t")
    fence = "`" * (max(map(len, re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
