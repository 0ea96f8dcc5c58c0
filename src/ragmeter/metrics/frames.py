"""Frames around a claim: words that say where a claim comes from, that it is the answer, or how
sure the speaker is, and that the claim itself does not contain.

Why: faithfulness checks the claim against the context. The frame's words are not in the
context, so they lowered the lexical support of a claim that the context holds word for word,
and a short answer framed as a sentence was judged without its question. Unwrapped:

- an attribution to the documents, before or after the claim (``unwrap_attribution``):
  "According to the context, Rome is the capital.", "The passage states that ...", and
  "Rome is the capital, according to the context.", "... (as stated in Document 2)." claim
  that Rome is the capital. Before, the lexical support of "Based on the provided documents,
  the capital of Italy is Rome." was 0.19 instead of 1.0, and of "The capital of Italy is Rome,
  according to the context." 0.25. A source in the world ("according to Livy") is no frame,
  nor is a negation ("The context does not say ...": a refusal or a claim about the context);
- a hedge before the claim: "I believe it's Rome.", "Probably Rome.", "Most likely, the capital
  is Rome.", "It seems that ..." claim what follows (RAGAS's statements state the claim; the
  hedge is the speaker's, not the world's). A bare hedge ("I think so.") asserts nothing
  (``claims.py``);
- the answer frame (``unwrap_answer``): "The answer is Rome.", "So the final answer is: no",
  "My answer is Rome.", "The answer: Rome", "Rome is the correct answer." are the short
  answer "Rome", judged as the claim it makes about the question; before, the judge read "The
  answer is: Rome." without the question, and "The answer is: yes" was taken for an
  instruction to the evaluator ("answer ... yes").

English only, like the other phrase lists.
"""

from __future__ import annotations

import re

from ragmeter.metrics.untrusted import _evaluator_match

_POLAR = re.compile(r"^(?:yes|no|true|false)\W*$", re.IGNORECASE)

_DOCS = (
    r"(?:the\s+)?(?:provided\s+|given\s+|retrieved\s+|above\s+|available\s+)?"
    r"(?:context|passages?|documents?|texts?|sources?|information|excerpts?|articles?|snippets?"
    r"|knowledge|references?|materials?)(?:\s+(?:provided|given|above|#?\d+))?"
)
_FRAMES = (
    re.compile(
        r"^(?:according\s+to|based\s+on|as\s+per|per|from|in|as\s+(?:stated|mentioned|noted|"
        r"described|shown|indicated|explained|given)\s+in)\s+" + _DOCS + r"\s*,\s*(?P<claim>.+)$",
        re.IGNORECASE | re.DOTALL,
    ),
    re.compile(
        r"^" + _DOCS + r"\s+(?:states?|says?|mentions?|indicates?|notes?|explains?|shows?|"
        r"suggests?|reports?|confirms?|specifies|describes)\s+(?:that\s+)?(?P<claim>.+)$",
        re.IGNORECASE | re.DOTALL,
    ),
)
# "The answer is Rome.", "So the final answer is: no": the answer to the question is X
_ANSWER_FRAME = re.compile(
    r"^(?:(?:so|thus|therefore|hence)\s*,?\s+)?(?:the\s+|my\s+)?(?:final\s+|short\s+|correct\s+|"
    r"direct\s+)?answer(?:\s+to\s+(?:the|your|this)\s+question)?(?:\s+is(?:\s*:\s*|\s+(?-i:that)\s+|"
    r"\s+)|\s*:\s+|\s+[-\u2013\u2014]\s+)"
    r"(?P<claim>.+)$",  # "is: That is ..." keeps its "That"; "is that X" claims X
    re.IGNORECASE | re.DOTALL,
)


# "..., according to the context.", "... (as stated in Document 2).", "... per the sources.":
# the frame from where it starts (a comma, a parenthesis, or a space before "according to the
# context") to the end; the claim is the text before it. Matched at each place such a frame
# may start, leftmost first, a run of spaces taken whole ("(?=(?P<w>\s*))(?P=w)"): before, one
# pattern "^(?P<claim>.+?)\s*..." tried every split of every run of spaces, so an answer with
# 2,000 spaces in a row took 47 s, one with 20,000 more than ten minutes.
_TRAILING_START = re.compile(r"[,(]|\s(?=according\b)", re.IGNORECASE)
_TRAILING = re.compile(
    r"(?:,(?=(?P<w1>\s*))(?P=w1)|\((?=(?P<w2>\s*))(?P=w2)|\s(?=according\s+to\s+the\s+(?:"
    r"(?:provided\s+|given\s+|retrieved\s+)?(?:context|passages?)|(?:provided|given|retrieved)"
    r"\s+documents?)\b))(?:according\s+to|based\s+on|as\s+per|per|"
    r"as\s+(?:stated|mentioned|noted|described|shown|indicated|explained|given|reported|written)"
    r"\s+(?:in|by)|(?:stated|mentioned|noted|reported)\s+in)\s+" + _DOCS + r"(?=(?P<w3>\s*))(?P=w3)"
    r"\)?(?=(?P<w4>\s*))(?P=w4)(?P<end>[.!]?)\s*$",
    re.IGNORECASE | re.DOTALL,
)
# "I believe it's Rome.", "Probably Rome.", "Most likely, ...", "It seems that ..."
_HEDGE = re.compile(
    r"^(?:i\s+(?:believe|think|guess|suppose|would\s+say)|i'd\s+say|(?:it\s+)?(?:seems|appears)"
    r"(?=\s+(?:that\b|(?:the|an?)\s|(?-i:[A-Z0-9])))|(?:most|very|quite)\s+likely|probably|"
    r"presumably|apparently|likely(?=\s*,|\s+(?-i:[A-Z0-9])))(?:\s+that(?!\s+(?:is|was|are|were|"
    r"has|had|will|would|can|could|may|might|must|should|does|did)\b))?\s*,?\s+(?P<claim>.+)$",
    re.IGNORECASE | re.DOTALL,
)
# "Rome is the correct answer.", "Rome would be the answer." (the claim ends on a letter, not a
# space: from each of the 80 places "\s+" ran over the same run of spaces, 1.4 s for 100,000)
_ANSWER_AFTER = re.compile(
    r"^(?P<claim>.{1,80}?)(?<!\s)\s+(?:is|would\s+be|should\s+be)\s+(?:the|my)\s+(?:correct\s+|"
    r"right\s+|final\s+|short\s+|best\s+)?answer\s*[.!]?$",
    re.IGNORECASE | re.DOTALL,
)
_LACKING = re.compile(
    r"not\s+(?:(?:found|given|mentioned|stated|provided|specified|available|included)\s+)?(?:in|from)"
    r"\s+" + _DOCS + r"\b",
    re.IGNORECASE,
)
_BASED_ON = re.compile(r"based\s+on\s+" + _DOCS + r"\W*$", re.IGNORECASE)
_NOT_AN_ANSWER = frozenset({"it", "this", "that", "which", "what", "there", "here", "nothing"})


def _capital(claim: str) -> str:
    """The claim as a sentence, a bare yes / no as written ("According to the context, yes")."""
    claim = claim.strip()
    return claim if _POLAR.match(claim) else claim[:1].upper() + claim[1:]


def unwrap_answer(piece: str) -> str:
    """The answer inside "The answer is X" / "So the final answer is: X" / "X is the correct
    answer", as written (then judged as the claim it makes about the question when short);
    else the piece. A piece that speaks of the answer's own correctness from its first word
    ("The answer is fully supported by the context.") is left whole, for the evaluator-directed
    check to drop: unwrapped, "fully supported by the context." no longer says of what."""
    if (m := _evaluator_match(piece.strip())) is not None and m.start() == 0:
        return piece
    after = _ANSWER_AFTER.match(piece.strip())
    if after is not None and after.group("claim").strip().lower() not in _NOT_AN_ANSWER:
        return after.group("claim").strip()
    m = _ANSWER_FRAME.match(piece.strip())
    if m is None or not any(ch.isalnum() for ch in m.group("claim")):
        return piece
    if _LACKING.match(m.group("claim")) or _BASED_ON.match(m.group("claim")):
        return piece  # "The answer is not in / is based on the context.": a remark on it
    claim = m.group("claim").strip()
    if len(claim.split()) > 4:  # a sentence ("... is that the capital is Rome"), not "yes"
        claim = claim[:1].upper() + claim[1:]
    return claim


def _unhedged(text: str) -> str:
    hedge = _HEDGE.match(text)
    if hedge is None or not any(ch.isalnum() for ch in hedge.group("claim")):
        return text
    return unwrap_answer(_capital(hedge.group("claim")))  # "I think the answer is Rome."


def unwrap_attribution(piece: str) -> str:
    """The claim inside "According to the context, X", "The passage states that X", "X,
    according to the context." or a hedge ("I believe X", "Probably X"); else the piece."""
    text = _unhedged(piece.strip())
    for frame in _FRAMES:
        m = frame.match(text)
        if m is not None and any(ch.isalnum() for ch in m.group("claim")):
            text = _unhedged(_capital(m.group("claim")))  # "According to X, I think Y"
            break
    trailing = _trailing(text)
    if trailing is not None:
        claim, end = trailing
        text = claim.strip().rstrip(",") + (end or ".")
    return text if text != piece.strip() else piece


def _trailing(text: str) -> tuple[str, str] | None:
    """(the claim, its final "." or "!") of "X, according to the context."; None when no
    attribution ends the text or nothing is claimed before it."""
    for start in _TRAILING_START.finditer(text):
        if start.start() == 0:
            continue
        m = _TRAILING.match(text, start.start())
        if m is not None:
            claim = text[: start.start()]
            return (claim, m.group("end")) if any(ch.isalnum() for ch in claim) else None
    return None
