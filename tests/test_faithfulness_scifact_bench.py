"""The SciFact faithfulness benchmark's data loading and AUC, without a model."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from needs import missing

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "faithfulness_scifact.py"
_spec = importlib.util.spec_from_file_location("faithfulness_scifact", BENCH)
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def test_auc_counts_ties_half():
    assert bench.auc([0.9, 0.8], [0.1]) == 1.0
    assert bench.auc([0.1], [0.9, 0.8]) == 0.0
    assert bench.auc([0.5, 0.9], [0.5, 0.1]) == pytest.approx((0.5 + 1 + 1 + 1) / 4)


def test_load_claims_takes_n_per_label_in_id_order():
    if not (bench.DEFAULT_DATA / "queries.jsonl").is_file():
        missing(f"SciFact is not beside the checkout ({bench.DEFAULT_DATA})")
    claims = bench.load_claims(bench.DEFAULT_DATA, 5)
    labels = [label for _, label, _, _ in claims]
    assert labels == ["SUPPORT"] * 5 + ["CONTRADICT"] * 5
    for label in ("SUPPORT", "CONTRADICT"):
        ids = [int(cid) for cid, lab, _, _ in claims if lab == label]
        assert ids == sorted(ids)
    assert all(claim and len(abstract) > len(claim) for _, _, claim, abstract in claims)
