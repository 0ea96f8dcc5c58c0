"""Unitxt perplexity context relevance reproduces exp(mean log p) on tiny saved models."""

from __future__ import annotations

import math

import pytest

from needs import require_module

require_module("transformers")
import torch

from ragmeter.backends.hf import HFScorer
from ragmeter.metrics.perplexity import PROMPT, context_relevance_perplexity
from ragmeter.protocols import JudgeReply, Resources, TokenLogprobs
from ragmeter.sample import Sample
from tiny_hf import build_gpt2, build_t5

Q = "who are we ?"
CONTEXTS = ["we are the world", "paris is the capital of france ."]


def _sample() -> Sample:
    return Sample(question=Q, question_id="q", contexts=CONTEXTS)


def t5_step_by_step(path, context: str) -> float:
    """Greedy-free teacher forcing one decoder step at a time: prod of softmax probabilities."""
    from transformers import AutoTokenizer, T5ForConditionalGeneration

    tok = AutoTokenizer.from_pretrained(path)
    model = T5ForConditionalGeneration.from_pretrained(path).eval()
    enc = tok(PROMPT.format(context=context), return_tensors="pt")
    target = tok(Q).input_ids  # ends with </s>, as in Unitxt's loss
    dec = [model.config.decoder_start_token_id]
    logp = 0.0
    with torch.no_grad():
        for t in target:
            logits = model(**enc, decoder_input_ids=torch.tensor([dec])).logits[0, -1]
            logp += math.log(torch.softmax(logits.double(), -1)[t].item())
            dec.append(t)
    return math.exp(logp / len(target))


def gpt2_step_by_step(path, context: str) -> float:
    from transformers import AutoTokenizer, GPT2LMHeadModel

    tok = AutoTokenizer.from_pretrained(path)
    model = GPT2LMHeadModel.from_pretrained(path).eval()
    ids = tok(PROMPT.format(context=context)).input_ids
    target = tok(Q, add_special_tokens=False).input_ids
    logp = 0.0
    with torch.no_grad():
        for t in target:
            logits = model(torch.tensor([ids])).logits[0, -1]
            logp += math.log(torch.softmax(logits.double(), -1)[t].item())
            ids = [*ids, t]
    return math.exp(logp / len(target))


@pytest.mark.parametrize(
    "build,reference", [(build_t5, t5_step_by_step), (build_gpt2, gpt2_step_by_step)]
)
async def test_perplexity_matches_independent_computation(tmp_path, build, reference):
    path = build(tmp_path / "model")
    scorer = HFScorer(path)
    s = await context_relevance_perplexity(_sample(), Resources(scorer=scorer))
    assert s.status == "ok"
    expected = [reference(path, c) for c in CONTEXTS]
    assert s.details["per_context"] == pytest.approx(expected, rel=1e-4)
    assert s.value == pytest.approx(max(expected), rel=1e-4)
    assert s.details["best_context"] == expected.index(max(expected))
    assert scorer.seq2seq == (build is build_t5)


class FixedScorer:
    name = "fixed"

    def __init__(self, logprobs, error=None):
        self.logprobs, self.error = logprobs, error

    async def target_logprobs(self, prompt, target, *, prompt_version):
        if self.error:
            return JudgeReply(value=None, error=self.error)
        return JudgeReply(
            value=TokenLogprobs(tokens=["a"] * len(self.logprobs), logprobs=self.logprobs)
        )


async def test_perplexity_math_and_failures():
    s = await context_relevance_perplexity(_sample(), Resources(scorer=FixedScorer([-1.0, -3.0])))
    assert s.value == pytest.approx(math.exp(-2.0))
    s = await context_relevance_perplexity(_sample(), Resources(scorer=FixedScorer([], "boom")))
    assert s.status == "failed" and "boom" in s.reason
    s = await context_relevance_perplexity(_sample(), Resources())
    assert s.status == "failed" and "scorer" in s.reason
    none = Sample(question=Q, question_id="q", contexts=[])
    s = await context_relevance_perplexity(none, Resources(scorer=FixedScorer([-1.0])))
    assert s.status == "undefined" and s.reason == "no contexts"
    blank_q = Sample(question="  ", question_id="q", contexts=["a"])
    s = await context_relevance_perplexity(blank_q, Resources(scorer=FixedScorer([-1.0])))
    assert s.status == "undefined" and s.reason == "empty question"


@pytest.mark.parametrize(
    ("question", "contexts"),
    [
        (Q, CONTEXTS),
        (" who are we ? ", ["we are the world", "", "paris"]),  # a blank context is scored
        (Q, ["   ", "paris is the capital of france ."]),  # and may be the best
        (Q, ["we are the world   ", "paris\n"]),
    ],
)
async def test_perplexity_equals_the_real_unitxt_package(tmp_path_factory, question, contexts):
    """The real unitxt Perplexity metric on the same tiny T5 (flan-t5's architecture, Unitxt's
    default scorer): equal per context and overall. Before, blank contexts were skipped
    (Unitxt scores them) and the question was stripped."""
    require_module("unitxt")
    from unitxt.metrics import Perplexity

    path = _t5(tmp_path_factory)
    unitxt = Perplexity(
        model_name=str(path),
        source_template=PROMPT.replace("{context}", "{reference}"),
        target_template="{prediction}",
        main_score="perplexity",
    )
    [want] = unitxt.compute(references=[contexts], predictions=[question], task_data=[{}])
    sample = Sample(question=question, question_id="q", contexts=contexts)
    s = await context_relevance_perplexity(sample, Resources(scorer=HFScorer(path)))
    assert s.status == "ok", s.reason
    assert s.details["per_context"] == pytest.approx(want["reference_scores"], rel=1e-4)
    assert s.value == pytest.approx(want["perplexity"], rel=1e-4)


_T5: dict[str, object] = {}


def _t5(tmp_path_factory):  # type: ignore[no-untyped-def]
    if "path" not in _T5:
        _T5["path"] = build_t5(tmp_path_factory.mktemp("t5") / "model")
    return _T5["path"]


async def test_missing_model_path_is_a_failed_score(tmp_path):
    s = await context_relevance_perplexity(_sample(), Resources(scorer=HFScorer(tmp_path / "nope")))
    assert s.status == "failed" and "not found" in s.reason
