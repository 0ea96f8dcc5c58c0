"""Numbers as values, for the default faithfulness's missing-name-or-number feature.

Why a module of its own: a claim and its context often write the same number differently
("2.8 million" / "2,800,000", "1998-03-03" / "3 March 1998", "76%" / "76.3%"), and a number
the context holds must not count as missing from it (``support.missing_specific``).
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from functools import lru_cache

_NUMBER = re.compile(
    r"(?<![\w.,])(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<frac>\d+))?(?!\d|[\w,]\d|[^\W\d_])"
    r"(?:\s*(?P<scale>thousand|million|billion|trillion|bn|mn)\b)?",
    re.IGNORECASE,
)
_SCALES = {"thousand": 3, "million": 6, "mn": 6, "billion": 9, "bn": 9, "trillion": 12}


def numbers(text: str) -> list[tuple[str, str, bool]]:
    """(the number as written, its exact value as a normalised decimal string, written with a
    scale word) for each number of ``text``: "2.8 million" -> ("2.8", "2800000", True),
    "2,800,000" -> ("2,800,000", "2800000", False), "03" -> ("03", "3", False). Ordinals and
    numbers glued to letters ("11th", "40mg") are not numbers here."""
    return [_parsed(m) for m in _NUMBER.finditer(text)]


def _parsed(m: re.Match[str]) -> tuple[str, str, bool]:
    digits = m.group("int").replace(",", "")
    frac = m.group("frac") or ""
    shift = _SCALES.get((m.group("scale") or "").lower(), 0)
    whole = (digits + frac + "0" * shift)[: len(digits) + shift].lstrip("0") or "0"
    rest = (frac + "0" * shift)[shift:].rstrip("0")
    value = f"{whole}.{rest}" if rest else whole
    written = m.group(0).split()[0] if m.group("scale") else m.group(0)
    return written, value, shift > 0


_UNIT = re.compile(r"\s*(%|per\s*cent\b|percent\b|[^\W\d_]+)")
# words that follow a number without naming what it counts ("in 1994 the", "3 of them")
_NOT_UNITS = frozenset(
    (
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "by",
        "for",
        "from",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "was",
        "were",
        "which",
        "while",
        "who",
        "with",
        "",
    )
)


def quantities(text: str) -> list[tuple[str, str, str]]:
    """(the number and its unit as written, the number's value, the unit's key) for each
    number followed by a word that names what it counts: "1,665 steps" -> ("1,665 steps",
    "1665", "step"), "30%" -> ("30%", "30", "%"), "9 November" -> ("9 November", "9",
    "novemb"). The key drops a plural "s" and keeps 6 letters ("metres" ~ "metre")."""
    out = []
    for m in _NUMBER.finditer(text):
        unit = _UNIT.match(text, m.end())
        if unit is None or unit.group(1).lower() in _NOT_UNITS:
            continue
        word = unit.group(1).lower()
        key = "%" if word[0] in "%p" and word.replace(" ", "") in ("%", "percent") else word
        key = key[:-1] if len(key) > 3 and key.endswith("s") else key
        out.append((text[m.start() : unit.end()].strip(), _parsed(m)[1], key[:6]))
    return out


def conflicting(statement: str, sentences: tuple[str, ...], question: str = "") -> list[str]:
    """The statement's quantities that the context gives another value for: the number is
    nowhere in the context (nor a rounding of a context value) nor in the question, and the
    context counts the same unit with another number. "The half-life of carbon-14 is about
    57,300 years." over "... a half-life of about 5,730 years ..." -> ["57,300 years"]; "An
    expense of 2,000 euros needs the budget owner's approval." to "Who approves an expense of
    2,000 euros?" over "Expenses from 500 to 5,000 euros ..." -> [] (the question's number).

    Why: such a statement is contradicted by the context, not merely unsupported; a judge
    that reads "57,300" and "5,730" as the same number says yes (the demo's P(yes) 0.85).
    """
    counted: dict[str, set[str]] = {}
    held: set[str] = set()
    for sentence in sentences:
        held.update(value for _, value, _ in numbers(sentence))
        for _, value, key in quantities(sentence):
            counted.setdefault(key, set()).add(value)
    held.update(value for _, value, _ in numbers(question))
    known = frozenset(held)
    return [
        written
        for written, value, key in quantities(statement)
        if key in counted and value not in known and not rounds_to(value, known)
    ]


def rounds_to(value: str, held: frozenset[str]) -> bool:
    """Is ``value`` a context value rounded (half up) to the claim's fewer decimals?

    Why: a claim often rounds what an abstract reports ("76-85% receive no treatment" over
    "76.3% to 85.4%"); the number is the context's, written less precisely, and was flagged
    missing, a strong sign of a hallucination. Only a more precise context value counts, so
    "2.9 million" is still missing from "2.8 million" and "3" from "2.5" is held, "2" is not.
    """
    return value in _rounded(held, _decimals(value))


def _decimals(value: str) -> int:
    return len(value.partition(".")[2])


@lru_cache(maxsize=256)
def _rounded(held: frozenset[str], places: int) -> frozenset[str]:
    quantum = Decimal(1).scaleb(-places)
    out = set()
    for h in held:
        if _decimals(h) > places:
            try:
                r = Decimal(h).quantize(quantum, rounding=ROUND_HALF_UP)
            except InvalidOperation:
                continue
            s = format(r.normalize(), "f") if places else str(int(r))
            out.add(s)
    return frozenset(out)
