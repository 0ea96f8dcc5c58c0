"""Reference-based judged metrics users expect from the ragas library.

context_precision: one "was this context useful to arrive at the reference answer?" verdict per
retrieved context, then average precision over ranks,
``AP = sum_k precision@k * v_k / sum_k v_k`` (ragas's definition: normalised by the useful
*retrieved* contexts, since the number of all useful texts is unknown; 0 when none is useful).
context_recall: share of reference-answer sentences attributable to the contexts.
answer_correctness: answer and reference statements sorted into TP / FP / FN,
``F1 = TP / (TP + (FP + FN) / 2)`` (``fast``: TP, FP, FN are expected counts, sums of
P(yes)), blended with the embedding similarity of answer and reference when an embedder is
configured: ``(w0 * F1 + w1 * cos) / (w0 + w1)`` with the weights
``answer_correctness_weights`` (default 0.75 / 0.25 as in ragas, which sum to 1), so weights
(1, 1) give the plain mean. Only the first non-empty reference answer is judged (said in the
details). Worked numbers: context_precision with verdicts (yes, no, yes) is (1/1 + 2/3) / 2 =
0.8333; answer_correctness with TP = 1, FP = 1, FN = 2 has F1 = 1 / (1 + 3/2) = 0.4, and with
cos = 0.6 and weights (1, 1) scores (0.4 + 0.6) / 2 = 0.5.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from ragmeter.errors import JudgeFailed
from ragmeter.metrics.base import Metric, Mode, Score
from ragmeter.metrics.claims import neutralise
from ragmeter.metrics.context import (
    ContextSentences,
    chunk_indices,
    context_budget_tokens,
    context_chunks,
)
from ragmeter.metrics.faithfulness import supported_probs, supported_share
from ragmeter.metrics.judging import (
    Calls,
    chat,
    context_first,
    exactly,
    guarded,
    judge_of,
    mode_of,
    numbered,
    options_of,
    statements_of,
    version,
)
from ragmeter.metrics.reasoning import final_answer, no_final_answer
from ragmeter.prompts import load_prompts
from ragmeter.protocols import Resources
from ragmeter.sample import Sample
from ragmeter.vectors import unit_rows

DEFAULT_MODE = "fast"


class UsefulVerdict(BaseModel):
    reason: str
    verdict: Literal["yes", "no"]


class Attribution(BaseModel):
    reason: str
    attributed: Literal["yes", "no"]


class Attributions(BaseModel):
    sentences: list[Attribution]


class Classified(BaseModel):
    TP: list[str]
    FP: list[str]
    FN: list[str]


def _reference(sample: Sample) -> str:
    refs = [r for r in sample.reference_answers or [] if r and r.strip()]
    if not refs:
        raise _NoReference
    return refs[0]


class _NoReference(Exception):
    pass


def average_precision(verdicts: list[bool]) -> float:
    """ragas context precision: mean of precision@k over the ranks k holding a useful context."""
    hits, total = 0, 0.0
    for k, v in enumerate(verdicts, start=1):
        if v:
            hits += 1
            total += hits / k
    return total / hits if hits else 0.0


@guarded
async def context_precision(sample: Sample, resources: Resources) -> Score:
    mode = mode_of(resources, "context_precision", DEFAULT_MODE)
    judge = judge_of(resources)
    try:
        reference = _reference(sample)
    except _NoReference:
        return Score.undefined("no non-empty reference answer")
    contexts = [c for c in sample.contexts or []]
    if not contexts:
        return Score.undefined("no contexts: nothing to rank")
    calls = Calls(judge)
    prompts = load_prompts("reference")
    budget = context_budget_tokens(judge, resources)
    probs: list[float] = []
    reasons: list[str] = []
    for c in contexts:
        one = ContextSentences.of([c])
        if not one.sentences:
            probs.append(0.0)
            reasons.append("empty context")
            continue
        best, why = 0.0, ""
        for chunk in chunk_indices(one.sentences, budget):
            text = one.render(chunk)
            if mode == "fast":
                task = prompts["precision_fast"]["task"].format(reference=neutralise(reference))
                p = await calls.p_yes(
                    context_first(text, sample.question, task),
                    version=version("common", "reference"),
                )
                best = max(best, p)
            else:
                task = prompts["precision_generate"]["task"].format(reference=neutralise(reference))
                v = await calls.structured(
                    context_first(text, sample.question, task),
                    UsefulVerdict,
                    version=version("common", "reference"),
                    max_tokens=160,
                )
                if v.verdict == "yes" or not why:
                    why = v.reason
                best = max(best, 1.0 if v.verdict == "yes" else 0.0)
            if best >= 0.5:
                break
        probs.append(best)
        reasons.append(why)
    verdicts = [p >= 0.5 for p in probs]
    details = {
        "mode": mode,
        "verdicts": ["yes" if v else "no" for v in verdicts],
        "judge": calls.details(),
    }
    if mode == "fast":
        details["p_yes"] = [round(p, 4) for p in probs]
    else:
        details["reasons"] = reasons
    if not any(verdicts):
        details["note"] = "no retrieved context was useful"
    return Score.ok(average_precision(verdicts), **details)


@guarded
async def context_recall(sample: Sample, resources: Resources) -> Score:
    mode = mode_of(resources, "context_recall", DEFAULT_MODE)
    judge = judge_of(resources)
    try:
        reference = _reference(sample)
    except _NoReference:
        return Score.undefined("no non-empty reference answer")
    if not any((c or "").strip() for c in sample.contexts or []):
        return Score.undefined("no contexts: nothing to attribute the reference to")
    sentences = statements_of(reference)
    if not sentences:
        return Score.undefined("the reference answer has no sentences")
    calls = Calls(judge)
    ctx = ContextSentences.of(sample.contexts or [])
    chunks = context_chunks(ctx, judge, resources)
    prompts = load_prompts("reference")
    if mode == "fast":
        probs = await supported_probs(
            calls,
            ctx,
            chunks,
            sample.question,
            sentences,
            prompts["recall_fast"]["task"],
            version("common", "reference"),
        )
        return supported_share(
            probs, mode=mode, reference_sentences=sentences, judge=calls.details()
        )
    listing = numbered(sentences)
    attributed = [False] * len(sentences)
    reasons = [""] * len(sentences)
    for chunk in chunks:
        task = prompts["recall_generate"]["task"].format(sentences=listing)
        got = await calls.structured(
            context_first(ctx.render(chunk), sample.question, task),
            exactly(Attributions, "sentences", len(sentences)),
            version=version("common", "reference"),
            max_tokens=80 + 60 * len(sentences),
        )
        if len(got.sentences) != len(sentences):
            raise JudgeFailed(
                f"judge gave {len(got.sentences)} attributions for "
                f"{len(sentences)} reference sentences"
            )
        for i, a in enumerate(got.sentences):
            if not attributed[i]:
                attributed[i], reasons[i] = a.attributed == "yes", a.reason
    n = sum(attributed)
    return Score.ok(
        n / len(sentences),
        mode=mode,
        reference_sentences=sentences,
        verdicts=["yes" if a else "no" for a in attributed],
        reasons=reasons,
        judge=calls.details(),
    )


def f1_from_counts(tp: float, fp: float, fn: float) -> float | None:
    denom = tp + 0.5 * (fp + fn)
    return None if denom == 0 else tp / denom


@guarded
async def answer_correctness(sample: Sample, resources: Resources) -> Score:
    mode = mode_of(resources, "answer_correctness", DEFAULT_MODE)
    judge = judge_of(resources)
    try:
        reference = _reference(sample)
    except _NoReference:
        return Score.undefined("no non-empty reference answer")
    if not (sample.answer or "").strip():
        return Score.undefined("empty answer: no statements to compare")
    if (why := no_final_answer(sample.answer)) is not None:
        return Score.undefined(why)
    answer = final_answer(sample.answer or "").text.strip()  # the working is not the answer
    calls = Calls(judge)
    prompts = load_prompts("reference")
    details: dict = {"mode": mode, "reference_used": 0}
    if mode == "fast":
        p = prompts["correctness_fast"]
        ver = version("reference")
        a_st, r_st = statements_of(answer), statements_of(reference)
        if not a_st or not r_st:
            return Score.undefined("the answer or the reference has no sentences")

        async def covered(text: str, statements: list[str]) -> list[float]:
            out = []
            for s in statements:  # [system][question][text] shared, statement last
                user = p["user"].format(
                    question=neutralise(sample.question),
                    text=neutralise(text),
                    statement=neutralise(s),
                )
                out.append(
                    await calls.p_yes(
                        [
                            {"role": "system", "content": p["system"]},
                            {"role": "user", "content": user},
                        ],
                        version=ver,
                    )
                )
            return out

        p_a = await covered(reference, a_st)  # answer statements supported by the reference
        p_r = await covered(answer, r_st)  # reference statements present in the answer
        tp, fp, fn = sum(p_a), sum(1 - x for x in p_a), sum(1 - x for x in p_r)
        details.update(
            answer_statements=a_st,
            answer_p_yes=[round(x, 4) for x in p_a],
            reference_statements=r_st,
            reference_p_yes=[round(x, 4) for x in p_r],
        )
    else:
        g = prompts["correctness_generate"]
        got = await calls.structured(
            chat(
                g["system"],
                g["user"].format(
                    question=neutralise(sample.question),
                    answer=neutralise(answer),
                    reference=neutralise(reference),
                ),
                g["examples"],
            ),
            Classified,
            version=version("reference"),
            max_tokens=900,
        )
        tp, fp, fn = len(got.TP), len(got.FP), len(got.FN)
        details.update(TP=got.TP, FP=got.FP, FN=got.FN)
    f1 = f1_from_counts(tp, fp, fn)
    if f1 is None:
        return Score.undefined(
            "no statements in the answer nor in the reference", judge=calls.details(), **details
        )
    details.update(tp=round(tp, 4), fp=round(fp, 4), fn=round(fn, 4), f1=round(f1, 4))
    value = f1
    embedder = getattr(resources, "embedder", None)
    weights = options_of(resources).get("answer_correctness_weights", (0.75, 0.25))
    if embedder is not None and float(weights[1]) > 0:
        reply = await embedder.embed([answer, reference])
        if not reply.ok or reply.value is None:
            raise JudgeFailed(f"embedder error: {reply.error}")
        v = unit_rows(reply.value)
        sim = float(v[0] @ v[1])
        w0, w1 = float(weights[0]), float(weights[1])
        value = (w0 * f1 + w1 * sim) / (w0 + w1)
        details.update(similarity=round(sim, 4), weights=[w0, w1])
    else:
        details["similarity"] = None
        details["note"] = "F1 only (no embedder configured for the semantic-similarity blend)"
    details["judge"] = calls.details()
    return Score.ok(value, **details)


# The reference-based judged metrics run on request only (-m ...): on a CPU judge they double
# the cost of a default run, and the lexical reference metrics already run by default.
CP_METRIC = Metric(
    name="context_precision",
    # 3: text without capitals or tokenized splits as prose; 2: sentences glued without a
    # space are split (text.split_sentences)
    # 4: HTML tags and blockquote markers in contexts go
    # 5: HTML tables in contexts read as tables
    # 6: a page's scripts and styles are not its text; more HTML tags read as layout
    # 7: 'no.' ends a sentence unless a number follows ('No. 5')
    # 8: chat tokens and data-mark look-alikes ('</data >') made inert
    version="9",  # 9: the reference answer, question and answer marked as data (both modes)
    prompts=("common", "reference"),
    description="Context precision (ragas): a usefulness verdict per retrieved context against "
    "the reference answer, averaged precision over ranks.",
    requires=(("question", "contexts", "reference_answers"),),
    acompute=context_precision,
    modes=(("fast", Mode(frozenset({"judge"}))), ("generate", Mode(frozenset({"judge"})))),
    default_mode=DEFAULT_MODE,
    reference_based=True,
    default=False,
    formula="sum_k precision@k * v_k / sum_k v_k, v_k = 1 if context k is useful (fast: "
    "P(yes) >= 0.5); 0 when none is",
)
CREC_METRIC = Metric(
    name="context_recall",
    # 3: text without capitals or tokenized splits as prose; 2: sentences glued without a
    # space are split (text.split_sentences)
    # 4: HTML tags and blockquote markers in contexts go
    # 5: HTML tables in contexts read as tables
    # 6: a page's scripts and styles are not its text; more HTML tags read as layout
    # 7: 'no.' ends a sentence unless a number follows ('No. 5')
    # 8: chat tokens and data-mark look-alikes ('</data >') made inert
    version="9",  # 9: the reference answer, question and answer marked as data (both modes)
    prompts=("common", "reference"),
    description="Context recall (ragas): share of reference-answer sentences attributable to "
    "the contexts.",
    requires=(("question", "contexts", "reference_answers"),),
    acompute=context_recall,
    modes=(("fast", Mode(frozenset({"judge"}))), ("generate", Mode(frozenset({"judge"})))),
    default_mode=DEFAULT_MODE,
    reference_based=True,
    default=False,
    formula="|attributed reference sentences| / |reference sentences| (fast: mean P(yes) "
    "over the reference sentences)",
)
AC_METRIC = Metric(
    name="answer_correctness",
    # 4: a reasoning model's working is not part of the answer; 3: text without capitals or
    # tokenized splits as prose; 2: sentences glued without a
    # space are split (text.split_sentences)
    # 5: answers as JSON, HTML, blockquotes, 'TL;DR:', 'The answer is X'
    # 6: 'no.' ends a sentence unless a number follows ('No. 5')
    # 7: 'The answer is: That is ...' keeps its 'That'
    # 8: chat tokens and data-mark look-alikes ('</data >') made inert
    version="9",  # 9: the reference answer, question and answer marked as data (both modes)
    prompts=("common", "reference"),
    description="Answer correctness (ragas): statement-level F1 of answer vs reference (TP/FP/"
    "FN), blended with embedding similarity when an embedder is configured.",
    requires=(("question", "answer", "reference_answers"),),
    acompute=answer_correctness,
    modes=(
        # the embedder adds the semantic-similarity blend when configured
        ("fast", Mode(frozenset({"judge"}), frozenset({"embedder"}))),
        ("generate", Mode(frozenset({"judge"}), frozenset({"embedder"}))),
    ),
    default_mode=DEFAULT_MODE,
    reference_based=True,
    default=False,
    formula="(w0 * F1 + w1 * cos(E(answer), E(reference))) / (w0 + w1), "
    "F1 = TP / (TP + (FP + FN) / 2) (fast: expected counts); F1 alone without an embedder",
)
