"""Audit of compare and run directories: what a demanding user met (see each test's comment)."""

from __future__ import annotations

import json

import pytest
from tests.conftest import make_row

import ragmeter
from ragmeter.compare import compare
from ragmeter.errors import DataError
from ragmeter.runs import load_run


def _rows(n: int, **question_of: str) -> list[dict]:
    rows = [make_row(i) for i in range(1, n + 1)]
    for row in rows:
        row["question"] = question_of.get(row["question_id"], row["question"])
    return rows


def test_runs_whose_paired_ids_hold_other_questions_are_said_to_differ(tmp_path):
    # Two inputs numbered alike (q1, q2, ...) paired question by question in silence: the
    # verdicts then measured the change of data, not of the pipeline.
    a = ragmeter.evaluate(_rows(4), "token_f1", n_resamples=10)
    b = ragmeter.evaluate(_rows(4, q2="Who wrote it?", q4="When?"), "token_f1", n_resamples=10)
    cmp = compare(a, b)
    said = [w for w in cmp.warnings if "another question" in w]
    assert said == [
        "2 of the 4 paired ids have another question in B than in A (e.g. q2: 'What is fact "
        "number 2?' in A, 'Who wrote it?' in B): were both runs made on the same input? "
        "Their deltas compare different questions"
    ]
    assert said[0] in cmp.to_dict()["warnings"] and "another question" in cmp.to_markdown()


def test_same_questions_or_ones_unknown_to_an_older_run_are_not_flagged(tmp_path):
    a = ragmeter.evaluate(_rows(3), "token_f1", n_resamples=10)
    rewrapped = _rows(3, q1="  What is fact\nnumber 1? ")
    assert compare(a, ragmeter.evaluate(rewrapped, "token_f1", n_resamples=10)).warnings == []
    # an older run's scores.jsonl has no question: nothing to compare, nothing said
    a.write(tmp_path / "old")
    lines = (tmp_path / "old" / "scores.jsonl").read_text().splitlines()
    old = [{k: v for k, v in json.loads(x).items() if k != "question"} for x in lines]
    (tmp_path / "old" / "scores.jsonl").write_text("".join(json.dumps(r) + "\n" for r in old))
    b = ragmeter.evaluate(_rows(3, q1="Other?"), "token_f1", n_resamples=10)
    assert not [w for w in compare(tmp_path / "old", b).warnings if "another question" in w]


def test_a_duplicated_record_is_named_by_its_line_in_scores_jsonl(tmp_path):
    # A blank line before a duplicated record made the error name the record's count, one
    # line above the duplicate: the user looked at the wrong row.
    run = ragmeter.evaluate(_rows(3), "token_f1", n_resamples=10)
    run.write(tmp_path / "run")
    path = tmp_path / "run" / "scores.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[0] + "\n" + "".join(lines[1:]) + lines[1])  # q2 again, on line 5
    with pytest.raises(DataError) as err:
        load_run(tmp_path / "run")
    assert "row 5, field 'question_id': duplicate question_id 'q2' (first used in row 3)" in str(
        err.value
    )


def test_a_hand_edited_scores_jsonl_is_not_summarised_by_the_stale_summary_json(tmp_path):
    # Rows removed and values changed by hand: load_run kept summary.json's mean, n and CI,
    # so the report said the old mean over 4 samples for a file of 2 samples scoring 1.0.
    run = ragmeter.evaluate(_rows(4, q1="Who?"), "token_f1", n_resamples=50, seed=3)
    run.write(tmp_path / "run")
    path = tmp_path / "run" / "scores.jsonl"
    kept = [json.loads(x) for x in path.read_text().splitlines()[:2]]
    for row in kept:
        row["token_f1"] = 1.0
    path.write_text("".join(json.dumps(r) + "\n" for r in kept))
    edited = load_run(tmp_path / "run").result
    agg = edited.aggregates["token_f1"]
    assert (agg.mean, agg.n_ok) == (1.0, 2)
    assert (
        "summary.json's aggregates are not those of scores.jsonl (token_f1: mean"
        in (edited.notes[0])
    )
    # made with the run's bootstrap settings: the CI a run of those two rows would have
    again = [dict(r, answer=r["reference_answers"][0]) for r in _rows(4, q1="Who?")[:2]]
    fresh = ragmeter.evaluate(again, "token_f1", n_resamples=50, seed=3)
    assert fresh.aggregates["token_f1"] == agg
    # a run read as written keeps summary.json's aggregates (its CI) and gets no note
    run.write(tmp_path / "whole")
    whole = load_run(tmp_path / "whole").result
    assert whole.aggregates == run.aggregates and whole.notes == run.notes


def test_the_json_says_the_alpha_and_each_metrics_verdict_as_the_table_does(tmp_path):
    # `compare --alpha 0.5 --json F` wrote the same file as at 0.05: no alpha, no verdict,
    # so a CI script reading it could not see what the table called better or worse.
    from typer.testing import CliRunner

    from ragmeter.cli import app

    a = ragmeter.evaluate(_rows(6), "token_f1", n_resamples=10)
    changed = _rows(6)
    for row in changed:
        row["answer"] = "Nothing useful here."
    b = ragmeter.evaluate(changed, "token_f1", n_resamples=10)
    a.write(tmp_path / "a")
    b.write(tmp_path / "b")
    for alpha, word in (("0.05", "worse"), ("0.01", "no clear change")):
        out = tmp_path / f"{alpha}.json"
        args = ["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--alpha", alpha]
        got = CliRunner().invoke(app, [*args, "--json", str(out)])
        assert got.exit_code == 0, got.output
        doc = json.loads(out.read_text())
        assert doc["alpha"] == float(alpha)
        assert [m["verdict"] for m in doc["metrics"]] == [word]
        assert compare(tmp_path / "a", tmp_path / "b").metric("token_f1").p_holm == 2 / 64


def test_a_cut_markdown_keeps_the_slices_that_moved_most_whatever_their_metric():
    # The slice table (by metric, then |delta|) was cut in its order: the comment kept 600
    # of token_f1's smallest moves and none of mrr's slices, its largest moves included.
    from ragmeter.compare import SliceDelta
    from ragmeter.compare_render import MARKDOWN_LIMIT

    rows = _rows(4)
    cmp = compare(
        ragmeter.evaluate(rows, "token_f1,mrr", n_resamples=10),
        ragmeter.evaluate(rows, "token_f1,mrr", n_resamples=10),
        by="question_id",
    )

    def cell(metric: str, label: str, delta: float) -> SliceDelta:
        return SliceDelta(metric, "topic", label, 12, 0.5, 0.5 + delta, delta, 0, 1, 0.5, False)

    small = [cell("token_f1", f"a long enough topic label {i:05d}", 0.01) for i in range(3000)]
    big = [cell("mrr", f"moved a lot {i}", -0.9) for i in range(5)]
    cmp.slices = small + big
    md = cmp.to_markdown()
    assert len(md) <= MARKDOWN_LIMIT
    assert all(f"| mrr | moved a lot {i} | 12 |" in md for i in range(5))
    shown = md.count("| token_f1 | a long enough topic label")
    assert 0 < shown < 3000
    assert f"... and {3000 - shown} more slices (token_f1 {3000 - shown}), those that moved" in md


def test_the_differing_question_is_quoted_as_written():
    a = ragmeter.evaluate(_rows(2, q1="Is C:\\temp 'safe'?"), "token_f1", n_resamples=10)
    b = ragmeter.evaluate(_rows(2, q1="Is D:\\x\x1b[31m ok?"), "token_f1", n_resamples=10)
    (said,) = compare(a, b).warnings
    assert "(e.g. q1: 'Is C:\\temp 'safe'?' in A, 'Is D:\\x\\x1b[31m ok?' in B)" in said


def test_a_status_ragmeter_never_writes_is_named_not_read_as_not_applicable(tmp_path):
    # {"status": {"token_f1": "error"}} (another tool's word, a hand edit) was read as a score
    # neither failed nor ok: the pair left out as "undefined or skipped" (which
    # --allow-lost-scores accepts, a failed score never); where summary.json had no aggregate
    # to take, it was "internal error: KeyError".
    run = ragmeter.evaluate(_rows(3), "token_f1", n_resamples=10)
    run.write(tmp_path / "run")
    path = tmp_path / "run" / "scores.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    rows[1].update(token_f1=None, status={"token_f1": "error"})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(DataError) as err:
        compare(run, tmp_path / "run")
    assert (
        "row 2, field 'status.token_f1': scores.jsonl: status \"error\" is none of ok, "
        "undefined, skipped, failed"
    ) in str(err.value)
