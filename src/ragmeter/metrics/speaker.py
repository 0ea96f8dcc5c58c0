"""Sentences about the speaker, not the world: what a chatty answer says that no context can
support, and that faithfulness therefore does not count as a claim.

Why: RAGAS faithfulness is the share of the answer's claims *about the world* that the context
supports. A conversational reply wraps its facts in talk about the speaker: a question back
("Have you been?"), a feeling ("I adore Paris!"), an exclamation ("What a memory!"), an
evaluation ("It was stunning."), an interjection ("Oh wow!", the "Yes!" before the real
reply), a short answer to a question about the speaker ("Cheddar!" to "What cheese did you
use?"). Judged as claims they are unsupported, so a reply that restates its knowledge word for
word but adds "Have you been?" scored below one that invents a fact (measured on
benchmarks/data/chat.jsonl, see docs/judged-metrics.md). None of them is true or false against
a context, so they are dropped, each listed in the score's details with why. So is an
assistant's talk to the user around its answer (``_SERVICE``: "I hope this helps!", "Let me know
if ...", "Have a great day!", "Disclaimer: I am an AI and may make mistakes.", "This information
may be outdated."), in a one-turn answer as in a dialogue.

The patterns are deliberately narrow. After a feeling or an evaluation only a few words of
object may follow, never a clause or a number, so a sentence that mixes a feeling with a claim
("I love that it has three hearts", "It's great, Rome is the capital") is kept. Evaluations,
a "Yes!" before the reply and answers about "you" are the speaker's only in a dialogue (a
history of two or more turns): in a one-turn answer from a RAG system, "It's a great choice
for beginners." may be a recommendation its documents make, "Yes." opening the answer claims
that the answer is yes, and "What is your return policy?" asks about the business.

Talk to the user and remarks on what the documents lack are also read in the sixteen languages
of the refusal phrases (``refusal_i18n``: French, Spanish, German, Italian, Portuguese, Dutch,
Russian, Chinese, Japanese, Korean, Arabic, Hindi, Turkish, Polish, Indonesian, Vietnamese:
"J'espère que cela vous aide !", "Le contexte ne mentionne pas sa population."); the speaker's
feelings, exclamations, evaluations, interjections and questions about "you" are English only.
"""

from __future__ import annotations

import re

from ragmeter.metrics import refusal_i18n

# "Did you know (that) X?" and "X, isn't it?" are statements in question form: X is the claim.
_WRAPPED = re.compile(
    r"^(?:(?:and|so|but|oh|hey)\W+)?(?:did|do)\s+you\s+know\s+(?:that\s+)?(?P<claim>.{8,}?)"
    r"\s*\?+$",
    re.IGNORECASE,
)
_TAG = re.compile(
    r"^(?P<claim>.{8,}?),\s*(?:isn't|aren't|wasn't|weren't|doesn't|don't|didn't|hasn't|"
    r"haven't|won't|can't|right|no)(?:\s+(?:it|they|he|she|there|that|you|we|i))?\s*\?+$",
    re.IGNORECASE,
)
_LEAD = (
    r"^(?:(?:oh|ah|aw+|wow|yes|yeah|yep|no|well|honestly|haha|ha|so|and|but|thanks|"
    r"thank you|good luck|lucky you|me too)\W+)*"
    r"(?:[\w'-]+(?:\s+[\w'-]+)?,\s*(?:and\s+)?)?"  # a two-word lead: "They do, and ..."
)
_INTERJECTIONS = re.compile(
    r"^(?:(?:oh|ah|aw+|wow|yay|ha|haha|ooh|hmm|well|yes|yeah|yep|yup|no|nope|nice|cool|great|"
    r"awesome|amazing|lucky you|good luck|me too|same here|same|indeed|absolutely|definitely|"
    r"certainly|honestly|really|totally|eek|ugh|oh no|oh yes|oh nice|sure|of course)[\s,!.]*)+$",
    re.IGNORECASE,
)
_AFFIRM = re.compile(
    r"^(?:(?:yes|yeah|yep|yup|no|nope|sure|of course|absolutely|definitely|indeed|certainly)"
    r"[\s,!.]*)+$",
    re.IGNORECASE,
)
_FEELING = re.compile(
    _LEAD + r"(?:i|we)(?:'m|'re|\s+am|\s+are)?\s+(?:(?:really|just|absolutely|so|totally|truly|"
    r"also|still|simply|always|do|very)\s+)*(?:love|adore|like|enjoy|hate|miss|envy|"
    r"can't get enough of|cannot get enough of|can't wait|cannot wait|excited|nervous|jealous|"
    r"glad|happy|thrilled|scared|afraid|sad|sorry|impressed|obsessed|a (?:big |huge )?fan)\b",
    re.IGNORECASE,
)
_ADJECTIVE = (
    r"(?:(?:so|really|such|absolutely|just|truly|pretty|quite|very|too|a|an)\s+)*(?:cute|fun|"
    r"beautiful|stunning|gorgeous|fascinating|amazing|great|cool|wonderful|lovely|breathtaking|"
    r"adorable|interesting|awesome|incredible|delicious|nice|joy|memory|treat|shame|pity|"
    r"exciting|impressive|perfect|brilliant|fantastic|sweet|crazy|wild|weird|choice)\b"
)
# "What a memory!", "So adorable!": an exclamation is never a claim.
_EXCLAMATION = re.compile(_LEAD + r"(?:what|how|so|such)\s+" + _ADJECTIVE, re.IGNORECASE)
# "It was stunning.": in a chat, the speaker's taste; in a one-turn answer ("It's a great choice
# for beginners.") possibly a recommendation the documents make or not, so judged there.
_EVALUATION = re.compile(
    _LEAD + r"(?:it|that|this|they|he|she|you)\s*(?:'s|'re|\s+is|\s+are|\s+was|\s+were|"
    r"\s+looks?|\s+sounds?|\s+must\s+be)\s+" + _ADJECTIVE,
    re.IGNORECASE,
)
# A question about the respondent's own life or tastes, not about the world ("What did you
# use?", "Were you there?", "Do you like it?"); "Did you know ...", "What do you call ..." and
# "How do you ..." ask about the world.
_ABOUT_YOU = re.compile(
    r"\b(?:did|were|have|will|would|are|had)\s+you\b(?!\s+(?:know|heard|read)\b)"
    r"|\bdo\s+you\s+(?:like|love|enjoy|prefer|want|have|own|play|think)\b|\byour\b",
    re.IGNORECASE,
)
# After a feeling or an evaluation, a few words of object ("... of them", "... to have"),
# never a clause or a number: "I love that it has three hearts" keeps its claim.
_CLAUSE = re.compile(r"[,;:]|\d|\b(?:that|how|because|since|when|and|but|which|who)\b", re.I)
MAX_REST = 5


# An assistant's talk to the user around its answer: offers of more help, hopes that it
# helped, wishes and sign-offs, and remarks on itself or on the answer ("I am an AI and may make
# mistakes.", "This information may be outdated."). None is about the world; judged as claims
# they were unsupported (or, short, 'The answer to "Q" is Cheers.'). Whole sentences only:
# "As an AI I cannot browse, but Rome is the capital." keeps its claim.
_OPENER = r"^(?:(?:note|disclaimer|p\.?s\.?|nb)\s*:\s*)?(?:(?:and|so|also|again|please)\W+)*"
_SERVICE_PATTERNS = (
    # "I hope this information helps!"
    _OPENER + r"(?:(?:i|we)\s+(?:really\s+)?)?hope\s+(?:this|that|it|the\s+above|my\s+answer|"
    r"(?:this|the|my)\s+(?:information|info|answer|response|explanation|summary))\s+(?:helps?|"
    r"helped|is\s+(?:helpful|useful|clear)|was\s+(?:helpful|useful)|clarifies|answers\s+your\s+"
    r"question|makes\s+sense)\b.{0,30}$",
    # "Feel free to ask.", "Let me know if ...", "Do not hesitate to contact me."
    _OPENER + r"(?:(?:(?:do\s+not|don't)\s+hesitate|feel\s+free)\s+to\s+(?:ask|reach\s+out|contact|"
    r"get\s+in\s+touch|let\s+me\s+know|follow\s+up|message)|let\s+me\s+know|(?:just\s+)?ask\s+"
    r"(?:me\s+)?(?:if|anytime|away)|reach\s+out\b)",
    # "If you need more details, just ask."
    r"^if\s+you\s+(?:need|have|want|would\s+like|'d\s+like)\b.{0,80}\b(?:ask|let\s+me\s+know|"
    r"feel\s+free|reach\s+out|happy\s+to|glad\s+to)\b.{0,40}$",
    # "Happy to help!", "I'm glad to assist further."
    _OPENER + r"(?:i(?:'m|\s+am|'d\s+be|\s+would\s+be)\s+)?(?:always\s+)?(?:happy|glad)\s+to\s+"
    r"(?:help|assist|answer)\b.{0,40}$",
    # wishes and sign-offs
    r"^(?:have\s+an?\s+(?:\w+\s+)?(?:day|time|trip|weekend|evening|one)|cheers|best(?:\s+regards|"
    r"\s+wishes)?|kind\s+regards|good\s+luck(?:\s+with\s+[\w\s]{1,30})?|enjoy(?:\s+your\s+"
    r"[\w\s]{1,30})?|take\s+care|bye|goodbye|all\s+the\s+best)\W*$",
    # the assistant on itself, unless a claim follows ("..., but Rome is the capital.")
    _OPENER + r"(?:(?:i\s+am|i'm)\s+(?:just\s+)?an?\s+ai\b|as\s+an\s+ai\b)"
    r"(?!.*,\s*(?:but|however|though)\b)",
    # "This information may be outdated."
    _OPENER + r"(?:this|the|my)\s+(?:information|info|answer|response|data)\s+(?:may|might|could)"
    r"\s+(?:not\s+)?(?:be\s+)?(?:outdated|out\s+of\s+date|incomplete|inaccurate|accurate|"
    r"complete|up\s+to\s+date|current|change)\b.{0,40}$",
)
_SERVICE = re.compile("|".join(f"(?:{p})" for p in _SERVICE_PATTERNS), re.IGNORECASE)

# A sentence that says what the context lacks, inside an answer that also makes claims ("Rome
# is the capital. The context does not mention its population."): a remark on the documents,
# not a claim about the world (a whole answer that declines is a refusal: ``refusal.py``).
_CONTEXT = (
    r"(?:(?:the|this|that|these|those|provided|given|retrieved|available|above)\s+)*(?:context|"
    r"passages?|documents?|texts?|sources?|information|excerpts?|articles?|snippets?)"
)
# "There is no information / mention / data ..." placed in a record that is not the provided
# material is a claim about that record: "There is no information about X in the city archives.",
# "There was no data on the flight recorder.", "... in the treaty's text" (someone else's text).
# Unplaced ("There is no information about that.") or placed in the documents, it is a remark on
# the documents (2026-11-28, review). "on" also means "about", so only a record's name after it
# places the information ("There is no information on this topic." is unplaced).
_RECORD = (
    r"(?:archives?|records?|registry|registers?|reports?|files?|databases?|newspapers?|papers|"
    r"press|websites?|site|web|internet|recorders?|drives?|dis[ck]s?|servers?|logs?|logbooks?|"
    r"library|catalogu?es?|census|minutes|diar(?:y|ies)|letters?|notes|manifests?|ledgers?|"
    r"inventory|directory|dossiers?|journals?|media|literature|stud(?:y|ies)|surveys?|charts?|"
    r"labels?|packag(?:e|ing)|forms?|memos?|e-?mails?|transcripts?|certificates?|passports?|"
    r"contracts?|treaty|constitution|bible|statutes?|black\s+box)"
)
_OWNER = r"(?:his|her|their|[\w-]+['\u2019]s|[\w-]+s['\u2019])"
ELSEWHERE = (
    r"\b(?:(?:in|at|inside|within|aboard|on)\s+(?:the|a|an|this|that|these|those|his|her|their|"
    r"its|[\w-]+['\u2019]s|[\w-]+s['\u2019])\s+(?:[\w'\u2019-]+\s+){0,2}?"
    + _RECORD
    + r"(?!['\u2019]s)"
    + r"|(?:in|within)\s+(?:the\s+)?"
    + _OWNER
    + r"\s+(?:[\w'\u2019-]+\s+){0,2}?(?:context|passages?|documents?|texts?|sources?|excerpts?|"
    r"articles?|snippets?))\b"
)
# ... unless the provided material is named too ("... about the archives in the documents")
_IN_DOCS = (
    r"\b(?:in|from|within|based\s+on|according\s+to)\s+(?:(?:the|these|those|provided|given|"
    r"retrieved|available|above|supplied|my|our)\s+)*(?:context|passages?|documents?|texts?|"
    r"sources?|excerpts?|articles?|snippets?|materials?|knowledge\s+base)\b(?!\s+of\b)"
)
# a lookahead: the missing information is not placed in another record (or the documents are named)
NOT_ELSEWHERE = r"(?=[^.;!?]{0,300}" + _IN_DOCS + r")|(?![^.;!?]{0,300}" + ELSEWHERE + r")"
_LACKS = re.compile(
    r"^(?:(?:note|however|unfortunately|but|although)\W+)*(?:"
    + _CONTEXT
    + r"\s+(?:(?:provided|given|above|here)\s+)?(?:does\s+not|doesn't|did\s+not|didn't|do\s+not|"
    r"don't)\s+(?:say|mention|specify|state|include|provide|cover|contain|give|discuss|address)\b"
    r"|there\s+(?:is|was|are)\s+(?:" + NOT_ELSEWHERE + r")no\s+(?:information|mention|data|"
    r"details?)\s+(?:about|on|regarding|of|in|as\s+to)\b"
    r"|i\s+(?:could\s+not|couldn't|cannot|can't|was\s+unable\s+to)\s+find\b"
    r"|.{1,80}?\b(?:is|are|was|were)(?:\s+not|n't)\s+(?:(?:mentioned|specified|stated|given|"
    r"provided|discussed|found|covered)\s+)?in\s+" + _CONTEXT + r"\b)",
    re.IGNORECASE,
)
# A courtesy opening the piece, before its content: "Certainly! yes.", "Sure, it opens at 9."
_COURTESY = re.compile(
    r"^(?:certainly|sure(?:\s+thing)?|of course|absolutely|great question|good question|okay|ok|"
    r"happy to help|no problem|thanks for (?:asking|your question)|thank you for (?:asking|your "
    r"question))"
    r"\s*[!.,:]\s+(?=\S)",
    re.IGNORECASE,
)
# ... and one closing it after a comma: "Rome, of course.", "It opens at 9, naturally." (lower
# case: in "Based on the documents, Definitely." the word is the answer after a frame)
_CLOSING = re.compile(
    r",\s*(?:of course|obviously|naturally|certainly|definitely|for sure)\s*[.!]*\s*$"
)


TALK = "talk to the user, not a claim about the world"


def talks_to_user(piece: str) -> bool:
    """An assistant's talk to the user ("I hope this helps!", "Have a great day!"), in English
    or a refusal language ("Ich hoffe, das hilft!")."""
    return _SERVICE.match(piece.strip()) is not None or refusal_i18n.talks_to_user(piece)


def says_context_lacks(piece: str) -> bool:
    """A remark on what the documents lack ("The context does not mention its population."),
    in English or a refusal language ("El contexto no menciona su población.")."""
    return _LACKS.match(piece) is not None or refusal_i18n.says_context_lacks(piece)


def opening_courtesy(piece: str) -> re.Match[str] | None:
    """The courtesy a piece opens with before its content ("Certainly! " in "Certainly! yes.")."""
    return _COURTESY.match(piece)


def closing_courtesy(piece: str) -> re.Match[str] | None:
    """The courtesy a piece closes with after a comma (", of course." in "Rome, of course.")."""
    m = _CLOSING.search(piece)
    return m if m is not None and any(ch.isalnum() for ch in piece[: m.start()]) else None


_SUBJECTIVE = (  # (pattern, why, only in a dialogue)
    (_FEELING, "the speaker's feeling, not a claim about the world", False),
    (_EXCLAMATION, "an exclamation, not a claim about the world", False),
    (_EVALUATION, "an evaluation, not a claim about the world", True),
)


def unwrap_question(piece: str) -> str:
    """The statement inside "Did you know that X?" or "X, isn't it?"; else the piece."""
    m = _WRAPPED.match(piece.strip()) or _TAG.match(piece.strip())
    if m is None:
        return piece
    claim = m.group("claim").strip()
    return claim[:1].upper() + claim[1:]


def is_dialogue(question: str) -> bool:
    """A history of two or more turns (one per line), not a single question."""
    return sum(1 for ln in (question or "").splitlines() if ln.strip()) >= 2


def about_the_speaker(question: str) -> bool:
    """True when the turn being answered, in a dialogue, asks about the respondent, not the
    world. Only in a dialogue: a single question put to a RAG system ("What is your return
    policy?", "Do you ship to Canada?") asks about the business whose documents are the
    context, and its short answer is a claim they can support."""
    lines = [ln for ln in (question or "").splitlines() if ln.strip()]
    return len(lines) >= 2 and bool(_ABOUT_YOU.search(lines[-1]))


def not_about_the_world(piece: str, question: str, *, short: bool, alone: bool) -> str | None:
    """Why ``piece`` asserts nothing a context could support, or None when it is a claim.

    ``short``: a bare answer of a few words; ``alone``: the answer's only piece (a lone "No."
    to a question about the world is the claim that the answer is no)."""
    text = piece.strip()
    if text.endswith(("?", "？", "؟")):
        return "a question asserts nothing"
    if talks_to_user(text):
        return TALK
    dialogue = is_dialogue(question)
    if _INTERJECTIONS.match(text):
        # "Yes." to a question about the world claims that the answer is yes: kept when it is
        # the whole answer, or opens a one-turn answer ("Yes. Up to five days carry over.");
        # in a chat a "Yes!" before the real reply is a discourse marker
        world_answer = _AFFIRM.match(text) and not about_the_speaker(question)
        if not (world_answer and (alone or not dialogue)):
            return "an interjection asserts nothing"
    for pattern, why, only_in_dialogue in _SUBJECTIVE:
        if only_in_dialogue and not dialogue:
            continue
        m = pattern.match(text)
        if m is not None:
            rest = text[m.end() :].rstrip(" .!")
            if len(rest.split()) <= MAX_REST and not _CLAUSE.search(rest):
                return why
    if short and about_the_speaker(question):
        return "answers a question about the speaker, not about the world"
    return None
