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
    out = []
    for m in _NUMBER.finditer(text):
        digits = m.group("int").replace(",", "")
        frac = m.group("frac") or ""
        shift = _SCALES.get((m.group("scale") or "").lower(), 0)
        whole = (digits + frac + "0" * shift)[: len(digits) + shift].lstrip("0") or "0"
        rest = (frac + "0" * shift)[shift:].rstrip("0")
        value = f"{whole}.{rest}" if rest else whole
        written = m.group(0).split()[0] if m.group("scale") else m.group(0)
        out.append((written, value, shift > 0))
    return out


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
