"""The local judge's aligned decoding (backends/llama_kv.py) without a model: which positions
are decoded in which batch, and how much of a cached prefix is reused.

The property that makes scores independent of earlier calls: every batch of a prompt starts at
a multiple of ``KV_ALIGN`` and all but the last hold a multiple of it, and none holds fewer
than ``MIN_ROWS`` (but a prompt shorter than that), whatever was cached, so each token sits in
the same row group of the same llama.cpp kernels as in a fresh prompt. The model-level checks
(bit-identical P(yes)) are in test_judged_local.py and test_testing_judge_reuse.py.
"""

from __future__ import annotations

import ctypes
from types import SimpleNamespace

import numpy as np

from ragmeter.backends.llama_kv import KV_ALIGN, MIN_ROWS, AlignedDecoder
from ragmeter.backends.llama_tokens import LocalStats

G = KV_ALIGN
N_BATCH = 8 * G
VOCAB = 4


class FakeCtx:
    def __init__(self) -> None:
        self.batches: list[list[int]] = []
        self._logits = np.zeros(0, dtype=np.float32)

    def kv_cache_seq_rm(self, _seq: int, _start: int, _end: int) -> bool:
        return True

    def decode(self, batch: SimpleNamespace) -> None:
        b = batch.batch
        positions = list(b.pos[: b.n_tokens])
        self.batches.append(positions)
        wanted = [p for p, w in zip(positions, b.logits[: b.n_tokens], strict=True) if w]
        # the logits row of position p holds p, so the caller's rows can be checked
        self._logits = np.repeat(np.array(wanted, dtype=np.float32), VOCAB)

    def get_logits(self):
        return self._logits.ctypes.data_as(ctypes.POINTER(ctypes.c_float))


class FakeLlm:
    def __init__(self) -> None:
        self.input_ids = np.zeros(4096, dtype=np.intc)
        self.n_tokens = 0
        self._ctx = FakeCtx()
        self._requires_eval = False

    def n_vocab(self) -> int:
        return VOCAB


class Decoder(AlignedDecoder):
    def __init__(self) -> None:
        n = N_BATCH
        self.n_batch = n
        self.stats = LocalStats()
        self._llm = FakeLlm()
        fields = dict(token=[0] * n, pos=[0] * n, n_seq_id=[0] * n, seq_id=[[0] for _ in range(n)])
        self._batch = SimpleNamespace(
            batch=SimpleNamespace(n_tokens=0, logits=[False] * n, **fields)
        )

    def run(self, tokens: list[int], logits_from: int | None = None, **kw) -> list[list[int]]:
        self._llm._ctx.batches.clear()
        seen: list[int] = []
        start = len(tokens) - 1 if logits_from is None else logits_from
        self._evaluate(tokens, start, lambda pos, rows: seen.extend(rows[:, 0].tolist()), **kw)
        assert seen == list(range(start, len(tokens)))  # each wanted row, in order
        return self._llm._ctx.batches


def aligned(batches: list[list[int]], end: int) -> bool:
    """Contiguous, up to ``end``, each batch starting at a multiple of G, all but the last
    holding a multiple of G (all but the last two N_BATCH positions), none fewer than
    MIN_ROWS unless the prompt itself is shorter."""
    for i, positions in enumerate(batches):
        first = positions[0]
        if positions != list(range(first, first + len(positions))) or first % G:
            return False
        if i < len(batches) - 2 and len(positions) != N_BATCH:
            return False
        if i < len(batches) - 1 and len(positions) % G:
            return False
        if len(positions) < min(MIN_ROWS, end):
            return False
        if i and positions[0] != batches[i - 1][-1] + 1:
            return False
    return batches[-1][-1] + 1 == end


def prompt(n: int, tail: int = 0) -> list[int]:
    return [10 + i for i in range(n - tail)] + [9000 + i for i in range(tail)]


def test_a_fresh_prompt_is_decoded_from_position_0_in_full_batches():
    d = Decoder()
    n = N_BATCH + 3 * G + 5
    assert d.run(prompt(n)) == [list(range(N_BATCH)), list(range(N_BATCH, n))]
    assert d._kv_clean == n - 5  # the leftover rows at the end are never reused


def test_a_shared_prefix_is_reused_up_to_a_multiple_of_the_alignment():
    d = Decoder()
    n = 3 * G + 5
    d.run(prompt(n))
    # shares 2G+7 tokens: 2G are reused, the rest decoded in one batch
    assert d.run(prompt(n, tail=G - 2)) == [list(range(2 * G, n))]
    # the same prompt again: from a multiple of G leaving at least MIN_ROWS (the logits are
    # needed again, and a smaller batch would take other kernels)
    assert d.run(prompt(n, tail=G - 2)) == [list(range(2 * G, n))]


def test_the_same_prompt_again_decodes_at_least_min_rows():
    """Was: the prompt's last 4 tokens decoded alone (656 of 660 reused), which llama.cpp
    computes with other kernels than the batch of 148 a fresh decode puts them in: the same
    statement judged twice got P(yes) 0.9056, then 0.8989 from a fresh judge."""
    d = Decoder()
    for n in (41 * G + 4, 3 * G + 1, 2 * G, G + 3):
        tokens = prompt(n)
        d.run(tokens)
        again = d.run(tokens)
        assert len(again) == 1 and len(again[0]) >= MIN_ROWS, (n, again)
        assert again[0][0] % G == 0 and again[0][-1] == n - 1


def test_a_fresh_prompt_never_ends_with_a_tiny_batch():
    """N_BATCH + 3 tokens: not a batch of 3 after a full one, but N_BATCH - G, then G + 3."""
    d = Decoder()
    n = N_BATCH + 3
    assert d.run(prompt(n)) == [list(range(N_BATCH - G)), list(range(N_BATCH - G, n))]
    short = Decoder()
    assert short.run(prompt(5)) == [list(range(5))]  # shorter than MIN_ROWS: as it is


def test_every_order_of_prompts_gives_aligned_batches():
    """Whatever came before, a prompt's batches start at multiples of G."""
    sizes = [(70, 3), (197, 40), (64, 1), (33, 33), (300, 166), (N_BATCH + 5, 2), (260, 0)]
    prompts = [prompt(n, t) for n, t in sizes]
    for order in ([0, 1, 2, 3, 4, 5, 6, 5], [6, 5, 4, 3, 2, 1, 0, 0], [2, 0, 4, 1, 6, 3, 5, 2]):
        d = Decoder()
        for i in order:
            tokens = prompts[i]
            batches = d.run(tokens)
            assert aligned(batches, len(tokens)), (i, batches)


def test_greedy_steps_append_single_tokens_and_are_never_reused():
    d = Decoder()
    tokens = prompt(2 * G + 3)
    d.run(tokens)
    seq = list(tokens)
    for t in range(G):  # greedy steps cross the multiple 3G
        seq.append(5000 + t)
        assert d.run(seq, exact=True) == [[len(seq) - 1]]
    assert d._kv_clean == 2 * G
    # a later prompt sharing all of it is decoded again from 2G: the steps were single rows
    batches = d.run([*seq, 1, 2, 3])
    assert batches == [list(range(2 * G, len(seq) + 3))]


def test_teacher_forcing_gets_every_row_it_asks_for():
    d = Decoder()
    tokens = prompt(2 * N_BATCH + 10)
    batches = d.run(tokens, logits_from=N_BATCH - 4)
    assert aligned(batches, len(tokens))
