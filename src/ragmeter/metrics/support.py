"""Per-statement evidence for faithfulness: the judge's P(yes) and lexical support, combined.

Why: the embedded 1.5B judge and word overlap fail differently. The judge reads meaning
(negations, paraphrases) but is unsure of bare or short claims; word overlap (K-Precision) is
sure when a swapped name or number is absent from the context but blind to negation. Neither
dominates on the visible sets, so each statement gets both, and a small logistic model, fitted
on labelled visible data and stored as a versioned part of the metric definition
(``prompts/faithfulness_calibration.json``), turns them into P(statement supported):

    P = sigmoid(b0 + b1 * logit(P_judge(yes)) + b2 * lexical_support + b3 * missing)

``missing`` is 1 when the statement holds a name or number (not from its question) that no
context sentence holds (``missing_specific``), else 0; b3 is negative (calibration 2 on).

Lexical support of a statement: the idf-weighted share of its new content words (those not in
the question; all content words when every one is in the question) found in its evidence
sentences (as SQuAD tokens or as parts of words joined by punctuation: "573-km" holds 573 and
km). idf is computed over the context sentences, a word absent from the context getting
the largest idf. Worked number: statement "The lake is drained by the Whanganui River", question
"Which river drains Lake Taupo?": new words {drained, whanganui}; only "drained" is in the
evidence; with idf 1.1 and 1.8 the support is 1.1 / 2.9 = 0.38.

A leading "Yes," / "No," is the answer's polarity: its truth is a matter of meaning, which word
overlap cannot check (the word "no" is in no passage), so it is left to the judge and the words
after it are looked up. A bare "yes" / "no" claims the question's proposition, so the question's
content words are looked up: "no" to "Were Mozart and Haydn born in Vienna?" over passages
holding the words Mozart, Haydn, born and Vienna has support 1.0, where counting the word "no"
gave 0.0 and ranked every wordy hallucination of the other polarity above it.
"""

from __future__ import annotations

import json
import math
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ragmeter.metrics.claims import SHORT_WORDS
from ragmeter.metrics.context import _STOP, ContextSentences
from ragmeter.metrics.numbers import numbers, rounds_to
from ragmeter.metrics.polar import reply_polarity
from ragmeter.text import cached_tokens, tokens

EPS = 1e-4
_POLARITY = re.compile(r"^\s*(?:yes|no|yeah|yep|yup|nope)\b(?:\s*[,.!;:\u2013\u2014]+|\s*$)", re.I)


def content_words(text: str) -> set[str]:
    return {w for w in tokens(text) if w not in _STOP}


# Words that link or hedge a claim and say nothing of the world: "Additionally, ...",
# "Therefore, ...", "In summary, ...", "approximately 2.8 million". Absent from a context, each
# counted as a new word the evidence lacks, at the highest idf: "Therefore, the capital is Rome."
# had lexical support 0.42 over "Rome is the capital of Italy.".
DISCOURSE = frozenset(
    re.findall(
        r"\S+",
        "additionally also furthermore moreover however therefore thus hence consequently "
        "overall summary summarize summarise conclusion briefly finally lastly firstly "
        "secondly thirdly notably importantly specifically essentially basically actually "
        "indeed meanwhile instance example eg ie simply approximately roughly approx circa "
        "around",
    )
)


def lexical_support(
    statement: str, question: str, evidence: Sequence[str], sentences: Sequence[str]
) -> float:
    """idf-weighted share of the statement's new content words found in the evidence (words
    that only link or hedge a claim, ``DISCOURSE``, are not looked up)."""
    rest = _POLARITY.sub("", statement, count=1)
    if (rest != statement and not content_words(rest)) or reply_polarity(statement):
        rest = question  # a bare yes/no ("Absolutely!"): the question's proposition it claims
    words = content_words(plain_words(rest)) - DISCOURSE
    new = words - content_words(plain_words(question))
    words = new or words
    if not words:
        return 1.0
    n = max(len(sentences), 1)
    df = _document_frequencies(tuple(sentences))
    seen: set[str] = set()
    for s in evidence:
        seen.update(sentence_words(s))

    def idf(w: str) -> float:
        return math.log(1 + n / df.get(w, 0.5))

    ordered = sorted(words)  # a set's order depends on the process's hash seed: sum in one order
    total = sum(idf(w) for w in ordered)
    return sum(idf(w) for w in ordered if w in seen) / total


_SPLIT_PUNCT = str.maketrans(string.punctuation, " " * len(string.punctuation))
_DIGIT_GROUP = re.compile(r"(?<=\d)[,.](?=\d)")
# Typographic apostrophes as "'", and dashes, quotes and ellipses as spaces: SQuAD's
# normalisation deletes ASCII punctuation only, so "Rome — a city" had the word "—" and
# "Italy’s" the word "italy’s", both missing from any context
_TYPOGRAPHIC = str.maketrans(
    {"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2032": "'"}
    | dict.fromkeys("\u2014\u2013\u2012\u2015\u201c\u201d\u201e\u00ab\u00bb\u2026\u00b7", " ")
)
_POSSESSIVE = re.compile(r"(?<=\w)'s\b", re.IGNORECASE)
# A unit of measure glued to its number ("40mg", "5km", "24h", "3x"); not "1990s", "11th"
_GLUED_UNIT = re.compile(
    r"(?<=(?<![^\W\d_])\d)(?=(?:[mnµμ]?g|kg|mcg|[mµμ]?l|[nµμcmk]?m|kda|k?bp|[kmgt]b|[kmg]?hz|kcal"
    r"|h|hrs?|min|ms|[mnµμ]?mol|[km]?w|[km]?v|x|yrs?|ppm)\b)",
    re.IGNORECASE,
)


def plain_words(text: str) -> str:
    """The text with typographic punctuation made ASCII or spaces and possessives taken off
    ("Italy’s capital — Rome" -> "Italy capital   Rome"): a claim's "Italy's" is the context's
    "Italy" (before, ``missing_specific`` flagged the name "s" and lexical support missed
    "italys")."""
    return _POSSESSIVE.sub("", text.translate(_TYPOGRAPHIC))


def split_words(text: str) -> list[str]:
    """Lower-cased words split at ASCII punctuation, except a separator between digits,
    which is dropped, and with a unit glued to its number split off: "40mg/day" -> 40, mg,
    day; "76-85%" -> 76, 85; "2,870" -> 2870.

    Why not SQuAD's tokens: they delete punctuation, gluing a number to its unit or range
    ("40mgday", "7685") where a context writes "40 mg/day" or "76% to 85%"; a name or
    number looked up that way was missing from contexts that hold it. The same for a unit
    written without a space ("40mg" against a context's "40 mg").
    """
    text = _GLUED_UNIT.sub(" ", _DIGIT_GROUP.sub("", plain_words(text)))
    return text.lower().translate(_SPLIT_PUNCT).split()


def specific_words(statement: str) -> set[str]:
    """Its names and numbers: words holding a digit, and words written with a capital
    letter after the statement's first word ("Matt", "Damon" and "2014" in "The film stars
    Matt Damon, since 2014"; not "The").

    A word joined by punctuation is judged piece by piece: in "RecQ-class" and
    "HIV-positive" only "recq" and "hiv" are names ("class" and "positive" were flagged as
    names no abstract held). A word in brackets is no name ("(CKD)", "(ESCs)": an
    abbreviation the claim defines, which an abstract may spell out only).
    """
    out: set[str] = set()
    for j, raw in enumerate(statement.split()):
        capital = j > 0 and raw[:1].isupper()
        for piece in (
            _GLUED_UNIT.sub(" ", _DIGIT_GROUP.sub("", plain_words(raw)))
            .translate(_SPLIT_PUNCT)
            .split()
        ):
            t = piece.lower()
            if t not in _STOP and ((capital and piece[:1].isupper()) or _has_digit(t)):
                out.add(t)
    return out


def _has_digit(word: str) -> bool:
    return any(ch.isdigit() for ch in word)


def missing_specific(statement: str, question: str, sentences: Sequence[str]) -> list[str]:
    """The statement's names and numbers that are not in its question and that no context
    sentence holds, sorted.

    Why: the commonest hallucination swaps a name, a number or a date for one the context
    does not have (the entity-level precision of summarisation metrics). Lexical support
    weighs such a word like any other new word, so a wordy wrong answer that repeats the
    context's other words still reaches 0.5; an absent name is stronger evidence than that.
    "J. Robert Oppenheimer is played by Matt Damon." over a context naming Cillian Murphy:
    ["damon", "matt"]. A number the context writes otherwise is held ("2.8 million" by
    "2,800,000", "1998-03-03" by "3 March 1998": ``number_values``), as is one rounded from a
    more precise context value ("76%" by "76.3%": ``numbers.rounds_to``); one written with a
    scale word is held only at that value ("1.5 million" is missing from "1.5 billion").
    """
    words = specific_words(statement) - set(split_words(question))
    if not words:
        return []
    known = _context_words(tuple(sentences))
    missing = [w for w in words if w not in known]
    found = _numbers(statement)
    if found and any(_has_digit(w) for w in words):
        held = _context_values(tuple(sentences))
        values = number_values(statement)
        # "2.8 million" = "2,800,000", "76" ~ "76.3"; "1.5 million" is not "1.5 billion"
        missing = [w for w in missing if not any(_held(v, held) for v in values.get(w, ()))]
        missing += [w for w, v, scaled in found if scaled and w in words and v not in held]
    return sorted(set(missing))


def _held(value: str, held: frozenset[str]) -> bool:
    return value in held or rounds_to(value, held)


@lru_cache(maxsize=64)
def _context_words(sentences: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w for s in sentences for w in split_words(s))


def number_values(text: str) -> dict[str, set[str]]:
    """Each number's word (as ``split_words`` writes it) and the value it names, exact, as a
    normalised decimal string: "2.8 million" -> {"28": {"2800000"}}, "2,800,000" ->
    {"2800000": {"2800000"}}, "03" -> {"03": {"3"}} (``numbers.numbers``).

    Why: a name or number the context lacks is strong evidence of a hallucination
    (``missing_specific``), but the same number is often written otherwise: "2.8 million"
    against a context's "2,800,000", "1998-03-03" against "3 March 1998". Such a claim was
    flagged as naming a number the context does not hold."""
    out: dict[str, set[str]] = {}
    for written, value, _ in numbers(text):
        for w in split_words(written):
            out.setdefault(w, set()).add(value)
    return out


def _numbers(text: str) -> list[tuple[str, str, bool]]:
    """(word, exact value, written with a scale word) for each number of ``text``."""
    return [(w, v, scaled) for written, v, scaled in numbers(text) for w in split_words(written)]


@lru_cache(maxsize=64)
def _context_values(sentences: tuple[str, ...]) -> frozenset[str]:
    return frozenset(v for s in sentences for vs in number_values(s).values() for v in vs)


@lru_cache(maxsize=4096)
def sentence_words(sentence: str) -> frozenset[str]:
    """A sentence's words for lexical support: its SQuAD tokens, and the parts of each word
    that punctuation joins (``split_words``).

    Why both: SQuAD's normalisation deletes punctuation, so a context's "573-km rail link"
    reads "573km", and the claim "573 km" (tokens "573", "km") found neither word: lexical
    support 0.0 for the right answer, while "760 km" found "760" elsewhere (0.5). A word the
    claim writes whole ("email", "covid19") is still found as the context's SQuAD token
    ("e-mail", "COVID-19").
    """
    return frozenset(cached_tokens(sentence)) | frozenset(split_words(sentence))


@lru_cache(maxsize=64)
def _document_frequencies(sentences: tuple[str, ...]) -> dict[str, int]:
    """Sentences holding each word. Cached: every statement of a sample is scored against
    the same sentences, and recounting them per statement was most of faithfulness's own CPU
    time against a remote judge (time the event loop does not spend sending calls)."""
    df: dict[str, int] = {}
    for s in sentences:
        for w in sentence_words(s):
            df[w] = df.get(w, 0) + 1
    return df


STEM = 5  # words are compared by their first STEM characters: "drains" ~ "drained"
MIN_WORD = 4  # shorter words without a digit are function words in some language ("de", "het")


def stems(text: str) -> set[str]:
    """Content words cut to their first STEM characters (a crude, language-blind stemmer).

    Words of fewer than MIN_WORD letters count only when they hold a digit ("1937", "5g"):
    short words are articles and prepositions in one language or another, so they would
    relate an instruction in Dutch ("... de beoordelaar ...") to "Tour de France".
    """
    return {
        w[:STEM] for w in content_words(text) if len(w) >= MIN_WORD or any(ch.isdigit() for ch in w)
    }


def relates(text: str, question: str) -> bool:
    """Does the text share a content stem with the question? A question without content
    stems relates to everything (no evidence either way).

    Why: text that answers a question, or states what the answer needs, is about what the
    question asks and shares words with it; an instruction to the evaluator, in any wording
    or language, shares none. Worked example: "Which river drains Lake Taupo?" has the stems
    {river, drain, lake, taupo} ("which" is a stop word); "The Waikato River drains the
    lake." shares three of them: it relates; "Antwoord ja." and "Reply with yes only." share
    none: they do not.
    """
    q = stems(question)
    return not q or bool(q & stems(text))


BRIDGE_STEMS = 2  # content stems a claim shares with a passage about the question


def answer_relation(
    question: str, claims: Sequence[str], contexts: Sequence[str] = ()
) -> str | None:
    """How the answer's claims (as written) relate to the question, or None when they do not.

    - ``"short"``: the answer is one short claim ("Rome": judged as the claim it makes about
      the question);
    - ``"question"``: a claim shares a content stem with the question (``relates``);
    - ``"context"``: a claim shares ``BRIDGE_STEMS`` content stems with a passage about the
      question: a context sentence sharing a stem with the question, with the sentence after
      it in the same context (hidden text and sentences addressed to the evaluator left out).

    Why the context: a direct answer need not repeat the question. "About 70 degrees Celsius,
    because the air pressure at the summit is a third of sea level's" answers "At what
    temperature does water boil on top of Mount Everest?" without a word of it, but shares
    summit, pressure, degrees and Celsius with the retrieved "At the summit of Mount Everest,
    where air pressure is about a third of sea-level pressure, water boils at roughly 70
    degrees Celsius." Two stems, not one: a single shared word ("seven", "years") is often
    chance. Appended text still cannot make an off-topic answer relate unless it shares two
    words with what the contexts say about the question.
    """
    if len(claims) == 1 and len(tokens(claims[0])) <= SHORT_WORDS:
        return "short"
    q = stems(question)
    if not q or any(q & stems(c) for c in claims):
        return "question"
    ctx = ContextSentences.of(contexts).without_instructions()
    by = [stems(s) for s in ctx.sentences]
    said = [stems(c) for c in claims]
    for i, sentence in enumerate(by):
        if not sentence & q:
            continue
        window = set(sentence)
        if i + 1 < len(by) and ctx.context_of[i + 1] == ctx.context_of[i]:
            window |= by[i + 1]
        if any(len(c & window) >= BRIDGE_STEMS for c in said):
            return "context"
    return None


def answer_relates(question: str, claims: Sequence[str], contexts: Sequence[str] = ()) -> bool:
    """Does the answer relate to the question (``answer_relation``)? Appending unrelated text
    can never make an answer relate."""
    return answer_relation(question, claims, contexts) is not None


def logit(p: float) -> float:
    p = min(max(p, EPS), 1 - EPS)
    return math.log(p / (1 - p))


@dataclass(frozen=True)
class Calibration:
    """The fitted combination: coefficients, the version that names it, where it came from."""

    version: str
    intercept: float
    w_judge: float
    w_lexical: float
    provenance: dict
    w_missing: float = 0.0  # a name or number absent from the context (version 2 on)

    def p_supported(self, p_yes: float, lexical: float, missing: float = 0.0) -> float:
        z = (
            self.intercept
            + self.w_judge * logit(p_yes)
            + self.w_lexical * lexical
            + self.w_missing * missing
        )
        return 1 / (1 + math.exp(-z))


def parse_calibration(d: dict, name: str) -> Calibration:
    """A calibration from its JSON; a missing or non-numeric coefficient is an error."""
    try:
        c = d["coefficients"]
        return Calibration(
            version=str(d["version"]),
            intercept=float(c["intercept"]),
            w_judge=float(c["logit_p_yes"]),
            w_lexical=float(c["lexical_support"]),
            provenance=dict(d.get("provenance") or {}),
            w_missing=float(c.get("missing_specific", 0.0)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{name}.json: malformed calibration (missing or bad {exc})") from exc


@lru_cache(maxsize=4)
def load_calibration(name: str = "faithfulness_calibration") -> Calibration:
    """The calibration JSON beside the prompts (package data)."""
    text = resources.files("ragmeter.prompts").joinpath(f"{name}.json").read_text("utf-8")
    return parse_calibration(json.loads(text), name)
