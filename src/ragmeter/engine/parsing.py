"""Reading model output: JSON validated against a schema, and verdict probabilities from a
first token's top log-probabilities. Pure functions, no I/O.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel, ValidationError

from ragmeter.protocols import Message

M = TypeVar("M", bound=BaseModel)
TOP_LOGPROBS = 20  # top tokens asked for when reading verdict probabilities
_MAX_LOGPROB = 1e-3  # servers round; a logprob above this is no log-probability
# A fence around the reply. "(?:(?<!\s)|(?!\s))": the closing one's "\s*" is tried where a run
# of spaces starts or ends, not from inside it (from every space, a reply with 100,000 spaces
# in a row, a model's runaway whitespace, took over a minute).
_FENCE = re.compile(r"^```[a-zA-Z]*\s*|(?:(?<!\s)|(?!\s))\s*```$")


def _loads(text: str) -> tuple[Any, str | None]:
    """(the JSON value, None) or (None, what is wrong). Not only a syntax error: a number of
    more than 4,300 digits and arrays nested too deep for the parser raised ValueError and
    RecursionError out of ``parse_structured``, reported as a Python error without the reply
    and never repaired."""
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"malformed JSON: {exc.msg} at char {exc.pos}"
    except RecursionError:
        return None, "malformed JSON: nested too deeply to read"
    except ValueError as exc:  # int() of a number too long
        return None, f"malformed JSON: {str(exc).split(';')[0]}"


def _first_object(body: str) -> Any:
    """The first whole JSON object of ``body`` when text follows it ('{"a": 1} Note: {x}'), or
    None."""
    start = body.find("{")
    if start < 0:
        return None
    try:
        return json.JSONDecoder().raw_decode(body, start)[0]
    except (ValueError, RecursionError):
        return None


def parse_structured(text: str, schema: type[M]) -> tuple[M | None, str | None]:
    """Validate a model's text against ``schema``: (value, None) or (None, what is wrong).

    Text around the JSON object is ignored ("Sure! {...} hope it helps", or text with braces
    of its own after it)."""
    body = _FENCE.sub("", text.strip())
    obj, error = _loads(body)
    if error is not None:
        start, end = body.find("{"), body.rfind("}")
        if 0 <= start < end:
            obj, inner = _loads(body[start : end + 1])
            if inner is not None:
                obj = _first_object(body)
        if obj is None:
            return None, error
    try:
        return schema.model_validate(obj), None
    except ValidationError as exc:
        parts = [
            f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in exc.errors()[:5]
        ]
        return None, "schema violation: " + "; ".join(parts)


@functools.lru_cache(maxsize=4096)
def _option_of(token: str, options: tuple[str, ...]) -> str | None:
    """The option ``token`` counts for (``option_probs_from_top``), or None.

    Memoised (bounded): a reply's 20 top tokens are mostly the same few ("yes", " Yes", "no"),
    and matching each against every option cost ~1 us, 20 a call."""
    norm = token.strip().lower()
    if not norm:
        return None
    wanted = [o.strip().lower() for o in options]
    hits = [o for o, w in zip(options, wanted, strict=True) if w == norm]
    if not hits:
        hits = [o for o, w in zip(options, wanted, strict=True) if w.startswith(norm)]
        if len(hits) != 1:
            return None
    return hits[0]


def option_probs_from_top(
    top: Sequence[tuple[str, float]], options: Sequence[str]
) -> tuple[dict[str, float] | None, str | None]:
    """Renormalise the first token's top-k probabilities over ``options``.

    Tokens match an option case-insensitively after stripping spaces; a token that is a
    strict prefix of exactly one option ("Ye" for "yes") counts for it.

    A NaN or +inf logprob anywhere in the list is an error: the server's distribution is
    broken, and a NaN would pass every comparison below and come out as a NaN (or, through
    ``max``, a 0.0) verdict scored as if the judge had answered. So is a logprob above
    _MAX_LOGPROB (a probability above 1 beyond rounding; exp() of a huge one overflows).
    -inf is log(0), a token the model rules out, and counts as probability 0.
    """
    broken = [(t, lp) for t, lp in top if math.isnan(lp) or lp > _MAX_LOGPROB]
    if broken:
        seen = ", ".join(f"{t!r}: {lp}" for t, lp in broken[:5])
        kind = "non-finite" if any(not math.isfinite(lp) for _, lp in broken) else "positive"
        return None, f"the server returned a {kind} logprob ({seen})"
    mass = dict.fromkeys(options, 0.0)
    chosen = tuple(options)
    for token, logprob in top:
        hit = _option_of(token, chosen)
        if hit is not None:
            mass[hit] += float(np.exp(logprob))
    total = sum(mass.values())
    if total <= 0:
        seen = ", ".join(repr(t) for t, _ in list(top)[:10])
        return None, f"none of the options {list(options)} among the top tokens ({seen})"
    return {o: p / total for o, p in mass.items()}, None


def repair_messages(
    messages: list[Message], raw: str, error: str, schema_json: dict[str, Any]
) -> list[Message]:
    return [
        *messages,
        {"role": "assistant", "content": raw},
        {
            "role": "user",
            "content": (
                f"Your reply was not valid: {error}. Reply again with only a JSON object that "
                f"matches this JSON schema:\n{json.dumps(schema_json)}"
            ),
        },
    ]


_LABEL = re.compile(r"(?m)^\s*(\d+)\s*[:.)\-]")


def verdicts_from_tokens(
    tokens: Sequence[tuple[str, Sequence[tuple[str, float]]]], options: Sequence[str], n: int
) -> tuple[list[dict[str, float]] | None, str | None]:
    """P(option) at each of ``n`` numbered verdict lines (``1: yes``, ``2: no`` ...) of one
    reply, read from the top-k of the first token after each label.

    ``tokens`` are the generated tokens with their top-k alternatives. Every label 1..n must
    appear once, in order, and be followed by a token that spells an option; otherwise
    (None, why), and the caller asks one statement at a time instead.
    """
    starts: list[int] = []
    text = ""
    for token, _ in tokens:
        starts.append(len(text))
        text += token
    labels = [(int(m.group(1)), m.end()) for m in _LABEL.finditer(text)]
    if [k for k, _ in labels] != list(range(1, n + 1)):
        return None, f"expected verdict lines 1..{n}, got labels {[k for k, _ in labels][:12]}"
    out: list[dict[str, float]] = []
    for k, end in labels:
        idx = next(
            (i for i, s in enumerate(starts) if tokens[i][0][max(0, end - s) :].strip()),
            None,
        )
        if idx is None:
            return None, f"no verdict after label {k}"
        probs, error = option_probs_from_top(tokens[idx][1], options)
        if probs is None:
            return None, f"verdict {k}: {error}"
        out.append(probs)
    return out, None
