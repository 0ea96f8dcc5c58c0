"""Token and cost accounting per metric and per sample.

The runner tags each (metric, sample) task through a context variable; the engine reads
the tag when a call finishes, so neither metrics nor backends pass bookkeeping around.
"""

from __future__ import annotations

import contextvars
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

# (metric name, question_id) of the task making the current call, or None outside a run.
CALL_TAG: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar(
    "ragmeter_call_tag", default=None
)

UNTAGGED = ("(untagged)", "")


# Models that run in this process: they cost nothing, whatever their token counts say
FREE_BACKENDS = ("local:", "gguf:", "llamacpp:", "st:", "fake:")


def is_free(backend_name: str) -> bool:
    return backend_name.startswith(FREE_BACKENDS)


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float


class PriceTable:
    """Model name -> Price. Looks up ``backend:model`` first, then the bare model name (an
    embedder served at a base URL is named ``openai:MODEL@URL``: its price is MODEL's)."""

    def __init__(
        self, prices: Mapping[str, Price | Mapping[str, float] | tuple[float, float]] | None = None
    ) -> None:
        self._prices: dict[str, Price] = {}
        for name, price in (prices or {}).items():
            if isinstance(price, Price):
                self._prices[name] = price
            elif isinstance(price, Mapping):
                self._prices[name] = Price(float(price["input"]), float(price["output"]))
            else:
                self._prices[name] = Price(float(price[0]), float(price[1]))

    def lookup(self, backend_name: str) -> Price | None:
        if backend_name in self._prices:
            return self._prices[backend_name]
        model = backend_name.split(":", 1)[-1]
        if model not in self._prices and "://" in model.rpartition("@")[2]:
            bare = model.rpartition("@")[0]
            return self._prices.get(backend_name.rpartition("@")[0], self._prices.get(bare))
        return self._prices.get(model)

    def cost(self, backend_name: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        if is_free(backend_name):
            return 0.0
        price = self.lookup(backend_name)
        if price is None:
            return None
        return (prompt_tokens * price.input + completion_tokens * price.output) / 1e6


@dataclass
class Tally:
    """What calls cost. ``calls`` and the tokens are the calls that reached a model in this
    run (failed ones included: a server bills a reply it sent even when it was unusable);
    ``cache_hits`` were answered from the cache and cost nothing now; ``failures`` are calls
    that gave no usable answer after their retries; ``unmetered`` are answered calls whose
    server reported no token counts (no ``usage``, or counts that are not numbers): what they
    cost is unknown, so a priced run's cost is too (never the $0 their zero tokens would
    give)."""

    calls: int = 0  # calls that reached a model (not cache hits)
    cache_hits: int = 0
    failures: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    computed_tokens: int = 0  # after KV-prefix reuse (local judges; 0 for servers)
    unmetered: int = 0  # answered calls that reported no tokens (a prompt has at least one)

    def copy(self) -> Tally:
        return replace(self)

    def since(self, earlier: Tally) -> Tally:
        """What was tallied after ``earlier`` (a ``copy`` of this tally taken before): the
        work of one step of a sequential run, such as one meta-eval item."""
        return Tally(
            **{f.name: getattr(self, f.name) - getattr(earlier, f.name) for f in fields(self)}
        )

    def add(self, other: Tally) -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def as_dict(self) -> dict[str, int]:
        return {
            "calls": self.calls,
            "cache_hits": self.cache_hits,
            "failures": self.failures,
            "retries": self.retries,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "judge_tokens": self.prompt_tokens + self.completion_tokens,
            "computed_tokens": self.computed_tokens,
            "unmetered": self.unmetered,
        }


@dataclass
class Accountant:
    """Collects what every call cost, keyed by the current CALL_TAG."""

    prices: PriceTable = field(default_factory=PriceTable)
    total: Tally = field(default_factory=Tally)
    per_metric: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    per_sample: dict[tuple[str, str], Tally] = field(default_factory=lambda: defaultdict(Tally))
    per_backend: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))

    def record(
        self,
        backend: str,
        *,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
        computed_tokens: int = 0,
        cached: bool = False,
        failed: bool = False,
        retries: int = 0,
    ) -> None:
        tag = CALL_TAG.get() or UNTAGGED
        for tally in (
            self.total,
            self.per_metric[tag[0]],
            self.per_sample[tag],
            self.per_backend[backend],
        ):
            if cached:
                tally.cache_hits += 1
            else:
                tally.calls += 1
                tally.prompt_tokens += prompt_tokens
                tally.completion_tokens += completion_tokens
                tally.computed_tokens += computed_tokens
                tally.unmetered += int(not failed and prompt_tokens + completion_tokens == 0)
            tally.failures += int(failed)
            tally.retries += retries

    def cost_usd(self) -> float | None:
        """Total cost, or None when a backend that was called has no price in the table, or
        answered calls without reporting their tokens: the bill is unknown, not $0. Why: a
        priced server that sends no ``usage`` gave a cost of $0.00 however many calls it
        answered."""
        total = 0.0
        for backend, tally in self.per_backend.items():
            cost = self.prices.cost(backend, tally.prompt_tokens, tally.completion_tokens)
            # a model in this process reports no tokens (a sentence-transformers embedder
            # counts none) and costs nothing: its calls leave the bill known
            if cost is not None and tally.unmetered and not is_free(backend):
                return None
            if cost is None:
                if tally.calls or tally.prompt_tokens + tally.completion_tokens:
                    return None
                continue
            total += cost
        return round(total, 6)

    def sample_usage(self, metric: str, question_id: str) -> dict[str, int]:
        tally = self.per_sample.get((metric, question_id))
        return tally.as_dict() if tally else Tally().as_dict()

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = self.total.as_dict()
        out["per_metric"] = {name: t.as_dict() for name, t in self.per_metric.items()}
        out["per_backend"] = {name: t.as_dict() for name, t in self.per_backend.items()}
        out["cost_usd"] = self.cost_usd()
        return out
