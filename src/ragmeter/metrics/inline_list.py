"""A list written on one line of an answer: "1) Rome 2) Milan", "(a) Rome (b) Milan".

Why: a list marker is layout (``layout.py``), but only at the start of a line was it read as
one. Written inline, "1) Rome 2) Milan" lost its first marker and kept the second: the short
answer 'The answer to "Q" is Rome 2) Milan.', a claim about a city called "Rome 2) Milan";
"1. Rome 2. Milan" split into "Rome 2." and "Milan". The same items on two lines gave two
clean claims, so the score depended on the line breaks.

What counts as one: markers of one style ("1)", "(1)", "1.", "a)", "(a)") numbered 1, 2, 3, ...
(or a, b, c, ...) in order, at least two, each at the start of the line, after a space or after
a colon, each followed by an item with a word in it. Then:

- the line is only the list, or a lead-in and the list ("Here they are: 1) Rome 2) Milan"):
  each item becomes a line of its own, as if the list had been written one item a line
  ("1) Rome, 2) Milan and" -> "Rome", "Milan"; the joining "," / ";" / "and" / "or" go);
- the list is part of a sentence ("The cities are 1) Rome and 2) Milan."): the markers go
  and the sentence stays whole ("The cities are Rome and Milan."), a comma put between items
  that had nothing between them ("Cities: 1) Rome 2) Milan" -> "Cities: Rome, Milan").

Narrow on purpose: "Steps 1) and 2) are optional" is no list (an item must have a word other
than "and"/"or"), "1." markers need the line to be only the list or a colon before it ("in 1.
Rome 2. Milan" stays as written, and a year before a full stop is never "1."), and a lone "1)"
is left to ``layout``'s start-of-line rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_MARK = re.compile(
    r"(?:^|(?<=[\s:]))(?:\((?P<p>\d{1,2}|[a-h])\)|(?P<r>\d{1,2}|[a-h])\)|(?P<d>\d{1,2})\.)"
    r"(?=\s+\S)"
)
_JOINER = re.compile(r"(?:[\s,;]+(?:and|or))?[\s,;]*$", re.IGNORECASE)
_JOINED = re.compile(r"(?:[,;.!?]|\s(?:and|or))$", re.IGNORECASE)
_WORDS_ONLY_JOINERS = re.compile(r"^\W*(?:(?:and|or)\W*)*$", re.IGNORECASE)


def _ordinal(label: str) -> int:
    return int(label) if label.isdigit() else ord(label) - ord("a") + 1


def _chain(line: str) -> list[re.Match[str]]:
    """The run of markers of one style numbered 1, 2, 3, ... in order from the first "1" that
    a "2" of its style follows (the run is then at least two long).

    Why not a run tried from every "1": a line of 8,000 characters of "1) 1) 1) ..." took 5 s
    (each "1" scanned the rest of the line for its "2")."""
    marks = [(m, s, _ordinal(m.group(s))) for m in _MARK.finditer(line) if (s := m.lastgroup)]
    last_two = {style: k for k, (_, style, n) in enumerate(marks) if n == 2}  # the last "2"s
    for k, (first, style, n) in enumerate(marks):
        if n == 1 and k < last_two.get(style, -1):
            run = [first]
            for m, other, number in marks[k + 1 :]:
                if other == style and number == len(run) + 1:
                    run.append(m)
            return run
    return []


def inline_items(line: str, *, is_lead_in: Callable[[str], bool] | None = None) -> list[str] | None:
    """The line's items as lines (the lead-in first, if any), the line without its markers
    (one line), or None when it holds no list written inline (module docstring).

    ``is_lead_in``: a callable telling whether the text before the list only announces it."""
    run = _chain(line)
    if not run:
        return None
    prefix = line[: run[0].start()].strip()
    ends = [m.start() for m in run[1:]] + [len(line)]
    items = [line[m.end() : end].strip() for m, end in zip(run, ends, strict=True)]
    if any(_WORDS_ONLY_JOINERS.match(item) for item in items):
        return None  # "Steps 1) and 2) are optional": numbers named, not a list
    announced = not prefix or (is_lead_in is not None and is_lead_in(prefix))
    if run[0].lastgroup == "d" and not (announced or prefix.endswith(":")):
        return None  # "in 1. Rome 2. Milan": too like sentences ending in a number
    if announced:
        heads = [prefix] if prefix else []
        return heads + [_JOINER.sub("", item) or item for item in items[:-1]] + [items[-1]]
    joined = [item if _JOINED.search(item) else f"{item}," for item in items[:-1]]
    return [" ".join([prefix, *joined, items[-1]])]
