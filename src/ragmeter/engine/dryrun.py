"""Stand-ins for judge, embedder, scorer and reward model that count calls instead of making them.

A dry run executes the metrics' own code against these, so the estimate follows each
metric's real call pattern. A call whose key is already in the cache returns the cached
answer (and costs nothing); any other call is counted with estimated tokens and answered
with a placeholder built from the schema, lists holding ``list_items`` entries (a typical
number of statements per answer), so downstream calls are counted too. A list of verdicts
asked for a numbered listing in the prompt (``1. ...`` to ``n. ...``) holds ``n`` entries, as a
judge's correct reply does: context_recall's attributions of a reference's sentences.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel

from ragmeter.engine.accounting import CALL_TAG, UNTAGGED, Accountant
from ragmeter.engine.cache import call_key, embedding_key
from ragmeter.engine.embedder import CachedEmbedder, plan_batches
from ragmeter.engine.grouped import GROUPED_TOP_LOGPROBS
from ragmeter.engine.judge import CachedJudge
from ragmeter.engine.parsing import parse_structured
from ragmeter.engine.scorer import CachedRewardModel, CachedScorer
from ragmeter.protocols import JudgeReply, Message, TokenLogprobs, Usage
from ragmeter.vectors import unit_rows

M = TypeVar("M", bound=BaseModel)
CHARS_PER_TOKEN = 4.0
PLACEHOLDER = "placeholder text of about ten words for the estimate only"


def estimate_tokens(text: str) -> int:
    return max(1, int(len(text) / CHARS_PER_TOKEN + 0.5))


def messages_tokens(messages: Sequence[Message]) -> int:
    return sum(estimate_tokens(str(m.get("content", ""))) + 4 for m in messages) + 3


_LISTED = re.compile(r"(\d+)\. ")


def listed_items(messages: Sequence[Message]) -> int | None:
    """How many items the last user message's last numbered listing holds (lines ``1. ``,
    ``2. ``, ... in order), None without one. Why: a metric that lists sentences for the judge
    to give one verdict each (context_recall's generate mode) takes a reply of any other
    length as a failure and stops; the placeholder's ``list_items`` verdicts for a reference
    of another length ended the sample at its first context chunk, so the calls of the other
    chunks (and the verdicts' tokens) went uncounted."""
    user = [m for m in messages if m.get("role") == "user"]
    if not user:
        return None
    found, run = None, 0
    for line in str(user[-1].get("content", "")).splitlines():
        number = _LISTED.match(line)
        if number is not None and int(number.group(1)) == run + 1:
            run += 1
            found = run
        elif number is not None and number.group(1) == "1":
            run = found = 1
        else:
            run = 0
    return found


def placeholder(
    schema: dict[str, Any],
    defs: dict[str, Any] | None = None,
    list_items: int = 3,
    listed: int | None = None,
) -> Any:
    """A plausible instance of a JSON schema: first enum value, mid-range numbers, lists, flags
    off (the usual reply: a noncommittal answer is the exception).
    A list of objects (verdicts) holds ``listed`` entries when the prompt numbered that many
    items; other lists (statements a judge extracts, of a number no one knows) ``list_items``."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return placeholder(defs[schema["$ref"].rsplit("/", 1)[-1]], defs, list_items, listed)
    if "enum" in schema:  # "no" where offered: see ``leaning_no``
        return next((v for v in schema["enum"] if v == "no"), schema["enum"][0])
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            subs = [s for s in schema[key] if s.get("type") != "null"] or schema[key]
            return placeholder(subs[0], defs, list_items, listed)
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "object":
        return {
            k: placeholder(v, defs, list_items, listed)
            for k, v in schema.get("properties", {}).items()
        }
    if kind == "array":
        items = schema.get("items", {"type": "string"})
        wanted = list_items
        if listed is not None and isinstance(placeholder(items, defs, 1), dict):
            wanted = listed
        n = max(int(schema.get("minItems", 0)), min(wanted, schema.get("maxItems", 10**6)))
        return [placeholder(items, defs, list_items, listed) for _ in range(n)]
    if kind == "string":
        return PLACEHOLDER
    if kind in ("integer", "number"):
        lo = schema.get("minimum", 0)
        hi = schema.get("maximum", lo + 1)
        return int(hi) if kind == "integer" else (lo + hi) / 2
    if kind == "boolean":  # a flag raised for the exception: answer_relevance's noncommittal
        return False  # True ended its generate mode before the embedder, left uncounted
    return None


class DryRunJudge:
    def __init__(self, real: CachedJudge, accountant: Accountant, list_items: int = 3) -> None:
        self.real = real
        self.name = real.name
        self.accountant = accountant
        self.list_items = list_items
        # metrics whose estimate rests on the assumed list length (statements a judge
        # extracts in generate mode): the output must say so, it cannot be exact
        self.assumed: set[str] = set()

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.real, attr)  # n_ctx and friends, as the real judge offers them

    async def option_probs_list(
        self, messages: Sequence[Message], options: Sequence[str], n: int, *, prompt_version: str
    ) -> JudgeReply[list[dict[str, float]]]:
        if not self.real.groups_verdicts:  # the real judge answers an error, sending nothing
            return await self.real.option_probs_list(
                messages, options, n, prompt_version=prompt_version
            )
        key = grouped_key(self.real, messages, options, n, prompt_version)
        hit = self._cached(key)
        if hit is not None:  # as GroupedVerdicts: a stored answer costs nothing
            self.accountant.record(self.name, cached=True)
            return JudgeReply(hit.value, None, hit.raw, cached=True)
        return await _grouped_estimate(self, messages, options, n)

    def _cached(self, key: str) -> Any:
        cache = self.real.core.cache
        return cache.get(key) if cache is not None else None

    async def structured(
        self,
        messages: Sequence[Message],
        schema: type[M],
        *,
        prompt_version: str,
        max_tokens: int = 512,
    ) -> JudgeReply[M]:
        key = self.real.structured_key(
            messages, schema, prompt_version=prompt_version, max_tokens=max_tokens
        )
        hit = self._cached(key)  # a stored answer; a stored failure would be asked again
        value = parse_structured(json.dumps(hit.value), schema)[0] if hit is not None else None
        if hit is not None and value is not None:  # as CachedJudge: else it is asked again
            self.accountant.record(self.name, cached=True)
            return JudgeReply(value, None, hit.raw, cached=True)
        listed = listed_items(messages)
        shape = schema.model_json_schema()
        made = placeholder(shape, list_items=self.list_items, listed=listed)
        if made != placeholder(shape, list_items=self.list_items + 1, listed=listed):
            self.assumed.add((CALL_TAG.get() or UNTAGGED)[0])
        text = json.dumps(made)
        value, error = parse_structured(text, schema)  # error: a schema we cannot satisfy
        usage = Usage(messages_tokens(messages), min(max_tokens, estimate_tokens(text)))
        self.accountant.record(
            self.name, prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens
        )
        return JudgeReply(value, error, text, usage)

    async def option_probs(
        self, messages: Sequence[Message], options: Sequence[str], *, prompt_version: str
    ) -> JudgeReply[dict[str, float]]:
        key = self.real.option_probs_key(messages, options, prompt_version=prompt_version)
        hit = self._cached(key)
        if hit is not None:
            self.accountant.record(self.name, cached=True)
            return JudgeReply(hit.value, None, hit.raw, cached=True)
        usage = Usage(messages_tokens(messages), 1)
        self.accountant.record(self.name, prompt_tokens=usage.prompt_tokens, completion_tokens=1)
        return JudgeReply(leaning_no(options), usage=usage)


def leaning_no(options: Sequence[str]) -> dict[str, float]:
    """The stand-in verdict: "no" a little likelier than the rest (uniform without a "no").
    Why: context_precision stops judging a context's chunks at the first "yes" (P >= 0.5);
    the even 0.5 it was given counted one chunk a context, while a run whose judge says no
    judges them all. A verdict short of yes counts every call a run can make: the estimate
    is an upper bound, as the embedder's is, not below the bill."""
    if "no" not in options:
        return {o: 1.0 / len(options) for o in options}
    rest = 0.4 / max(1, len(options) - 1)
    return {o: 0.6 if o == "no" else rest for o in options}


def grouped_key(
    real: CachedJudge,
    messages: Sequence[Message],
    options: Sequence[str],
    n: int,
    prompt_version: str,
) -> str:
    """The key ``GroupedVerdicts.option_probs_list`` stores a grouped verdict under."""
    params = {
        **real._params,
        "options": list(options),
        "top_logprobs": GROUPED_TOP_LOGPROBS,
        "n_verdicts": n,
    }
    return call_key(
        backend=real.name,
        kind="option_probs_list",
        messages=[dict(m) for m in messages],
        params=params,
        prompt_version=prompt_version,
    )


async def _grouped_estimate(
    judge: DryRunJudge, messages: Sequence[Message], options: Sequence[str], n: int
) -> JudgeReply[list[dict[str, float]]]:
    """One grouped verdict request (``group_verdicts=on``): counted, never sent."""
    usage = Usage(messages_tokens(messages), 4 * n)
    judge.accountant.record(
        judge.name, prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens
    )
    even = {o: 1.0 / len(options) for o in options}
    return JudgeReply([dict(even) for _ in range(n)], None, None, usage)


class DryRunEmbedder:
    """Counts an embedder's calls as ``CachedEmbedder`` makes them: one per batch of texts
    the cache lacks (``plan_batches``: each text once, ``batch_size`` a batch), with their
    estimated tokens; a request the cache answers wholly is one cache hit. A text asked for
    again by a later request is counted again, as a run sends it again when the cache is off
    or the two requests are in flight together: exact then, an upper bound otherwise."""

    def __init__(self, real: CachedEmbedder, accountant: Accountant, dim: int = 8) -> None:
        self.real = real
        self.name = real.name
        self.accountant = accountant
        self.dim = dim

    async def embed(self, texts: Sequence[str]) -> JudgeReply[np.ndarray]:
        texts = list(texts)
        cache = self.real.core.cache
        keys = [embedding_key(self.name, t) for t in texts]
        found = cache.get_vectors(sorted(set(keys))) if cache is not None else {}
        batches = plan_batches(keys, texts, found, self.real.batch_size)
        for batch in batches:
            tokens = sum(estimate_tokens(t) for _, t in batch)
            self.accountant.record(self.name, prompt_tokens=tokens)
        if texts and not batches:
            self.accountant.record(self.name, cached=True)
        rng = np.random.default_rng(len(texts))
        matrix = unit_rows(rng.normal(size=(len(texts), self.dim)), np.float32)
        return JudgeReply(matrix)


class DryRunScorer:
    def __init__(self, real: CachedScorer, accountant: Accountant) -> None:
        self.real = real
        self.name = real.name
        self.accountant = accountant

    async def target_logprobs(
        self, prompt: str, target: str, *, prompt_version: str
    ) -> JudgeReply[TokenLogprobs]:
        cache = self.real.core.cache
        key = self.real.key(prompt, target, prompt_version=prompt_version)
        if cache is not None and cache.get(key) is not None:
            self.accountant.record(self.name, cached=True)
        else:
            self.accountant.record(self.name, prompt_tokens=estimate_tokens(prompt + target))
        n = estimate_tokens(target)
        return JudgeReply(TokenLogprobs(["x"] * n, [-1.0] * n))


class DryRunRewardModel:
    """Counts a reward model's calls as ``CachedRewardModel`` makes them: one a sample, with
    its estimated tokens, or a cache hit when the answer is stored; the model is never
    loaded. Why: the dry run handed the real reward model to the metric, which loaded it and
    scored every sample, and no call was counted."""

    def __init__(self, real: CachedRewardModel, accountant: Accountant) -> None:
        self.real = real
        self.name = real.name
        self.accountant = accountant

    async def score(self, question: str, answer: str) -> JudgeReply[float]:
        hit = self.real.cached(self.real.key(question, answer))
        if hit is not None:
            self.accountant.record(self.name, cached=True)
            return hit
        self.accountant.record(self.name, prompt_tokens=estimate_tokens(question + answer))
        return JudgeReply(0.5, raw="0.0")
