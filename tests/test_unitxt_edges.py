"""Edge cases of the lexical and retrieval metrics that the row-by-row cross-checks
(tests/test_unitxt_crosscheck.py, tests/test_score_columns.py) do not reach: each holds on the
per-sample path and on the whole-batch path, with and without the compiled counters."""

from __future__ import annotations

import math

import pytest

import ragmeter
from ragmeter.metrics import overlap_kernel
from ragmeter.metrics.registry import resolve
from ragmeter.scheduler import _compute_each, compute_all

PATHS = ["per_sample", "batch_python", "batch_compiled"]


def _scores(records: list[dict], names: list[str], path: str, monkeypatch) -> dict:
    samples = ragmeter.load(records)
    metrics = resolve(names)
    if path == "per_sample":
        return _compute_each(metrics, samples)
    if path == "batch_compiled":
        if not overlap_kernel.available():
            pytest.skip("numba not installed")
        monkeypatch.setattr(overlap_kernel, "MIN_SAMPLES", 0)
    else:
        monkeypatch.setattr(overlap_kernel, "available", lambda: False)
    return {name: list(col) for name, col in compute_all(metrics, samples).items()}


@pytest.mark.parametrize("path", PATHS)
def test_no_reference_answers_is_undefined_for_every_reference_answer_metric(path, monkeypatch):
    """An empty list of reference answers has no best reference: exact match scored 0 there
    (lowering the mean), and token precision / F1 said "all 0 reference answer(s) have no
    tokens", which is not what was wrong."""
    records = [
        {"question_id": "none", "question": "q?", "answer": "Paris", "reference_answers": []},
        {"question_id": "hit", "question": "q?", "answer": "Paris", "reference_answers": ["paris"]},
        {"question_id": "miss", "question": "q?", "answer": "Rome", "reference_answers": ["paris"]},
    ]
    names = ["exact_match", "token_precision", "token_f1", "token_recall"]
    got = _scores(records, names, path, monkeypatch)
    for name in names:
        none = got[name][0]
        assert none.status == "undefined" and none.value is None, (name, none)
        assert "no reference answers" in (none.reason or ""), (name, none.reason)
    assert [s.value for s in got["exact_match"][1:]] == [1.0, 0.0]
    assert got["exact_match"][1].details == {"matched_reference": 0}


_BUILTIN_SUM = sum


def _neumaier_sum(iterable, start=0):
    """The builtin ``sum`` of CPython >= 3.12: floats added with Neumaier's compensation."""
    items = list(iterable)
    if not items or not all(type(x) is float for x in items):
        return _BUILTIN_SUM(items, start)
    total, comp = float(start), 0.0
    for x in items:
        t = total + x
        comp += (total - t) + x if abs(total) >= abs(x) else (x - t) + total
        total = t
    return total + comp if comp else total


def _retrieval_rows(n: int, seed: int) -> list[dict]:
    import random

    rng = random.Random(seed)
    rows = []
    for i in range(n):
        pool = [f"d{j}" for j in range(rng.randint(2, 40))]
        retrieved = rng.choices(pool, k=rng.randint(1, 30))  # duplicates too
        relevant = rng.sample(pool, rng.randint(1, min(len(pool), 12)))
        rows.append(
            {
                "question_id": f"q{i}",
                "question": "q?",
                "context_ids": retrieved,
                "reference_context_ids": relevant,
            }
        )
    return rows


@pytest.mark.parametrize("path", PATHS)
def test_unitxt_map_adds_as_unitxt_does_on_every_python(path, monkeypatch):
    """Unitxt's MAP adds its precisions with the builtin ``sum()``, which compensates rounding
    since Python 3.12 (Neumaier); ragmeter added left to right, so on Python >= 3.12
    ``unitxt_map`` differed from unitxt's in the last bits on about a fifth of the rows with
    several hits. Here the builtin ``sum`` is that of Python >= 3.12 whatever runs the test."""
    from unitxt.artifact import fetch_artifact

    from needs import require_module

    require_module("unitxt")
    rows = _retrieval_rows(400, seed=3)
    unitxt_map, _ = fetch_artifact("metrics.map")

    def theirs() -> list[float]:
        return [
            unitxt_map.compute([r["reference_context_ids"]], r["context_ids"], {})["map"]
            for r in rows
        ]

    plain = theirs()
    monkeypatch.setattr("builtins.sum", _neumaier_sum)
    compensated = theirs()
    assert sum(a != b for a, b in zip(plain, compensated, strict=True)) > 20  # not vacuous
    got = _scores(rows, ["unitxt_map"], path, monkeypatch)["unitxt_map"]
    assert [s.value for s in got] == compensated


class _FixedScorer:
    """Returns each context's log-probabilities in turn."""

    name = "fixed"

    def __init__(self, per_context: list[list[float]]):
        self.per_context, self.calls = per_context, 0

    async def target_logprobs(self, prompt, target, *, prompt_version):
        from ragmeter.protocols import JudgeReply, TokenLogprobs

        lps = self.per_context[self.calls]
        self.calls += 1
        return JudgeReply(value=TokenLogprobs(tokens=["t"] * len(lps), logprobs=lps))


@pytest.mark.parametrize(
    ("per_context", "context", "what"),
    [
        ([[-1.0], [float("nan")]], 1, "nan"),  # was ok 0.368: max() passed over the NaN
        ([[float("nan")], [-1.0]], 0, "nan"),
        ([[0.5, 0.9], [-1.0]], 0, "above 0 (0.5)"),  # probabilities, not logs: was ok 2.01
        ([[-2.0], [1000.0]], 1, "above 0 (1000.0)"),  # was an OverflowError ("internal error")
        ([[-2.0], [float("inf")]], 1, "above 0 (inf)"),
    ],
)
async def test_perplexity_refuses_what_is_not_a_log_probability(per_context, context, what):
    """A scorer's NaN or positive "log-probability" is a failed score naming the context,
    never a score above 1, a crash, or a NaN hidden by the max over contexts."""
    from ragmeter.metrics.perplexity import context_relevance_perplexity
    from ragmeter.protocols import Resources
    from ragmeter.sample import Sample

    sample = Sample(question="who are we?", question_id="q", contexts=["we are", "the world"])
    score = await context_relevance_perplexity(sample, Resources(scorer=_FixedScorer(per_context)))
    assert score.status == "failed" and score.value is None, score
    assert what in score.reason and f"context {context}" in score.reason, score.reason


async def test_perplexity_keeps_valid_log_probabilities_as_they_were():
    from ragmeter.metrics.perplexity import context_relevance_perplexity
    from ragmeter.protocols import Resources
    from ragmeter.sample import Sample

    sample = Sample(question="who are we?", question_id="q", contexts=["we are", "the world"])
    per_context = [[-1.0, -3.0], [float("-inf"), -0.5]]  # -inf: probability 0, scores 0
    score = await context_relevance_perplexity(sample, Resources(scorer=_FixedScorer(per_context)))
    assert score.status == "ok" and score.value == math.exp(-2.0)
    assert score.details["per_context"] == [round(math.exp(-2.0), 6), 0.0]


@pytest.mark.parametrize("path", PATHS)
def test_blank_reference_context_is_no_relevant_text(path, monkeypatch):
    """Matched by text (no ids), an empty or punctuation-only reference context matched every
    blank retrieved context: ["", "dog"] against ["", "dog"] had MRR 1 for a blank chunk."""
    records = [
        {
            "question_id": "blank-first",
            "question": "q?",
            "contexts": ["", "The dog."],
            "reference_contexts": ["...", "dog"],
        },
        {
            "question_id": "only-blank",
            "question": "q?",
            "contexts": ["  ", "dog"],
            "reference_contexts": ["", "!!"],
        },
    ]
    got = _scores(records, ["mrr", "map", "recall@1", "hit@1"], path, monkeypatch)
    assert [s.value for s in got["mrr"]] == [0.5, None]
    assert got["map"][0].value == 0.5 and got["map"][0].details["n_relevant"] == 1
    assert got["recall@1"][0].value == 0.0 and got["hit@1"][0].value == 0.0
    for name in ("mrr", "map", "recall@1", "hit@1"):
        assert (
            got[name][1].status == "undefined"
            and "no reference context has words" in got[name][1].reason
        )


def test_ranking_functions_count_a_relevant_id_listed_twice_once():
    """The public ranking functions take the relevant ids as a set; given a list naming an
    id twice, |R| counted it twice: AP of ["a", "b"] against ["a", "a"] was 0.5, not 1."""
    from ragmeter.metrics import retrieval as r

    twice, once = ["a", "a"], {"a"}
    ret = ["a", "b", "a"]
    for fn in (r.average_precision, r.reciprocal_rank, r.unitxt_average_precision):
        assert fn(ret, twice) == fn(ret, once), fn.__name__
    for fn in (r.ndcg_at_k, r.precision_at_k, r.recall_at_k, r.hit_at_k):
        assert fn(ret, twice, 2) == fn(ret, once, 2), fn.__name__
    assert r.average_precision(["a", "b"], twice) == 1.0
    assert r.recall_at_k(["a"], twice, 1) == 1.0
    with pytest.raises(ValueError, match="needs at least one relevant id"):
        r.average_precision(ret, [])
