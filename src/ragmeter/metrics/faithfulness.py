"""RAGAS faithfulness: the share of the answer's claims that the contexts support.

``fast`` (default): the answer's claims (``claims.claims_of``: sentences less evaluator-directed
text, layout and non-assertions; a short answer rewritten as the claim it makes about the
question) are checked against their evidence: the ``evidence_k`` (default 3) context sentences
most similar to each claim (a short answer's: to its question and answer together), united, in
text order, evaluator-directed sentences excluded. Per claim, the
judge's P(yes) and the lexical support (``support.lexical_support``) are combined by the fitted
calibration (``prompts/faithfulness_calibration.json``), with whether the claim holds a name or
number no context sentence holds (``support.missing_specific``):
P(supported) = sigmoid(b0 + b1 logit P(yes) + b2 lexical + b3 missing), at most
``CONFLICT_CAP`` (0.1) for a claim giving a number the context gives otherwise for the same
unit ("57,300 years" over "5,730 years": ``numbers.conflicting``). The score is the
expected share of supported claims, mean P(supported). Worked number with b = (-0.568, 1.684,
0.986, -0.640): claims with (P(yes), lexical, missing) = (0.9, 1.0, 0) and (0.3, 0.0, 1) give
0.984 and 0.067, score 0.525 (judge alone 0.60).
``faithfulness_judge`` / option ``faithfulness_combine="judge"``: mean P(yes), the judge alone.
A refusal ("I don't know") makes no claims: undefined, not applicable.
``generate``: the paper's procedure: the judge writes statements (pronouns resolved), then a
reason and a verdict per statement against the context; F = supported / total.
"""

from __future__ import annotations

import functools

from ragmeter.errors import ResourceUnavailable
from ragmeter.metrics._calibration_file import user_calibration_of
from ragmeter.metrics.base import Metric, Mode, Score
from ragmeter.metrics.claims import claims_of, neutralise
from ragmeter.metrics.context import (
    DEFAULT_EVIDENCE_K,
    ContextSentences,
    context_chunks,
    select_evidence,
)
from ragmeter.metrics.faithfulness_generate import generate
from ragmeter.metrics.judging import (  # Statements, Verdicts: re-exported
    Calls,
    Statements,
    Verdicts,
    context_first,
    each,
    guarded,
    judge_of,
    mode_of,
    options_of,
    version,
)
from ragmeter.metrics.numbers import conflicting
from ragmeter.metrics.reasoning import no_final_answer
from ragmeter.metrics.refusal import declines
from ragmeter.metrics.support import lexical_support, load_calibration, missing_specific
from ragmeter.prompts import load_prompts
from ragmeter.protocols import Resources
from ragmeter.sample import Sample

__all__ = ["JUDGE_METRIC", "METRIC", "Statements", "Verdicts", "faithfulness", "faithfulness_judge"]

DEFAULT_MODE = "fast"
VARIANTS = ("calibrated", "judge")
# P(supported) of a claim whose number the context gives otherwise for the same unit: the
# default's score for a claim the judge rejects (0.03-0.33 on the visible sets' swapped
# numbers); 0.05 cost SciFact 0.002 AUROC on one claim (a rounded range), 0.1 nothing
CONFLICT_CAP = 0.1


def _undefined_inputs(sample: Sample) -> Score | None:
    if not (sample.answer or "").strip():
        return Score.undefined("empty answer: it makes no statements to check")
    if not any((c or "").strip() for c in sample.contexts or []):
        return Score.undefined("no contexts: nothing to check the answer against")
    if (why := no_final_answer(sample.answer)) is not None:
        return Score.undefined(why)
    if (phrase := declines(sample.answer)) is not None:
        return Score.undefined(
            f"not applicable: the answer declines to answer ({phrase!r}), so it makes no claims",
            declined=True,
            refusal_phrase=phrase,
        )
    return None


async def supported_probs(
    calls: Calls,
    ctx: ContextSentences,
    chunks: list[list[int]],
    question: str,
    statements: list[str],
    task: str,
    ver: str,
    grouped: bool = False,
) -> list[float]:
    """max over chunks of P(yes) per statement, chunk-major so each chunk is evaluated once.

    With ``grouped`` (options.group_verdicts=on), a chunk's statements go in one request
    (prompts/grouped.json); a reply that cannot be read falls back to one at a time.
    """
    best = [0.0] * len(statements)
    for chunk in chunks:
        text = ctx.render(chunk)
        if grouped and len(statements) > 1:
            got = await _grouped_probs(calls, text, question, statements, ver)
            if got is not None:
                best = [max(b, p) for b, p in zip(best, got, strict=True)]
                continue
        # a statement already certain is not asked again: later chunks cannot change it
        todo = [i for i in range(len(statements)) if best[i] < 0.999]
        got = await each(
            calls.judge,
            [
                functools.partial(
                    calls.p_yes,
                    context_first(text, question, task.format(statement=neutralise(statements[i]))),
                    version=ver,
                )
                for i in todo
            ],
        )
        for i, p in zip(todo, got, strict=True):
            best[i] = max(best[i], p)
    return best


async def _grouped_probs(
    calls: Calls, text: str, question: str, statements: list[str], ver: str
) -> list[float] | None:
    g = load_prompts("grouped")
    lines = "\n".join(
        g["statement_line"].format(n=i + 1, statement=neutralise(s))
        for i, s in enumerate(statements)
    )
    messages = context_first(text, question, g["task"].format(statements=lines))
    return await calls.p_yes_list(messages, len(statements), version=f"{ver}+{g['version']}")


def supported_share(probs: list[float], **details: object) -> Score:
    """Expected share of supported items, mean P(yes); hard verdicts (P >= 0.5) in details."""
    verdicts = ["yes" if p >= 0.5 else "no" for p in probs]
    return Score.ok(
        sum(probs) / len(probs),
        p_yes=[round(p, 4) for p in probs],
        verdicts=verdicts,
        hard_score=verdicts.count("yes") / len(verdicts),
        **details,
    )


def _variant(resources: Resources, default: str) -> str:
    v = str(options_of(resources).get("faithfulness_combine", default))
    if v not in VARIANTS:
        raise ResourceUnavailable(
            f"faithfulness: unknown faithfulness_combine {v!r}; choose one of {', '.join(VARIANTS)}"
        )
    return v


async def _fast(
    sample: Sample, resources: Resources, calls: Calls, ctx: ContextSentences, variant: str
) -> Score:
    """Claims -> evidence -> judge P(yes) and lexical support per claim -> combined share."""
    claims = claims_of(sample.question, sample.answer or "")
    if not claims.judged:
        return Score.undefined(
            "not applicable: the answer makes no claim about the world", dropped=claims.dropped
        )
    evidence_ctx = ctx.without_instructions()
    if not evidence_ctx.sentences:
        return Score.undefined("the contexts have no sentences to check the answer against")
    k = int(options_of(resources).get("evidence_k", DEFAULT_EVIDENCE_K))
    evidence = await select_evidence(evidence_ctx, claims.queries, resources, k)
    chunks = context_chunks(evidence_ctx, calls.judge, resources, evidence.indices)
    ver = version("common", "faithfulness")
    probs = await supported_probs(
        calls,
        evidence_ctx,
        chunks,
        sample.question,
        claims.judged,
        load_prompts("faithfulness")["fast"]["task"],
        ver,
        grouped=bool(options_of(resources).get("group_verdicts_on")),
    )
    seen = [evidence_ctx.sentences[i] for i in evidence.indices]
    lex = [
        lexical_support(s, sample.question, seen, evidence_ctx.sentences) for s in claims.original
    ]
    absent = [missing_specific(s, sample.question, evidence_ctx.sentences) for s in claims.original]
    cal = user_calibration_of(resources, variant) or load_calibration()  # the user's file, or ours
    combined = [
        cal.p_supported(p, x, float(bool(m))) for p, x, m in zip(probs, lex, absent, strict=True)
    ]
    # a number the context gives otherwise for the same unit: contradicted, whatever the judge
    clash = [
        conflicting(s, tuple(evidence_ctx.sentences), sample.question) for s in claims.original
    ]
    combined = [min(c, CONFLICT_CAP) if k else c for c, k in zip(combined, clash, strict=True)]
    final = combined if variant == "calibrated" else probs
    score = supported_share(
        final,
        mode="fast",
        combine=variant,
        judge_only=sum(probs) / len(probs),
        calibration=cal.version if variant == "calibrated" else None,
        prompt_version=ver,
        statements=claims.original,
        statement_evidence=[
            {
                "statement": s,
                "judged_as": j,
                "p_yes": round(p, 4),
                "lexical": round(x, 4),
                "missing_specific": m,
                **({"conflicting_numbers": k} if k else {}),
                "p_supported": round(c, 4),
            }
            for s, j, p, x, m, k, c in zip(
                claims.original, claims.judged, probs, lex, absent, clash, combined, strict=True
            )
        ],
        dropped=claims.dropped,
        evidence=evidence.details(evidence_ctx),
        ignored_context_sentences=ctx.instructions(),
        chunks=len(chunks),
        grouped_verdicts=bool(options_of(resources).get("group_verdicts_on")),
        judge=calls.details(),
    )
    score.details["p_yes"] = [round(p, 4) for p in probs]  # the judge's, whatever the variant
    score.details["p_supported"] = [round(c, 4) for c in final]
    return score


async def _faithfulness(sample: Sample, resources: Resources, default_variant: str) -> Score:
    mode = mode_of(resources, "faithfulness", DEFAULT_MODE)
    judge = judge_of(resources)
    if (bad := _undefined_inputs(sample)) is not None:
        return bad
    calls = Calls(judge)
    ctx = ContextSentences.of(sample.contexts or [])
    if mode == "fast":
        return await _fast(sample, resources, calls, ctx, _variant(resources, default_variant))
    ctx = ctx.without_instructions()
    return await generate(
        sample, calls, ctx, context_chunks(ctx, judge, resources), load_prompts("faithfulness")
    )


@guarded
async def faithfulness(sample: Sample, resources: Resources) -> Score:
    return await _faithfulness(sample, resources, "calibrated")


@guarded
async def faithfulness_judge(sample: Sample, resources: Resources) -> Score:
    return await _faithfulness(sample, resources, "judge")


_MODES = (
    # fast: evidence by word overlap; the embedder picks it with options.evidence=embedding
    ("fast", Mode(frozenset({"judge"}), frozenset({"embedder"}))),
    ("generate", Mode(frozenset({"judge"}))),
)
METRIC = Metric(
    name="faithfulness",
    # 10: a reasoning model's working is not part of the answer (metrics/reasoning.py); 9: text
    # without capitals or tokenized ("i do n't know .") splits into the prose's claims;
    # citations, attribution frames and an opening "Answer:" are no part of a claim; 8:
    # evidence by word overlap by default (the embedder's on request); 7: lexical support
    # finds words joined by punctuation ("573-km");
    # 6: sentences glued without a space are split; 5: calibration 3 (a name or number absent
    # from the context); 4: layout
    # 11: answers as JSON, HTML, blockquotes, 'TL;DR:', 'The answer is X'; HTML tags in contexts
    # 12: key-value lines stated ('Capital: Rome' -> 'Capital is Rome.'); HTML tables as tables
    # 13: a fenced code block in the answer is one claim, as written
    # 14: a page's scripts and styles are not its text; more HTML tags read as layout
    # 15: a list written on one line ("1) Rome 2) Milan") is a line per item
    # 16: markdown links read as their text, footnotes, pointers to sources, emoji go
    # 17: talk to the user ('Hope this helps!'), courtesies, lone answers that look like list
    #  numbers; 'no.' ends a sentence unless a number follows ('No. 5')
    # 18: what the context lacks, beside claims ('The context does not mention X.');
    #  a pointer or talk after an initial ('... A and E. Read more.')
    # 19: a number written otherwise is not missing ('2.8 million' = '2,800,000')
    # 20: a structured answer's section labels ('Explanation:') and confidence go;
    #  a quotation (a piece, or the whole answer) is judged as its words
    # 21: more refusal phrasings ('it is not possible to say', 'N/A', 'Not mentioned.')
    # 22: more section labels ('Long answer:', 'Background:', 'More details:')
    # 23: 'According to the context, yes' is the answer 'yes' as written
    # 24: 'The answer is: That is ...' keeps its 'That' (only 'is that X' claims X)
    # 25: replies to a yes/no question ('Absolutely!', 'Yes, it is.') are its yes or no;
    # to a wh-question a yes or no is no claim; 'Rome, of course.' loses its courtesy
    # 26: 'It's Rome.' to a wh-question is the short answer 'Rome'
    # 27: '..., according to the context.', hedges ('I believe X', 'Probably X') and 'Rome is
    # the correct answer' unwrapped (metrics/frames.py)
    # 28: "Italy's" read as "Italy", dashes no word, linking words not looked up
    # 29: a number rounded from the context's ('76%' over '76.3%') or glued to its unit
    # ('40mg') is not missing; lower-case pieces of a name ('RecQ-class') are no names
    # 30: answers that only say "does not cover", "not available", "unknown" are no refusals
    # 38 also: generate mode writes statements from the answer less evaluator-directed text
    # 37: generate-mode prompts mark untrusted text as data; 36: 9-language talk, remarks
    # 38 (also): "The song I Don't Know ...", "no data on the flight recorder", "The
    # treaty's text does not mention X" are claims, no refusals or remarks on the documents
    # 39: generate mode judges the answer's claims when the judge's statements add a name or
    # number (faithfulness_generate.py), drops statements that assert nothing; "The answer is
    # fully supported by the context." is evaluator-directed, not the answer "fully supported";
    # "He said, I don't know." is reported speech, no refusal (refusal.py v12)
    # 40: a claim giving a number the context gives otherwise for the same unit ("57,300
    # years" over "5,730 years") is at most CONFLICT_CAP supported (numbers.conflicting)
    version="40",  # 38: 7 more languages (refusal.py v11); "।", "؟", "۔" end; review
    prompts=("common", "faithfulness", "faithfulness_calibration", "grouped"),
    description="RAGAS faithfulness: share of the answer's claims supported by the contexts "
    "(fast: judge P(yes) and lexical support per claim, combined by a fitted calibration; "
    "generate: the paper's procedure). Refusals are not applicable.",
    requires=(("question", "answer", "contexts"),),
    acompute=faithfulness,
    modes=_MODES,
    default_mode=DEFAULT_MODE,
    formula="fast: mean over claims of sigmoid(b0 + b1 logit P(yes) + b2 lexical + b3 missing), "
    "at most 0.1 for a claim whose number the context gives otherwise for the same unit; "
    "generate: |supported| / |statements|; a refusal: undefined (no claims)",
)
JUDGE_METRIC = Metric(
    name="faithfulness_judge",
    # 8: a reasoning model's working is not part of the answer; 7: text without capitals or
    # tokenized splits as prose; citations, attribution frames
    # and answer labels are no part of a claim; 6: evidence by word overlap by default; 5:
    # glued sentences split; 4: layout
    # 9: answers as JSON, HTML, blockquotes, 'TL;DR:', 'The answer is X'; HTML tags in contexts
    # 10: key-value lines stated ('Capital: Rome' -> 'Capital is Rome.'); HTML tables as tables
    # 11: a fenced code block in the answer is one claim, as written
    # 12: a page's scripts and styles are not its text; more HTML tags read as layout
    # 13: a list written on one line ("1) Rome 2) Milan") is a line per item
    # 14: markdown links read as their text, footnotes, pointers to sources, emoji go
    # 15: talk to the user ('Hope this helps!'), courtesies, lone answers that look like list
    #  numbers; 'no.' ends a sentence unless a number follows ('No. 5')
    # 16: what the context lacks, beside claims ('The context does not mention X.');
    #  a pointer or talk after an initial ('... A and E. Read more.')
    # 17: a structured answer's section labels ('Explanation:') and confidence go;
    #  a quotation (a piece, or the whole answer) is judged as its words
    # 18: more refusal phrasings ('it is not possible to say', 'N/A', 'Not mentioned.')
    # 19: more section labels ('Long answer:', 'Background:', 'More details:')
    # 20: 'According to the context, yes' is the answer 'yes' as written
    # 21: 'The answer is: That is ...' keeps its 'That' (only 'is that X' claims X)
    # 22: replies to a yes/no question ('Absolutely!', 'Yes, it is.') are its yes or no;
    # to a wh-question a yes or no is no claim; 'Rome, of course.' loses its courtesy
    # 23: 'It's Rome.' to a wh-question is the short answer 'Rome'
    # 24: '..., according to the context.', hedges and 'Rome is the correct answer' unwrapped
    # 33 also: generate mode writes statements from the answer less evaluator-directed text
    # 32: generate-mode prompts mark untrusted text as data; 31: 9-language talk, remarks
    # 33 (also): "The song I Don't Know ...", "no data on the flight recorder", "The
    # treaty's text does not mention X" are claims, no refusals or remarks on the documents
    # 34: as faithfulness 39 (the generate-mode writer check; "The answer is correct." a remark;
    # refusal.py v12)
    version="34",  # 33: 7 more languages (refusal.py v11, with its review of false refusals)
    prompts=("common", "faithfulness"),
    description="Faithfulness from the judge alone: mean P(yes) over the answer's claims, "
    "no lexical evidence, no calibration (fast); generate as faithfulness.",
    requires=(("question", "answer", "contexts"),),
    acompute=faithfulness_judge,
    modes=_MODES,
    default_mode=DEFAULT_MODE,
    default=False,
    formula="fast: mean over claims of P(yes); generate: |supported| / |statements|",
)
