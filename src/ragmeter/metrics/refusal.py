"""Answers that decline to answer, and whether a pipeline declined exactly when it should.

Why: "I don't know." makes no claim, so faithfulness has nothing to check (it is not
applicable, not unfaithful), and answer relevance calls it noncommittal (RAGAS: score 0). A
pipeline that declines when the context lacks the answer is doing its job: RAG benchmarks call
this negative rejection (Chen et al. 2024, RGB). Detection is by phrasing (English), on the
whole answer: it declines when it is short (at most ``MAX_WORDS`` words) and contains a refusal
phrase. A long answer that also says "the context does not mention X" still makes claims, so
it is judged as usual.

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

from ragmeter.metrics.base import Metric, Score
from ragmeter.metrics.reasoning import final_answer
from ragmeter.sample import Sample
from ragmeter.text import detokenize, tokens

MAX_WORDS = 40

_DOCS_WORD = r"(context|passages?|documents?|texts?|sources?|information|excerpts?|articles?)"
# "... not possible to say." ending the answer, or "... from the context": about the documents
_FROM_DOCS = (
    r"(?=(\s+(this|that|it))?(\s*[.!]?\s*$|\s+(from|based\s+on|with|given|using|in)\s+"
    r"(the\s+)?(provided\s+|given\s+|available\s+|above\s+)?" + _DOCS_WORD + r"))"
)
_DOES_NOT = r"(does\s+not|do\s+not|did\s+not|doesn't|don't|didn't)"
_THE_DOCS = r"(the\s+)?(provided\s+|given\s+|available\s+|above\s+|retrieved\s+)?" + _DOCS_WORD
_REFUSAL = re.compile(
    r"\b(i\s+(do\s+not|don't|dont)\s+know|i(\s+am|'m)\s+not\s+sure|no\s+idea|"
    r"i(\s+(cannot|can't|can\s+not|could\s+not|couldn't|am\s+unable\s+to)|'m\s+unable\s+to)\s+"
    r"(answer|find|tell|say|determine|provide|help)|"
    # "does not say / cover ...", "is not given / available" only of the documents (2026-11-27):
    # "The policy does not cover flood damage.", "The vaccine is not available to children."
    # answer; "The context does not say.", "It doesn't mention it.", "The date is not given."
    # decline
    r"(" + _THE_DOCS + r"(\s+(provided|given|above|here))?\s+|^\W*)" + _DOES_NOT + r"\s+"
    r"(say|mention|contain|specify|state|include|provide|cover)|"
    r"\b(it|this|that|they)\s+" + _DOES_NOT + r"\s+(say|mention|specify|state)|"
    r"(not\s+(enough|sufficient)|insufficient)\s+(information|context|data|details)|"
    # "no information" of the documents, or said as such: "The patient had no information
    # about her diagnosis." and "The report contains no data on Asia." answer (2026-11-27)
    r"(^\W*|there(\s+(is|are|was|were)|'s)\s+|(i|we)\s+(have|had|found|see)\s+|"
    + _THE_DOCS
    + r"(\s+(provided|given|above|here))?\s+(contains?|provides?|gives?|has|have|includes?)\s+)"
    r"no\s+(information|context|data|details)|"
    r"(is|are)\s+not\s+(mentioned|stated|specified)|"
    r"(is|are)\s+not\s+(given|provided|available)" + _FROM_DOCS + r"|"
    r"(unable|not\s+able)\s+to\s+(answer|find|determine)|"
    r"(no|not\s+an?)\s+(answer|mention)\s+(in|to)|"
    # "unknown" only as the answer's verdict (at its end, or about the documents): "The
    # Unknown Soldier is buried at Arlington." claims something (2026-11-27)
    r"(unknown|unanswerable)\b" + _FROM_DOCS + r"|"
    # 2026-11-26: more of the ways LLMs decline; the impersonal ones only about the documents
    # or at the answer's end ("The fee is not covered by insurance." claims something)
    r"i(\s+am|'m)\s+not\s+certain|"
    r"(not\s+possible\s+to\s+(say|tell|determine|answer|know)|can(not|'t|\s+not)\s+be\s+"
    r"(determined|answered|known|inferred))" + _FROM_DOCS + r"|"
    r"(i|we)\s+(do\s+not|don't)\s+have\s+(enough|sufficient|any|the)\s+(relevant\s+)?"
    r"(information|context|data|details)|"
    r"no\s+(relevant|specific)\s+information|" + _DOCS_WORD + r"\s+(is|are)\s+silent\s+(on|about)|"
    r"(is|are)\s+not\s+(covered|addressed|discussed)\s+(in|by)\s+(the\s+)?(provided\s+|given\s+)?"
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


def declines(answer: str | None) -> str | None:
    """The refusal phrase when the answer declines to answer, else None. A reasoning model's
    working is not read ("<think>The context does not say ... </think>Rome." answers)."""
    text = final_answer(answer or "").text.strip()
    if not text or len(tokens(text)) > MAX_WORDS:
        return None
    m = _REFUSAL.search(detokenize(text.replace("\u2019", "'")))
    return m.group(0) if m else None


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
    'not say"); no labels needed. English phrasings.',
    requires=(("answer",),),
    compute=_refusal_rate,
    # 3: a reasoning model's working is not read; 2: tokenized refusals ("i do n't know .")
    # 4: a JSON answer's text is read; 5: more phrasings ("not possible to say", "N/A")
    # 6: "The answer is not in the context.", "It is unclear from the context.", "isn't"
    # 7: "unknown", "does not cover", "is not available" decline only about the documents
    # (or, for "unknown" and "not available", at the answer's end); "I'm not sure" declines
    version="7",
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
    version="7",
    formula="1 if declined == (not is_answerable) else 0",
)
METRICS = (RATE_METRIC, ACCURACY_METRIC)
