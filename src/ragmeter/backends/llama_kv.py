"""Prompt decoding of the in-process llama.cpp judge: a reused KV prefix gives the same logits
as a fresh prompt.

Why: llama.cpp's matrix kernels for this model's quantised weights take a batch's token rows
four at a time and the leftover rows one by one, and the two paths round differently. Reusing
the KV cache of a prefix that an earlier call decoded (its rows grouped from another batch
start, its last rows left over) therefore moved P(yes) by up to 0.029-0.042 on WikiEval
statements (12 of 60 moved; ``benchmarks/kv_blocks.py``), depending only on what the judge
happened to compute before: another call order, a resumed run or a warm cache gave another
score.

So every batch starts at a position that is a multiple of ``KV_ALIGN`` and, but for a
prompt's last batch, holds a multiple of it (``n_batch`` is one), and a cached prefix is
reused only up to a multiple of it that was reached that way (``_kv_clean``). Each token is
then computed in the same row group whether its prompt is fresh or follows others, and the
logits are bit-identical (measured, and tested in test_judged_local.py). ``KV_ALIGN`` is 16,
four times the kernels' group, as a margin for kernels that group more rows; the cost is
recomputing 7.5 tokens a call on average that a token-exact reuse would keep. Greedy
generation appends single tokens after an aligned prompt (``exact=True``); grammar
generation (``structured``) starts from a prompt decoded here.

Nor is any batch smaller than ``MIN_ROWS`` (but a whole prompt shorter than it): a batch of
fewer than 8 rows takes other kernels again, so the same prompt judged twice, its first 656 of
660 tokens reused and the last 4 decoded alone, gave P(yes) 0.9056 where a fresh decode (the
4 rows in a batch of 148) gave 0.8989. A reused prefix therefore leaves at least ``MIN_ROWS``
tokens to decode, and a prompt's last batch is never cut to fewer (the one before gives up
``KV_ALIGN``-multiples). ``MIN_ROWS`` is 16, twice the measured 8, as a margin; measured
the same with 1, 2 and 4 threads (AVX2).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ragmeter.backends.llama_tokens import _longest_prefix

KV_ALIGN = 16
MIN_ROWS = 16  # no batch is smaller, but a prompt shorter than it


class AlignedDecoder:
    """``_evaluate`` for LocalJudge (uses its model, batch and counters)."""

    _llm: Any
    _batch: Any
    n_batch: int
    stats: Any
    kv_align: int = KV_ALIGN
    _kv_clean: int = 0  # KV positions [0, _kv_clean) were decoded in aligned row groups

    def _forget_after(self, position: int) -> None:
        """Positions >= ``position`` were (or are about to be) decoded unaligned."""
        self._kv_clean = min(self._kv_clean, position - position % self.kv_align)

    def _evaluate(
        self,
        tokens: list[int],
        logits_from: int,
        on_logits: Callable[[int, np.ndarray], None],
        *,
        exact: bool = False,
    ) -> int:
        """Decode ``tokens`` after the reusable KV prefix; ``on_logits(pos, rows)`` receives the
        logits of positions >= ``logits_from`` chunk by chunk. Returns tokens evaluated.

        ``exact``: continue token-exactly from the cached state (a greedy step appending the
        token just chosen): deterministic as long as what precedes it was.
        """
        llm = self._llm
        n_vocab = llm.n_vocab()
        common = _longest_prefix(llm.input_ids[: llm.n_tokens].tolist(), tokens)
        if exact:
            keep = min(common, logits_from)
            self._forget_after(keep)
        else:  # at least MIN_ROWS left to decode: a smaller batch rounds differently
            keep = max(0, min(common, logits_from, self._kv_clean, len(tokens) - MIN_ROWS))
            keep -= keep % self.kv_align
        if not llm._ctx.kv_cache_seq_rm(-1, keep, -1):
            keep = 0
            llm._ctx.kv_cache_seq_rm(-1, 0, -1)
        llm.n_tokens = keep
        self._kv_clean = min(self._kv_clean, keep)
        llm._requires_eval = True  # our logits are not the sampler's: generate() must replay
        start = keep
        assert self.n_batch % self.kv_align == 0 and self.n_batch >= MIN_ROWS + self.kv_align
        while start < len(tokens):
            end = min(len(tokens), start + self.n_batch)
            if not exact and 0 < len(tokens) - end < MIN_ROWS:  # leave the last batch enough
                end = len(tokens) - MIN_ROWS
                end -= end % self.kv_align
            self._decode(tokens, start, end, logits_from, on_logits, n_vocab)
            if not exact:  # a leftover group at the end is not reusable
                self._kv_clean = end - end % self.kv_align
            start = end
        return len(tokens) - keep

    def _decode(
        self,
        tokens: list[int],
        start: int,
        end: int,
        logits_from: int,
        on_logits: Callable[[int, np.ndarray], None],
        n_vocab: int,
    ) -> None:
        llm, batch = self._llm, self._batch
        b = batch.batch
        b.n_tokens = end - start
        n_out = 0
        for j in range(end - start):
            b.token[j] = tokens[start + j]
            b.pos[j] = start + j
            b.n_seq_id[j] = 1
            b.seq_id[j][0] = 0
            want = start + j >= logits_from
            b.logits[j] = want
            n_out += want
        t0 = time.perf_counter()
        llm._ctx.decode(batch)
        self.stats.decode_s += time.perf_counter() - t0
        self.stats.decode_batches += 1
        llm.input_ids[start:end] = tokens[start:end]
        llm.n_tokens = end
        if n_out:
            t0 = time.perf_counter()
            rows = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(n_out * n_vocab,))
            on_logits(max(start, logits_from), rows.reshape(n_out, n_vocab))
            self.stats.logits_s += time.perf_counter() - t0
