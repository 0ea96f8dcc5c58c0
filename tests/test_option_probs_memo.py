"""Which option a top token counts for is memoised (engine/parsing.py ``_option_of``): the
verdict probabilities stay those of matching every token against every option, bit for bit,
and the memo stays bounded."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import numpy as np

from ragmeter.engine import parsing
from ragmeter.engine.parsing import option_probs_from_top


def _reference(top: Sequence[tuple[str, float]], options: Sequence[str]) -> dict[str, float]:
    """The matching as it was written before the memo (the mass per option, normalised)."""
    wanted = [o.strip().lower() for o in options]
    mass = dict.fromkeys(options, 0.0)
    for token, logprob in top:
        norm = token.strip().lower()
        if not norm:
            continue
        hits = [o for o, w in zip(options, wanted, strict=True) if w == norm]
        if not hits:
            hits = [o for o, w in zip(options, wanted, strict=True) if w.startswith(norm)]
            if len(hits) != 1:
                continue
        mass[hits[0]] += float(np.exp(logprob))
    total = sum(mass.values())
    return {o: p / total for o, p in mass.items()} if total > 0 else {}


TOKENS = [
    "yes", "Yes", " yes", "YES", "ye", "Y", "y", "no", "No", " NO", "n", "N", "", " ", "\n",
    "supported", "Supp", "S", "unsupported", "un", "maybe", "The", "İ", "ı", "ſ", "ｙｅｓ",
    "partially", "part", "p", "yes.", "no,", "relevant", "rel", "r", "irrelevant",
]  # fmt: skip
OPTIONS = [
    ["yes", "no"], ["Yes", "No"], ["supported", "unsupported"], [" yes ", "no"],
    ["yes", "partially", "no"], ["relevant", "irrelevant", "r"], ["yes", "yes"], ["a"],
]  # fmt: skip


def test_the_probabilities_are_those_of_the_full_matching() -> None:
    rng = random.Random(5)
    compared = 0
    for _ in range(4000):
        options = rng.choice(OPTIONS)
        top = [(rng.choice(TOKENS), -rng.expovariate(0.4)) for _ in range(rng.randint(1, 20))]
        if rng.random() < 0.05:
            top.append((rng.choice(TOKENS), -math.inf))
        want = _reference(top, options)
        got, error = option_probs_from_top(top, options)
        if not want:
            assert got is None and error is not None
            continue
        assert error is None and got == want, (top, options)  # exact, not approximate
        compared += 1
    assert compared > 2000


def test_the_memo_is_bounded() -> None:
    parsing._option_of.cache_clear()
    size = parsing._option_of.cache_info().maxsize
    assert size is not None
    for i in range(size + 500):
        option_probs_from_top([(f"tok{i}", -1.0), ("yes", -0.5)], ["yes", "no"])
    assert parsing._option_of.cache_info().currsize == size
