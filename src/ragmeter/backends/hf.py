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
        self._positions: int | None = None
        self.seq2seq = False

    def cache_params(self) -> dict[str, Any]:
        """What besides the model's identity changes its numbers: the prompt's token limit
        and the device (a GPU's float sums differ from the CPU's in the last bits)."""
        return {"max_input_tokens": self.max_input_tokens, "device": self.device}

    def load_tokenizer(self) -> None:
        """The tokenizer and the model's kind and positions, without the weights. Why:
        ``prompt_cut`` needs only these, and a re-run answered from the cache loaded the
        whole model to learn which contexts were cut."""
        with self._lock:
            if self._tok is not None:
                return
            try:
                from transformers import AutoConfig, AutoTokenizer
            except ImportError as exc:
                raise ResourceUnavailable(
                    f"transformers is not installed ({exc}): pip install 'ragmeter[hf]'"
                ) from None
            _require_model_folder(self.path, "scorer")
            config = AutoConfig.from_pretrained(self.path)
            seq2seq = bool(getattr(config, "is_encoder_decoder", False))
            _require_head(self.path, config, "seq2seq" if seq2seq else "causal")
            tok = AutoTokenizer.from_pretrained(self.path)
            self.seq2seq, self._positions = seq2seq, _max_positions(config, tok)
            self._tok = tok

    def load(self) -> None:
        self.load_tokenizer()
        with self._lock:
            if self._model is not None:
                return
            from transformers import AutoModelForCausalLM, AutoModelForSeq2SeqLM

            cls = AutoModelForSeq2SeqLM if self.seq2seq else AutoModelForCausalLM
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
                t_ids = tok(target, add_special_tokens=False, return_tensors="pt").input_ids[0]
                room = self._prompt_room(len(t_ids))
                if room < 1:
                    raise ValueError(
                        f"the question is {len(t_ids)} tokens, more than the {self._positions} "
                        f"positions of the scorer model {self.path}"
                    )
                # as before, the prompt's end is kept; it now also fits the model's positions
                # (a longer one was an IndexError on every context of a long-context sample)
                p_ids = tok(prompt, return_tensors="pt").input_ids[0][-room:]
                ids = torch.cat([p_ids, t_ids]).unsqueeze(0).to(self.device)
                logits = model(input_ids=ids).logits[0, len(p_ids) - 1 : -1]
                target_ids = t_ids
            logp = torch.log_softmax(logits.float(), dim=-1)
            lps = logp.gather(1, target_ids.view(-1, 1).to(logp.device)).squeeze(1)
        pieces = tok.convert_ids_to_tokens(target_ids.tolist())
        return TokenLogprobs(tokens=[str(p) for p in pieces], logprobs=lps.tolist())

    def _prompt_room(self, n_target: int) -> int:
        """How many prompt tokens a causal model reads beside ``n_target`` target tokens."""
        return min(self.max_input_tokens, (self._positions or 1 << 62) - n_target)

    def prompt_cut(self, prompt: str, target: str) -> bool:
        """Whether scoring cuts ``prompt`` to fit the model. Why: a context cut to
        ``max_input_tokens`` or the model's positions was scored in part while the metric's
        ``truncated_contexts`` listed only contexts cut by characters."""
        self.load_tokenizer()
        n = len(self._tok(prompt).input_ids)
        if self.seq2seq:
            return n > self.max_input_tokens
        return n > self._prompt_room(len(self._tok(target, add_special_tokens=False).input_ids))

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
        self._positions: int | None = None

    def cache_params(self) -> dict[str, Any]:
        """What besides the model's identity changes its logit: the token limit, the device."""
        return {"max_tokens": self.max_tokens, "device": self.device}

    def load(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            try:
                from transformers import (
                    AutoConfig,
                    AutoModelForSequenceClassification,
                    AutoTokenizer,
                )
            except ImportError as exc:
                raise ResourceUnavailable(
                    f"transformers is not installed ({exc}): pip install 'ragmeter[hf]'"
                ) from None
            _require_model_folder(self.path, "reward")
            config = AutoConfig.from_pretrained(self.path)
            _require_head(self.path, config, "reward")
            if config.num_labels != 1:
                raise ResourceUnavailable(
                    f"the reward model {self.path} is a classifier with {config.num_labels} "
                    "labels; answer_reward needs a reward model with one output (a regression "
                    "head, as OpenAssistant/reward-model-deberta-v3-large-v2): the sigmoid of a "
                    "classifier's first logit is not a reward"
                )
            self._tok = AutoTokenizer.from_pretrained(self.path)
            self._model = AutoModelForSequenceClassification.from_pretrained(self.path)
            self._model = self._model.to(self.device).eval()
            self._positions = _max_positions(config, self._tok)

    def _logit(self, question: str, answer: str) -> tuple[float, int]:
        import torch

        self.load()
        enc = self._tok(
            question,
            answer,
            return_tensors="pt",
            truncation=True,
            max_length=min(self.max_tokens, self._positions or self.max_tokens),
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


_WEIGHTS = ("*.safetensors", "*.bin", "*.pt", "*.pth", "*.ckpt", "*.h5", "*.msgpack")
_HEADS = {
    "causal": ("MODEL_FOR_CAUSAL_LM_MAPPING_NAMES", "a causal (decoder) language model"),
    "seq2seq": ("MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES", "a seq2seq language model"),
    "reward": ("MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES", "a sequence classifier"),
}


def model_folder_problem(path: str | Path, role: str) -> str | None:
    """Why ``path`` is not a saved Hugging Face model folder, or None. Why: a file, or a folder
    without config.json or weights, reached transformers, whose errors ("Unrecognized model...
    Should have a `model_type` key", a tokenizer backend error) named no missing file. Cheap
    (no torch), so a run can ask it before any work."""
    p = Path(path).expanduser()
    if not p.exists():
        return f"{role} model path not found: {p}"
    if not p.is_dir():
        return f"{role} model path {p} is a file; give the folder of a saved Hugging Face model"
    if not (p / "config.json").is_file():
        return f"{role} model folder {p} has no config.json: not a saved Hugging Face model"
    if not any(next(p.glob(g), None) for g in _WEIGHTS):
        return f"{role} model folder {p} has no weights (*.safetensors or *.bin files)"
    return None


def _require_model_folder(path: str, role: str) -> None:
    if (problem := model_folder_problem(path, role)) is not None:
        raise ResourceUnavailable(problem)


def _require_head(path: str, config: Any, role: str) -> None:
    """Refuse a model whose saved head is not the one ``role`` loads. Why: transformers' Auto
    classes load an encoder-only BERT as a causal LM, or a causal LM as a sequence classifier,
    with a randomly initialised head, and every score was an "ok" number from noise."""
    from transformers.models.auto import modeling_auto

    table, what = _HEADS[role]
    allowed: set[str] = set()
    for names in getattr(modeling_auto, table).values():
        allowed.update([names] if isinstance(names, str) else names)
    saved = list(getattr(config, "architectures", None) or [])
    if saved and not allowed.intersection(saved):
        raise ResourceUnavailable(
            f"the model at {path} is a {', '.join(saved)}, not {what}: its "
            f"{'reward' if role == 'reward' else 'language-model'} head would be random weights"
        )


def _max_positions(config: Any, tok: Any) -> int | None:
    """How many tokens the model's absolute position embeddings take, or None (relative
    positions, as T5's and DeBERTa-v3's, take any length). Why: a longer input was an
    IndexError ("index out of range in self") on every long sample. The tokenizer's
    ``model_max_length`` lowers it where the config counts reserved positions (RoBERTa's 514)."""
    if getattr(config, "position_biased_input", True) is False:
        return None
    n = getattr(config, "max_position_embeddings", None) or getattr(config, "n_positions", None)
    if not isinstance(n, int) or n <= 0:
        return None
    said = getattr(tok, "model_max_length", None)
    return min(n, said) if isinstance(said, int) and 0 < said < n else n


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


_SCORERS: dict[tuple[str, str], HFScorer] = {}
_REWARD_MODELS: dict[tuple[str, str], HFRewardModel] = {}


def hf_scorer(path: str | Path, *, device: str = "cpu") -> HFScorer:
    """The process-wide scorer for ``path`` on ``device`` (loaded on first use; ``~/m`` and
    its expansion are one model)."""
    key = (_local(path), device)
    if key not in _SCORERS:
        _SCORERS[key] = HFScorer(path, device=device)
    return _SCORERS[key]


def hf_reward_model(path: str | Path, *, device: str = "cpu") -> HFRewardModel:
    """The process-wide reward model for ``path`` on ``device`` (loaded on first use; ``~/m``
    and its expansion are one model)."""
    key = (_local(path), device)
    if key not in _REWARD_MODELS:
        _REWARD_MODELS[key] = HFRewardModel(path, device=device)
    return _REWARD_MODELS[key]
