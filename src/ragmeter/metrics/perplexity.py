"""Unitxt context relevance by perplexity: how likely each context is to evoke the question.

For each retrieved context c, a language model reads ``Generate a question based on the given
content: {c}`` and the question is scored by teacher forcing; the context's score is the
geometric mean of the question-token probabilities, ``exp(mean_t log p(q_t | prompt, q_<t))``
= exp(-mean token cross-entropy). The sample score is the best context's.

Scorers: ``HFScorer`` (a Hugging Face seq2seq or causal LM from a local path; Unitxt uses
google/flan-t5-small, whose target includes the end-of-sequence token as in its loss), or any
``Scorer`` such as the embedded GGUF judge (the prompt is then wrapped in its chat template).
"""

from __future__ import annotations

import asyncio
import math
import threading
from pathlib import Path
from typing import Any

from ragmeter.judges.base import JudgeReply, Resources, TokenLogprobs, Usage
from ragmeter.metrics._judging import Unavailable, guarded, inner_model, options_of
from ragmeter.metrics.base import Metric, Score
from ragmeter.sample import Sample

PROMPT = "Generate a question based on the given content: {context}"
PROMPT_VERSION = "unitxt-perplexity-1"
MAX_CONTEXT_CHARS = 12000  # longer contexts are cut (said in the details)


class HFScorer:
    """Teacher-forced log-probabilities from a local Hugging Face LM (Scorer protocol).

    Seq2seq models (T5, BART) get the prompt as encoder input and the target as labels (with
    the tokenizer's special tokens, i.e. the EOS that Unitxt's loss includes); causal models get
    prompt + target and only the target positions are scored. Inference runs in a thread.
    """

    def __init__(self, path: str | Path, *, device: str = "cpu", max_input_tokens: int = 2048):
        self.path = str(path)
        self.device = device
        self.max_input_tokens = max_input_tokens
        self.name = f"hf:{Path(self.path).name}"
        self._lock = threading.Lock()
        self._model: Any = None
        self._tok: Any = None
        self.seq2seq = False

    def load(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            try:
                from transformers import (
                    AutoConfig,
                    AutoModelForCausalLM,
                    AutoModelForSeq2SeqLM,
                    AutoTokenizer,
                )
            except ImportError as exc:
                raise Unavailable(
                    f"transformers is not installed ({exc}): pip install 'ragmeter[hf]'"
                ) from None
            if not Path(self.path).exists():
                raise Unavailable(f"scorer model path not found: {self.path}")
            config = AutoConfig.from_pretrained(self.path)
            self.seq2seq = bool(getattr(config, "is_encoder_decoder", False))
            cls = AutoModelForSeq2SeqLM if self.seq2seq else AutoModelForCausalLM
            self._tok = AutoTokenizer.from_pretrained(self.path)
            self._model = cls.from_pretrained(self.path).to(self.device).eval()

    def _score(self, prompt: str, target: str) -> TokenLogprobs:
        import torch

        self.load()
        tok, model = self._tok, self._model
        with torch.no_grad():
            if self.seq2seq:
                enc = tok(
                    prompt, return_tensors="pt", truncation=True, max_length=self.max_input_tokens
                )
                labels = tok(text_target=target, return_tensors="pt").input_ids
                out = model(
                    input_ids=enc.input_ids.to(self.device),
                    attention_mask=enc.attention_mask.to(self.device),
                    labels=labels.to(self.device),
                )
                logits = out.logits[0]
                target_ids = labels[0]
            else:
                p_ids = tok(prompt, return_tensors="pt").input_ids[0][-self.max_input_tokens :]
                t_ids = tok(target, add_special_tokens=False, return_tensors="pt").input_ids[0]
                ids = torch.cat([p_ids, t_ids]).unsqueeze(0).to(self.device)
                logits = model(input_ids=ids).logits[0, len(p_ids) - 1 : -1]
                target_ids = t_ids
            logp = torch.log_softmax(logits.float(), dim=-1)
            lps = logp.gather(1, target_ids.view(-1, 1).to(logp.device)).squeeze(1)
        pieces = tok.convert_ids_to_tokens(target_ids.tolist())
        return TokenLogprobs(tokens=[str(p) for p in pieces], logprobs=lps.tolist())

    async def target_logprobs(
        self, prompt: str, target: str, *, prompt_version: str
    ) -> JudgeReply[TokenLogprobs]:
        try:
            value = await asyncio.to_thread(self._score, prompt, target)
        except Unavailable as exc:
            return JudgeReply(value=None, error=str(exc))
        except Exception as exc:  # model faults are replies, not exceptions
            return JudgeReply(value=None, error=f"{type(exc).__name__}: {exc}")
        return JudgeReply(value=value, usage=Usage(prompt_tokens=len(value.tokens)))


_HF_SCORERS: dict[str, HFScorer] = {}


def scorer_of(resources: Resources) -> Any:
    """``options["scorer_model"]`` (a Hugging Face path) first, else the run's scorer."""
    path = options_of(resources).get("scorer_model")
    if path:
        if str(path) not in _HF_SCORERS:
            _HF_SCORERS[str(path)] = HFScorer(path)
        return _HF_SCORERS[str(path)]
    return getattr(resources, "scorer", None)


def _prompt_for(scorer: Any, context: str) -> str:
    text = PROMPT.format(context=context)
    fmt = getattr(inner_model(scorer), "format_chat", None)
    if callable(fmt):  # an instruct GGUF judge reads the instruction as a user turn
        return str(fmt([{"role": "user", "content": text}]))
    return text


@guarded
async def context_relevance_perplexity(sample: Sample, resources: Resources) -> Score:
    scorer = scorer_of(resources)
    if scorer is None:
        raise Unavailable(
            "context_relevance_perplexity needs a scorer model: set "
            "options scorer_model=PATH to a local Hugging Face LM such as "
            "google/flan-t5-small, or use a local judge (--judge local)"
        )
    question = (sample.question or "").strip()
    contexts = [c for c in sample.contexts or []]
    if not question:
        return Score.undefined("empty question")
    if not any(c.strip() for c in contexts):
        return Score.undefined("no contexts")
    per: list[float | None] = []
    cut = []
    tokens_used = 0
    for i, ctx in enumerate(contexts):
        if not ctx.strip():
            per.append(None)
            continue
        if len(ctx) > MAX_CONTEXT_CHARS:
            ctx, _ = ctx[:MAX_CONTEXT_CHARS], cut.append(i)
        reply = await scorer.target_logprobs(
            _prompt_for(scorer, ctx), question, prompt_version=PROMPT_VERSION
        )
        if not reply.ok or reply.value is None or not reply.value.logprobs:
            return Score.failed(f"scorer error on context {i}: {reply.error or 'no tokens'}")
        tokens_used += reply.usage.total
        per.append(math.exp(sum(reply.value.logprobs) / len(reply.value.logprobs)))
    valid = [(p, i) for i, p in enumerate(per) if p is not None]
    best, best_i = max(valid)
    return Score.ok(
        best,
        per_context=[None if p is None else round(p, 6) for p in per],
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
)
