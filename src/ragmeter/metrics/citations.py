"""Citation markers, source lists and attribution frames: pointers to the documents, not claims.

Why: RAG pipelines are often asked to cite ("Rome is the capital of Italy [1].", "... (Source
2)", OpenAI's "【4:0†source】", a closing "Sources: [1] Wikipedia"). Read as text, the marker's
number is a number the context does not hold, so ``missing_specific`` lowered a supported claim
(-0.64 in logit), the lexical support counted "1" as a new word the evidence lacks, and a
closing "Sources: [1] Wikipedia" became a short answer judged as 'The answer to "Q" is
Sources: [1] Wikipedia.' A pipeline that starts citing its sources would look less faithful
for saying the same thing (``benchmarks/faithfulness_visible.py --cite`` measures it).

What is taken out of the answer before its claims are split (listed in the score's details
with why):
- bracketed numbers: "[1]", "[1][2]", "[1, 3]", "[2-4]", markdown footnotes "[^1]" and
  "[^note]", full-width "【1】" and OpenAI's "【4:0†source】", superscript digits "¹²";
- named pointers: "[doc1]", "[Source 2]", "[Document 3]", "[context 1]", "(Source 1)",
  "(see Document 2)", "(Sources 1 and 3)", "(ref. 4)";
- a closing list of sources: a line that starts "Sources:", "References:", "Citations:" or
  "Bibliography" (alone or followed by the list), or a sentence of a line that starts
  "Sources:" ("... in 1871 [2]. Sources: [1] Wikipedia"), and everything after it;
- a markdown footnote's definition line ("[^1]: Wikipedia, the Rome article."): before, its
  marker went and ": Wikipedia, the Rome article." was judged as a short answer;
- a markdown link's target: "[Rome](https://en.wikipedia.org/wiki/Rome)" reads "Rome", as a
  reader sees it; a link whose text only points ("[source](...)", "[here](...)", "[2](...)")
  is a citation marker and goes whole, as does an image ("![map](map.png)");
- a sentence that only points to a source (``is_pointer``: "See https://... for more.",
  "For more information, visit the official website."): every word of it a pointing word
  once its URLs are set aside. Before, it was judged as a short answer to the question.

Frames around a claim ("According to the context, X", "The answer is X") are unwrapped in
``frames.py``.

Narrow on purpose: code is left as written (a fenced block, or inline between backticks:
"`array[1]`"), a parenthesised number needs a word that names a source ("(1871)" and "(2 km)"
stay), a number in double brackets ("[[1]]") is not a marker, and a sources line must not be
the answer's first line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_SOURCE_WORD = r"(?:sources?|doc(?:ument)?s?|refs?\.?|references?|contexts?|passages?|chunks?)"
_NUMS = r"\d+(?:\s*(?:[,;\u2013-]|and)\s*\d+)*"
# A marker takes the spaces before it along: each "\s*" before one is tried where a run of
# spaces starts or ends (``_RUN``; one space in after "[ ", where "(?<!\[)" starts it), never
# from inside the run, where it fails as it failed at the run's start: tried from every space,
# a line of 10,000 spaces took 0.8 s and one of 100,000 over a minute. For the same reason
# "\s*#?\s*" is written "\s*(?:#\s*)?".
_RUN = r"(?:(?<!\s)|(?!\s))"
_MARKER = re.compile(
    r"(?:" + _RUN + r"|(?<=\[\s))(?<!\[)\s*\[\^?" + _NUMS + r"\](?!\])"  # [1] [1, 3] [2-4] [^1]
    r"|" + _RUN + r"\s*\[\^[\w-]{1,20}\](?![:\]])"  # a named footnote: [^note]
    r"|" + _RUN + r"\s*\u3010[^\u3011\n]{1,40}\u3011"  # 【1】 【4:0†source】
    r"|(?<=[\w.,;:!?)])[\u00b9\u00b2\u00b3\u2070\u2074-\u2079]+"  # ¹²
    r"|" + _RUN + r"\s*\[\s*" + _SOURCE_WORD + r"\s*(?:#\s*)?" + _NUMS + r"\s*\]"  # [doc1]
    r"|" + _RUN + r"\s*\(\s*(?:see\s+)?" + _SOURCE_WORD + r"\s*(?:#\s*)?" + _NUMS + r"\s*\)",
    re.IGNORECASE,
)
_SOURCES_LINE = re.compile(
    r"^\s*(?:[#*_>]+\s*)?(?:sources?|references?|citations?|cited sources|bibliography)"
    r"(?:\s*[*_]+)?\s*(?::|$)",
    re.IGNORECASE,
)
# "... since 1871 [2]. Sources: [1] Wikipedia": the list starts after a sentence's end.
_INLINE_SOURCES = re.compile(
    r"(?<=[.!?\]])\s+(?:[*_]+)?(?:sources?|references?|citations?)(?:[*_]+)?\s*:", re.IGNORECASE
)
_FENCE = re.compile(r"^\s*(?:```|~~~)")
_FOOTNOTE_DEF = re.compile(r"^\s{0,3}\[\^[\w-]{1,20}\]:")
_IMAGE = re.compile(r"!\[[^\]\n]{0,200}\]\([^()\s]{1,500}(?:\s+\"[^\"\n]*\")?\)")
_LINK = re.compile(r"(?<!!)\[(?P<text>[^\]\n]{1,200})\]\([^()\s]{1,500}(?:\s+\"[^\"\n]*\")?\)")
_LINK_NUMBER = re.compile(r"^\s*\^?\d{1,3}(?:\s*[,\u2013-]\s*\d{1,3})*\s*$")
# A URL runs to its last character that is not punctuation closing the sentence (at least one
# character): "\S+?>?(?=[.,;:!?)\]]*(?:\s|$))" said the same but scanned the punctuation after
# each character, so "http://" and 20,000 dots took 8 s.
_URL = re.compile(r"<?(?:https?://|www\.)(?:\S*[^\s.,;:!?)\]]|\S)", re.IGNORECASE)
# The words of a sentence that points to a source and says nothing else.
_POINTING = frozenset((
    "see", "visit", "check", "out", "read", "refer", "consult", "learn", "find", "more",
    "further", "at", "on", "to", "for", "in", "of", "from", "information", "info", "details",
    "detail", "reading", "please", "here", "there", "the", "a", "an", "this", "it", "its", "you",
    "can", "may", "also", "and", "or", "about", "full", "original", "official", "following",
    "link", "links", "source", "sources", "website", "websites", "site", "page", "pages", "docs",
    "documentation", "article", "articles", "wikipedia", "wiki",
))  # fmt: skip
_POINTING_VERBS = frozenset({"see", "visit", "check", "read", "refer", "consult", "learn", "find"})


@dataclass
class Cited:
    """The answer without its citations, and what was taken out (with why)."""

    text: str
    dropped: list[dict[str, str]] = field(default_factory=list)


def strip_citations(text: str) -> Cited:
    """``text`` without citation markers and its closing list of sources."""
    lines = (text or "").splitlines()
    out = Cited("")
    kept: list[str] = []
    fenced = False
    content = (
        False  # a line kept so far has text (kept once: per line, 10,000 blank lines took 19 s)
    )
    for i, line in enumerate(lines):
        content = content or bool(kept and kept[-1].strip())
        if _FENCE.match(line):
            fenced = not fenced
        if fenced or _FENCE.match(line):
            kept.append(line)
            continue
        if i > 0 and content and _SOURCES_LINE.match(line):
            rest = "\n".join(lines[i:]).strip()
            out.dropped.append({"text": rest, "why": "a list of sources asserts nothing"})
            break
        inline = _INLINE_SOURCES.search(line)
        if inline is not None:
            rest = "\n".join([line[inline.start() :], *lines[i + 1 :]]).strip()
            out.dropped.append({"text": rest, "why": "a list of sources asserts nothing"})
            kept.append(_MARKER.sub(lambda m: _drop(m, out), line[: inline.start()]))
            break
        if _FOOTNOTE_DEF.match(line):
            out.dropped.append({"text": line.strip(), "why": "a footnote names a source"})
            continue
        # inline code (between backticks) is left as written: "`array[1]`" is an index
        parts = line.split("`")
        parts[::2] = [_MARKER.sub(lambda m: _drop(m, out), _links(p, out)) for p in parts[::2]]
        kept.append("`".join(parts))
    out.text = "\n".join(kept)
    return out


def _drop(match: re.Match[str], out: Cited) -> str:
    out.dropped.append(
        {"text": match.group(0).strip(), "why": "a citation marker points to a source"}
    )
    return ""


def _links(text: str, out: Cited) -> str:
    """Markdown links read as their text; images go (listed)."""
    if "](" not in text:
        return text

    def image(m: re.Match[str]) -> str:
        out.dropped.append({"text": m.group(0), "why": "an image is not a claim"})
        return ""

    def link(m: re.Match[str]) -> str:
        text = m.group("text")
        words = re.findall(r"[a-z]+", text.lower())
        if (words and not set(words) <= _POINTING) or (not words and not _LINK_NUMBER.match(text)):
            return text  # "[Rome](...)", "[1871](...)": the words a reader sees
        out.dropped.append({"text": m.group(0), "why": "a citation marker points to a source"})
        return ""  # "[source](...)", "[here](...)", "[1](...)": a marker, not words

    text = _LINK.sub(link, _IMAGE.sub(image, text))
    return re.sub(r"\s*\(\s*\)", "", text)


def is_pointer(piece: str) -> bool:
    """A sentence that only points to a source: "See https://en.wikipedia.org/wiki/Rome for
    more.", "For more information, visit the official website." (module docstring)."""
    words = re.findall(r"[a-z]+", _URL.sub(" ", piece).lower())
    return bool(words) and set(words) <= _POINTING and not _POINTING_VERBS.isdisjoint(words)
