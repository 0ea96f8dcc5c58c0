"""Unitxt answer reward: sigmoid of a sequence-classification logit, on a tiny saved model."""

from __future__ import annotations

import math

import pytest

from needs import require_module

require_module("transformers")
import torch

from ragmeter.backends.hf import HFRewardModel
from ragmeter.config import Settings
from ragmeter.metrics.reward import answer_reward
from ragmeter.protocols import Resources
from ragmeter.resources import build_resources
from ragmeter.sample import Sample
from tiny_hf import build_reward

S = Sample(
    question="what is the capital of france ?", question_id="q", answer="paris is the capital ."
)


async def test_reward_is_sigmoid_of_the_logit(tmp_path):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    path = build_reward(tmp_path / "rm")
    s = await answer_reward(S, Resources(reward_model=HFRewardModel(path)))
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForSequenceClassification.from_pretrained(path).eval()
    with torch.no_grad():
        logit = model(**tok(S.question, S.answer, return_tensors="pt")).logits[0, 0].item()
    assert s.status == "ok"
    assert s.details["logit"] == pytest.approx(logit, rel=1e-5)
    assert s.value == pytest.approx(1 / (1 + math.exp(-logit)), rel=1e-5)
    # a path in the options works too: the run's resources load the model from it
    built = build_resources(Settings(options={"reward_model": str(path)}), {"reward_model"})
    s2 = await answer_reward(S, built.resources)
    assert s2.value == pytest.approx(s.value)
    # a bare path handed to the metric is refused with a reason, not loaded behind its back
    s3 = await answer_reward(S, Resources(reward_model=str(path)))
    assert s3.status == "failed" and "option reward_model" in s3.reason


async def test_without_model_says_how_to_configure():
    s = await answer_reward(S, Resources())
    assert s.status == "failed" and s.value is None
    assert "reward_model" in s.reason and "OpenAssistant" in s.reason


async def test_bad_path_fails(tmp_path):
    s = await answer_reward(S, Resources(reward_model=HFRewardModel(tmp_path / "missing")))
    assert s.status == "failed" and "not found" in s.reason


@pytest.mark.parametrize(
    ("logit", "status", "value"),
    [(-1000.0, "ok", 0.0), (1000.0, "ok", 1.0), (float("nan"), "failed", None)],
)
async def test_extreme_and_non_finite_logits(monkeypatch, logit, status, value):
    """A logit below about -709 overflowed math.exp(-logit): an OverflowError reported as
    "internal error"; a NaN logit was an ok NaN. Now 0.0 (a stable sigmoid) and a failure."""
    rm = HFRewardModel("unused")
    monkeypatch.setattr(rm, "_logit", lambda q, a: (logit, 7))
    s = await answer_reward(S, Resources(reward_model=rm))
    assert s.status == status, s.reason
    if value is None:
        assert "non-finite logit" in (s.reason or "")
    else:
        assert s.value == pytest.approx(value, abs=1e-12)
