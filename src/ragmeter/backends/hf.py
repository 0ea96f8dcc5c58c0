"""Local Hugging Face models for Unitxt's model metrics: a teacher-forcing scorer (perplexity
context relevance) and a sequence-classification reward model (answer reward).

Both load lazily from a local path (no hub download at run time), run inference on a worker
thread, and report model faults as ``JudgeReply.error``, never as exceptions. ``hf_scorer`` and
``hf_reward_model`` keep one instance per path, so a model loads once per process.
"""

from __future__ import annotations

import asyncio
import math
import threading
from pathlib import Path
from typing import Any

from ragmeter.backends.embedders import model_fingerprint
from ragmeter.errors import ResourceUnavailable
from ragmeter.protocols import JudgeReply, TokenLogprobs, Usage


class HFScorer:
    """Teacher-forced log-probabilities from a local Hugging Face LM (Scorer protocol).

    Seq2seq models (T5, BART) get the prompt as encoder input and the target as labels (with
    the tokenizer's special tokens, i.e. the EOS that Unitxt's loss includes); causal models get
    prompt + target and only the target positions are scored. Inference runs in a thread.
    """

    def __init__(self, path: str | Path, *, device: str = "cpu", max_input_tokens: int = 2048):
        self.path = _local(path)
        self.device = device
        self.max_input_tokens = max_input_tokens
        self.name = _identity(self.path)
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
                raise ResourceUnavailable(
                    f"transformers is not installed ({exc}): pip install 'ragmeter[hf]'"
                ) from None
            if not Path(self.path).exists():
                raise ResourceUnavailable(f"scorer model path not found: {self.path}")
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
        except ResourceUnavailable as exc:
            return JudgeReply(value=None, error=str(exc))
        except Exception as exc:  # model faults are replies, not exceptions
            return JudgeReply(value=None, error=f"{type(exc).__name__}: {exc}")
        return JudgeReply(value=value, usage=Usage(prompt_tokens=len(value.tokens)))


class HFRewardModel:
    """A local sequence-classification reward model; ``score`` returns sigmoid(first logit)."""

    def __init__(self, path: str | Path, *, device: str = "cpu", max_tokens: int = 1024):
        self.path = _local(path)
        self.device = device
        self.max_tokens = max_tokens
        self.name = _identity(self.path)
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
                raise ResourceUnavailable(
                    f"transformers is not installed ({exc}): pip install 'ragmeter[hf]'"
                ) from None
            if not Path(self.path).exists():
                raise ResourceUnavailable(f"reward model path not found: {self.path}")
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
        except ResourceUnavailable as exc:
            return JudgeReply(value=None, error=str(exc))
        except Exception as exc:  # model faults are replies, not exceptions
            return JudgeReply(value=None, error=f"{type(exc).__name__}: {exc}")
        if not math.isfinite(logit):
            return JudgeReply(value=None, error=f"the reward model gave a non-finite logit {logit}")
        return JudgeReply(value=_sigmoid(logit), raw=repr(logit), usage=Usage(prompt_tokens=n))


def _sigmoid(x: float) -> float:
    """1 / (1 + e^-x) without overflow: e^-x overflows below x = -709 ("internal error")."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _identity(path: str) -> str:
    """The cache identity of the model at ``path``: its folder's name and its files'
    fingerprint. Why: ``hf:final`` was every model saved in a folder named final, so one's
    cached log-probabilities were served as another's."""
    p = Path(path)
    return f"hf:{p.name}+{model_fingerprint(p)}" if p.exists() else f"hf:{p.name}"


def _local(path: str | Path) -> str:
    """The model's path with ``~`` expanded, as a shell would have: ``scorer_model=~/m`` in a
    config file reached us as written, was looked up as a directory named "~" and the model
    reported not found. (availability's check of the path must expand it alike.)"""
    return str(Path(path).expanduser())


_SCORERS: dict[str, HFScorer] = {}
_REWARD_MODELS: dict[str, HFRewardModel] = {}


def hf_scorer(path: str | Path) -> HFScorer:
    """The process-wide scorer for ``path`` (loaded on first use; ``~/m`` and its expansion
    are one model)."""
    key = _local(path)
    if key not in _SCORERS:
        _SCORERS[key] = HFScorer(path)
    return _SCORERS[key]


def hf_reward_model(path: str | Path) -> HFRewardModel:
    """The process-wide reward model for ``path`` (loaded on first use; ``~/m`` and its
    expansion are one model)."""
    key = _local(path)
    if key not in _REWARD_MODELS:
        _REWARD_MODELS[key] = HFRewardModel(path)
    return _REWARD_MODELS[key]
