"""An answer given as JSON: the text its answer field holds, not the JSON.

Why: pipelines with structured output answer ``{"answer": "Rome", "sources": [1, 2]}``. Read
as text, that was judged as the short answer 'The answer to "Q" is {"answer": "Rome"}.', its
braces and field names were words no context holds, and ``{"answer": "I don't know"}`` was no
refusal. What the user is told is the answer field's text, so that is what the judged metrics
read (the lexical metrics named after Unitxt and SQuAD keep the answer as written).

Which field: the first of ``ANSWER_FIELDS`` that holds text. Other text fields that explain the
answer (``explanation``, ``rationale``, ...) are claims the output makes too and follow it;
the model's working (``reasoning``, ``thoughts``, ...) and everything else (sources, scores,
ids) is dropped, listed in the details with why. An object without an answer field, a list, or
text that is not JSON is left as written. A JSON object alone in a fenced ```json block counts.
"""

from __future__ import annotations

import json
import re

from ragmeter.metrics.layout import Plain

ANSWER_FIELDS = ("answer", "final_answer", "response", "output", "result", "reply", "text")
EXPLAINING_FIELDS = ("explanation", "rationale", "justification", "details", "detail")
WORKING_FIELDS = ("reasoning", "thought", "thoughts", "thinking", "analysis", "scratchpad")
_FENCED = re.compile(r"^```(?:json)?\s*\n(?P<body>.*)\n```$", re.DOTALL | re.IGNORECASE)


def _object(text: str) -> dict | None:
    body = text.strip()
    m = _FENCED.match(body)
    if m is not None:
        body = m.group("body").strip()
    if not (body.startswith("{") and body.endswith("}")):
        return None
    try:
        value = json.loads(body)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def json_answer(text: str) -> Plain:
    """``{"answer": "Rome", "sources": [1]}`` -> "Rome" (module docstring)."""
    obj = _object(text)
    if obj is None:
        return Plain(text)
    fields = {str(k).lower(): (k, v) for k, v in obj.items()}
    name = next((f for f in ANSWER_FIELDS if isinstance(fields.get(f, (None, None))[1], str)), None)
    if name is None:
        return Plain(text)
    parts = [fields[name][1].strip()]
    out = Plain("")
    for low, (key, value) in fields.items():
        if low == name:
            continue
        if low in EXPLAINING_FIELDS and isinstance(value, str) and value.strip():
            parts.append(value.strip())
        elif low in WORKING_FIELDS:
            out.dropped.append(
                {"text": f"{key}: ...", "why": "the model's working, not its answer"}
            )
        else:
            out.dropped.append(
                {"text": f"{key}: ...", "why": "a field of the JSON answer that is not its text"}
            )
    out.dropped.insert(
        0, {"text": f'{{"{fields[name][0]}": ...}}', "why": "the answer's JSON wrapper"}
    )
    out.text = "\n\n".join(p for p in parts if p)
    return out
