"""Unitxt answer reward: a reward model scores (question, answer); score = sigmoid(logit).

No reward weights ship offline. Point ``Settings(reward_model=PATH)`` at a local copy of a
Hugging Face sequence-classification reward model (Unitxt uses
OpenAssistant/reward-model-deberta-v3-large-v2); without one the metric fails with that advice.
"""

from __future__ import annotations

import asyncio
import math
import threading
from pathlib import Path
from typing import Any

from ragmeter.judges.base import JudgeReply, Resources, Usage
from ragmeter.metrics._judging import Unavailable, guarded, options_of
from ragmeter.metrics.base import Metric, Score
from ragmeter.sample import Sample

HOW_TO = (
    "answer_reward needs a reward model: download a Hugging Face sequence-classification "
    "reward model (e.g. OpenAssistant/reward-model-deberta-v3-large-v2) and set "
    "the option reward_model=PATH (Settings(options={'reward_model': PATH}))"
)


class HFRewardModel:
    """A local sequence-classification reward model; ``score`` returns sigmoid(first logit)."""

    def __init__(self, path: str | Path, *, device: str = "cpu", max_tokens: int = 1024):
        self.path = str(path)
        self.device = device
        self.max_tokens = max_tokens
        self.name = f"hf:{Path(self.path).name}"
        self._lock = threading.Lock()
        self._model: Any = None
        self._tok: Any = None

    def load(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            try:
                from transformers import AutoModelForSequenceClassification, AutoTokenizer
            except ImportError as exc:
                raise Unavailable(
                    f"transformers is not installed ({exc}): pip install 'ragmeter[hf]'"
                ) from None
            if not Path(self.path).exists():
                raise Unavailable(f"reward model path not found: {self.path}")
            self._tok = AutoTokenizer.from_pretrained(self.path)
            self._model = AutoModelForSequenceClassification.from_pretrained(self.path)
            self._model = self._model.to(self.device).eval()

    def _logit(self, question: str, answer: str) -> tuple[float, int]:
        import torch

        self.load()
        enc = self._tok(
            question, answer, return_tensors="pt", truncation=True, max_length=self.max_tokens
        )
        with torch.no_grad():
            logits = self._model(**{k: v.to(self.device) for k, v in enc.items()}).logits
        return float(logits[0, 0]), int(enc["input_ids"].shape[1])

    async def score(self, question: str, answer: str) -> JudgeReply[float]:
        """JudgeReply with sigmoid(logit) as value and the raw logit as ``raw``."""
        try:
            logit, n = await asyncio.to_thread(self._logit, question, answer)
        except Unavailable as exc:
            return JudgeReply(value=None, error=str(exc))
        except Exception as exc:  # model faults are replies, not exceptions
            return JudgeReply(value=None, error=f"{type(exc).__name__}: {exc}")
        return JudgeReply(
            value=1.0 / (1.0 + math.exp(-logit)), raw=repr(logit), usage=Usage(prompt_tokens=n)
        )


_MODELS: dict[str, HFRewardModel] = {}


@guarded
async def answer_reward(sample: Sample, resources: Resources) -> Score:
    model = getattr(resources, "reward_model", None) or options_of(resources).get("reward_model")
    if model is None:
        raise Unavailable(HOW_TO)
    if isinstance(model, (str, Path)):
        if str(model) not in _MODELS:
            _MODELS[str(model)] = HFRewardModel(model)
        model = _MODELS[str(model)]
    reply = await model.score(sample.question, sample.answer or "")
    if not reply.ok or reply.value is None:
        return Score.failed(f"reward model error: {reply.error}")
    logit = float(reply.raw) if reply.raw else None
    return Score.ok(reply.value, logit=logit, model=getattr(model, "name", None))


METRIC = Metric(
    name="answer_reward",
    description="Unitxt answer reward: sigmoid of a reward model's logit for (question, answer) "
    "(needs a local reward model path).",
    requires=(("question", "answer"),),
    acompute=answer_reward,
    needs=frozenset({"reward_model"}),
    default=False,
    formula="sigmoid(RM(question, answer))",
)
