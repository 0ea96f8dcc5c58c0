"""A greedy reply of the in-process llama.cpp judge with every token's top-k log-probs.

What a server returns for ``logprobs`` + ``top_logprobs``: the engine reads several yes/no
verdicts from it (``engine/grouped.py``, ``options.group_verdicts=on``), so the grouped
procedure can be measured on the embedded judge against one verdict per call.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from ragmeter.protocols import JudgeReply, Message
from ragmeter.vectors import log_softmax

TOP_K = 5


Tops = list[tuple[str, list[tuple[str, float]]]]


class LocalTokenTops:
    """``token_tops`` for LocalJudge (uses its worker, tokens and decoding)."""

    _llm: Any
    stats: Any

    async def token_tops(
        self, messages: Sequence[Message], max_new: int, *, prompt_version: str
    ) -> JudgeReply[Tops]:
        """Greedy reply, stopped at end of turn; each token with its top-5 (text, logprob)."""

        def work() -> JudgeReply[Tops]:
            llm = self._llm
            tokens = self._chat_tokens(messages)  # type: ignore[attr-defined]
            if err := self._check_window(len(tokens), max_new):  # type: ignore[attr-defined]
                return JudgeReply(value=None, error=err)
            eos = {llm.token_eos(), *llm.tokenize(b"<|im_end|>", add_bos=False, special=True)}
            tops: Tops = []
            n_eval = 0
            seq = list(tokens)
            for _ in range(max_new):
                got: list[np.ndarray] = []
                n_eval += self._evaluate(  # type: ignore[attr-defined]
                    seq,
                    len(seq) - 1,
                    lambda _p, rows, out=got: out.append(rows[-1].copy()),
                    exact=bool(tops),  # the prompt in aligned batches, then token by token
                )
                t0 = time.perf_counter()
                logp = log_softmax(got[-1])
                best = np.argpartition(logp, -TOP_K)[-TOP_K:]
                best = best[np.argsort(logp[best])[::-1]]
                nxt = int(best[0])
                self.stats.logits_s += time.perf_counter() - t0
                if nxt in eos:
                    break
                piece = [(self._piece(int(t)), float(logp[t])) for t in best]
                tops.append((piece[0][0], piece))
                seq.append(nxt)
            usage = self._account(len(tokens), n_eval - len(tops), len(tops))  # type: ignore[attr-defined]
            return JudgeReply(value=tops, raw="".join(t for t, _ in tops), usage=usage)

        return await self._run(work)  # type: ignore[attr-defined]

    def _piece(self, token: int) -> str:
        return self._llm.detokenize([token]).decode("utf-8", "replace")
