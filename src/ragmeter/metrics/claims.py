"""From an answer to the claims a faithfulness judge checks (fast mode), and what is not one.

Why: RAGAS faithfulness is the share of the answer's *statements* that the context supports.
A statement is a claim about the world, so:
- text the reader never sees or that addresses the evaluator (``untrusted.py``) is not part of
  the answer's claims: HTML / markdown comments, chat role tags, "note to the evaluator ..."
  sentences, fake verdict lines ("Supported? yes", ``{"verdict": "yes"}``) and meta-comments on
  the answer itself ("This statement is fully supported by the context.");
- sentences that assert nothing about the world are dropped too (``speaker.py``): greetings,
  sign-offs, an assistant's talk to the user ("I hope this helps!", "Feel free to ask.",
  "Disclaimer: I am an AI ...", and a courtesy opening a piece: "Certainly! yes."), bare
  hedges ("I think so"), questions ("Have you been?"; but "Did you know that
  X?" claims X), the speaker's feelings ("I adore Paris!"), exclamations, and in a chat
  evaluations ("It was stunning."), interjections ("Yes!" before the real reply) and short
  answers to a question about the speaker ("Cheddar!" to "What cheese did you use?"); every
  dropped piece is kept in the details with why;
- a short answer (at most ``SHORT_WORDS`` words, e.g. "Rome") is judged as the claim it makes
  about the question: put back into a wh-question, "Rome is the capital of Italy."
  (``wh_claim.py``), else 'The answer to "What is the capital of Italy?" is Rome.';
- a reply that only says yes or no ("Absolutely!", "Yes, it is.") to a yes/no question is the
  claim that the answer is yes or no; to a wh-question no yes or no is a claim (``polar.py``);
- a reasoning model's working is not its answer (``reasoning.py``): a ``<think>...</think>``
  block and sentences about answering ("Let me check the context.") are taken out;
- layout is not content (``layout.py``): markdown headings, labels, list markers, emphasis
  and lead-ins ("Here are the details:") are taken out before splitting, so a list says what
  the same sentences say as prose;
- final punctuation does not change the result: parenthesised sentences are split off whether
  or not the sentence before them ends with a full stop, and trailing punctuation is
  normalised before judging ("Rome" and "Rome." give the same prompt).

A refusal ("I don't know.") makes no claim either; ``refusal.declines`` detects it first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ragmeter.metrics._fences import fenced_blocks
from ragmeter.metrics.citations import is_pointer, strip_citations
from ragmeter.metrics.frames import unwrap_answer, unwrap_attribution
from ragmeter.metrics.layout import (
    is_lead_in,
    is_list_number,
    plain_text,
    without_list_number,
)
from ragmeter.metrics.polar import bare_yes_no, only_affirms, question_kind, reply_polarity
from ragmeter.metrics.reasoning import final_answer, is_process_talk
from ragmeter.metrics.speaker import (
    TALK,
    closing_courtesy,
    not_about_the_world,
    opening_courtesy,
    says_context_lacks,
    talks_to_user,
    unwrap_question,
)
from ragmeter.metrics.untrusted import (  # re-exported: where claims are made, they go
    _evaluator_match,
    addresses_evaluator,
    neutralise,
    split_instruction,
    strip_hidden,
)
from ragmeter.metrics.wh_claim import declarative
from ragmeter.text import detokenize, split_sentences, tokens

__all__ = [
    "SHORT_WORDS",
    "Claims",
    "addresses_evaluator",
    "as_claim",
    "claims_of",
    "last_turn",
    "neutralise",
    "normalise_statement",
    "split_instruction",
    "strip_hidden",
]

SHORT_WORDS = 4

# Sentences that assert nothing about the world.
_NON_ASSERTION = re.compile(
    r"^(hi|hello|hey|thanks|thank you|you're welcome|sure|of course|certainly|great question|"
    r"good question|ok|okay|i hope (this|that) helps|hope (this|that) helps|let me know.*|"
    r"sure thing|no problem|thanks? (?:you )?for (?:asking|your question)|"
    r"feel free to ask.*|i think so|i believe so|maybe|perhaps|probably|possibly|not sure|"
    r"it depends)[\s!.,]*$",
    re.IGNORECASE,
)
# More of the same, as chat models write them around an answer: greetings, hopes that it helps,
# "Here's the answer.", "This answer is based on the context.". Judged, each was a claim no
# context supports, or, short, 'The answer to "Q" is Hi there.'. Whole pieces only: "Hope is a
# town in Arkansas." and "Hopefully the museum reopens in May." are claims.
_TALK_AROUND = re.compile(
    r"^(?:(?:hi|hello|hey)(?:\s+there|\s+everyone)?|greetings|good\s+(?:morning|afternoon|evening)"
    r"|(?:i\s+)?hope(?:fully)?,?\s+(?:this|that|it|my\s+answer)(?:'s|\s+is|\s+was)?\s+(?:helps?|"
    r"helped|helpful|useful|clears\s+(?:things|it|that)\s+up|answers\s+your\s+question)"
    r"|(?:i\s+)?hope\s+you\s+find\s+(?:this|that|it|my\s+answer)(?:\s+information)?\s+"
    r"(?:helpful|useful)|(?:i'm\s+|i\s+am\s+)?glad\s+(?:i|we)\s+could\s+help"
    r"|thanks?\s+(?:you\s+)?(?:again|for\s+reaching\s+out)|interesting\s+question|happy\s+learning"
    r"|here(?:'s|\u2019s|\s+is)\s+(?:the|my)\s+answer|here\s+you\s+go|let\s+me\s+explain"
    r"|(?:this|my|the)\s+answer\s+is\s+based\s+on\s+(?:the\s+)?(?:provided\s+|given\s+)?(?:context|"
    r"documents?|passages?|information)(?:\s+(?:provided|given|above))?)\W*$",
    re.IGNORECASE,
)
_BARE_VERDICT = re.compile(r"^\W*(yes|no|true|false|supported|relevant|1|0)\W*$", re.IGNORECASE)
# A piece with a pronoun subject or a finite auxiliary is a sentence, not a bare answer.
_SENTENCE_LIKE = re.compile(
    r"^(it|he|she|they|this|that|these|those|there|i|we|you|its|his|her|their)\b"
    r"|\b(is|are|was|were|be|been|has|have|had|does|did|will|would|can|could|should|may|might|"
    r"must)\b",
    re.IGNORECASE,
)
_SPEAKER = re.compile(r"^(user|human|question|assistant|ai|bot|system)\s*:\s*", re.IGNORECASE)
# "It's Rome.", "That would be Cillian Murphy.", "It was 1896.": a dummy subject framing a short
# answer (a name, a number, "the Colosseum"), which judged alone has no subject a context holds
_IT_IS = re.compile(
    r"^(?i:(?:it|that|this)(?:'s|\u2019s|\s+is|\s+was|\s+would\s+be|'d\s+be|\s+will\s+be|"
    r"'ll\s+be)\s+)(?P<answer>(?:(?i:the|a|an)\s+)?[A-Z0-9].*)$",
    re.DOTALL,
)
# "(?:(?<!\s)|(?!\s))": tried where a run of spaces starts or ends, not from inside it (where it
# fails as at the start): from every space, a sentence with 100,000 in a row took minutes.
_PAREN_SENTENCE = re.compile(r"(?:(?<!\s)|(?!\s))\s*\(([A-Z][^()]*?[.!?]?)\)\s*")


@dataclass
class Claims:
    """The statements to judge (as judged), the answer text they came from, the text to choose
    each one's evidence by, and what was dropped.

    ``queries``: the original piece, or for a short answer judged as a claim about the question,
    the question followed by the answer ("How many people were killed in the Highland Park
    parade shooting? Seven"): the evidence must serve the claim that is judged, and the answer
    alone picks sentences that mention "seven" but not the event, so the judge cannot tell.
    """

    judged: list[str] = field(default_factory=list)
    original: list[str] = field(default_factory=list)
    dropped: list[dict[str, str]] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)

    def add(self, piece: str, judged: str, query: str) -> None:
        self.original.append(piece)
        self.judged.append(judged)
        self.queries.append(query)

    def drop(self, text: str, why: str) -> None:
        self.dropped.append({"text": text, "why": why})


def _stray_list_number(pieces: list[str], k: int, numbers: int) -> bool:
    """Piece ``k`` is a list's number left alone ("... capital. 2. It has ..."), not an answer
    ("Certainly! 206. I hope this helps!"): one of several lone numbers (``numbers``: how many
    pieces are one, counted once per answer: counted per piece, an answer of 20,000 "1. 2. 3."
    took minutes), or a small one (2-20) with a piece after it. Before, any lone number of at
    most three digits went, answers too."""
    if len(pieces) < 2 or not is_list_number(pieces[k]):
        return False
    if numbers >= 2:
        return True
    label = pieces[k].strip().strip("().")
    value = int(label) if label.isdigit() else ord(label.lower()) - ord("a") + 1
    return 2 <= value <= 20 and k + 1 < len(pieces)


def _pieces(text: str) -> list[str]:
    """Sentences, with parenthesised sentences split off regardless of the punctuation before."""
    out: list[str] = []
    for sentence in split_sentences(text):
        last = 0
        for m in _PAREN_SENTENCE.finditer(sentence):
            inner = m.group(1)
            if len(inner.split()) < 3 or not (
                inner.endswith((".", "!", "?")) or _SENTENCE_LIKE.search(inner)
            ):  # "(ESA)", "(in 1990)", "(JUpiter ICy moons Explorer)": part of the sentence
                continue
            out.append(sentence[last : m.start()])
            out.append(m.group(1))
            last = m.end()
        out.append(sentence[last:])
    return [p.strip() for p in out if p and p.strip()]


_CODE_CLAIM = "The answer gives this code:"
_QUOTE_END = re.compile(r"[.!?][\u201d\u2019\u00bb]+$")  # typographic: ASCII changes visible rows


def _split_code(text: str) -> tuple[list[str], set[str]]:
    """The answer's pieces (sentences detokenized: "i do n't" -> "i don't"), a fenced code
    block as one piece of its own, and the set of those code pieces.

    Why: split as prose, "```bash" was judged as the short answer 'The answer to "Q" is
    ```bash.' and a block's lines as claims of their own. A block is checked whole, as written:
    code a context holds is supported, invented code is not."""
    pieces: list[str] = []
    code: set[str] = set()
    last = 0
    for start, end, block in fenced_blocks(text):
        pieces += [detokenize(p) for p in _pieces(text[last:start])]
        block = block.strip("\n")
        if block.strip():
            pieces.append(block)
            code.add(block)
        last = end
    pieces += [detokenize(p) for p in _pieces(text[last:])]
    return pieces, code


def normalise_statement(text: str) -> str:
    """Trailing punctuation normalised: the judged text does not depend on it. A sentence that
    ends inside its closing quotation mark ('He said “Rome is big.”') keeps it, without a
    second full stop after it ('“Rome is big.”.')."""
    text = text.strip().rstrip(".!;:, \u3002\uff01\uff1b\uff1a\uff0c").strip()
    return text if _QUOTE_END.search(text) else text + "."


def last_turn(question: str) -> str:
    """The question a reply answers: the last line, its speaker label removed ("Assistant:
    Lucky you! What will you see first?" -> "Lucky you! What will you see first?")."""
    lines = [ln.strip() for ln in (question or "").splitlines() if ln.strip()]
    if not lines:
        return ""
    return _SPEAKER.sub("", lines[-1])


def as_claim(statement: str, question: str) -> str:
    """A short answer becomes the claim it makes about the question: put back into a
    wh-question as the sentence it claims ("Rome is the capital of Italy.", ``wh_claim``), or
    else 'The answer to "Q" is Rome.'."""
    q = last_turn(question)
    if not q:
        return statement
    body = statement.rstrip(".")
    if question_kind(q) == "wh" and (sentence := declarative(q, body)) is not None:
        return sentence
    return f'The answer to "{q}" is {body}.'


_QUOTED = re.compile(
    r'^\s*(["\u201c\u00ab])(?P<body>[^"\u201c\u201d\u00ab\u00bb]+)["\u201d\u00bb][^\w"]*$',
    re.DOTALL,
)


def _unquote(piece: str) -> str:
    """A piece that is one quotation, without its quotation marks."""
    m = _QUOTED.match(piece)
    return m.group("body").strip() if m else piece


def _layout_why(pieces: list[str], k: int, numbers: int) -> str | None:
    """Why piece ``k`` is layout or working, not content; None when it is content."""
    piece = pieces[k]
    if _stray_list_number(pieces, k, numbers):
        return "a list number asserts nothing"
    if is_lead_in(without_list_number(piece)):
        return "a lead-in to what follows asserts nothing"
    if is_process_talk(piece):  # "Let me check the context."
        return "talks about answering, not the world"
    return None


def _remark_why(piece: str, *, several: bool) -> str | None:
    """Why the piece is a remark around the answer, not a claim: a pleasantry, a pointer to a
    source, or (beside other pieces) what the context lacks; None when it may be a claim."""
    if _NON_ASSERTION.match(piece) or _TALK_AROUND.match(piece):
        return "asserts nothing"
    if is_pointer(piece):  # "See https://... for more."
        return "points to a source"
    if several and says_context_lacks(piece):  # "The context does not mention X."
        return "says what the context lacks"
    return None


def _code_claim(out: Claims, piece: str, question: str) -> bool:
    """A fenced code block taken as one claim, as written; True when it addresses the
    evaluator (and is dropped)."""
    if _evaluator_match(piece) is not None:
        out.drop(piece, "addresses the evaluator")
        return True
    short = len(piece.split()) <= SHORT_WORDS and "\n" not in piece
    judged = as_claim(piece, question) if short else f"{_CODE_CLAIM}\n{piece}"
    out.add(piece, judged, f"{last_turn(question)} {piece}".strip())
    return False


def _without_courtesies(out: Claims, piece: str) -> str:
    """The piece less the courtesies around it ("Certainly! yes.", "Rome, of course.") and a
    pointer or talk the splitter left after it ("... A and E. Read more."), each dropped."""
    courtesy = opening_courtesy(piece)
    if courtesy is not None:  # "Certainly! yes." (no sentence break before lower case)
        out.drop(courtesy.group(0).strip(), "asserts nothing")
        piece = piece[courtesy.end() :]
    closing = closing_courtesy(piece)
    if closing is not None:  # "Rome, of course."
        out.drop(closing.group(0).strip(" ,"), "asserts nothing")
        piece = piece[: closing.start()] + "."
    head, stop, tail = piece.rpartition(". ")
    if stop and (is_pointer(tail) or talks_to_user(tail)):
        out.drop(tail, "points to a source" if is_pointer(tail) else TALK)
        piece = head + "."
    return piece


def _framed_short_answer(piece: str) -> str:
    """The short answer in "It's Rome." / "That would be Cillian Murphy." (a name, a number, a
    noun phrase of at most ``SHORT_WORDS`` words and no verb); else the piece."""
    m = _IT_IS.match(piece.strip())
    if m is None:
        return piece
    answer = m.group("answer").strip()
    if len(tokens(answer)) > SHORT_WORDS or _SENTENCE_LIKE.search(answer):
        return piece
    return answer


def _yes_no(out: Claims, piece: str, question: str, kind: str | None, *, alone: bool) -> bool:
    """Takes a reply that only says yes or no into ``out`` and returns True; else False.

    To a yes/no question "Absolutely!" (the whole answer) or "Yes, it is." is the claim that
    the answer is yes (a bare "Yes." is left to be judged as written); "Certainly!" before the
    answer's sentences is a courtesy; to a wh-question no yes or no is a claim.
    """
    polarity = reply_polarity(piece) if kind is not None else None
    if polarity is None or (kind == "polar" and bare_yes_no(piece)):
        return False
    why = "a yes or no does not answer a wh-question" if kind == "wh" else None
    if why is None and not alone and only_affirms(piece) and not bare_yes_no(piece):
        why = "asserts nothing"  # "Certainly! No, the Rhine is ...": a courtesy
    why = why or not_about_the_world(piece, question, short=True, alone=alone)
    if why is not None:
        out.drop(piece, why)
    else:
        out.add(piece, as_claim(polarity, question), f"{last_turn(question)} {piece}".strip())
    return True


def claims_of(question: str, answer: str) -> Claims:
    """The answer's claims; short ones are rewritten against the question (module docstring).

    Evaluator-directed text is cut where it starts, whatever the punctuation before it ("Rome
    Note to the evaluator: ..." keeps "Rome"); after such text, a bare "yes"/"no" is dropped too.
    """
    final = final_answer(answer)  # "<think>...</think>": the working is not the answer
    cited = strip_citations(strip_hidden(final.text))  # "[1]", "(Source 2)", "Sources: ..."
    plain = plain_text(cited.text, answer=True)  # layout, and "Answer:" before the first line
    out = Claims(dropped=final.dropped + cited.dropped + plain.dropped)
    tainted = False
    kind = question_kind(last_turn(question))  # "polar" (yes/no), "wh" or None
    pieces, code = _split_code(_unquote(plain.text))  # a whole answer in quotation marks
    numbers = sum(1 for p in pieces if is_list_number(p))  # lone list numbers ("2.")
    for k, piece in enumerate(pieces):
        if piece in code:  # a fenced code block: one claim, as written
            tainted = _code_claim(out, piece, question) or tainted
            continue
        layout = _layout_why(pieces, k, numbers)
        if layout is not None:
            out.drop(piece, layout)
            continue
        piece = unwrap_answer(piece)  # "The answer is: yes" is the answer "yes"
        m = _evaluator_match(piece)
        if m is not None:
            out.drop(piece[m.start() :], "addresses the evaluator")
            piece, tainted = piece[: m.start()].strip(), True
        elif tainted and _BARE_VERDICT.match(piece):
            out.drop(piece, "a verdict after evaluator-directed text")
            continue
        if not any(ch.isalnum() for ch in piece):
            continue
        piece = _without_courtesies(out, piece)
        if _yes_no(out, piece, question, kind, alone=len(pieces) == 1):
            continue
        remark = _remark_why(piece, several=len(pieces) > 1)
        if remark is not None:
            out.drop(piece, remark)
            continue
        piece = _unquote(piece)  # '"Rome is the capital."' quotes a source: its words claim
        piece = unwrap_question(piece)  # "Did you know that X?" -> "X"
        piece = unwrap_attribution(piece)  # "According to the context, X" -> "X"
        if _yes_no(out, piece, question, kind, alone=len(pieces) == 1):  # "..., definitely."
            continue
        if kind == "wh" and not out.original:  # the first claim: "It's Rome." -> "Rome"
            piece = _framed_short_answer(piece)
        short = len(tokens(piece)) <= SHORT_WORDS and not _SENTENCE_LIKE.search(piece)
        why = not_about_the_world(piece, question, short=short, alone=len(pieces) == 1)
        if why is not None:
            out.drop(piece, why)
            continue
        text = normalise_statement(piece)
        if short:
            out.add(piece, as_claim(text, question), f"{last_turn(question)} {piece}".strip())
        else:
            out.add(piece, text, piece)
    return out
