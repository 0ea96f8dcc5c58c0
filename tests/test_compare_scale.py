"""compare at the scale of stream and Ray runs: the normal (CLT) limits of the CI and of the
sign-flip test from ``stats.CLT_MIN_CHANGED`` changed pairs on, and which one was used.

Why: 2000 bootstrap resamples of a million continuous differences drew 2e9 indices (about
25 s per metric) to estimate an interval the CLT gives exactly enough (see
benchmarks/compare_scale.py). The threshold is injected small here, so the switch is tested
just below and just above it without a million rows.
"""

from __future__ import annotations

import math
import sys
from statistics import NormalDist

import numpy as np
import pytest
from tests.conftest import make_row

import ragmeter
from ragmeter import stats
from ragmeter.compare import compare
from ragmeter.metrics.base import Score
from ragmeter.stats import paired_delta_ci, paired_p_value


def _pairs(n: int, changed: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """n pairs of continuous scores of which exactly ``changed`` differ."""
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    b = a.copy()
    b[:changed] = np.clip(a[:changed] + rng.normal(0.05, 0.2, changed), 0, 1)
    b[:changed] = np.where(b[:changed] == a[:changed], a[:changed] + 0.5, b[:changed])
    return a, b


def _normal(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """The textbook normal interval of mean(b - a) and the normal sign-flip p, written out."""
    d = b - a
    z = NormalDist().inv_cdf(0.975)
    half = z * d.std(ddof=1) / math.sqrt(len(d))
    p = math.erfc(abs(d.sum()) / math.sqrt(2 * (d * d).sum()))
    return d.mean() - half, d.mean() + half, p


def test_the_ci_and_p_are_the_normal_limits_from_the_threshold_on(monkeypatch):
    monkeypatch.setattr(stats, "CLT_MIN_CHANGED", 40)
    a, b = _pairs(60, changed=40)
    low, high, p = _normal(a, b)
    assert paired_delta_ci(a, b) == pytest.approx((low, high), rel=1e-12)
    assert paired_p_value(a, b) == pytest.approx(p, rel=1e-12)


def test_one_changed_pair_fewer_keeps_the_resampled_ci_and_p(monkeypatch):
    a, b = _pairs(60, changed=39)
    before = paired_delta_ci(a, b), paired_p_value(a, b)
    monkeypatch.setattr(stats, "CLT_MIN_CHANGED", 40)
    assert (paired_delta_ci(a, b), paired_p_value(a, b)) == before
    low, high, _ = _normal(a, b)
    assert paired_delta_ci(a, b) != pytest.approx((low, high), rel=1e-12)


def test_small_runs_keep_their_numbers_at_the_default_threshold():
    # 10,000 pairs all changed: below 20,000, so resampled, as tests elsewhere pin them
    assert stats.CLT_MIN_CHANGED == 20_000
    a, b = _pairs(10_000, changed=10_000, seed=3)
    low, high, _ = _normal(a, b)
    assert paired_delta_ci(a, b) != pytest.approx((low, high), rel=1e-9)


def test_pairs_that_did_not_change_do_not_change_the_random_test(monkeypatch):
    # past the threshold of pairs, the sign patterns are drawn over the changed pairs only
    # (the others add 0 to every pattern): 999 patterns of 30 changed among 3000 pairs
    # were 999 x 3000 random bits, a million pairs made it 1e9
    monkeypatch.setattr(stats, "CLT_MIN_CHANGED", 2000, raising=False)
    a, b = _pairs(3000, changed=30, seed=4)
    d = (b - a)[:30]
    p = paired_p_value(a, b, n_resamples=999, seed=2)
    assert p == stats._sign_flip_p(d, 999, 2)
    assert 0.01 < p < 1  # a random p, not the bound's or a degenerate one


def _runs(before: np.ndarray, after: np.ndarray, topic: list[str]) -> tuple:
    rows = [make_row(i, metadata={"topic": topic[i - 1]}) for i in range(1, len(before) + 1)]
    a = ragmeter.evaluate(rows, "token_f1", n_resamples=0)
    b = ragmeter.evaluate(rows, "token_f1", n_resamples=0)
    a.scores["token_f1"] = [Score.ok(float(v)) for v in before]
    b.scores["token_f1"] = [Score.ok(float(v)) for v in after]
    return a, b


def test_compare_says_which_method_made_each_ci(monkeypatch):
    monkeypatch.setattr(stats, "CLT_MIN_CHANGED", 40)
    a_values, b_values = _pairs(100, changed=60, seed=5)
    topic = ["big"] * 80 + ["small"] * 20  # 60 changed in "big", none in "small"
    cmp = compare(*_runs(a_values, b_values, topic), by="topic")
    m = cmp.metric("token_f1")
    assert m.method == "normal"
    assert (m.ci_low, m.ci_high) == pytest.approx(_normal(a_values, b_values)[:2], rel=1e-12)
    assert cmp.to_dict()["metrics"][0]["method"] == "normal"
    by_slice = {s.value: s.method for s in cmp.slices}
    assert by_slice == {"big": "normal", "small": "resampled"}  # none changed in "small"
    monkeypatch.setattr(stats, "CLT_MIN_CHANGED", 61)
    assert compare(*_runs(a_values, b_values, topic)).metric("token_f1").method == "resampled"


def _statused(values: list[float | None], statuses: list[str]) -> list[Score]:
    return [
        Score(v if s == "ok" else None, s, None if s == "ok" else "x", {})
        for v, s in zip(values, statuses, strict=True)
    ]


def test_pairing_reads_pairs_and_exclusions_as_the_per_id_rules_do():
    # compare read each metric id by id through dicts (values_of 4x per metric, collect,
    # exclusion_counts' sets): 10 s of a million-pair comparison. Pairing does it with arrays
    # and must give the same pairs and counts, over every status and an id twice in A.
    from ragmeter.compare_pairs import Pairing, collect, exclusion_counts, values_of
    from ragmeter.runs import as_run

    rng = np.random.default_rng(9)
    n = 40
    kinds = ["ok", "ok", "ok", "failed", "undefined", "skipped"]
    rows = [make_row(i) for i in range(1, n + 1)]
    a = ragmeter.evaluate(rows, "token_f1", n_resamples=0)
    b = ragmeter.evaluate(rows, "token_f1", n_resamples=0)
    for res in (a, b):
        res.scores["token_f1"] = _statused(
            [float(v) for v in rng.random(n)], [str(k) for k in rng.choice(kinds, n)]
        )
    run_a, run_b = as_run(a), as_run(b)
    ids = [s.question_id for s in a.samples] + ["q3"]  # q3 twice: counted once
    pairing = Pairing(run_a, run_b, ids)
    column = pairing.column("token_f1")
    xs, ys = collect(ids, values_of(run_a, "token_f1"), values_of(run_b, "token_f1"))
    assert column.a[column.ok].tolist() == xs and column.b[column.ok].tolist() == ys
    assert column.counts(pairing.once) == exclusion_counts(run_a, run_b, "token_f1", ids)


def test_compare_does_not_read_the_runs_id_by_id(monkeypatch):
    compare_module = sys.modules["ragmeter.compare"]  # ragmeter.compare is the function

    def per_id(*_: object) -> None:
        raise AssertionError("compare walked a run id by id (values_of)")

    a_values, b_values = _pairs(30, changed=20, seed=6)
    runs = _runs(a_values, b_values, ["x", "y", "z"] * 10)
    monkeypatch.setattr(compare_module, "values_of", per_id)
    cmp = compare(*runs, by="topic")
    assert cmp.metric("token_f1").n == 30 and len(cmp.slices) == 3


def test_slice_labels_and_questions_that_agree_are_not_normalised(monkeypatch):
    # compare --by of a million pairs normalised every id's label twice and every question
    # (_same_key, _question): 13 s of it. Equal texts need no normalising; unequal ones
    # still are (a run saved as CSV: "3.50" and 3.5 are one slice value).
    import ragmeter.compare_pairs as pairs_module
    import ragmeter.slices as slices_module

    calls = {"key": 0, "question": 0}
    same_key, question = slices_module._same_key, pairs_module._question

    def counted_key(value: object) -> object:
        calls["key"] += 1
        return same_key(value)

    def counted_question(text: str) -> str:
        calls["question"] += 1
        return question(text)

    monkeypatch.setattr(slices_module, "_same_key", counted_key)
    monkeypatch.setattr(pairs_module, "_question", counted_question)
    a_values, b_values = _pairs(30, changed=20, seed=7)
    a, b = _runs(a_values, b_values, ["x", "y", "z"] * 10)
    cmp = compare(a, b, by="topic")
    assert calls == {"key": 0, "question": 0}
    assert not any("another" in w for w in cmp.warnings)
    b.samples[0].metadata["topic"] = "3.50"
    a.samples[0].metadata["topic"] = 3.5
    b.samples[1] = b.samples[1].model_copy(update={"question": "Another question?"})
    cmp = compare(a, b, by="topic")
    assert calls["key"] == 2 and calls["question"] == 2
    assert any("1 of the 30 paired ids have another question" in w for w in cmp.warnings)
    assert not any("another value in B" in w for w in cmp.warnings)
