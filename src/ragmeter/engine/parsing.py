"""Reading model output: JSON validated against a schema, and verdict probabilities from a
first token's top log-probabilities. Pure functions, no I/O.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel, ValidationError

from ragmeter.protocols import Message

M = TypeVar("M", bound=BaseModel)
TOP_LOGPROBS = 20  # top tokens asked for when reading verdict probabilities
_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")


def parse_structured(text: str, schema: type[M]) -> tuple[M | None, str | None]:
    """Validate a model's text against ``schema``: (value, None) or (None, what is wrong)."""
    body = _FENCE.sub("", text.strip())
    try:
        obj = json.loads(body)
    except json.JSONDecodeError as exc:
        start, end = body.find("{"), body.rfind("}")
        try:
            obj = json.loads(body[start : end + 1]) if 0 <= start < end else None
        except json.JSONDecodeError:
            obj = None
        if obj is None:
            return None, f"malformed JSON: {exc.msg} at char {exc.pos}"
    try:
        return schema.model_validate(obj), None
    except ValidationError as exc:
        parts = [
            f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in exc.errors()[:5]
        ]
        return None, "schema violation: " + "; ".join(parts)


def option_probs_from_top(
    top: Sequence[tuple[str, float]], options: Sequence[str]
) -> tuple[dict[str, float] | None, str | None]:
    """Renormalise the first token's top-k probabilities over ``options``.

    Tokens match an option case-insensitively after stripping spaces; a token that is a
    strict prefix of exactly one option ("Ye" for "yes") counts for it.
    """
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
