"""The word classes ``wh_claim`` reads a question and its short answer with.

Why a module of its own: closed English word lists (auxiliaries, determiners, prepositions,
number words, month names) are data, kept apart from the rules that use them; so are the few
readings of a short answer that need nothing but these lists (which preposition a date or a
place takes, how an amount names the counted noun, which first word is lower-cased).
"""

from __future__ import annotations

import re

DO = {"do": "VBP", "does": "VBZ", "did": "VBD"}
BE = {"is", "are", "was", "were"}
MODAL = {"will", "would", "can", "could", "should", "may", "might", "must", "shall"}
PERFECT = {"has", "have", "had"}
AUX = BE | set(DO) | MODAL | PERFECT
DETERMINERS = {
    "the", "a", "an", "its", "their", "his", "her", "our", "my", "your", "this", "that",
    "these", "those", "each", "every", "some", "any", "no", "all", "both",
}  # fmt: skip
PREPOSITIONS = {
    "in", "on", "at", "to", "into", "from", "by", "for", "with", "of", "during", "since",
    "before", "after", "until", "between", "around", "about", "near", "off", "onto", "within",
    "through", "across", "under", "over", "via", "toward", "towards", "upon", "among", "inside",
    "per", "as", "than", "against", "along", "beyond", "throughout", "without", "like",
}  # fmt: skip
NUMBER_WORDS = {
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "several", "both",
}  # fmt: skip
TIME_NOUNS = {"year", "date", "day", "month", "century", "decade", "time", "season", "week"}
MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
DAY_DATE = re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+{MONTH}\b|\b{MONTH}\s+\d{{1,2}}\b", re.I)
IN_TIME = re.compile(
    rf"^(?:\d|{MONTH}\b|the\b|early\b|late\b|mid|spring|summer|autumn|fall|winter|q[1-4]\b)",
    re.I,
)
LOWER_FIRST = (
    DETERMINERS
    | PREPOSITIONS
    | NUMBER_WORDS
    | {
        "one", "eleven", "twelve", "twenty", "thirty", "forty", "fifty", "hundred", "thousand",
        "approximately", "roughly", "nearly", "almost", "just", "only", "over", "under", "more",
        "less", "least", "most", "many", "few", "pretty", "very", "quite", "fairly", "really",
        "exactly", "precisely", "some", "several", "up",
    }
)  # fmt: skip
# not "far": "How far is the Moon from Earth?" -> "The Moon from Earth is ... far" is wrong
HOW_ADJ = {"high", "long", "tall", "old", "deep", "big", "large", "wide", "heavy", "fast"}
# an amount goes before these: "5,895 m high"; not before "far", "big", "heavy", "fast"
# ("The Moon is 384,400 km far", "A cheetah is 120 km/h fast" are not English)
MEASURE_ADJ = {"high", "long", "tall", "old", "deep", "wide"}
# "What kind of animal is a dingo?", "What colour is the sky?": the answer is said of the
# subject, not the subject itself ("A wild dog is a dingo", "Blue is the sky" are wrong)
ATTRIBUTE_NOUNS = {
    "kind", "kinds", "type", "types", "sort", "sorts", "colour", "color", "nationality",
    "shape", "size", "genre", "breed", "species", "brand", "make", "model", "category",
    "class", "flavour", "flavor", "version", "form",
}  # fmt: skip
# "What percentage of the Earth ...": the answer is a share of the rest of the phrase
SHARE_NOUNS = {"percentage", "percent", "proportion", "share", "fraction", "portion"}
# "About 14 million" counts, it names no unit: "About 14 million people live in Tokyo"
SCALE_WORDS = {"hundred", "thousand", "million", "billion", "trillion", "dozen"}
WH_WORDS = {"who", "whom", "whose", "what", "which", "when", "where", "why", "how"}
PRONOUNS = {"i", "you", "he", "she", "it", "we", "they", "me", "him", "us", "them"}
VERB_SUFFIX = re.compile(r"(?:ates|izes|ises|ifies)$")
TWO_OBJECTS = {"call", "name", "consider", "term", "dub", "label", "deem", "elect", "nickname"}


def amount_phrase(a: str, noun: list[str], counted: bool) -> str:
    """The answer with the counted noun: "25" -> "25 days of leave"; "25 days" -> "25 days of
    leave" too (the unit is the noun's head, the rest of the noun is kept: "40 hours a week")."""
    words = a.split()
    if len(noun) > 1 and words[-1].lower().rstrip("s") == noun[0].lower().rstrip("s"):
        return f"{a} {' '.join(noun[1:])}"
    if counted and noun and words[-1].lower() in SCALE_WORDS:
        return f"{a} {' '.join(noun)}"  # "About 14 million" people
    return a if _says_noun(a, noun) else f"{a} {' '.join(noun)}"


def _says_noun(a: str, noun: list[str]) -> bool:
    """Does the answer name the counted thing itself ("206 bones", "about 2,900 reefs")?"""
    if not noun:
        return True
    head = noun[-1].lower().rstrip("s")
    return any(w.lower().rstrip("s.,") == head for w in a.split()) or bool(
        re.search(r"[a-z]{2}", a.split()[-1]) and len(a.split()) > 1
    )


def time_prep(a: str) -> str:
    first = a.split()[0].lower()
    if first in PREPOSITIONS or (
        first in ("early", "late") and len(a.split()) > 1 and a.split()[1] == "in"
    ):
        return ""
    if DAY_DATE.search(a):
        return "on"
    return "in" if IN_TIME.match(a) else ""


def place_prep(a: str) -> str:
    return "" if a.split()[0].lower() in PREPOSITIONS else "in"


def with_noun(noun: list[str], a: str, prep: str | None) -> str | None:
    """The answer as it stands for the wh-phrase: "71%" for "what percentage of the Earth" is
    "71% of the Earth". A phrase the answer does not stand for alone ("which of the planets",
    "what version of Python", "what kind of animal", "what colour") has no sure sentence."""
    low = [w.lower() for w in noun]
    if not low or (low[0] not in ATTRIBUTE_NOUNS and "of" not in low):
        return a
    if low[0] in SHARE_NOUNS and low[1:2] == ["of"] and prep is None:
        return f"{a} {' '.join(noun[1:])}"
    return None


def inner(answer: str) -> str:
    """The answer placed inside a sentence: a leading function word lower-cased ("At least
    140" -> "at least 140"; "Seven" -> "seven"), a name left as it is."""
    first, _, rest = answer.partition(" ")
    low = first.lower()
    if first[:1].isupper() and (first[1:] == "" or first[1:].islower()) and low in LOWER_FIRST:
        return f"{low} {rest}".strip()
    return answer
