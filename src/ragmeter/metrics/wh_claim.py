"""A short answer to a wh-question, put back into the question: the sentence it claims.

Why: the RAGAS statement step turns "Rome" to "What is the capital of Italy?" into "Rome is
the capital of Italy." A template ('The answer to "Q" is Rome.') carries the same claim, but
the embedded 1.5B judge reads it as a claim about an answer, not about the world, and doubts
right bare answers whose words are all in the context: "Comandante" to "Which film opened the
80th Venice International Film Festival?" over "Comandante ... will serve as the festival's
opening film" got P(yes) 0.37 as a template. As a sentence, "Comandante opened the 80th Venice
International Film Festival.", it is the kind of claim the judge compares with the context.

How: the wh-phrase is replaced by the answer, and an inverted question is put back in
statement order, with the verb inflected by ``lemminflect`` (English inflection tables, no
model, no download):

- subject questions: "Who discovered penicillin?" + "Alexander Fleming" -> "Alexander Fleming
  discovered penicillin."; "Which film will close X?" -> "<answer> will close X.";
- copular and passive questions: "When was the Channel Tunnel formally opened?" + "6 May 1994"
  -> "The Channel Tunnel was formally opened on 6 May 1994."; "In which US state is Mount
  Brown located?" -> "Mount Brown is located in Montana.";
- do-support: "Into which sea does the Danube empty?" + "the Black Sea" -> "The Danube empties
  into the Black Sea."; "How many bones does an adult human skeleton have?" + "206" -> "An
  adult human skeleton has 206 bones.";
- modals: "From which space centre will the mission be launched?" -> "The mission will be
  launched from <answer>."; "How high is Uhuru Peak?" + "5,895 m" -> "Uhuru Peak is 5,895 m
  high.".

Anything else ("Why ...?", "How did ...?", "What kind of animal is a dingo?", a verb that cannot
be told from a noun: "When did the water level rise?") returns None, and the caller keeps the
template: a wrong sentence would be a wrong claim.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lemminflect import getAllLemmas, getInflection

from ragmeter.metrics._wh_words import (
    AUX,
    BE,
    DETERMINERS,
    DO,
    HOW_ADJ,
    LOWER_FIRST,
    MEASURE_ADJ,
    MODAL,
    NUMBER_WORDS,
    PERFECT,
    PREPOSITIONS,
    PRONOUNS,
    TIME_NOUNS,
    TWO_OBJECTS,
    VERB_SUFFIX,
    WH_WORDS,
    amount_phrase,
    inner,
    place_prep,
    time_prep,
    with_noun,
)


def declarative(question: str, answer: str) -> str | None:
    """The statement that ``answer`` makes about wh-``question``, or None when no rule is sure.

    Worked example: "Into which sea does the Danube empty?" and "the Black Sea": wh-phrase
    "Into which sea" (a preposition, so the answer goes after "into"), do-support "does"
    (third person present), subject "the Danube", verb "empty" -> "empties": "The Danube
    empties into the Black Sea."
    """
    q = _last_question(question)
    a = answer.strip().rstrip(".!?;:,").strip()
    if q is None or not a or any(ch in q for ch in ',;:"()') or re.search(r"\bor\b", q, re.I):
        return None
    if any(ch in a for ch in ":;\n") or _is_clause(a):  # "Capital: Rome"; "DUSP4 increases X"
        return None
    words = q.split()
    prep = None
    if words[0].lower() == "about" and len(words) > 2 and words[1].lower() == "how":
        words = words[1:]  # "About how many reefs ...": the answer says how near it is
    if words[0].lower() in PREPOSITIONS and len(words) > 2:
        prep, words = words[0].lower(), words[1:]
    wh = words[0].lower()
    if any(w.lower() in WH_WORDS for w in words[1:]):
        return None  # "When was it completed and how tall is it?": two questions in one
    try:
        if wh in ("who", "whom", "what", "which"):
            out = _which(words, a, prep)
        elif wh in ("when", "where"):
            out = (
                None
                if prep
                else _adverbial(words[1:], a, time_prep(a) if wh == "when" else place_prep(a))
            )
        elif wh == "how" and len(words) > 2:
            out = None if prep else _how(words[1:], a)
        else:
            out = None
    except _NoRule:
        return None
    return None if out is None else _sentence(out)


class _NoRule(Exception):
    """The question has a form no rule here is sure of."""


def _is_clause(answer: str) -> bool:
    """Is the short answer a sentence of its own ("DUSP4 increases apoptosis", "Take it with
    food")? Then it is no noun phrase to put into the question: the template stays."""
    words = [w.strip(".,!?") for w in answer.split()]
    for k, w in enumerate(words[1:], start=1):
        low = w.lower()
        if low in PRONOUNS or w in AUX:
            return True
        if not (w.islower() and w.isalpha()):
            continue
        verbs = _lemmas(w).get("VERB", ())
        inflected = any(w != lemma for lemma in verbs)  # "increases", "induced"
        named = words[0][:1].isalpha() and words[0].lower() not in LOWER_FIRST
        if inflected and (not _is_noun_too(w) or (k == 1 and named)):
            return True
        if not _lemmas(w) and VERB_SUFFIX.search(w):  # "upregulates": not in the tables
            return True
    return False


def _last_question(question: str) -> str | None:
    """The last sentence of the turn, when it is one question ("Amazing! When was it?")."""
    text = question.strip()
    if not text.endswith("?") or (text.count("?") > 1 and not re.search(r"[.!?]\s", text)):
        return None
    # sentence ends, not initials or abbreviations: "Who stars as J. Robert Oppenheimer?"
    last = re.split(r"(?<=[a-z0-9]{2}[.!?])\s+|(?<=[!?])\s+", text)[-1]
    last = last.rstrip("?").strip()
    return last if len(last.split()) >= 2 else None


def _sentence(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text[0].upper() + text[1:] + "."


@lru_cache(maxsize=4096)
def _lemmas(word: str) -> dict[str, tuple[str, ...]]:
    return getAllLemmas(word)


def _is_base_verb(word: str) -> bool:
    return word.islower() and word.isalpha() and word in _lemmas(word).get("VERB", ())


def _is_finite_verb(word: str) -> bool:
    """A past or present tense form ("drains", "opened", "make")."""
    if not (word.islower() and word.isalpha()) or word in DETERMINERS | PREPOSITIONS:
        return False
    for lemma in _lemmas(word).get("VERB", ()):
        for tag in ("VBD", "VBZ", "VBP"):
            if word in (getInflection(lemma, tag) or ()):
                return True
    return False


def _is_participle(word: str) -> bool:
    if not (word.islower() and word.isalpha()):
        return False
    for lemma in _lemmas(word).get("VERB", ()):
        if word in (getInflection(lemma, "VBN") or ()):
            return True
    return False


def _is_noun_too(word: str) -> bool:
    return "NOUN" in _lemmas(word)


def _inflect(verb: str, tag: str) -> str:
    if tag == "VBP":
        return verb
    forms = getInflection(verb, tag)
    if not forms:
        raise _NoRule(verb)
    return forms[0]


def _which(words: list[str], a: str, prep: str | None) -> str | None:
    """who / what / which (+ noun): a subject question, or an object one with inversion."""
    wh = words[0].lower()
    rest = words[1:]
    noun: list[str] = []
    if wh in ("which", "what") and rest and rest[0].lower() not in AUX:
        # the noun phrase of "which film", "which two experiments", "which telescope array"
        verb = _is_finite_verb(rest[0])  # "What caused the fire?": the wh-word is the subject
        k = 0 if verb and not _is_noun_too(rest[0]) else _noun_end(rest)
        if verb and wh == "what" and k and rest[k].lower() not in AUX:
            return None  # "What causes tides?", "What makes bread rise?": verb or noun?
        if verb and k and rest[k - 1].lower() in DETERMINERS | PREPOSITIONS:
            k = 0  # "What causes the fire?": "causes the" is no noun phrase
        noun, rest = rest[:k], rest[k:]
        whole = with_noun(noun, a, prep)
        if whole is None:
            return None
        a = whole
    if not rest:
        return None
    head = rest[0].lower()
    if head in {*DO, *MODAL, *PERFECT} and len(rest) > 1 and rest[1].lower() == "not":
        return f"{a} {' '.join(rest)}"  # "Which country did not sign X?": the subject
    inverted = head in MODAL | PERFECT and len(rest) > 1 and not _is_finite_verb(rest[1])
    if head in DO or inverted:
        place = prep or ("in" if noun and noun[-1].lower() in TIME_NOUNS else None)
        if place is None and not _two_objects(rest):
            return _inverted_object(rest, a)  # "What did Napoleon eat for breakfast?"
        return _inverted(rest, inner(a) if place is None else f"{place} {inner(a)}")
    if prep is not None:
        if head in BE:
            return _inverted(rest, f"{prep} {inner(a)}")
        return None  # "In which city lived ...?": not a form of English questions
    if head in BE and (
        rest[-1].lower() in PREPOSITIONS or (len(rest) > 2 and _is_participle(rest[-1]))
    ):
        return None  # "What is X called?", "Who is X married to?": the wh-word is no subject
    if head in ("are", "were") and not noun:
        return None  # "What are the two largest cities?" + "Rome" (one item of a list)
    if wh in ("who", "what") and not noun and head in BE and _is_predicate(rest[1:], a):
        return f"{' '.join(rest[1:])} {head} {inner(a)}"  # "Cleopatra was an Egyptian queen"
    if head in AUX or _is_finite_verb(head):
        return f"{a} {' '.join(rest)}"  # the wh-phrase is the subject: the answer replaces it
    return None


def _is_predicate(subject: list[str], a: str) -> bool:
    """ "Who was Cleopatra?" + "An Egyptian queen": an indefinite answer says what the subject
    is ("An Egyptian queen was Cleopatra" is another claim), when the rest is a noun phrase
    with no verb ("What is produced by X?" + "A hormone": the answer is the subject)."""
    if a.split()[0].lower() not in ("a", "an") or not subject:
        return False
    named = subject[0][:1].isupper() or subject[0].lower() in DETERMINERS
    return named and not any(_is_participle(w) or w.lower() in AUX for w in subject)


def _noun_end(rest: list[str]) -> int:
    """How many words after "which" name the thing asked for: up to the first verb or aux."""
    start = 2 if rest[0].lower() in NUMBER_WORDS else 1
    for k in range(start, min(len(rest), 4)):
        if rest[k].lower() in AUX:
            return k
    finite = [k for k in range(start, len(rest)) if _is_finite_verb(rest[k])]
    if not finite:
        raise _NoRule("no verb")
    k = finite[0]
    while _is_noun_too(rest[k]) and k + 1 in finite:
        k += 1  # "which river bank erodes", "how many individual reefs make up": nouns first
    return k


def _inverted(rest: list[str], filler: str) -> str:
    """Aux + subject + verb phrase, back in statement order, ``filler`` where the question's
    gap is: after a stranded preposition, else at the end ("... opened" + "in 1994")."""
    aux, body = rest[0].lower(), rest[1:]
    if len(body) < 1:
        raise _NoRule("no subject")
    if aux in DO:
        k = _verb_index(body)
        verb = _inflect(body[k], DO[aux])
        subject, tail = body[:k], body[k + 1 :]
        clause = [*subject, verb, *tail]
    elif aux in MODAL | PERFECT:
        k = _verb_index(body, finite=aux in PERFECT)
        subject, tail = body[:k], body[k:]
        clause = [*subject, aux, *tail]
    else:  # is / are / was / were
        k = _participle_index(body)
        subject, tail = body[:k], body[k:]
        clause = [*subject, aux, *tail]
    if not subject:
        raise _NoRule("no subject")
    return _fill(clause, filler)


def _fill(clause: list[str], filler: str) -> str:
    if clause[-1].lower() in PREPOSITIONS:  # "Where does tea come from?": no second one
        first, _, rest = filler.partition(" ")
        filler = rest if first in PREPOSITIONS and rest else filler
    text = " ".join(clause)
    tail = " ".join(clause[-3:]).lower()
    if filler.lower().endswith(tail) and len(clause) > 3:
        text = " ".join(clause[:-3])  # "per second" said by the answer too
    return f"{text} {filler}"


def _verb_index(body: list[str], finite: bool = False) -> int:
    """The main verb after the subject: the first verb form not right after a determiner; a
    noun-or-verb word with another candidate after it is not sure enough."""
    test = _is_participle if finite else _is_base_verb
    cands = [
        k
        for k in range(1, len(body))
        if test(body[k]) and body[k - 1].lower() not in DETERMINERS | PREPOSITIONS
    ]
    if not cands:
        raise _NoRule("no verb")
    verbs_only = [k for k in cands if not _is_noun_too(body[k])]
    if verbs_only:
        return verbs_only[0]  # "the cold snap in Afghanistan begin": "begin", not "snap"
    if len(cands) > 1:
        raise _NoRule("noun or verb")  # "When did the water level rise?"
    return cands[0]


def _participle_index(body: list[str]) -> int:
    """Where "X was [formally] opened" has its participle (with an adverb before it); the end
    when there is none ("Where is the Louvre?" -> "The Louvre is in Paris")."""
    for k in range(1, len(body)):
        if _is_participle(body[k]) or body[k].lower() == "born":
            if k > 1 and (body[k - 1].endswith("ly") or body[k - 1] in ("still", "first", "now")):
                return k - 1
            return k
    return len(body)


def _adverbial(rest: list[str], a: str, place: str) -> str | None:
    """when / where: the answer is an adverbial at the end of the statement."""
    if not rest or rest[0].lower() not in AUX:
        return None
    filler = f"{place} {inner(a)}".strip()
    return _inverted(rest, filler)


def _how(rest: list[str], a: str) -> str | None:
    """how many / how much (+ noun) and how high / long / old ... (the rest: "How did ..." is
    manner, and no rule here)."""
    kind = rest[0].lower()
    if kind in ("many", "much"):
        body = rest[1:]
        if not body:
            return None
        k = 0 if body[0].lower() in AUX else _noun_end(body)
        noun, clause = body[:k], body[k:]
        if [w.lower() for w in noun] == ["times"]:
            return None  # "How many times has Brazil won X?": "five times" goes at the end
        amount = amount_phrase(a, noun, counted=kind == "many")
        second = clause[1].lower() if len(clause) > 1 else ""
        if second == "not" or (clause[0].lower() in BE and second in PREPOSITIONS):
            return f"{amount} {' '.join(clause)}"  # "27 countries are in the EU"
        if clause[0].lower() in BE and second == "there":
            return f"there {clause[0].lower()} {amount} {' '.join(clause[2:])}"
        if clause[0].lower() in {*DO, *MODAL, *PERFECT} and len(clause) > 1:
            if clause[0].lower() in PERFECT and _is_participle(clause[1]):
                return f"{amount} {' '.join(clause)}"  # "How many N have won ...?"
            return _inverted_object(clause, amount)
        if clause[0].lower() in BE and len(clause) > 1 and _is_participle(clause[1]):
            return f"{amount} {' '.join(clause)}"  # "How many people were killed ...?"
        if clause[0].lower() in BE and _participle_index(clause) < len(clause):
            return _inverted(clause, inner(amount))  # "How many stations is X connected to?"
        if clause[0].lower() in BE:
            return None  # "How many miles is it to Boston?": where the subject ends is not sure
        return f"{amount} {' '.join(clause)}"  # "How many reefs make up ...?"
    adjective = [kind]
    body = rest[1:]
    while body and body[0].lower() not in AUX:
        adjective.append(body.pop(0))  # "How high above sea level is ..."
    if kind not in HOW_ADJ or not body:
        return None
    if body[0].lower() in BE:
        subject = body[1:]
        if not subject or _is_participle(subject[-1]):
            return None
        if re.search(r"\d", a) and kind not in MEASURE_ADJ:
            return None  # "A cheetah is 120 km/h fast" is not English
        size = f"{inner(a)} {' '.join(adjective)}" if re.search(r"\d", a) else inner(a)
        return f"{' '.join(subject)} {body[0].lower()} {size}"
    return None  # "How long did the war last?": where "6 years" goes is not sure


def _inverted_object(clause: list[str], amount: str) -> str:
    """do-support with the amount as the object: right after the verb ("An adult human
    skeleton has 206 bones", "The Amazon discharges 209,000 m3 per second")."""
    aux, body = clause[0].lower(), clause[1:]
    k = _verb_index(body, finite=aux in PERFECT)
    verb = _inflect(body[k], DO[aux]) if aux in DO else f"{aux} {body[k]}"
    tail = body[k + 1 :]
    if tail and amount.lower().split()[-len(tail) :] == [w.lower() for w in tail]:
        tail = []
    if tail and tail[-1].lower() in PREPOSITIONS:  # "What port does X listen on?": after "on"
        return " ".join([*body[:k], verb, *tail, inner(amount)])
    return " ".join([*body[:k], verb, inner(amount), *tail])


def _two_objects(clause: list[str]) -> bool:
    """ "What do you call a baby kangaroo?": the answer is the second object, at the end."""
    return any(
        lemma in TWO_OBJECTS for w in clause[1:] for lemma in _lemmas(w.lower()).get("VERB", ())
    )
