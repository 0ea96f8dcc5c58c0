"""RAGAS faithfulness: the share of the answer's statements that the contexts support.

``fast``: statements are the answer's sentences (split locally). The judge sees the evidence:
the ``evidence_k`` (default 3) context sentences most similar to each statement, united and
in text order (option ``evidence_k=0``: the whole context). One yes/no forward pass per
statement with [evidence][question][statement], so the evidence is evaluated once per answer.
The score is the expected share of supported statements, mean P(yes); the hard share
(P(yes) >= 0.5) is kept in the details.
``generate``: the paper's procedure: the judge writes statements (pronouns resolved), then a
reason and a verdict per statement against the context; F = supported / total.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from ragmeter.errors import JudgeFailed
from ragmeter.metrics.base import Metric, Mode, Score
from ragmeter.metrics.context import (
    DEFAULT_EVIDENCE_K,
    ContextSentences,
    context_chunks,
    select_evidence,
)
from ragmeter.metrics.judging import (
    Calls,
    chat,
    context_first,
    guarded,
    judge_of,
    mode_of,
    options_of,
    statements_of,
    version,
)
from ragmeter.prompts import load_prompts
from ragmeter.protocols import Resources
from ragmeter.sample import Sample

DEFAULT_MODE = "fast"


class Statements(BaseModel):
    statements: list[str]


class Verdict(BaseModel):
    reason: str
    verdict: Literal["yes", "no"]


class Verdicts(BaseModel):
    verdicts: list[Verdict]


def _undefined_inputs(sample: Sample) -> Score | None:
    if not (sample.answer or "").strip():
        return Score.undefined("empty answer: it makes no statements to check")
    if not any((c or "").strip() for c in sample.contexts or []):
        return Score.undefined("no contexts: nothing to check the answer against")
    return None


async def supported_probs(
    calls: Calls,
    ctx: ContextSentences,
    chunks: list[list[int]],
    question: str,
    statements: list[str],
    task: str,
    ver: str,
) -> list[float]:
    """max over chunks of P(yes) per statement, chunk-major so each chunk is evaluated once."""
    best = [0.0] * len(statements)
    for chunk in chunks:
        text = ctx.render(chunk)
        for i, statement in enumerate(statements):
            if best[i] >= 0.999:  # already certain: later chunks cannot change the verdict
                continue
            p = await calls.p_yes(
                context_first(text, question, task.format(statement=statement)), version=ver
            )
            best[i] = max(best[i], p)
    return best


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


@guarded
async def faithfulness(sample: Sample, resources: Resources) -> Score:
    mode = mode_of(resources, "faithfulness", DEFAULT_MODE)
    judge = judge_of(resources)
    if (bad := _undefined_inputs(sample)) is not None:
        return bad
    calls = Calls(judge)
    ctx = ContextSentences.of(sample.contexts or [])
    prompts = load_prompts("faithfulness")
    if mode == "fast":
        statements = statements_of(sample.answer or "")
        if not statements:
            return Score.undefined("the answer has no sentences to check")
        k = int(options_of(resources).get("evidence_k", DEFAULT_EVIDENCE_K))
        evidence = await select_evidence(ctx, statements, resources, k)
        chunks = context_chunks(ctx, judge, resources, evidence.indices)
        probs = await supported_probs(
            calls,
            ctx,
            chunks,
            sample.question,
            statements,
            prompts["fast"]["task"],
            version("common", "faithfulness"),
        )
        return supported_share(
            probs,
            mode=mode,
            statements=statements,
            evidence=evidence.details(ctx),
            chunks=len(chunks),
            judge=calls.details(),
        )
    return await _generate(sample, calls, ctx, context_chunks(ctx, judge, resources), prompts)


async def _generate(
    sample: Sample, calls: Calls, ctx: ContextSentences, chunks: list[list[int]], prompts: dict
) -> Score:
    g = prompts["generate"]
    ver = version("faithfulness")
    made = await calls.structured(
        chat(
            g["statements_system"],
            g["statements_user"].format(question=sample.question, answer=sample.answer),
            g["statements_examples"],
        ),
        Statements,
        version=ver,
    )
    statements = [s.strip() for s in made.statements if s.strip()]
    if not statements:
        return Score.undefined(
            "the judge found no statements in the answer", judge=calls.details(), mode="generate"
        )
    listing = "\n".join(f"{i + 1}. {s}" for i, s in enumerate(statements))
    supported = [False] * len(statements)
    reasons = [""] * len(statements)
    for chunk in chunks:
        got = await calls.structured(
            chat(
                g["verdicts_system"],
                g["verdicts_user"].format(context=ctx.render(chunk), statements=listing),
                g["verdicts_examples"],
            ),
            Verdicts,
            version=ver,
            max_tokens=80 + 60 * len(statements),
        )
        if len(got.verdicts) != len(statements):
            raise JudgeFailed(
                f"judge gave {len(got.verdicts)} verdicts for {len(statements)} statements"
            )
        for i, v in enumerate(got.verdicts):
            if v.verdict == "yes" and not supported[i]:
                supported[i], reasons[i] = True, v.reason
            elif not supported[i]:
                reasons[i] = v.reason
    n = sum(supported)
    return Score.ok(
        n / len(statements),
        mode="generate",
        statements=statements,
        verdicts=["yes" if s else "no" for s in supported],
        reasons=reasons,
        chunks=len(chunks),
        judge=calls.details(),
    )


METRIC = Metric(
    name="faithfulness",
    prompts=("common", "faithfulness"),
    description="RAGAS faithfulness: share of the answer's statements supported by the contexts "
    "(LLM judge; modes fast = P(yes) per sentence, generate = paper procedure).",
    requires=(("question", "answer", "contexts"),),
    acompute=faithfulness,
    modes=(
        # fast: the embedder picks the evidence sentences (word overlap without one)
        ("fast", Mode(frozenset({"judge"}), frozenset({"embedder"}))),
        ("generate", Mode(frozenset({"judge"}))),
    ),
    default_mode=DEFAULT_MODE,
    formula="|supported statements| / |statements|  (fast: mean P(yes))",
)
