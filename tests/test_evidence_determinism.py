"""Which context sentences are evidence is the same in every process and on every CPU.

Issue 12's determinism: the same sample and judge give the same verdicts across runs. The
verdict depends on the prompt, and the prompt on the evidence picked; two sentences of equal
score are ordered by their index. Plain sums over a set of words followed the set's order,
which follows the process's hash seed, so equal sentences scored a last bit apart and the
pick changed from run to run (WikiEval and SciFact rows did, in two runs of main 4cc9979); a
matrix product's last bits change with the CPU's BLAS kernel, so embedding ties were broken
by the machine.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import numpy as np

from judged_fakes import JudgeReply
from ragmeter.metrics.context import ContextSentences, select_evidence
from ragmeter.protocols import Resources

PROBE = """
import random
from ragmeter.metrics.context import overlap_scores
rng = random.Random(3)
vocab = [f"w{i}x" for i in range(60)]
sentences = [" ".join(rng.sample(vocab, rng.randint(3, 30))) + "." for _ in range(40)]
same = rng.sample(vocab, 20)  # one set of words in six orders
sentences += [" ".join(rng.sample(same, 20)) + "." for _ in range(6)]
print(repr(overlap_scores([" ".join(vocab)], sentences)))
"""


def _scores_with_seed(seed: int) -> str:
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def test_word_overlap_scores_are_the_same_bits_whatever_the_hash_seed() -> None:
    seen = {_scores_with_seed(seed) for seed in range(6)}  # 6 different lists before
    assert len(seen) == 1, seen


def test_sentences_holding_the_same_words_score_exactly_alike() -> None:
    for seed in range(6):
        scores = json.loads(_scores_with_seed(seed))[0]
        assert len(set(scores[-6:])) == 1, (seed, scores[-6:])


class _Vectors:
    """An embedder whose second and third sentences tie with the query up to the last bit."""

    name = "fixed:test"

    async def embed(self, texts):  # type: ignore[no-untyped-def]
        rows = [[1.0, 0.0]] * (len(texts) - 3)  # the queries
        rows += [[0.1, 0.995], [0.6, 0.8], [0.6000000000000001, 0.7999999999999999]]
        return JudgeReply(value=np.array(rows))


def test_embedding_ties_go_to_the_earlier_sentence() -> None:
    ctx = ContextSentences.of(["Moraine one. Moraine two. Moraine three."])
    assert len(ctx.sentences) == 3
    res = Resources(embedder=_Vectors(), options={})
    ev = asyncio.run(select_evidence(ctx, ["moraine"], res, 1))
    assert (ev.method, ev.indices) == ("embedding", [1])
