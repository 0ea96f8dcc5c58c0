"""The word classes ``wh_claim`` reads a question and its short answer with.

Why a module of its own: closed English word lists (auxiliaries, determiners, prepositions,
number words, month names) are data, kept apart from the rules that use them.
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
    rf"^(?:\d|{MONTH}\b|the\b|early\b|late\b|mid|spring|summer|autumn|fall|winter)", re.I
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
HOW_ADJ = {"high", "long", "tall", "old", "far", "deep", "big", "large", "wide", "heavy", "fast"}
WH_WORDS = {"who", "whom", "whose", "what", "which", "when", "where", "why", "how"}
PRONOUNS = {"i", "you", "he", "she", "it", "we", "they", "me", "him", "us", "them"}
VERB_SUFFIX = re.compile(r"(?:ates|izes|ises|ifies)$")
TWO_OBJECTS = {"call", "name", "consider", "term", "dub", "label", "deem", "elect", "nickname"}
