"""Several yes/no verdicts from one reply, for server judges.

A server is paid per token sent: asking one statement at a time resends the system prompt
and the context with every statement. Here one request carries the context once and all
of a sample's statements; the model answers one numbered line per statement (``1: yes``)
and each verdict's probability is read from the top log-probabilities of the first token
after its label. ``CachedJudge`` inherits this, with its cache, retries and accounting.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragmeter.engine.cache import call_key, fits_options
from ragmeter.engine.parsing import verdicts_from_tokens
from ragmeter.errors import CallFailed, NoModelOutput
from ragmeter.protocols import ChatCompletion, ChatRequest, JudgeReply, Message, Usage
from ragmeter.redact import redact

# top tokens per generated token: yes/no sit in the top 5 of a verdict slot, and every
# token's list comes back, so a short list keeps the replies small
GROUPED_TOP_LOGPROBS = 5


class GroupedVerdicts:
    """``option_probs_list`` for CachedJudge (uses its core, cache and bookkeeping)."""

    core: Any
    name: str
    inner: Any
    _raw: bool

    @property
    def groups_verdicts(self) -> bool:
        """True when ``option_probs_list`` can be asked: a raw chat backend (a server), or
        an inner judge that offers it (the in-process llama.cpp judge)."""
        return self._raw or hasattr(self.inner, "token_tops")

    async def option_probs_list(
        self, messages: Sequence[Message], options: Sequence[str], n: int, *, prompt_version: str
    ) -> JudgeReply[list[dict[str, float]]]:
        """P(option) for each of ``n`` numbered verdict lines (``1: yes``) of ONE reply.

        A reply without exactly the lines 1..n, each starting with an option, comes back as
        an error with its text kept, so the caller can ask one statement at a time.
        """
        msgs = [dict(m) for m in messages]
        if not self.groups_verdicts:
            return JudgeReply(None, "this judge cannot give several verdicts in one reply")
        key, hit = "", None  # the key only for a cache: hashing the prompt is not free
        if self.core.cache is not None:
            params = {
                **self._params,  # type: ignore[attr-defined]
                "options": list(options),
                "top_logprobs": GROUPED_TOP_LOGPROBS,
                "n_verdicts": n,
            }
            key = call_key(
                backend=self.name,
                kind="option_probs_list",
                messages=msgs,
                params=params,
                prompt_version=prompt_version,
            )
            hit = self.core.cache.get(key)
        fits = hit is not None and len(hit.value) == n and fits_options(hit.value, options)
        if hit is not None and fits:  # a stored answer (the cache serves no failure)
            self.core.accountant.record(self.name, cached=True)
            return JudgeReply(hit.value, None, hit.raw, Usage(), True, hit.attempts)

        async def once() -> tuple[Any, str | None, str | None, Usage]:
            if not self._raw:  # an in-process judge decodes the reply itself
                got = await self.inner.token_tops(msgs, 6 * n + 8, prompt_version=prompt_version)
                if not got.ok or got.value is None:
                    raise NoModelOutput(got.error or "judge returned no tokens")
                value, error = verdicts_from_tokens(got.value, options, n)
                return value, error, got.raw, got.usage
            # "12: yes\n" is 4-5 tokens: room for every line and a little slack
            request = ChatRequest(
                msgs, 6 * n + 8, top_logprobs=GROUPED_TOP_LOGPROBS, every_token=True
            )
            comp: ChatCompletion = await self.inner.complete(request)
            if not comp.token_tops:
                return None, "the server returned no logprobs", comp.text, comp.usage
            value, error = verdicts_from_tokens(comp.token_tops, options, n)
            return value, error, comp.text, comp.usage

        try:
            (value, error, raw, usage), tries = await self.core.retrying(once)
        except CallFailed as exc:
            reply: JudgeReply[Any] = JudgeReply(
                None, redact(exc.reason), None, Usage(), attempts=exc.attempts
            )
            reply._transient = True  # type: ignore[attr-defined]
        else:
            reply = JudgeReply(value, error, raw, usage, attempts=tries)
        return self._finish(  # type: ignore[attr-defined]
            "option_probs_list", key, prompt_version, reply, lambda v: v
        )
