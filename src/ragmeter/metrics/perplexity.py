"""Unitxt context relevance by perplexity: how likely each context is to evoke the question.

For each retrieved context c, a language model reads ``Generate a question based on the given
content: {c}`` and the question is scored by teacher forcing; the context's score is the
geometric mean of the question-token probabilities, ``exp(mean_t log p(q_t | prompt, q_<t))``
= exp(-mean token cross-entropy). The sample score is the best context's. Worked number:
question-token log-probabilities (-0.5, -1.5) under one context and (-2.0, -2.0) under
another give exp(-1) = 0.3679 and exp(-2) = 0.1353, so 0.3679.

Scorers: ``ragmeter.backends.hf.HFScorer`` (option ``scorer_model=PATH``: a Hugging Face
seq2seq or causal LM from a local path; Unitxt uses google/flan-t5-small, whose target
includes the end-of-sequence token as in its loss), or any ``Scorer`` such as the embedded
GGUF judge (the prompt is then wrapped in its chat template).

As Unitxt (checked against the real package with flan-t5's architecture,
``tests/test_perplexity.py``): the question as given, and every context scored, a blank one
too. Two differences, both said: a blank question is undefined (Unitxt would score the
end-of-sequence token alone), and a context over ``MAX_CONTEXT_CHARS``, or a prompt over the
Hugging Face scorer's token limit (``max_input_tokens``, or a causal model's positions), is cut
(listed in ``truncated_contexts``; Unitxt cuts nothing). With a decoder-only scorer
Unitxt's own values depend on the batch (it right-pads the prompts of a batch with EOS and
attends to the padding); ragmeter scores each context alone, as an encoder-decoder does in
Unitxt's batch. Even alone, Unitxt's decoder-only values differ where the tokenizer adds special
tokens (a Llama tokenizer's BOS is scored as the question's first token; ragmeter reads the
question without them) or the question holds token id 0 (left out of Unitxt's mean's count).
"""

from __future__ import annotations

import asyncio
import math
import numbers
from typing import Any

from ragmeter.errors import ResourceUnavailable
from ragmeter.metrics.base import Metric, Score
from ragmeter.metrics.judging import guarded, inner_model
from ragmeter.protocols import Resources
from ragmeter.sample import Sample

PROMPT = "Generate a question based on the given content: {context}"
PROMPT_VERSION = "unitxt-perplexity-1"
MAX_CONTEXT_CHARS = 12000  # longer contexts are cut (said in the details)
# A log-probability is <= 0; a server's rounding may leave a hair above it, never more.
_MAX_LOGPROB = 1e-6


def _not_logprobs(logprobs: list[float], i: int) -> str | None:
    """Why the scorer's values for context ``i`` are not log-probabilities, or None.

    A NaN, or a value above 0 (a probability given in place of its log, an overflow), would
    make a score above 1, an OverflowError or a NaN that ``max`` over the contexts can pass
    over; -inf is probability 0 and scores 0.
    """
    for lp in logprobs:
        if not isinstance(lp, numbers.Real) or isinstance(lp, bool) or math.isnan(lp):
            return f"scorer returned {lp!r} as a log-probability on context {i}"
        if lp > _MAX_LOGPROB:
            return (
                f"scorer returned a log-probability above 0 ({lp!r}) on context {i}: "
                "not a log-probability"
            )
    return None


def _prompt_for(scorer: Any, context: str) -> str:
    text = PROMPT.format(context=context)
    fmt = getattr(inner_model(scorer), "format_chat", None)
    if callable(fmt):  # an instruct GGUF judge reads the instruction as a user turn
        return str(fmt([{"role": "user", "content": text}]))
    return text


async def _cut_by_scorer(scorer: Any, prompt: str, question: str) -> bool:
    """Whether the scorer read only part of ``prompt`` (a Hugging Face scorer cuts it to its
    token limit), so that ``truncated_contexts`` lists every context scored in part."""
    cut_by = getattr(scorer, "prompt_cut", None)
    return callable(cut_by) and bool(await asyncio.to_thread(cut_by, prompt, question))


@guarded
async def context_relevance_perplexity(sample: Sample, resources: Resources) -> Score:
    scorer = getattr(resources, "scorer", None)
    if scorer is None:
        raise ResourceUnavailable(
            "context_relevance_perplexity needs a scorer model: set "
            "options scorer_model=PATH to a local Hugging Face LM such as "
            "google/flan-t5-small, or use a local judge (--judge local)"
        )
    # as Unitxt: the question as given, every context scored, a blank one too (its prompt
    # alone can be the likeliest source of the question, and then Unitxt's max is its score)
    question = sample.question or ""
    contexts = [c for c in sample.contexts or []]
    if not question.strip():
        return Score.undefined("empty question")
    if not contexts:
        return Score.undefined("no contexts")
    per: list[float] = []
    cut = []
    tokens_used = 0
    for i, ctx in enumerate(contexts):
        if len(ctx) > MAX_CONTEXT_CHARS:
            ctx, _ = ctx[:MAX_CONTEXT_CHARS], cut.append(i)
        prompt = _prompt_for(scorer, ctx)
        reply = await scorer.target_logprobs(prompt, question, prompt_version=PROMPT_VERSION)
        if not reply.ok or reply.value is None or not reply.value.logprobs:
            return Score.failed(f"scorer error on context {i}: {reply.error or 'no tokens'}")
        if i not in cut and await _cut_by_scorer(scorer, prompt, question):
            cut.append(i)
        tokens_used += reply.usage.total
        logprobs = reply.value.logprobs
        bad = _not_logprobs(logprobs, i)
        if bad is not None:
            return Score.failed(bad)
        per.append(min(1.0, math.exp(sum(logprobs) / len(logprobs))))
    best_i = max(range(len(per)), key=per.__getitem__)  # the first of equal bests
    best = per[best_i]
    return Score.ok(
        best,
        per_context=[round(p, 6) for p in per],
        best_context=best_i,
        truncated_contexts=cut,
        scorer=getattr(scorer, "name", type(scorer).__name__),
        judge={"prompt_tokens": tokens_used, "completion_tokens": 0},
    )


METRIC = Metric(
    name="context_relevance_perplexity",
    description="Unitxt context relevance: geometric-mean probability of the question given "
    "'Generate a question based on the given content: {context}', best context.",
    requires=(("question", "contexts"),),
    acompute=context_relevance_perplexity,
    needs=frozenset({"scorer"}),
    default=False,
    formula="max_c exp(mean_t log p(q_t | prompt(c), q_<t))",
    # 2: blank contexts scored and the question kept as given, as Unitxt does
    version="2",
)
