"""A scripted in-process Judge / Embedder for the judged-metric tests (no model, no network)."""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel

from ragmeter.protocols import JudgeReply, Usage

Verdict = Callable[[str], float]  # last user message -> P(yes)
Structured = Callable[[str, type[BaseModel]], Any]  # last user message, schema -> dict | error


class ScriptedJudge:
    """Answers ``option_probs`` with ``verdict(user_text)`` and ``structured`` with ``script``.

    ``fail_on`` (a substring) makes matching calls come back as error replies. Every call is
    logged as (kind, user text) so tests can check order and count.
    """

    name = "scripted:test"

    def __init__(
        self,
        verdict: Verdict | None = None,
        script: Structured | None = None,
        *,
        fail_on: str | None = None,
        n_ctx: int | None = None,
    ) -> None:
        self.verdict = verdict or (lambda _t: 0.5)
        self.script = script or (lambda _t, _s: {})
        self.fail_on = fail_on
        self.log: list[tuple[str, list[dict[str, str]]]] = []
        if n_ctx is not None:
            self.n_ctx = n_ctx

    @staticmethod
    def user(messages: Sequence[dict[str, str]]) -> str:
        return messages[-1]["content"]

    async def option_probs(self, messages, options, *, prompt_version):  # type: ignore[no-untyped-def]
        self.log.append(("option_probs", list(messages)))
        text = self.user(messages)
        if self.fail_on and self.fail_on in text:
            return JudgeReply(value=None, error="scripted failure", raw="garbage")
        if list(options) == ["yes", "no"]:
            p = float(self.verdict(text))
            return JudgeReply(value={"yes": p, "no": 1 - p}, usage=Usage(100, 0))
        p = float(self.verdict(text))
        return JudgeReply(value={options[0]: p, options[1]: 1 - p}, usage=Usage(100, 0))

    async def structured(self, messages, schema, *, prompt_version, max_tokens=512):  # type: ignore[no-untyped-def]
        self.log.append(("structured", list(messages)))
        text = self.user(messages)
        if self.fail_on and self.fail_on in text:
            return JudgeReply(value=None, error="scripted failure", raw="{")
        out = self.script(text, schema)
        if isinstance(out, str):
            return JudgeReply(value=None, error=out)
        return JudgeReply(
            value=schema.model_validate(out), raw=json.dumps(out), usage=Usage(200, 20)
        )


class HashEmbedder:
    """Bag-of-words vectors: equal texts get cosine 1, disjoint texts cosine 0."""

    name = "hash:test"

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim

    def vec(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim)
        for w in re.findall(r"\w+", text.lower()):
            v[zlib.crc32(w.encode()) % self.dim] += 1.0
        n = np.linalg.norm(v)
        return v / n if n else v

    async def embed(self, texts):  # type: ignore[no-untyped-def]
        return JudgeReply(value=np.stack([self.vec(t) for t in texts]))


def statement_in(text: str) -> str:
    """The statement of a verdict prompt, without its <data> marks."""
    m = re.search(r"Statement: (?:<data>)?(.*?)(?:</data>)?\n", text)
    return m.group(1) if m else ""
