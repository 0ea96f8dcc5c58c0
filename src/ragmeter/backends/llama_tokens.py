"""Token-level bookkeeping of the llama.cpp judge: the work counters, the KV-cache prefix a
prompt can reuse, and which first tokens spell each verdict option.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass
class LocalStats:
    """Work done by this judge; ``prompt_tokens_evaluated`` < ``prompt_tokens`` = prefix reuse."""

    calls: int = 0
    prompt_tokens: int = 0
    prompt_tokens_evaluated: int = 0
    completion_tokens: int = 0
    busy_s: float = 0.0  # on the worker, all of it
    # where busy_s goes (issue 14's profile): loading the model, llama_decode of prompt
    # tokens after the reused prefix, generation (structured output: prompt + sampling),
    # reading the logits (log-softmax, top tokens); the rest is tokenising and Python
    load_s: float = 0.0
    decode_s: float = 0.0
    generate_s: float = 0.0
    logits_s: float = 0.0
    decode_batches: int = 0

    def as_dict(self) -> dict[str, float]:
        return dict(self.__dict__)


def _longest_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def option_token_ids(
    tokenize: Callable[[str], list[int]], options: Sequence[str]
) -> dict[str, list[int]]:
    """First-token ids spelling each option in case and leading-space variants.

    A token claimed by two options (say "n" for "no" and "not") counts for neither.
    """
    cand: dict[str, set[int]] = {}
    for opt in options:
        base = opt.strip()
        forms = {base, base.lower(), base.capitalize(), base.upper()}
        ids = set()
        for form in forms:
            for text in (form, " " + form):
                toks = tokenize(text)
                if toks:
                    ids.add(toks[0])
        cand[opt] = ids
    out = {}
    for opt, ids in cand.items():
        others = set().union(*(v for k, v in cand.items() if k != opt))
        out[opt] = sorted(ids - others)
    return out
