"""Every metric ragmeter names after Unitxt equals the real unitxt package's, row by row.

Runs unitxt 1.26.10 (the ``test`` extra) through its own ``apply_metric`` stream on generated
rows holding every edge case (duplicate ids, empty contexts, no contexts, empty answers,
integer ids, no relevant ids, references without tokens, unicode and punctuation), plus
hand-made rows, and asserts ``==`` with ``ragmeter.evaluate``. benchmarks/unitxt_crosscheck.py
does the same on 10,000 rows.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from needs import require_module


@pytest.fixture(autouse=True, scope="module")
def _unitxt_installed() -> None:
    """Each test needs unitxt: skipped with the reason without it, failed under CI. Asked here,
    not at import: there a skip without ``allow_module_level`` was a collection error that
    stopped the whole pytest run ("Interrupted: 1 error during collection")."""
    require_module("unitxt")


BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "unitxt_crosscheck.py"
_spec = importlib.util.spec_from_file_location("unitxt_crosscheck", BENCH)
assert _spec is not None and _spec.loader is not None
crosscheck = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(crosscheck)

# Model-based Unitxt metrics, checked elsewhere against their anchors (tests/test_perplexity.py,
# tests/test_reward.py), not by running unitxt's models here.
MODEL_BASED = {"context_relevance_perplexity", "answer_reward"}

HAND_MADE = [
    # duplicates before and after the first relevant id; a duplicated relevant id
    {"context_ids": ["B", "B", "A", "A"], "reference_context_ids": ["A"]},
    # integer ids on both sides
    {"context_ids": [3, 1, 2, 1], "reference_context_ids": [2, 1]},
    # nothing relevant; nothing retrieved
    {"context_ids": ["A", "B"], "reference_context_ids": []},
    {"context_ids": [], "reference_context_ids": ["A"]},
    # answer combining two contexts (Unitxt: best single context), Greek final sigma
    {
        "answer": "The cat sat on the mat. ΟΔΟΣ",
        "contexts": ["A cat sat.", "On a mat! οδος"],
        "context_ids": ["c1", "c2"],
    },
    {"answer": "", "contexts": ["anything"], "context_ids": ["c1"]},
    {"answer": "The!", "contexts": ["", ""], "context_ids": ["c1", "c2"]},
    {"answer": "l’eau claire, naïve ﬁsh", "contexts": ["de l’eau", "ﬁsh naïve"]},
    {"answer": "Yes, yes, no.", "contexts": ["yes yes", "no"], "reference_answers": ["the", ""]},
    {"answer": "Paris", "contexts": ["Paris"], "reference_answers": ["Paris, France", "paris"]},
]


def _complete(i: int, row: dict) -> dict:
    full = {
        "question_id": f"h{i}",
        "question": "q?",
        "answer": "paris",
        "contexts": ["paris"],
        "context_ids": ["x"],
        "reference_answers": ["paris"],
        "reference_context_ids": ["x"],
    }
    full.update(row)
    if "contexts" in row and "context_ids" not in row:
        full["context_ids"] = [f"c{j}" for j in range(len(row["contexts"]))]
    if "context_ids" in row and "contexts" not in row:
        full["contexts"] = [f"text of {d}" for d in row["context_ids"]]
    return full


def test_unitxt_named_metrics_equal_unitxt_row_by_row():
    rows = crosscheck.make_rows(300, seed=1) + [_complete(i, r) for i, r in enumerate(HAND_MADE)]
    theirs = crosscheck.score_unitxt(rows, stream=True)
    ours = crosscheck.score_ragmeter(rows)
    report = crosscheck.compare(rows, theirs, ours)
    for name, r in report.items():
        assert r["mismatches"] == 0, (name, json.dumps(r["first_mismatches"][:2], default=str))
        assert r["equal"] + r["unitxt_raises_ragmeter_undefined"] == len(rows)
    # the edge cases are really there
    edges = crosscheck.edge_counts(rows)
    assert all(n > 0 for n in edges.values()), edges
    assert report["k_precision"]["unitxt_raises_ragmeter_undefined"] > 0  # no contexts
    # and the variants really differ from Unitxt's (which is why they have their own names)
    variants = crosscheck.variant_differences(ours)
    assert all(v["rows_differing"] > 0 for v in variants.values()), variants


def test_hand_made_rows_have_the_values_unitxt_gives():
    rows = [_complete(i, r) for i, r in enumerate(HAND_MADE)]
    ours = crosscheck.score_ragmeter(rows)
    assert ours["unitxt_mrr"][0] == pytest.approx(1 / 3)  # [B, B, A, A]: first A at position 3
    assert ours["mrr"][0] == 0.5  # TREC-style: the copy of B takes no rank
    assert ours["unitxt_map"][0] == pytest.approx((1 / 3 + 2 / 4) / 2)
    assert ours["unitxt_map"][1] == pytest.approx((1 / 2 + 2 / 3 + 3 / 4) / 3)  # integer ids
    assert ours["unitxt_mrr"][2] == 0.0 and ours["mrr"][2].startswith("undefined")
    # T = cat, sat, on, mat, οδος: best context "On a mat! οδος" has 3 of 5; the union all 5
    assert ours["k_precision"][4] == 0.6 and ours["k_precision_union"][4] == 1.0
    assert ours["k_precision"][5] == 0.0 and ours["k_precision_union"][5].startswith("undefined")
    assert ours["token_recall"][8] == 0.0  # no reference has a token: Unitxt's 0


def test_catalog_wiring_is_what_the_crosscheck_feeds():
    """unitxt's RAG catalog entries are the token_overlap / mrr / map metrics, fed as we do."""
    from unitxt.artifact import fetch_artifact

    catalog = Path(require_module("unitxt").__file__).parent / "catalog" / "metrics" / "rag"
    wiring = {
        "external_rag/faithfulness/token_k_precision.json": ("precision", "contexts"),
        "external_rag/answer_correctness/token_recall.json": ("recall", "ground_truths"),
    }
    for path, (main, refs) in wiring.items():
        spec = json.loads((catalog / path).read_text())
        assert spec["metric"] == "metrics.token_overlap" and spec["main_score"] == main
        assert spec["preprocess_steps"][0]["field_to_field"][refs] == "references"
        assert spec["preprocess_steps"][0]["field_to_field"]["answer"] == "prediction"
    for name in ("mrr", "map"):
        spec = json.loads((catalog / f"external_rag/context_correctness/{name}.json").read_text())
        assert spec["metric"] == f"metrics.{name}"
        assert spec["preprocess_steps"][0] == {
            "__type__": "copy",
            "field": "context_ids",
            "to_field": "prediction",
        }
        assert spec["preprocess_steps"][1]["inside"] == "list"
    assert type(fetch_artifact("metrics.token_overlap")[0]).__name__ == "TokenOverlap"


def test_every_metric_named_after_unitxt_is_cross_checked():
    from ragmeter.metrics.registry import _FIXED

    claims = {
        name
        for name, m in _FIXED.items()
        if "unitxt" in (name + m.description).lower() and "not unitxt" not in m.description.lower()
    }
    assert claims - MODEL_BASED == set(crosscheck.PAIRS)
