"""The narrow interface an HTTP or in-process model offers the engine.

A backend does one request and reports what came back, raising on transport faults. It
knows nothing of caching, retries, schemas' validation or metrics: the engine adds those.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ragmeter.judges.base import Message, Usage


@dataclass
class ChatRequest:
    messages: list[Message]
    max_tokens: int
    json_schema: dict[str, Any] | None = None  # ask for schema-constrained output
    schema_name: str | None = None
    top_logprobs: int | None = None  # ask for the first token's top-k log-probabilities


@dataclass
class ChatCompletion:
    text: str
    usage: Usage = field(default_factory=Usage)
    top_logprobs: list[tuple[str, float]] | None = None  # first generated token's top-k
    finish_reason: str | None = None


@runtime_checkable
class ChatBackend(Protocol):
    name: str  # "<backend>:<model>", part of every cache key

    def cache_params(self) -> dict[str, Any]:
        """Everything besides the request that decides the answer (temperature, seed, url)."""
        ...

    async def complete(self, request: ChatRequest) -> ChatCompletion:
        """One request. Raises TransientError/PermanentError or SDK errors on faults."""
        ...
