"""compare(): pairing, statistics per metric, slices, manifest warnings, outputs; run files."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from tests.conftest import EXAMPLES, make_row
from tests.needs import require_module

import ragmeter
from ragmeter.compare import compare
from ragmeter.errors import DataError, UnpairedRunsError
from ragmeter.runs import load_run

RUNS = EXAMPLES / "compare" / "runs"
METRICS = "mrr,ndcg@10,token_f1"


def test_example_runs_differ_on_ranking_not_on_answers():
    cmp = compare(RUNS / "baseline", RUNS / "reranked", by="topic")
    assert len(cmp.ids) == 36 and cmp.warnings == []
    mrr, f1 = cmp.metric("mrr"), cmp.metric("token_f1")
    assert mrr.delta > 0.1 and mrr.ci_low > 0 and mrr.significant(0.05)
    assert cmp.metric("ndcg@10").significant(0.05)
    assert not f1.significant(0.05) and f1.p_value > 0.1
    assert mrr.wins + mrr.ties + mrr.losses == mrr.n == 36
    # the delta is the difference of the paired means, the same as the runs' own means
    base = load_run(RUNS / "baseline").result.aggregates["mrr"].mean
    assert mrr.mean_a == pytest.approx(base)
    assert mrr.delta == pytest.approx(mrr.mean_b - mrr.mean_a)


def test_example_inputs_and_runs_are_reproducible(tmp_path):
    require_module("bm25s")  # the changed retriever's BM25
    subprocess.run(
        [sys.executable, str(EXAMPLES / "compare" / "make_inputs.py"), str(tmp_path)],
        check=True,
        capture_output=True,
    )
    for name in ("baseline", "reranked"):
        made = (tmp_path / f"{name}.jsonl").read_text()
        assert made == (EXAMPLES / "compare" / f"{name}.jsonl").read_text()
        result = ragmeter.evaluate(tmp_path / f"{name}.jsonl", METRICS)
        stored = load_run(RUNS / name).result
        for m in result.metrics:
            assert [s.value for s in result.scores[m]] == [s.value for s in stored.scores[m]]
            assert result.aggregates[m] == stored.aggregates[m]


def test_a_run_compared_with_itself_has_zero_deltas_and_p_one():
    cmp = compare(RUNS / "baseline", RUNS / "baseline")
    for m in cmp.metrics:
        assert m.delta == 0 and m.ci_low == 0 and m.ci_high == 0
        assert m.p_value == 1.0 and m.p_holm == 1.0
        assert m.wins == m.losses == 0


def _result(rows, metrics="token_f1,mrr"):
    return ragmeter.evaluate(rows, metrics, n_resamples=100)


def test_unpaired_ids_are_named_and_intersect_compares_the_rest():
    a = _result([make_row(i) for i in range(1, 6)])
    b = _result([make_row(i) for i in range(3, 9)])
    with pytest.raises(UnpairedRunsError) as err:
        compare(a, b)
    msg = str(err.value)
    assert "2 id(s) only in" in msg and "q1, q2" in msg and "q6, q7, q8" in msg
    assert "--intersect" in msg
    cmp = compare(a, b, intersect=True)
    assert cmp.ids == ["q3", "q4", "q5"]
    assert cmp.only_in_a == ["q1", "q2"] and cmp.only_in_b == ["q6", "q7", "q8"]
    assert any("3 shared ids" in w for w in cmp.warnings)


def test_no_shared_id_is_an_error_even_with_intersect():
    a = _result([make_row(i) for i in range(1, 3)])
    b = _result([make_row(i) for i in range(5, 7)])
    with pytest.raises(UnpairedRunsError, match="share no question_id"):
        compare(a, b, intersect=True)


def test_pairs_where_either_run_has_no_value_are_left_out_and_counted():
    rows = [make_row(i) for i in range(1, 5)]
    a = _result(rows)
    b = _result([make_row(1, answer=""), *rows[1:]])  # token_f1 of an empty answer is 0, ok
    b.scores["token_f1"][0] = ragmeter.Score.failed("boom")
    m = compare(a, b).metric("token_f1")
    assert m.n == 3 and m.n_excluded == 1


def test_a_run_without_run_json_beside_one_with_it_is_said(tmp_path):
    """(Which differences make runs NOT COMPARABLE: tests/test_comparability.py.)"""
    for name in ("a", "b"):
        _result([make_row(i) for i in range(1, 4)]).write(tmp_path / name)
    (tmp_path / "b" / "run.json").unlink()  # b as written by a ragmeter without manifests
    warnings = compare(tmp_path / "a", tmp_path / "b").warnings
    assert "manifest: only a has a run.json; the other run's metric versions" in warnings[0]
    assert not any("NOT COMPARABLE" in w for w in warnings)


def test_slices_are_sorted_by_effect_and_small_ones_flagged():
    cmp = compare(RUNS / "baseline", RUNS / "reranked", by="topic", min_slice=10)
    mrr = [s for s in cmp.slices if s.metric == "mrr"]
    assert {s.value for s in mrr} == {
        "waste", "library", "transit", "parks", "council tax", "permits"
    }  # fmt: skip
    assert all(s.small and s.n == 6 for s in mrr)
    assert [abs(s.delta) for s in mrr] == sorted((abs(s.delta) for s in mrr), reverse=True)
    big = compare(RUNS / "baseline", RUNS / "reranked", by="topic", min_slice=5)
    assert not any(s.small for s in big.slices)


def test_unknown_slice_column_names_the_columns_there_are():
    with pytest.raises(DataError, match=r"no sample has a value in column 'source'.*topic"):
        compare(RUNS / "baseline", RUNS / "reranked", by="source")


def test_markdown_and_json_outputs():
    cmp = compare(RUNS / "baseline", RUNS / "reranked", by="topic")
    md = cmp.to_markdown()
    assert "**Better** (Holm p < 0.05): mrr, ndcg@10" in md
    assert "| token_f1 | 36 |" in md and "no clear change" in md
    assert "<details><summary>Slices by <code>topic</code>" in md
    data = json.loads(cmp.to_json())
    assert data["n_paired"] == 36 and data["by"] == "topic"
    assert {m["metric"] for m in data["metrics"]} == {"mrr", "ndcg@10", "token_f1"}
    assert len(data["slices"]) == 18


def test_records_are_self_describing_and_load_back(tmp_path):
    rows = [make_row(i, topic=f"t{i % 2}") for i in range(1, 5)]
    result = _result(rows)
    rec = result.records()[0]
    assert list(rec)[:6] == [
        "question_id",
        "question",
        "answer",
        "contexts",
        "context_ids",
        "metadata",
    ]
    assert rec["metadata"] == {"topic": "t1", "category": "test"}
    result.write(tmp_path)
    run = load_run(tmp_path)
    back = run.result
    assert back.metrics == result.metrics
    assert back.samples[0].question == rows[0]["question"]
    assert back.samples[0].metadata["topic"] == "t1"
    assert back.aggregates == result.aggregates
    assert run.name == tmp_path.name
    assert run.manifest["schema"] == "ragmeter.run/1"  # run.json is read back too
    assert [m["name"] for m in run.manifest["metrics"]] == result.metrics


def test_old_records_without_sample_keys_still_load(tmp_path):
    rows = [
        {"question_id": "a", "token_f1": 0.5},
        {"question_id": "b", "token_f1": None, "status": {"token_f1": "failed"},
         "reasons": {"token_f1": "boom"}},
    ]  # fmt: skip
    (tmp_path / "scores.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    run = load_run(tmp_path / "scores.jsonl")
    assert run.result.metrics == ["token_f1"]
    assert run.result.aggregates["token_f1"].n_failed == 1
    assert run.result.scores["token_f1"][1].reason == "boom"
    assert compare(run, run).metric("token_f1").delta == 0


def test_bad_run_directories_are_clear_errors(tmp_path):
    with pytest.raises(DataError, match=r"not a run directory: .* \(no scores.jsonl / run.json\)"):
        load_run(tmp_path)
    (tmp_path / "scores.jsonl").write_text('{"question_id": "a"}\n{"question_id": "a"}\nnope\n')
    with pytest.raises(DataError) as err:
        load_run(tmp_path)
    text = str(err.value)
    assert "invalid JSON" in text and "duplicate question_id 'a'" in text


def test_copied_run_directory_compares_like_the_original(tmp_path):
    shutil.copytree(RUNS / "baseline", tmp_path / "copy")
    cmp = compare(tmp_path / "copy", RUNS / "baseline")
    assert all(m.delta == 0 for m in cmp.metrics)


def test_markdown_escapes_user_values():
    rows = [make_row(i, source="wiki|<b>x</b>") for i in range(1, 4)]
    a = _result(rows)
    md = compare(a, a, by="source").to_markdown()
    assert "| wiki\\|&lt;b&gt;x&lt;/b&gt; |" in md and "<b>" not in md


def test_markdown_cells_never_hold_a_line_break():
    """A newline in a slice label split its table row and made '# head' a heading."""
    labels = ["**bold**\n# head", "a\r\nb", "c\rd", "e\u2028f", "g\x85h"]
    rows = [make_row(i, source=labels[i % len(labels)]) for i in range(10)]
    a = _result(rows)
    md = compare(a, a, by="source").to_markdown()
    assert md.splitlines() == md.split("\n")[:-1]  # no \r, \u2028, \x85 ... left anywhere
    table = md.split("<details>", 1)[1].split("</details>", 1)[0].strip().splitlines()[2:]
    assert len(table) == 2 + 2 * len(labels)  # header, rule, one row per (metric, label)
    assert all(line.startswith("|") and line.endswith("|") for line in table)
    assert not any(line.startswith("#") for line in md.splitlines()[1:])
    # the stars escaped: GitHub showed "bold" in bold, the label's "**" gone
    assert "| token_f1 | \\*\\*bold\\*\\*<br># head |" in md and "| e<br>f |" in md
