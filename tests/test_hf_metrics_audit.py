"""Audit of the Hugging Face model metrics: models of the wrong kind, unusable folders and
inputs longer than a model's positions, on tiny saved models; and Unitxt's own Perplexity
(decoder-only) and Reward on the same rows."""

from __future__ import annotations

import math

import pytest

from needs import require_module
from ragmeter.backends.hf import HFRewardModel, HFScorer, model_folder_problem
from ragmeter.metrics.perplexity import PROMPT, context_relevance_perplexity
from ragmeter.metrics.reward import answer_reward
from ragmeter.protocols import Resources
from ragmeter.sample import Sample
from tiny_hf import build_gpt2, build_reward, build_t5, tiny_tokenizer

require_module("transformers")  # ragmeter imports no transformers at import time

Q = "who are we ?"
LONG = " ".join(["paris is the capital of france ."] * 40)  # 280 tokens; tiny models take 128
RS = Sample(question="what is the capital of france ?", question_id="q", answer="paris")


@pytest.fixture(scope="module")
def models(tmp_path_factory):  # type: ignore[no-untyped-def]
    import torch
    from transformers import BertConfig, BertForMaskedLM, BertForSequenceClassification

    base = tmp_path_factory.mktemp("hf")
    tok = tiny_tokenizer(eos_suffix=False)
    kw = dict(
        vocab_size=len(tok),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=128,
        pad_token_id=0,
    )
    torch.manual_seed(0)
    BertForMaskedLM(BertConfig(**kw)).save_pretrained(base / "bert")
    BertForSequenceClassification(BertConfig(**kw, num_labels=2)).save_pretrained(base / "cls2")
    for name in ("bert", "cls2"):
        tok.save_pretrained(base / name)
    (base / "empty").mkdir()
    (base / "noweights").mkdir()
    (base / "noweights" / "config.json").write_text('{"model_type": "gpt2"}')
    (base / "afile.bin").write_text("x")
    return {
        "gpt2": build_gpt2(base / "gpt2"),
        "t5": build_t5(base / "t5"),
        "rm": build_reward(base / "rm"),
        **{n: base / n for n in ("bert", "cls2", "empty", "noweights", "afile.bin")},
    }


def _ppl(path, contexts, question=Q):  # type: ignore[no-untyped-def]
    sample = Sample(question=question, question_id="q", contexts=contexts)
    return context_relevance_perplexity(sample, Resources(scorer=HFScorer(path)))


@pytest.mark.parametrize("kind", ["bert", "rm"])
async def test_scorer_refuses_a_model_without_a_language_model_head(models, kind):
    """An encoder-only BERT (or a reward classifier) was loaded as a causal LM with a random
    head and scored "ok" numbers from noise; now a failure naming the model and its kind."""
    s = await _ppl(models[kind], ["we are the world"])
    assert s.status == "failed", s.value
    assert str(models[kind]) in s.reason and "not a causal (decoder) language model" in s.reason


async def test_reward_refuses_a_two_label_classifier(models):
    """sigmoid(first logit) of a 2-label classifier was reported as the reward."""
    s = await answer_reward(RS, Resources(reward_model=HFRewardModel(models["cls2"])))
    assert s.status == "failed", s.value
    assert "2 labels" in s.reason and str(models["cls2"]) in s.reason


@pytest.mark.parametrize("kind", ["gpt2", "bert"])
async def test_reward_refuses_a_model_without_a_classifier_head(models, kind):
    """A language model got a randomly initialised classifier head: an "ok" reward of noise."""
    s = await answer_reward(RS, Resources(reward_model=HFRewardModel(models[kind])))
    assert s.status == "failed", s.value
    assert "not a sequence classifier" in s.reason and str(models[kind]) in s.reason


@pytest.mark.parametrize(
    ("kind", "said"),
    [("empty", "has no config.json"), ("noweights", "has no weights"), ("afile.bin", "is a file")],
)
async def test_unusable_model_folder_is_named(models, kind, said):
    """transformers' own errors ("Unrecognized model ... `model_type` key", a tokenizer
    backend error, "not a valid JSON file") did not say what the folder lacks."""
    assert said in (model_folder_problem(models[kind], "scorer") or "")
    s = await _ppl(models[kind], ["we are the world"])
    assert s.status == "failed" and said in s.reason and str(models[kind]) in s.reason
    r = await answer_reward(RS, Resources(reward_model=HFRewardModel(models[kind])))
    assert r.status == "failed" and said in r.reason and str(models[kind]) in r.reason
    assert model_folder_problem(models["gpt2"], "scorer") is None


async def test_causal_scorer_fits_a_long_context_to_the_model_positions(models):
    """A prompt longer than a causal model's positions was an IndexError on every context
    ("index out of range in self"); now the prompt's end is kept, as for max_input_tokens."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    s = await _ppl(models["gpt2"], [LONG])
    assert s.status == "ok", s.reason
    assert s.details["truncated_contexts"] == [0]
    tok = AutoTokenizer.from_pretrained(models["gpt2"])
    model = AutoModelForCausalLM.from_pretrained(models["gpt2"]).eval()
    target = tok(Q, add_special_tokens=False).input_ids
    ids = tok(PROMPT.format(context=LONG)).input_ids[-(128 - len(target)) :]
    with torch.no_grad():
        logits = model(torch.tensor([ids + target])).logits[0, len(ids) - 1 : -1]
    lp = torch.log_softmax(logits.double(), -1).gather(1, torch.tensor(target).view(-1, 1))
    assert s.value == pytest.approx(math.exp(lp.mean().item()), rel=1e-4)
    t5 = await _ppl(models["t5"], [LONG])  # relative positions: nothing cut
    assert t5.status == "ok", t5.reason


async def test_reward_fits_a_long_answer_to_the_model_positions(models):
    """An answer longer than BERT's 128 positions was an IndexError; now it is truncated."""
    long = Sample(question="what is the capital of france ?", question_id="q", answer=LONG)
    s = await answer_reward(long, Resources(reward_model=HFRewardModel(models["rm"])))
    assert s.status == "ok", s.reason
    assert 0.0 < s.value < 1.0


@pytest.mark.parametrize("context", ["we are the world", "paris is the capital of france .", ""])
async def test_decoder_only_perplexity_equals_unitxt_on_one_context(models, context):
    """Unitxt's DecoderOnlyLM on a one-row batch (no padding) gives ragmeter's value."""
    require_module("unitxt")
    from unitxt.metrics import Perplexity

    unitxt = Perplexity(
        model_name=str(models["gpt2"]),
        source_template=PROMPT.replace("{context}", "{reference}"),
        target_template="{prediction}",
        main_score="perplexity",
    )
    [want] = unitxt.compute(references=[[context]], predictions=[Q], task_data=[{}])
    s = await _ppl(models["gpt2"], [context])
    assert s.status == "ok", s.reason
    assert s.value == pytest.approx(want["perplexity"], rel=1e-4)


async def test_reward_equals_unitxt_reward(models):
    """Unitxt's Reward (a text-classification pipeline on (question, answer), sigmoid of the
    one logit) and ragmeter's answer_reward agree on a one-logit model."""
    require_module("unitxt")
    from unitxt.metrics import Reward

    [want] = Reward(model_name=str(models["rm"])).map_stream(iter([(RS.answer, [RS.question], {})]))
    s = await answer_reward(RS, Resources(reward_model=HFRewardModel(models["rm"])))
    assert s.status == "ok", s.reason
    assert s.value == pytest.approx(want, rel=1e-5)


@pytest.mark.parametrize("kind", ["t5", "gpt2"])
async def test_a_context_cut_to_the_token_limit_is_listed(models, kind):
    """A context under MAX_CONTEXT_CHARS but over the scorer's token limit was scored in part
    while truncated_contexts said nothing was cut."""
    scorer = HFScorer(models[kind], max_input_tokens=20)
    sample = Sample(question=Q, question_id="q", contexts=["we are the world", LONG])
    s = await context_relevance_perplexity(sample, Resources(scorer=scorer))
    assert s.status == "ok", s.reason
    assert s.details["truncated_contexts"] == [1]


async def test_a_question_longer_than_the_causal_model_positions_is_named(models):
    """No prompt fits beside a question of 140 tokens in 128 positions: the failure says so
    (before: "IndexError: index out of range in self")."""
    s = await _ppl(models["gpt2"], ["we are the world"], question=" ".join(["who"] * 140))
    assert s.status == "failed"
    assert "the question is 140 tokens, more than the 128 positions" in s.reason
