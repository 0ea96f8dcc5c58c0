"""Answers that decline to answer, and whether a pipeline declined exactly when it should.

Why: "I don't know." makes no claim, so faithfulness has nothing to check (it is not
applicable, not unfaithful), and answer relevance calls it noncommittal (RAGAS: score 0). A
pipeline that declines when the context lacks the answer is doing its job: RAG benchmarks call
this negative rejection (Chen et al. 2024, RGB). Detection is by phrasing (English here;
sixteen other languages in ``refusal_i18n``), on the whole answer: it declines when it is short
(at most ``MAX_WORDS`` words, two CJK characters a word) and contains a refusal phrase. A long
answer that also says "the context does not mention X" still makes claims, so it is judged as
usual.

Metrics (per sample; the mean over samples is what the summary shows):
- ``refusal_rate``: 1 when the answer declines. Mean = share of declined answers (no labels).
- ``refusal_accuracy``: 1 when the answer declined exactly when ``is_answerable`` is False.
  The details carry the confusion cell (tp: declined an unanswerable question; fp: declined an
  answerable one; fn: answered an unanswerable one; tn), from which ``refusal_confusion``
  gives precision = tp / (tp + fp) and recall = tp / (tp + fn). Worked number: 3 unanswerable
  questions of which 2 declined, and 1 of 5 answerable ones declined: precision 2/3, recall 2/3,
  accuracy (2 + 4) / 8 = 0.75.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ragmeter.metrics import refusal_i18n
from ragmeter.metrics.base import Metric, Score
from ragmeter.metrics.layout import plain_text
from ragmeter.metrics.reasoning import final_answer
from ragmeter.metrics.refusal_i18n_phrases import REFUSAL as REFUSAL_I18N
from ragmeter.metrics.speaker import NOT_ELSEWHERE, says_context_lacks, talks_to_user
from ragmeter.sample import Sample
from ragmeter.text import detokenize, split_sentences

MAX_WORDS = 40
MAX_CHARS = 2000

_DOCS_WORD = r"(context|passages?|documents?|texts?|sources?|information|excerpts?|articles?)"
# "... not possible to say." ending the answer, or "... from the context": about the documents
_FROM_DOCS = (
    r"(?=(\s+(this|that|it))?(\s*[.!]?\s*$|\s+(from|based\s+on|with|given|using|in)\s+"
    r"(the\s+)?(provided\s+|given\s+|available\s+|above\s+)?" + _DOCS_WORD + r"))"
)
_DOES_NOT = r"(does\s+not|do\s+not|did\s+not|doesn't|don't|didn't)"
# someone else's text is no refusal: "The treaty's text does not mention Crimea." claims what "The
# text of the treaty does not mention Crimea." does (2026-11-28, review)
_NOT_OWNED = r"(?<!'s\s)(?<!s'\s)(?<!\bhis\s)(?<!\bher\s)(?<!\btheir\s)"
_THE_DOCS = (
    _NOT_OWNED + r"(the\s+)?(provided\s+|given\s+|available\s+|above\s+|retrieved\s+)?" + _DOCS_WORD
)
# "No data was lost.", "No information was leaked.": what happened to data, not a lack of it
# (2026-11-28, review); "No information was found." still declines
_LOST = (
    r"(?!\s+((was|were|is|are|has\s+been|have\s+been|had\s+been|got|will\s+be)\s+)?(lost|leaked|"
    r"stolen|deleted|erased|corrupted|compromised|exposed|breached|destroyed|released|disclosed|"
    r"shared|sold|collected|transferred|published|altered|tampered)\b)"
)
_REFUSAL = re.compile(
    r"\b(i\s+(do\s+not|don't|dont)\s+know|i(\s+am|'m)\s+not\s+sure|no\s+idea|"
    r"i(\s+(cannot|can't|can\s+not|could\s+not|couldn't|am\s+unable\s+to)|'m\s+unable\s+to)\s+"
    r"(answer|find|tell|say|determine|provide|help)|"
    # "does not say / cover ...", "is not given / available" only of the documents (2026-11-27):
    # "The policy does not cover flood damage.", "The vaccine is not available to children."
    # answer; "The context does not say.", "It doesn't mention it.", "The date is not given."
    # decline
    r"(" + _THE_DOCS + r"(\s+(provided|given|above|here))?\s+|^\W*)" + _DOES_NOT + r"\s+"
    r"(say|mention|contain|specify|state|include|provide|cover|have)|"
    # 2026-11-27 (audit): "The documents make no mention of X.", "None of the passages
    # mention X.", "Neither document says ..."
     + _THE_DOCS + r"\s+(make|makes|made)\s+no\s+mention|"
    r"(none\s+of|neither(\s+of)?)\s+" + _THE_DOCS + r"\s+(mentions?|says?|specif(y|ies)|states?|"
    r"contains?|includes?|provides?|covers?)\b|"
    r"\b(it|this|that|they)\s+" + _DOES_NOT + r"\s+(say|mention|specify|state)|"
    # only as a verdict on answering: "The surveyors had insufficient information to map the
    # region." claims something (2026-11-27, audit)
    r"(not\s+(enough|sufficient)|insufficient)\s+(information|context|data|details)"
    r"(?=\s*[.!]?\s*$|\s+(to\s+(answer|determine|say|tell|know|provide|conclude|identify|"
    r"confirm|be\s+sure|give)|about|on|regarding|concerning|in|from|based\s+on|given|provided|"
    r"available|here|for\s+(this|that|me|an?\s+answer|a\s+definitive)))|"
    # "no information" of the documents, or said as such: "The patient had no information
    # about her diagnosis." and "The report contains no data on Asia." answer (2026-11-27)
    # "There is no information about X in the city archives." claims what the archives lack
    r"((^\W*|there(\s+(is|are|was|were)|'s)\s+)(" + NOT_ELSEWHERE + r")|(i|we)\s+(have|had|found|"
    r"see)\s+|"
    + _THE_DOCS
    + r"(\s+(provided|given|above|here))?\s+(contains?|provides?|gives?|has|have|includes?)\s+)"
    r"no\s+(information|context|data|details)" + _LOST + "|"
    r"(is|are)\s+not\s+(mentioned|stated|specified)|"
    r"(is|are)\s+not\s+(given|provided|available)" + _FROM_DOCS + r"|"
    # "unable to determine" of the speaker, alone, or of the documents: "The court was unable
    # to determine the cause of death." claims something (2026-11-27, audit)
    r"((^|sorry|unfortunately)\W*|\b(i|we)(\s+(am|are|was|were)|'m|'re)\s+)(unable|not\s+able)"
    r"\s+to\s+(answer|find|determine)|"
    r"(unable|not\s+able)\s+to\s+(answer|find|determine)(?=[^.;!?]{0,300}\b(from|in|based\s+on|with|"
    r"given|using)\s+" + _THE_DOCS + r")|"
    r"(no|not\s+an?)\s+(answer|mention)\s+(in|to)|"
    # "unknown" only as the answer's verdict (at its end, or about the documents): "The
    # Unknown Soldier is buried at Arlington." claims something (2026-11-27)
    r"(unknown|unanswerable)\b" + _FROM_DOCS + r"|"
    # 2026-11-26: more of the ways LLMs decline; the impersonal ones only about the documents
    # or at the answer's end ("The fee is not covered by insurance." claims something)
    r"i(\s+am|'m)\s+not\s+certain|"
    r"(not\s+possible\s+to\s+(say|tell|determine|answer|know)|can(not|'t|\s+not)\s+be\s+"
    r"(determined|answered|known|inferred))" + _FROM_DOCS + r"|"
    r"(i|we)\s+(do\s+not|don't)\s+have\s+(access\s+to\s+)?(enough|sufficient|any|the|that|this|"
    r"such|specific)?\s*(relevant\s+)?(information|context|data|details)|"
    # 2026-11-27 (audit): "Based on the documents, it is not possible to determine when ...",
    # "Cannot answer.", "No answer found.", "There is no mention of X in the documents."
    r"(based\s+on|according\s+to|from|given|in)\s+" + _THE_DOCS + r"\W+(it\s+is|it's)\s+"
    r"(not\s+possible|impossible)\s+to\s+(say|tell|determine|answer|know)|"
    r"^\W*(i\s+)?(cannot|can't|can\s+not)\s+answer\b|^\W*no\s+answer\s+(was\s+)?(found|available)|"
    r"^\W*no\s+answer\W*$|"  # the whole answer "No answer.": it was judged 'No answer is the X.'
    r"there(\s+(is|was)|'s)\s+no\s+mention\s+of\b[^.;!?]{0,300}\b(in|from)\s+" + _THE_DOCS + r"|"
    r"(i|we)\s+(do\s+not|don't|did\s+not|didn't|cannot|can't)\s+see\s+(any|that|this|it|anything)"
    r"\b[^.;!?]{0,300}\b(in|from)\s+" + _THE_DOCS + r"|"
    r"no\s+(relevant|specific)\s+information"
    + _LOST
    + "|"
    + _NOT_OWNED
    + _DOCS_WORD
    + r"\s+(is|are)\s+silent\s+(on|about)|"
    r"((is|are)\s+not|isn't|aren't)\s+(covered|addressed|discussed|included)\s+(in|by)\s+"
    r"(the\s+)?(provided\s+|given\s+)?"
    + _DOCS_WORD
    + r"|^\W*(n/?a|not\s+(mentioned|stated|specified|given|provided|available|known))\W*$|"
    # 2026-11-26, night: "The answer is not in the context.", "... cannot be found in the
    # provided documents.", "It is unclear from the context.", "This isn't mentioned in ...",
    # "Not stated in the context."
    r"answer\s+(is\s+not|isn't|cannot\s+be|can't\s+be|could\s+not\s+be|couldn't\s+be)\s+"
    r"(found\s+|given\s+|determined\s+)?(in|from)\s+" + _THE_DOCS + r"|"
    r"(cannot|can't|could\s+not|couldn't)\s+be\s+found\s+(in|from)\s+" + _THE_DOCS + r"|"
    r"(is|are|was|were)\s+(unclear|not\s+clear)\s+(from|in|based\s+on)\s+" + _THE_DOCS + r"|"
    r"(isn't|aren't|wasn't|weren't)\s+(mentioned|stated|specified)\b|"
    r"(isn't|aren't|wasn't|weren't)\s+(given|provided|available)\b" + _FROM_DOCS + r"|"
    r"^\W*not\s+(mentioned|stated|specified|given|provided|found|covered|discussed)\s+(in|by)\s+"
    + _THE_DOCS
    + r"\W*$)",
    re.IGNORECASE,
)


# 2026-11-27 (audit): a refusal followed by "but" and a claim answers after all ("I don't know
# why, but Rome is the capital.", "The context does not mention the date, but the treaty was
# signed by France and Spain."), as does one inside a concession ("While the documents don't
# say, the meeting was held in Geneva."); advice to the user after "but" is no claim.
_CONTRAST = re.compile(r"\b(but|however|although|though|nevertheless|nonetheless)\b", re.I)
_CONCESSION = re.compile(r"\b(while|whilst|although|though|even\s+if)\b[^.;!?]*$", re.I)
_LOOK = r"(check|consult|look|refer|contact|ask|search|visit|try|find|review|read|see)"
# advice to look elsewhere, never a claim: "You may want to check the website." (but "You
# should take two pills a day." and "Contact lenses were invented in 1888." claim something)
_ADVICE = re.compile(
    r"\W*(you\s+(could|can|may|might|should|would)\s+(also\s+)?(want\s+to\s+|need\s+to\s+|"
    r"try\s+)?" + _LOOK + r"|(i|we)(\s+(can|could|would|will)|'d|'ll)\s+(be\s+)?(happy|glad|"
    r"help|suggest|recommend)|(i|we)\s+(suggest|recommend)|please|feel\s+free|perhaps\s+you|"
    r"maybe\s+you|(try|consider|check|consult|refer\s+to|contact|visit)\s+(the|a|an|your|their|"
    r"its|other|another|official|with|out)|try\s+\w+ing|"
    r"it\s+(might|may|would)\s+be\s+(worth|best|helpful|useful|a\s+good\s+idea))\b",
    re.I,
)
# an apology or thanks as a whole sentence ("Unfortunately, the city was destroyed." claims)
_COURTESY = re.compile(
    r"^\W*(((i'm|i\s+am|we're|we\s+are)\s+(so\s+|very\s+|really\s+)?sorry|sorry|apologies|"
    r"i\s+apologi[sz]e|unfortunately|thank\s+you|thanks)(\s+(for|about)\s+[^.!?,]{0,40})?)"
    r"\W*$",
    re.I,
)
# a refusal phrase in quotation marks inside a longer answer is quoted, not said: 'She said: "I
# don't know."' and 'The song "I Don't Know" was released in 1980.' answer (2026-11-27, audit)
_QUOTED = re.compile(r'"[^"]*"|\u201c[^\u201d]*\u201d')
# "I don't know" is the speaker's own clause at a sentence's start, after punctuation ("Sorry,"),
# after a lead ("Honestly", "Unfortunately", "I'm afraid"), a conjunction or a frame on the
# documents; straight after any other word it is a title or reported speech inside another
# clause: "The song I Don't Know was released in 1980.", "The patient answered I don't know to
# every question." answer (2026-11-28, review). Masked as a quotation is.
_LEADS = refusal_i18n.word_set(
    "sorry honestly unfortunately frankly truthfully truly sadly alas regrettably admittedly "
    "apologies well hmm um uh oh ok okay afraid and but or so yet nor then because that now "
    "really honest personally currently moment time here put short word say admit confess guess "
    "though although while if since as however when unless context passage passages document "
    "documents text sources question"
)
_EMBEDDED_IDK = re.compile(r"(?<!\s)(\s+)i\s+(do\s+not|don't|dont)\s+know\b", re.I)
# reported speech without quotation marks: "He said, I don't know." and "The minister replied:
# I don't know." tell what someone said (a claim), where "As I said, I don't know." is the
# speaker's own (2026-11-28). Masked as a quotation is. English only.
_REPORTED_IDK = re.compile(
    r"(?<!\bi\s)(?<!\bwe\s)(?<!\bi've\s)(?<!\bwe've\s)\b(said|says|replied|replies|answered|answers|responded|responds|"
    r"told\s+\w+|added|adds|wrote|writes|admitted|admits|stated|states|explained|shouted|"
    r"whispered|insisted|claimed|claims|confessed)\s*[,:]\s*"
    r"(?P<idk>i\s+(do\s+not|don't|dont)\s+know)\b",
    re.I,
)


def _as_quoted(m: re.Match[str]) -> str:
    """The reporting verb kept, what was said masked as a quotation is."""
    return m.group(0)[: m.start("idk") - m.start()] + '"\u2026"'


_LAST = re.compile(r"(?s).*[\w.!?\u061f\u0964]")
_PIECE = re.compile(r";\s*|(?<=[\u061f\u0964])\s*")


def _claims_besides(text: str, m: re.Match[str]) -> bool:
    """Whether the sentence holding the refusal phrase ``m`` also claims something."""
    tail = text[m.end() :]
    if _CONCESSION.search(text[: m.start()]) and re.search(r"\w", tail.partition(",")[2]):
        return not _REFUSAL.search(tail.partition(",")[2])
    # "X has been involved with many groups, but her role is not mentioned." (WikiEval)
    head = list(_CONTRAST.finditer(text[: m.start()]))
    before = text[: head[-1].start()] if head else ""
    if re.search(r"\w", before) and not (
        _COURTESY.match(before) or re.search(r"\b" + _DOCS_WORD + r"\b", before, re.I)
    ):
        return True
    contrast = _CONTRAST.search(tail)
    if contrast is None:
        return False
    after = tail[contrast.end() :]
    return bool(re.search(r"\w", after)) and not (_REFUSAL.search(after) or _ADVICE.match(after))


def _no_claim(piece: str) -> bool:
    """A sentence around a refusal that claims nothing: an apology, a question back, advice,
    talk to the user, or another remark on what the documents lack."""
    return bool(
        _COURTESY.match(piece)
        or piece.rstrip().endswith("?")
        or _ADVICE.match(piece)
        or talks_to_user(piece)
        or says_context_lacks(piece)
        or refusal_i18n.no_claim(piece)
        or not re.search(r"\w", piece)
    )


def declines(answer: str | None) -> str | None:
    """The refusal phrase when the answer declines to answer, else None. A reasoning model's
    working is not read ("<think>The context does not say ... </think>Rome." answers); markdown
    around it is ("**N/A**", "*Not mentioned in the context.*", "Answer: Unknown"). Every
    sentence must decline or claim nothing: "The context does not state his age. He was born in
    1950." claims something (2026-11-27, audit; so did 2 WikiEval answers detected before)."""
    text = plain_text(final_answer(answer or "").text, answer=True).text.strip()
    # 40 words are never 2,000 characters: a run of spaces, punctuation or "a a a" (no word
    # counts) was read by every pattern, 0.2 s for 20,000 characters (2026-11-28, review)
    if not text or len(text) > MAX_CHARS or refusal_i18n.words(text) > MAX_WORDS:
        return None
    text = detokenize(text.replace("\u2019", "'"))
    if re.search(r"\w", _QUOTED.sub("", text)):
        text = _QUOTED.sub('"\u2026"', text)
    if re.search(r"\w", refusal_i18n.QUOTED.sub("", text)):  # « Je ne sais pas. », 「…」
        text = refusal_i18n.QUOTED.sub('"\u2026"', text)
    text = _REPORTED_IDK.sub(_as_quoted, text)
    text = refusal_i18n.mask_after(text, _EMBEDDED_IDK, _LEADS, after=False)
    text = refusal_i18n.mask_embedded(text)
    # the pattern opens with a word boundary: "`N/A`" and "Unknown \U0001f914" never matched
    text = re.sub(r"^[\W_]+", "", text)
    # the last word or stop, found from the end: "[^\w.!?]+$" retried at every position of a run
    # of spaces (20,000 spaces took 4 s: 2026-11-28, review)
    end = _LAST.match(text)
    text = text[: end.end()] if end is not None else ""
    phrase = None
    # "؟" and "।" after a refusal: _PIECE cuts there too (split_sentences does since 2026-11-28)
    for piece in (p for s in split_sentences(text) for p in _PIECE.split(s) if p):
        m = _REFUSAL.search(piece)
        if m is not None and not _claims_besides(piece, m):
            phrase = phrase or m.group(0)
        elif m is None and (m := REFUSAL_I18N.search(piece)) is not None:
            if refusal_i18n.claims_besides(piece, m):
                return None
            phrase = phrase or m.group(0)
        elif m is not None or not _no_claim(piece):
            return None
    return phrase


def cell(declined: bool, answerable: bool) -> str:
    if not answerable:
        return "tp" if declined else "fn"
    return "fp" if declined else "tn"


def refusal_confusion(cells: Iterable[str]) -> dict[str, float | int | None]:
    """Counts, precision, recall and accuracy from per-sample confusion cells."""
    c = {k: 0 for k in ("tp", "fp", "fn", "tn")}
    for x in cells:
        c[x] += 1
    n = sum(c.values())
    prec = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else None
    rec = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else None
    return {
        **c,
        "precision": prec,
        "recall": rec,
        "accuracy": (c["tp"] + c["tn"]) / n if n else None,
    }


def _refusal_rate(sample: Sample) -> Score:
    phrase = declines(sample.answer)
    return Score.ok(float(phrase is not None), declined=phrase is not None, refusal_phrase=phrase)


def _refusal_accuracy(sample: Sample) -> Score:
    if sample.is_answerable is None:
        return Score.skipped("needs is_answerable (true/false)")
    phrase = declines(sample.answer)
    c = cell(phrase is not None, sample.is_answerable)
    return Score.ok(
        float(c in ("tp", "tn")), cell=c, declined=phrase is not None, refusal_phrase=phrase
    )


RATE_METRIC = Metric(
    name="refusal_rate",
    description='Share of answers that decline to answer ("I don\'t know", "the context does '
    'not say"); no labels needed. English, French, Spanish, German, Italian, Portuguese, '
    "Dutch, Russian, Chinese, Japanese, Korean, Arabic, Hindi, Turkish, Polish, Indonesian "
    "and Vietnamese phrasings.",
    requires=(("answer",),),
    compute=_refusal_rate,
    # 3: a reasoning model's working is not read; 2: tokenized refusals ("i do n't know .")
    # 4: a JSON answer's text is read; 5: more phrasings ("not possible to say", "N/A")
    # 6: "The answer is not in the context.", "It is unclear from the context.", "isn't"
    # 7: "unknown", "does not cover", "is not available" decline only about the documents
    # (or, for "unknown" and "not available", at the answer's end); "I'm not sure" declines
    # 8: a claim besides the refusal ("..., but Rome is.", another sentence) answers; markdown
    # and emoji around a refusal, "None of the documents mention", "I don't have that information"
    # 9: refusals in French, Spanish, German, Italian, Portuguese, Dutch, Russian, Chinese and
    # Japanese (refusal_i18n.py); CJK text counts two characters a word
    # 10: a refusal followed by talk to the user in those languages declines ("Bonne journée !")
    # 11: Korean, Arabic, Hindi, Turkish, Polish, Indonesian and Vietnamese (refusal_i18n_phrases2);
    # answers sharing refusal words answer ("No data was lost.", "警察は…を知りません。", 《title》,
    # "The song I Don't Know ...", "no data on the flight recorder", "The treaty's text ...")
    # 12: reported speech without quotation marks answers ("He said, I don't know.")
    version="12",
    formula="1 if the answer declines else 0; mean = refusal rate",
    direction="none",  # descriptive: whether more refusals is better depends on the questions
)
ACCURACY_METRIC = Metric(
    name="refusal_accuracy",
    description="Negative rejection: the answer declined exactly when is_answerable is false "
    "(details: confusion cell; the Python function ragmeter.metrics.refusal.refusal_confusion "
    "turns the cells into precision and recall).",
    requires=(("answer", "is_answerable"),),
    compute=_refusal_accuracy,
    # 3: a reasoning model's working is not read; 2: tokenized refusals ("i do n't know .")
    # 4: a JSON answer's text is read; 5: more phrasings ("not possible to say", "N/A")
    # 6: "The answer is not in the context.", "It is unclear from the context.", "isn't"
    # 7: "unknown", "does not cover", "is not available" decline only about the documents
    # (or, for "unknown" and "not available", at the answer's end); "I'm not sure" declines
    # 8: a claim besides the refusal ("..., but Rome is.", another sentence) answers; markdown
    # and emoji around a refusal, "None of the documents mention", "I don't have that information"
    # 9: refusals in French, Spanish, German, Italian, Portuguese, Dutch, Russian, Chinese and
    # Japanese (refusal_i18n.py); CJK text counts two characters a word
    # 10: a refusal followed by talk to the user in those languages declines ("Bonne journée !")
    # 11: Korean, Arabic, Hindi, Turkish, Polish, Indonesian and Vietnamese (refusal_i18n_phrases2);
    # answers sharing refusal words answer ("No data was lost.", "警察は…を知りません。", 《title》,
    # "The song I Don't Know ...", "no data on the flight recorder", "The treaty's text ...")
    # 12: reported speech without quotation marks answers ("He said, I don't know.")
    version="12",
    formula="1 if declined == (not is_answerable) else 0",
)
METRICS = (RATE_METRIC, ACCURACY_METRIC)
