"""The whole-batch path of every non-LLM metric (``Metric.compute_batch``, a ScoreColumn)
gives exactly the Scores of the per-sample path, details included, with the compiled token
counter and without it; and a ScoreColumn reads, compares, pickles and aggregates like the
list it stands for."""

from __future__ import annotations

import os
import pickle
import random
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragmeter
from ragmeter.metrics import overlap_kernel
from ragmeter.metrics.base import Score
from ragmeter.metrics.column import STATUSES, ScoreColumn
from ragmeter.metrics.registry import resolve
from ragmeter.metrics.token_support import support
from ragmeter.result import aggregate
from ragmeter.scheduler import _compute_each, compute_all
from ragmeter.text import cached_tokens

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from lexical import METRICS, make_records

EDGE = [
    # answer, contexts, references, context ids, reference ids
    ("", [], [], [], []),
    ("The a an", ["the cat"], ["a", ""], ["d1"], ["d1"]),
    ("Cat cat cat", ["cat dog cat", "CAT", ""], ["cat, cat", "dog"], ["x", "x", "y"], ["x"]),
    ("café au lait", ["Café au lait."], ["lait"], ["a"], ["b"]),
    ("x\x00y", ["x\x00y"], ["x y"], ["a", "b"], ["b", "a"]),
    ("don’t stop", ["don’t stop me"], ["stop"], ["1"], []),
    ("Hello,world!", ["helloworld", "hello world"], ["hello world", "helloworld"], [], ["z"]),
    ("A\tb\nc", ["B C\x1c a"], ["b c", "B, C"], ["p", "q"], ["q"]),
    ("\x07bell rings", ["bell\x07 rings"], ["\x07bell rings"], ["p"], ["p"]),
    ("Rome", ["The capital of Italy is Rome."], ["Rome", "rome!"], ["i"], ["i"]),
    ("the the", ["the"], ["the"], ["i"], ["i"]),
    ("?!", ["Rome is here."], ["", "Rome"], ["i"], ["j"]),
    ("An answer", ["answer"], [], ["i", "i"], ["i"]),
    ("ab ab ab ab", ["ab", "ab ab", "ab ab ab ab ab"], [""], ["1", "2", "3"], ["3", "2"]),
    ("ΟΔΟΣ Straße İstanbul", ["οδος strasse i̇stanbul", "ΟΔΟΣ"], ["Straße"], ["g"], ["g"]),
    ("l’the a’ x—y", ["l’the x—y a’"], ["x—y"], ["u"], ["u"]),
    ("caf\u00e9\u2003au\u3000lait 🙂", ["café au lait", "🙂"], ["café au lait 🙂"], ["v"], []),
    # a lone surrogate ("\\ud800") is refused by the loaders since 2026-11-27: no row holds one
]


def _samples(n: int = 400, seed: int = 1) -> list:
    pooled = make_records(n // 2, pool=7, seed=seed + 1)
    for rec in pooled:
        rec["question_id"] = "pooled-" + rec["question_id"]
    records = make_records(n, pool=0, seed=seed) + pooled
    rng = random.Random(seed)
    for i, (answer, contexts, refs, ids, rel) in enumerate(EDGE):
        rec: dict = {"question_id": f"edge{i}", "question": "Q?", "answer": answer}
        rec["contexts"], rec["reference_answers"] = contexts, refs
        if ids and len(ids) == len(contexts):
            rec["context_ids"], rec["reference_context_ids"] = ids, rel
        records.append(rec)
    for rec in records[:60]:  # some rows lack fields, so their metrics are skipped
        drop = rng.choice(["reference_answers", "contexts", "reference_context_ids", None])
        if drop:
            rec.pop(drop, None)
            if drop == "contexts":
                rec.pop("context_ids", None)
    records.append(
        {
            "question_id": "text-ids",
            "question": "Q?",
            "answer": "x",
            "contexts": ["Alpha.", "beta", "alpha"],
            "reference_contexts": ["ALPHA"],
        }
    )
    return ragmeter.load(records)


def _per_sample(metrics: list, samples: list) -> dict:
    return _compute_each(metrics, samples)


@pytest.mark.parametrize("compiled", [True, False])
def test_batch_scores_equal_per_sample_scores(compiled, monkeypatch):
    if compiled and not overlap_kernel.available():
        if os.environ.get("CI"):
            pytest.fail("numba (the fast extra) is not installed")
        pytest.skip("numba not installed")
    if compiled:
        monkeypatch.setattr(overlap_kernel, "MIN_SAMPLES", 0)
    else:
        monkeypatch.setattr(overlap_kernel, "available", lambda: False)
    samples = _samples()
    metrics = resolve([*METRICS, "ndcg@3", "ndcg@25", "precision@10", "recall@1", "hit@20"])
    assert all(m.compute_batch is not None for m in metrics)
    batch = compute_all(metrics, samples)
    each = _per_sample(metrics, samples)
    for m in metrics:
        col = batch[m.name]
        assert isinstance(col, ScoreColumn), m.name
        for i, (got, want) in enumerate(zip(col, each[m.name], strict=True)):
            assert got == want, (m.name, i, samples[i].question_id, got, want)
            assert type(got.value) is type(want.value)
            assert [type(v) for v in got.details.values()] == [
                type(v) for v in want.details.values()
            ], (m.name, i)
        # the arrays the aggregates read, not only the Scores built from them
        want_values = [np.nan if w.value is None else w.value for w in each[m.name]]
        np.testing.assert_array_equal(col.values, want_values, err_msg=m.name)
        assert [STATUSES[k] for k in col.status] == [w.status for w in each[m.name]], m.name
        agg_col = aggregate(m.name, col, n_resamples=50)
        agg_list = aggregate(m.name, list(each[m.name]), n_resamples=50)
        assert agg_col == agg_list, m.name


def test_kernel_flags_what_it_cannot_count_exactly():
    if not overlap_kernel.available():
        pytest.fail("numba (the fast extra) is not installed") if os.environ.get("CI") else None
        pytest.skip("numba not installed")
    answers = ["plain words", "Café crème", "bell\x07", "don’t stop", "nul\x00", "the’s", "ok 🙂"]
    segments = [["plain"], ["CAFÉ\u00a0crème"], ["bell"], ["don’t"], ["nul"], ["s"], ["ok"]]
    counts = overlap_kernel.overlap_counts(answers, segments)
    assert counts.exact.tolist() == [True, True, True, True, False, False, False]
    # "Café crème" against "CAFÉ<no-break space>crème": both tokens, after lower-casing
    assert counts.n_answer[1] == 2 and counts.common[1] == 2 and counts.equal[1]


def test_score_column_reads_like_a_list():
    scores = [Score.ok(0.5, k=1), Score.undefined("why"), Score.skipped("needs x")]
    col = ScoreColumn([0.5, np.nan, np.nan], [0, 1, 2], lambda i: scores[i])
    assert len(col) == 3 and col[1] == scores[1] and col[-1] == scores[2]
    assert col == scores and scores == col and col != scores[:2]
    assert col[0:2] == scores[:2]
    with pytest.raises(IndexError):
        col[3]
    assert pickle.loads(pickle.dumps(col)) == scores
    assert col.counts() == {"ok": 1, "undefined": 1, "skipped": 1, "failed": 0}
    assert col.ok_values().tolist() == [0.5]
    col[1] = Score.ok(0.25)  # as in the list; the arrays the aggregates read follow
    assert col[1] == Score.ok(0.25) and col.ok_values().tolist() == [0.5, 0.25]
    col[0] = Score.failed("boom")
    assert col.counts() == {"ok": 1, "undefined": 0, "skipped": 1, "failed": 1}


def test_a_failing_batch_falls_back_to_the_per_sample_path(monkeypatch):
    samples = _samples(20)
    metric = resolve(["token_f1"])[0]

    def boom(rows, shared):
        raise RuntimeError("batch broke")

    broken = type(metric)(**{**metric.__dict__, "compute_batch": boom})
    with pytest.warns(RuntimeWarning, match="token_f1: scoring the batch at once failed"):
        got = compute_all([broken], samples)["token_f1"]
    assert isinstance(got, list)
    assert got == _per_sample([metric], samples)["token_f1"]


_ALPHABET = "aAnNtThHeE xyz01 .,'’—\t\n\u00a0\u2003éÉßİΣσ\x07🙂"


@settings(max_examples=300, deadline=None)
@given(
    answer=st.text(alphabet=_ALPHABET, max_size=30),
    segments=st.lists(st.text(alphabet=_ALPHABET, max_size=40), max_size=4),
)
def test_kernel_counts_equal_the_python_counts(answer, segments):
    if not overlap_kernel.available():
        pytest.fail("numba (the fast extra) is not installed") if os.environ.get("CI") else None
        pytest.skip("numba not installed")
    counts = overlap_kernel.overlap_counts([answer], [segments])
    if not counts.exact[0]:
        return  # the Python path counts this one
    sup = support(answer, segments)
    assert (int(counts.n_answer[0]), int(counts.union[0])) == (sup.answer_tokens, sup.union)
    assert counts.common.tolist() == list(sup.per_context)
    ans = cached_tokens(answer)
    assert counts.n_segment.tolist() == [len(cached_tokens(g)) for g in segments]
    assert counts.equal.tolist() == [ans == cached_tokens(g) for g in segments]
