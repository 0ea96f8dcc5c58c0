"""Judges and embedders for users' unit tests: no model, no network, same answer every time.

``ScriptedJudge`` answers every yes/no question with ``verdict(prompt)`` and every structured
request with ``script(prompt, schema)``. Its default verdict, ``overlap_verdict``, reads the
fast-mode prompts the metrics send and answers with word overlap, so scores move the right
way on good and bad data (a supported statement scores high, an invented one low) without
pretending to be a judge: use it to test a pipeline's plumbing and gates, not its quality.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel

from ragmeter.protocols import JudgeReply, Usage
from ragmeter.text import tokens

Verdict = Callable[[str], float]  # last user message -> P(yes)
Script = Callable[[str, type[BaseModel]], Any]  # last user message, schema -> dict, or str error

# Words too common to count as support.
STOPWORDS = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "and",
        "or",
        "by",
        "with",
        "from",
        "as",
        "it",
        "its",
        "this",
        "that",
        "what",
        "which",
        "who",
        "when",
        "where",
        "how",
        "why",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "not",
        "no",
        "yes",
    ]
)


def content_words(text: str) -> set[str]:
    return {t for t in tokens(text) if t not in STOPWORDS}


def _share(part: str, whole: str) -> float:
    """Share of the content words of ``part`` found in ``whole`` (1.0 when part has none)."""
    words = content_words(part)
    if not words:
        return 1.0
    return len(words & content_words(whole)) / len(words)


def _unmark(text: str) -> str:
    """The text without the prompts' <data> ... </data> marks around untrusted text."""
    return re.sub(r"</?data>", " ", text).strip()


def _field(text: str, label: str) -> str | None:
    m = re.search(rf"(?m)^{label}: (.*)$", text)
    return _unmark(m.group(1)) if m else None


def overlap_verdict(prompt: str) -> float:
    """P(yes) from word overlap, for each fast-mode task the metrics ask.

    Statement check: share of the statement's content words in the context. Sentence check:
    share of the question's content words in the sentence. Answer check: share of the
    question's content words in the answer. Usefulness: share of the reference's words in
    the context. Anything else: 0.5.
    """
    context = _field(prompt, "Text") or _unmark(prompt.split("\n\nQuestion: ", 1)[0])
    question = _field(prompt, "Question") or ""
    if (statement := _field(prompt, "Statement")) is not None:
        return _share(statement, context)
    if (sentence := _field(prompt, "Sentence")) is not None:
        return _share(question, sentence)
    if (answer := _field(prompt, "Answer")) is not None:
        return _share(question, answer)
    if (reference := _field(prompt, "Reference answer")) is not None:
        return _share(reference, context)
    return 0.5


def _no_script(_text: str, schema: type[BaseModel]) -> str:
    return (
        f"ScriptedJudge has no script for structured {schema.__name__} requests: give "
        "script=..., or use the metrics' fast modes"
    )


class ScriptedJudge:
    """A Judge whose answers are functions of the prompt; every call is logged in ``log``.

    ``fail_on``: prompts containing this substring get an error reply (to test failure paths).
    ``name`` (what results record as the judge): by default "scripted:overlap", or
    "scripted:custom" with a ``verdict`` of your own; a result scored by ``lambda p: 1.0``
    recorded "scripted:overlap", a word-overlap judge it never had.
    """

    def __init__(
        self,
        verdict: Verdict | None = None,
        script: Script | None = None,
        *,
        fail_on: str | None = None,
        name: str | None = None,
    ) -> None:
        self.verdict = verdict or overlap_verdict
        self.script = script or _no_script
        self.fail_on = fail_on
        self.name = name or ("scripted:overlap" if verdict is None else "scripted:custom")
        self.log: list[tuple[str, str]] = []

    def close(self) -> None:
        """Nothing to release (the interface of real judges)."""

    async def option_probs(
        self, messages: Sequence[dict[str, str]], options: Sequence[str], *, prompt_version: str
    ) -> JudgeReply[dict[str, float]]:
        text = messages[-1]["content"]
        self.log.append(("option_probs", text))
        if self.fail_on and self.fail_on in text:
            return JudgeReply(value=None, error="scripted failure", raw="")
        p = min(1.0, max(0.0, float(self.verdict(text))))
        return JudgeReply(
            value={options[0]: p, options[1]: 1.0 - p}, usage=Usage(len(text) // 4, 1)
        )

    async def structured(
        self,
        messages: Sequence[dict[str, str]],
        schema: type[BaseModel],
        *,
        prompt_version: str,
        max_tokens: int = 512,
    ) -> JudgeReply[Any]:
        text = messages[-1]["content"]
        self.log.append(("structured", text))
        if self.fail_on and self.fail_on in text:
            return JudgeReply(value=None, error="scripted failure", raw="")
        out = self.script(text, schema)
        if isinstance(out, str):
            return JudgeReply(value=None, error=out)
        return JudgeReply(
            value=schema.model_validate(out), raw=json.dumps(out), usage=Usage(len(text) // 4, 20)
        )


class HashEmbedder:
    """Bag-of-words vectors hashed into ``dim`` buckets: equal texts cosine 1, disjoint 0."""

    name = "hash:bow"

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim

    def vector(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim)
        for w in tokens(text):
            v[zlib.crc32(w.encode()) % self.dim] += 1.0
        n = np.linalg.norm(v)
        return v / n if n else v

    def close(self) -> None:
        """Nothing to release."""

    async def embed(self, texts: Sequence[str]) -> JudgeReply[np.ndarray]:
        return JudgeReply(value=np.stack([self.vector(t) for t in texts]))
