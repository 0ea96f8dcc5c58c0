"""The contracts between metrics, the engine and models: what each side may ask of the other.

Imports nothing of ragmeter's, so every layer can depend on it.

A metric asks a Judge for (a) an object matching a pydantic schema, or (b) the probabilities
of a few candidate next tokens ("yes"/"no") after a chat prompt, or (c) the log-likelihood
of a target continuation (teacher forcing). It gets a JudgeReply: the value, or an error
with the raw output kept. Model faults never raise into metric code; a metric turns an
error reply into a failed Score with that reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

import numpy as np
from pydantic import BaseModel

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": "..."}


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    # tokens the model actually computed: prompt tokens decoded after KV-prefix reuse plus
    # generated ones (a local judge reports it; 0 from servers, which do not say)
    computed_tokens: int = 0

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __iadd__(self, other: Usage) -> Usage:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.computed_tokens += other.computed_tokens
        return self


@dataclass
class JudgeReply(Generic[T]):
    """A model's answer, or why there is none. ``raw`` keeps the model's text for debugging."""

    value: T | None
    error: str | None = None
    raw: str | None = None
    usage: Usage = field(default_factory=Usage)
    cached: bool = False
    attempts: int = 1

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class TokenLogprobs:
    """Log-probabilities of each target token under teacher forcing (for perplexity)."""

    tokens: list[str]
    logprobs: list[float]

    @property
    def mean_logprob(self) -> float:
        return float(np.mean(self.logprobs)) if self.logprobs else float("nan")


@runtime_checkable
class Judge(Protocol):
    """What metrics may ask of a judge model. Implementations never raise for model faults."""

    name: str  # "<backend>:<model>", part of every cache key

    async def structured(
        self,
        messages: Sequence[Message],
        schema: type[M],
        *,
        prompt_version: str,
        max_tokens: int = 512,
    ) -> JudgeReply[M]:
        """A validated instance of ``schema`` (constrained decoding where available)."""
        ...

    async def option_probs(
        self, messages: Sequence[Message], options: Sequence[str], *, prompt_version: str
    ) -> JudgeReply[dict[str, float]]:
        """P(option) for the first token of the assistant's reply, renormalised over options.

        One forward pass, no generated text: e.g. options=("yes", "no") for a verdict.
        """
        ...


@runtime_checkable
class Scorer(Protocol):
    """A model that can score a given continuation (teacher forcing): local backends only."""

    name: str

    async def target_logprobs(
        self, prompt: str, target: str, *, prompt_version: str
    ) -> JudgeReply[TokenLogprobs]: ...


@runtime_checkable
class Embedder(Protocol):
    name: str

    async def embed(self, texts: Sequence[str]) -> JudgeReply[np.ndarray]:
        """One L2-normalised row per text."""
        ...


@dataclass
class Resources:
    """The models a run may use, handed to every model-based metric's ``acompute``.

    Any of them may be None when not configured; a metric that needs a missing one returns
    a failed Score saying which and how to configure it.
    """

    judge: Judge | None = None
    embedder: Embedder | None = None
    scorer: Scorer | None = None  # teacher-forced LM for perplexity context relevance
    reward_model: Any = None  # HF sequence-classification model wrapper, user-supplied
    options: dict[str, Any] = field(default_factory=dict)  # per-metric modes and knobs


# ---- what an HTTP or in-process model offers the engine --------------------------------------
# A backend does one request and reports what came back, raising on transport faults. It knows
# nothing of caching, retries, schema validation or metrics: the engine adds those.


@dataclass
class ChatRequest:
    messages: list[Message]
    max_tokens: int
    json_schema: dict[str, Any] | None = None  # ask for schema-constrained output
    schema_name: str | None = None
    top_logprobs: int | None = None  # ask for the first token's top-k log-probabilities
    every_token: bool = False  # with top_logprobs: the top-k of every generated token


@dataclass
class ChatCompletion:
    text: str
    usage: Usage = field(default_factory=Usage)
    top_logprobs: list[tuple[str, float]] | None = None  # first generated token's top-k
    finish_reason: str | None = None
    # with ChatRequest.every_token: each generated token and its top-k alternatives
    token_tops: list[tuple[str, list[tuple[str, float]]]] | None = None


@runtime_checkable
class ChatBackend(Protocol):
    name: str  # "<backend>:<model>", part of every cache key

    def cache_params(self) -> dict[str, Any]:
        """Everything besides the request that decides the answer (temperature, seed, url)."""
        ...

    async def complete(self, request: ChatRequest) -> ChatCompletion:
        """One request. Raises TransientError/PermanentError or SDK errors on faults."""
        ...
