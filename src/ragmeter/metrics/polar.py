"""Replies that only say yes or no, and the questions they answer.

Why: to a yes/no question, "Absolutely!", "Of course not.", "Yes, it is." and "It doesn't."
each claim the question's proposition or its negation, exactly as a bare "yes" or "no" does.
Judged as written they were not that claim: 'The answer to "Is Rome the capital of Italy?" is
Absolutely.' reads an adverb as the answer, and its word "absolutely" is in no passage, so its
lexical support was 0; "Certainly!" was dropped as a courtesy, leaving a yes without a claim;
"Yes, it is." was judged alone, a sentence whose "it" no context can support. Each is now
judged as the yes or no it gives: 'The answer to "Is Rome the capital of Italy?" is yes.'.

To a wh-question ("What is the capital of Italy?") the same words answer nothing: the "Yes!"
in "Yes! The capital is Rome." is an interjection, and only the second sentence is a claim.

English only, like the courtesy phrases (refusals, talk to the user and remarks on the documents
are also read in nine other languages: ``refusal_i18n``).
"""

from __future__ import annotations

import re
from typing import Literal

# Words a reply to a yes/no question may be made of, and nothing else: the yes or no,
# affirmations ("of course", "that's right"), and an elliptical clause ("it is", "they weren't").
_YES = frozenset(
    re.findall(
        r"\S+",
        "yes yeah yep yup certainly absolutely definitely sure indeed exactly correct right of "
        "course that's thats",
    )
)
_NO = frozenset(re.findall(r"\S+", "no nope not never neither nor cannot"))
_BARE = frozenset(re.findall(r"\S+", "yes yeah yep yup no nope"))
# an elliptical clause: a subject, an auxiliary, the adverbs such a reply carries
_SUBJECTS = frozenset(
    re.findall(
        r"\S+",
        "it they he she we i you there that this these those both all each either one so too "
        "also as well really at surely",
    )
)
_AUXILIARIES = frozenset(
    re.findall(
        r"\S+",
        "is are was were am be been do does did can could will would shall should has have had "
        "may might must it's they're he's she's there's that's we're i'm you're",
    )
)
_WORDS = _YES | _NO | _SUBJECTS | _AUXILIARIES
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
_NOT_A_REPLY = re.compile(r"[\d?]")  # a number or a question is content, not a yes or no

_AUX = (
    r"is|are|was|were|am|do|does|did|can|could|will|would|shall|should|has|have|had|may|might|"
    r"must"
)
_POLAR = re.compile(rf"^(?:(?:{_AUX})(?:n't)?|whether)\b", re.IGNORECASE)
_WH = re.compile(
    r"^(?:(?:in|on|at|from|to|for|by|with|of|during|since|until|after|before|under)\s+)?"
    r"(?:what|which|who|whom|whose|when|where|why|how)\b"
    r"|^name\b",
    re.IGNORECASE,
)


# "And is it ...?", "So, was it ...?": a connective or interjection before the question
_OPENING = re.compile(r"^(?:(?:and|so|but|oh|well|ok|okay|hey|also|then)\b[\s,]*)+", re.IGNORECASE)
# "Rome is the capital, right?", "..., isn't it?", "..., correct?"
_TAG = re.compile(
    r",\s*(?:right|correct|true|yes|no|(?:is|are|was|were|do|does|did|has|have|can|will|would)"
    r"n't\s+(?:it|they|he|she|there|that|you|we|i))\s*\?+\s*$",
    re.IGNORECASE,
)


def question_kind(turn: str) -> Literal["polar", "wh"] | None:
    """The kind of question a turn asks.

    "polar" for a yes/no question ("Is Rome the capital of Italy?", "Rome is the capital,
    isn't it?"; not the alternative question "Is it Rome or Milan?"); "wh" for a wh-question
    ("What ...?", "In which year ...?", "Name ..."); None for anything else (a request, a
    statement, no question)."""
    text = _OPENING.sub("", turn.strip().lstrip("\"'\u201c(*-").strip())
    if _WH.match(text):
        return "wh"
    if re.search(r"\bor\b", text, re.IGNORECASE):
        return None
    if _POLAR.match(text) or _TAG.search(text):
        return "polar"
    return None


def _words(piece: str) -> list[str]:
    return _WORD.findall(piece.lower().replace("\u2019", "'"))


def reply_polarity(piece: str) -> Literal["yes", "no"] | None:
    """The yes or no a reply made only of reply words gives ("Absolutely!" -> yes, "No, it
    isn't." -> no, "It does." -> yes); None for a piece with any content of its own ("Yes,
    Rome is.", "Maybe.", "It depends.", "I think so.")."""
    if _NOT_A_REPLY.search(piece):
        return None
    words = _words(piece)
    if not words or len(words) > 6:
        return None
    negative = [w in _NO or w.endswith("n't") for w in words]
    if any(w not in _WORDS and not neg for w, neg in zip(words, negative, strict=True)):
        return None
    if all(w in _SUBJECTS for w in words):  # "It.", "Both.": no yes, no no, no verb
        return None
    return "no" if any(negative) else "yes"


def only_affirms(piece: str) -> bool:
    """Only words of assent, no clause and no "no" ("Absolutely!", "Certainly.", "Of course!"):
    alone, the answer yes; before the answer's sentences ("Certainly! No, the Rhine is ..."),
    a courtesy."""
    words = _words(piece)
    return bool(words) and all(w in _YES for w in words)


def bare_yes_no(piece: str) -> bool:
    """Only "yes" or "no" words ("Yes.", "no", "Yeah!"): judged as written, case and all."""
    words = _words(piece)
    return bool(words) and all(w in _BARE for w in words)
