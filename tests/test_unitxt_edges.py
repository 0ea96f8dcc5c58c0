"""Edge cases of the lexical and retrieval metrics that the row-by-row cross-checks
(tests/test_unitxt_crosscheck.py, tests/test_score_columns.py) do not reach: each holds on the
per-sample path and on the whole-batch path, with and without the compiled counters."""

from __future__ import annotations

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
