"""An answer's layout, not what it says: markdown headings, list markers, emphasis, lead-ins.

Why: generated answers are formatted. Before this module the claim splitter read layout as
text: "1. Rome is the capital." split into "1." (a short answer, so judged as the claim
'The answer to "Q" is 1.') and "Rome is the capital."; "## Overview", "**Key facts:**" and
"Here are the details:" were judged as claims too; "- It was founded in 753 BC." reached the
judge with its dash. Each such piece gets a low P(yes), so the same content scored lower
as a list than as prose, and a pipeline whose answers gained markdown looked less faithful
without saying anything different (WikiEval: 8 of its 50 ungrounded answers are numbered
lists; ``benchmarks/faithfulness_layout.py`` measures the effect).

What is layout (headings, labels, lead-ins and lone list numbers are listed in the score's
details with why; markers and emphasis are removed silently, as they carry no words):
- a markdown heading line ("## Overview"); a line that is only a label ending in a colon,
  emphasised or of at most ``LABEL_WORDS`` words ("**Key facts:**", "Steps:");
- a list marker at the start of a line ("- ", "* ", "+ ", "• ", "1. ", "2) ", "(3) ", "a) ",
  "b. " before a capital), the item's text kept; in an answer, a list written on one line
  ("1) Rome 2) Milan"; ``inline_list.py``) becomes a line per item; a lone number left
  between sentences when a list was flattened onto one line ("... capital. 2. It has ..."),
  but not an answer that is only a number ("2.");
- bold / italic markers (``**x**``, ``__x__``, ``*x*``), the text kept; in an answer, emoji
  ("✅ Rome", "Hope this helps! 😊"; a keycap digit "1️⃣" reads as the list number "1)");
- a markdown table: each row becomes the sentence it states, its cells named by the header
  ("| Italy | Rome |" under "| Country | Capital |" -> "Country is Italy; Capital is Rome.");
- a lead-in that only announces what follows ("Here are the details:", "The main points are
  as follows:", "To summarise:");
- the label an answer opens with ("Answer: Rome", "**Final answer:** Rome", "A: Rome",
  "Assistant: ..."; ``answer_label``), the answer kept: before, "Answer: Rome" was judged as
  'The answer to "Q" is Answer: Rome.'; on a later line, after the working, the labels that
  name an answer ("Final answer: Rome"), not "A:" (a dialogue's turn)

HTML tags (``without_html``: "<p>", "<br>", "<b>", ...; their text kept, a block tag ending its
line) and blockquote markers ("> ") are taken out first, silently, like emphasis.

Inside a fenced code block nothing is touched ("# x" there is a comment, not a heading).

Narrow on purpose: a heading or label is dropped only when it is the whole line; "Capital:
Rome is the capital." keeps its label as part of the claim, and "Rome has two airports:" (a
claim with a number) is not a lead-in.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from ragmeter.metrics.inline_list import inline_items

LABEL_WORDS = 4

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+\S")
_MARKER = re.compile(
    r"^(?P<indent>[ \t]*)(?:[-*+\u2022\u2023\u25e6\u25aa\u2013]|\(?\d{1,3}[.)]|\(\d{1,3}\)"
    r"|\(?[a-h]\)|[a-h]\.(?=\s+[A-Z0-9\"'(]))[ \t]+(?=\S)"
)
_BOLD = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_ITALIC = re.compile(r"(?<![\w*])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![\w*])")
_LIST_NUMBER = re.compile(r"^\(?(?:\d{1,3}|[a-h])[.)]$")
_LEAD_IN = re.compile(
    r"^(?:(?:so|sure|okay|ok|well|certainly|of course)[,!]?\s+)?"
    r"(?:here(?:\s+is|\s+are|'s|\u2019s)\b|here\s+(?:they|it|these|those)\s+(?:are|is)\s*$"
    r"|here\s+you\s+go\s*$|below\s+(?:is|are)\b|(?:in\s+(?:summary|short|brief)"
    r"|to\s+(?:summari[sz]e|sum\s+up))\s*$|(?:the\s+)?(?:key|main)\s+(?:points|facts|details)"
    r"\s+are\s*$|.{0,80}\b(?:as\s+follows|the\s+following)\s*$)",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d")
# a label names what follows and asserts nothing: no verb ("Rome has two airports:" asserts)
_VERB = re.compile(
    r"\b(?:is|are|was|were|be|been|has|have|had|do|does|did|can|will|would|includes?|"
    r"contains?|consists?|means?|lies|lie|lived?|won|became|makes?|made)\b",
    re.IGNORECASE,
)
_TRAILING_NUMBER = re.compile(r"(?<=:)\s*\(?\d{1,3}[.)]$")
_SUMMARY = r"tl;?\s*dr|summary|in\s+short|in\s+brief|bottom\s+line"
_ANSWER_LABEL = re.compile(
    r"^\s*(?:[*_>]+\s*)?(?:(?:(?:final|short|direct|brief)\s+)?(?:answer|response|reply|a|assistant"
    r"|ai|bot)|" + _SUMMARY + r")\s*(?:[*_]+\s*)?:\s*(?:[*_]+\s*)?(?=\S)",
    re.IGNORECASE,
)
# On a later line only the labels that name an answer: "A:" there may be a dialogue's turn.
_LATER_LABEL = re.compile(
    r"^\s*(?:[*_>]+\s*)?(?:(?:(?:final|short|direct|brief)\s+)?answer|" + _SUMMARY + r")\s*"
    r"(?:[*_]+\s*)?:\s*(?:[*_]+\s*)?(?=\S)",
    re.IGNORECASE,
)
_QUOTE = re.compile(r"^[ \t]{0,3}(?:>[ \t]?)+")  # a markdown blockquote's markers
# HTML an answer or a scraped context may carry: block tags end a line, inline tags go.
_HTML_TAG = re.compile(
    r"<(/?)(p|br|div|li|ul|ol|h[1-6]|tr|table|thead|tbody|blockquote|pre|section|article|b|i|em"
    r"|strong|span|a|u|sup|sub|code|small|mark|td|th|font|html|head|body|title|header|footer"
    r"|nav|main|aside|figure|figcaption|hr|img|meta|link|dl|dt|dd)\b[^<>]{0,500}?/?>",
    re.IGNORECASE,
)
_HTML_INLINE = frozenset(
    {"b", "i", "em", "strong", "span", "a", "u", "sup", "sub", "code", "small", "mark", "font"}
)
# Emoji and pictographs decorate an answer ("✅ Rome", "Hope this helps! 😊"); they are no words
# of a claim. A keycap digit ("1️⃣ Rome 2️⃣ Milan") is a list number.
_KEYCAP = re.compile("([0-9])\ufe0f?\u20e3")
_EMOJI = re.compile(
    "[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\ufe0e\ufe0f\u200d\U000e0020-\U000e007f]+"
)
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?\s*$")


@dataclass
class Plain:
    """The answer's text without its layout, and what was taken out (with why)."""

    text: str
    dropped: list[dict[str, str]] = field(default_factory=list)


def _unemphasise(line: str) -> str:
    """Bold and italic markers removed outside inline code (`__init__` stays as written)."""
    parts = line.split("`")
    for i in range(0, len(parts), 2):  # even parts are outside backticks
        parts[i] = _ITALIC.sub(r"\1", _BOLD.sub(r"\2", parts[i]))
    return "`".join(parts)


def _is_label(line: str, plain: str) -> bool:
    """A line that only names what follows: "**Key facts:**", "Steps:"."""
    if not plain.endswith(":") or _DIGITS.search(plain) or _VERB.search(plain):
        return False
    emphasised = line.strip().startswith(("**", "__", "*")) and len(plain.split()) <= 8
    return emphasised or len(plain.split()) <= LABEL_WORDS


# The sections a structured answer is written in ("Explanation: ...", "Evidence: ..."): the label
# goes, the text stays (and "The context states that X" is then unwrapped to X). The answer's
# confidence in itself ("Confidence: high", "(confidence: 95%)") asserts nothing about the world.
_SECTION = re.compile(
    r"^\s*(?:[*_]+\s*)?(?:explanation|reasoning|rationale|justification|(?:supporting\s+)?"
    r"evidence|(?:more\s+|further\s+|additional\s+)?(?:details|information|info)|analysis|quote|"
    r"context|background|long\s+answer|detailed\s+answer|key\s+(?:facts|points))\s*(?:[*_]+\s*)?:"
    r"\s*(?:[*_]+\s*)?(?=\S)",
    re.IGNORECASE,
)
# "(?:(?<!\s)|(?!\s))": "\s*\(" tried where a run of spaces starts or ends, not from inside it
# (where it fails as at the start): from every space, a line of 100,000 took minutes.
_CONFIDENCE = re.compile(
    r"^\s*(?:[*_]+\s*)?confidence(?:\s+(?:level|score))?\s*(?:[*_]+\s*)?[:=]\s*[\w.%/ -]{1,20}"
    r"[.!]?\s*$|(?:(?<!\s)|(?!\s))\s*\(\s*confidence(?:\s+(?:level|score))?\s*[:=]\s*"
    r"[\w.%/ -]{1,20}\)",
    re.IGNORECASE,
)


def _answer_line(plain: str, opening: bool, out: Plain) -> tuple[str, bool]:
    """A line of an answer without its labels: the one the answer opens with ("Answer: Rome"),
    a later "Final answer:", section labels and the answer's confidence; and whether the
    opening line is still to come."""
    first = opening and not is_lead_in(plain)  # "Here are the details:" comes before it
    if first:
        opening = False
        label = answer_label(plain)
        plain = label.text
        out.dropped.extend(label.dropped)
    elif (m := _LATER_LABEL.match(plain)) is not None:  # "...\nFinal answer: Rome"
        out.dropped.append({"text": m.group(0).strip(), "why": "a label asserts nothing"})
        plain = plain[m.end() :]
    return _sections(plain, out, first=first), opening


def _sections(plain: str, out: Plain, *, first: bool) -> str:
    """An answer's line without its section label and its statement of confidence. On a later
    line a label before a fragment stays, a key and its value ("Details: closed Mondays")."""
    m = _SECTION.match(plain)
    rest = plain[m.end() :] if m is not None else ""
    if m is not None and (first or len(rest.split()) > 2 or _VERB.search(rest)):
        out.dropped.append({"text": m.group(0).strip(), "why": "a label asserts nothing"})
        plain = rest
    for c in list(_CONFIDENCE.finditer(plain)):
        why = "the answer's confidence in itself asserts nothing"
        out.dropped.append({"text": c.group(0).strip(), "why": why})
    return _CONFIDENCE.sub("", plain).strip() if "onfidence" in plain.lower() else plain


def _announces(text: str) -> bool:
    """Text before a list that only announces it: a lead-in or a label ("Cities:")."""
    return is_lead_in(text) or _is_label(text, _unemphasise(text).strip())


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _table_rows(header: str, rows: list[str]) -> list[str]:
    """Each row of a markdown table as the sentence it states: "Country is Italy; Capital is
    Rome." (a row alone, "| Italy | Rome |", says nothing a judge can check; with its verb the
    row is a statement, never a short answer to rewrite)."""
    names = [_unemphasise(c) for c in _cells(header)]
    out = []
    for row in rows:
        cells = [_unemphasise(c) for c in _cells(row)]
        parts = [f"{n} is {c}" if n else c for n, c in zip(names, cells, strict=False) if c]
        if parts:
            out.append("; ".join(parts).rstrip(".") + ".")
    return out


_HTML_TABLE = re.compile(r"<table\b[^<>]*>(.*?)(?:</table\s*>|\Z)", re.IGNORECASE | re.DOTALL)
_ANY_TAG = re.compile(r"<[^<>]{0,500}>")
# Code and styles of a scraped page are not its text: removed with their content.
_HTML_CODE = re.compile(
    r"<(script|style|noscript|template)\b[^<>]{0,500}>.*?(?:</\1\s*>|\Z)", re.IGNORECASE | re.DOTALL
)


def _html_table(m: re.Match[str]) -> str:
    """An HTML table as a markdown one, so its rows become statements as a markdown table's do
    (end tags may be left out, as HTML allows)."""
    rows = []
    for chunk in re.split(r"<tr\b[^<>]*>", m.group(1), flags=re.IGNORECASE)[1:]:
        cells = re.split(r"<t[hd]\b[^<>]*>", chunk, flags=re.IGNORECASE)[1:]
        text = [
            " ".join(html.unescape(_ANY_TAG.sub(" ", c)).split()).replace("|", "/") for c in cells
        ]
        if any(text):
            rows.append("| " + " | ".join(text) + " |")
    if len(rows) < 2:
        return "\n" + "\n".join(rows) + "\n"
    rule = "| " + " | ".join("---" for _ in rows[0].split(" | ")) + " |"
    return "\n" + "\n".join([rows[0], rule, *rows[1:]]) + "\n"


def without_html(text: str) -> str:
    """HTML tags taken out, their text kept: "<p>Rome is <b>the</b> capital.</p>" -> "Rome is
    the capital."; a block tag ends its line; entities decoded ("&amp;" -> "&"); a table
    becomes a markdown table (its rows, statements); a page's scripts and styles go with
    their content. Text with no such tag is returned as it is
    ("a < b", "<Rome>")."""
    if "<" not in text or _HTML_TAG.search(text) is None:
        return text
    text = _HTML_TABLE.sub(_html_table, _HTML_CODE.sub("\n", text))

    def tag(m: re.Match[str]) -> str:
        name = m.group(2).lower()
        if name in _HTML_INLINE:
            return ""
        return " " if name in ("td", "th") else "\n"

    return html.unescape(_HTML_TAG.sub(tag, text))


def plain_text(text: str, *, answer: bool = False) -> Plain:
    """``text`` line by line: HTML tags, headings and labels dropped, blockquote and list
    markers and emphasis removed, a markdown table's rows stated as sentences; for an
    ``answer``, the label its first line of content opens with ("Answer: Rome") too, and a
    later line's "Final answer:"."""
    out = Plain("")
    opening = answer
    lines: list[str] = []
    prose: list[int] = []  # indices of lines of prose (not code, not blank, not a table's)
    fenced = False
    source = without_html(text or "").splitlines()
    i = 0
    while i < len(source):
        line = source[i]
        i += 1
        fences = line.count("```") + line.lstrip().startswith("~~~")
        if fenced or fences or not line.strip():
            lines.append(line)  # code is not markdown: "# x" in a fence is a comment
            fenced ^= fences % 2 == 1
            continue
        if "|" in line and i < len(source) and _TABLE_RULE.match(source[i]):
            rows = []
            i += 1
            while i < len(source) and "|" in source[i] and source[i].strip():
                rows.append(source[i])
                i += 1
            lines.extend(_table_rows(line, rows))
            continue
        line = _QUOTE.sub("", line)
        if answer:
            line = _EMOJI.sub("", _KEYCAP.sub(r"\1)", line)).rstrip()
            if not line.strip():
                continue
        if _HEADING.match(line):
            out.dropped.append({"text": line.strip(), "why": "a heading asserts nothing"})
            continue
        items = inline_items(line, is_lead_in=_announces) if answer else None
        if items is not None:  # "1) Rome 2) Milan": the items as lines of their own
            line, source[i:i] = items[0], items[1:]
        m = _MARKER.match(line)
        if m is not None:
            line = m.group("indent") + line[m.end() :]
        plain = _unemphasise(line).strip()
        if _is_label(line, plain):
            out.dropped.append({"text": line.strip(), "why": "a label asserts nothing"})
            continue
        if answer:
            plain, opening = _answer_line(plain, opening, out)
            if not plain:
                continue
        lines.append(plain)
        prose.append(len(lines) - 1)
    if answer and len(prose) > 1:  # "Capital: Rome" alone stays the answer to the question
        for j in prose:
            lines[j] = key_value(lines[j])
    out.text = "\n".join(lines)
    return out


_KEY_VALUE = re.compile(r"^(?P<key>[A-Za-z][A-Za-z' ]{0,30}?)\s*:\s+(?P<value>[^:]{1,60}?)[.;]?$")
_NOT_KEYS = frozenset(
    {"me", "you", "i", "we", "user", "human", "speaker", "q", "question", "a", "b", "assistant"}
    | {"ai", "bot", "system"}
)
_PRONOUN = re.compile(r"^(?:i|you|we|he|she|it|they|this|that)\b", re.IGNORECASE)


def key_value(line: str) -> str:
    """A line of an answer that pairs a name with a short value, stated: "Capital: Rome" ->
    "Capital is Rome." (a markdown table's row becomes such a statement too). Before, it was
    a short answer, judged as 'The answer to "Q" is Population: 2.8 million.', false as stated
    whenever the line was not the answer to the question. Narrow: the key is at most three
    words without a verb ("Note", a speaker, "Q" are not keys); the value at most four words,
    without a verb or a pronoun to start ("Note: the museum is closed." stays as written); and
    only in an answer of more than one line ("Capital: Rome" alone answers the question)."""
    m = _KEY_VALUE.match(line.strip())
    if m is None:
        return line
    key, value = m.group("key").strip(), m.group("value").strip()
    if (
        len(key.split()) > 3
        or key.lower() in _NOT_KEYS
        or key.lower() in ("note", "tip", "warning", "caution", "important", "nb", "ps")
        or _VERB.search(key)
        or len(value.split()) > 4
        or _VERB.search(value)
        or _PRONOUN.match(value)
        or value.endswith("?")
    ):
        return line
    return f"{key} is {value}."


def answer_label(text: str) -> Plain:
    """The answer without the label it opens with ("Answer: Rome" -> "Rome")."""
    m = _ANSWER_LABEL.match(text or "")
    if m is None:
        return Plain(text or "")
    return Plain(text[m.end() :], [{"text": m.group(0).strip(), "why": "a label asserts nothing"}])


def is_list_number(piece: str) -> bool:
    """A piece that is only a list number ("2.", "(3)", "b)")."""
    return bool(_LIST_NUMBER.match(piece.strip()))


def without_list_number(piece: str) -> str:
    """A list's first number split off the lead-in it was glued to on one line: "Here are the
    details: 1." -> "Here are the details:"."""
    return _TRAILING_NUMBER.sub("", piece.strip())


def is_lead_in(piece: str) -> bool:
    """A sentence that only announces what follows ("Here are the details:")."""
    text = piece.strip()
    if not text.endswith(":"):
        return False
    body = text.rstrip(": ")
    return bool(_LEAD_IN.match(body)) and not (
        _DIGITS.search(body) and not body.lower().startswith(("here", "below"))
    )
