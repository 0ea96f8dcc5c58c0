"""Reading a chat-completions reply body into a ChatCompletion, for every backend that
speaks OpenAI's wire format (the OpenAI-compatible servers and LiteLLM).

Why a module of its own: the parsing is one job (a body of the wrong shape is a malformed,
retried response; a refusal or a content filter is said, not retried; garbage token counts
cost nothing and lose no answer) and it kept ``openai_compat``, the transport and the
structured-output detection, past the project's module size limit.
"""

from __future__ import annotations

import math
from typing import Any

from ragmeter.errors import PermanentError, TransientError
from ragmeter.protocols import ChatCompletion, Usage


def _tokens(usage: Any, name: str) -> int:
    """A token count from ``usage``, 0 (unknown) unless a number >= 0. Why: a count of "abc"
    or a ``usage`` list lost the answer to a Python error; a negative one lowered the cost."""
    value = usage.get(name) if isinstance(usage, dict) else None
    ok = type(value) in (int, float) and math.isfinite(value) and value >= 0
    return int(value) if ok else 0


def _malformed(what: str) -> TransientError:
    return TransientError(f"malformed response from the server: {what}")


def _token(entry: Any) -> str:
    return str(entry.get("token", "")) if isinstance(entry, dict) else ""


def _top_pairs(entry: Any) -> list[tuple[str, float]]:
    """One token's (token, logprob) alternatives; an entry without a string token or a
    numeric logprob is a malformed reply (it was a bare KeyError or TypeError)."""
    alts = entry.get("top_logprobs") if isinstance(entry, dict) else None
    if not isinstance(alts, list):
        return []
    out = []
    for alt in alts:
        token = alt.get("token") if isinstance(alt, dict) else None
        logprob = alt.get("logprob") if isinstance(alt, dict) else None
        if not isinstance(token, str) or type(logprob) not in (int, float):
            raise _malformed(f"a top_logprobs entry without a token or logprob ({alt!r:.100})")
        out.append((token, float(logprob)))
    return out


def completion_from_dict(data: Any, *, want_top: bool, want_all: bool = False) -> ChatCompletion:
    """Read a chat-completions response body (as a dict) into a ChatCompletion.

    A body of the wrong shape is a malformed response, retried like one. A refusal (content
    null, a ``refusal`` string) is said in the model's words, not retried: it read as an
    empty reply, "malformed JSON ... at char 0", and cost a repair the model refused too.
    """
    try:
        choice = data["choices"][0]
    except (KeyError, IndexError, TypeError):
        raise _malformed("no choices") from None
    if not isinstance(choice, dict):
        raise _malformed(f"choices[0] is {type(choice).__name__}, not an object")
    usage_data = data.get("usage")
    usage = Usage(_tokens(usage_data, "prompt_tokens"), _tokens(usage_data, "completion_tokens"))
    message = choice.get("message") or {}
    if not isinstance(message, dict):
        raise _malformed(f"the message is {type(message).__name__}, not an object")
    finish = choice.get("finish_reason")
    if finish == "content_filter":
        raise PermanentError("the server's content filter refused the prompt")
    text = message.get("content")
    refusal = message.get("refusal")
    if not text and isinstance(refusal, str) and refusal.strip():
        raise PermanentError(f"the model refused to answer: {refusal.strip()[:300]!r}")
    if not isinstance(text, str | None):
        raise _malformed(f"the message content is {type(text).__name__}, not a string")
    text = text or ""
    logprobs = choice.get("logprobs") or {}
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if content is not None and not isinstance(content, list):
        raise _malformed(f"logprobs.content is {type(content).__name__}, not a list")
    top = _top_pairs(content[0]) if want_top and content else None
    tops = [(_token(t), _top_pairs(t)) for t in content] if want_all and content else None
    return ChatCompletion(text, usage, top, finish, tops)
