"""compare at its edges: one-pair slices and metrics, constant differences, bad parameters."""

from __future__ import annotations

import re

import pytest
from tests.conftest import EXAMPLES, make_row

import ragmeter
from ragmeter.compare import MetricDelta, compare
from ragmeter.compare_render import verdict
from ragmeter.errors import DataError
from ragmeter.gates import fail_on_regression
from ragmeter.metrics.registry import list_metrics
from ragmeter.runs import load_run


def _runs(kinds: list[str], changed: set[int]):
    """Run A and run B over the same rows; B's answer is wrong on the ``changed`` rows."""
    rows = [make_row(i, kind=k) for i, k in enumerate(kinds, start=1)]
    other = [dict(row) for row in rows]
    for i in changed:
        other[i - 1]["answer"] = "Nothing useful here."
    a = ragmeter.evaluate(rows, "token_f1,mrr", n_resamples=100)
    b = ragmeter.evaluate(other, "token_f1,mrr", n_resamples=100)
    return a, b


def test_a_one_pair_slice_has_its_delta_but_no_ci_or_p_and_the_rest_is_unaffected():
    # "lone" holds one sample whose score changed: scipy cannot resample one observation
    a, b = _runs(["lone", "many", "many", "many", "many"], changed={1, 2, 3})
    cmp = compare(a, b, by="kind")
    lone = next(s for s in cmp.slices if s.metric == "token_f1" and s.value == "lone")
    assert lone.n == 1 and lone.delta is not None and lone.delta < 0
    assert lone.ci_low is None and lone.ci_high is None and lone.p_value is None
    assert lone.note is not None and "too few" in lone.note
    many = next(s for s in cmp.slices if s.metric == "token_f1" and s.value == "many")
    assert many.n == 4 and many.ci_low is not None and many.p_value is not None
    assert many.note is None
    md = cmp.to_markdown()
    assert "| token_f1 | lone | 1 |" in md and "n/a | n/a | 1 pair: too few" in md
    assert cmp.to_dict()["slices"][0]["note"] is not None  # lone sorts first: largest |delta|


def test_a_metric_with_one_pair_is_na_not_significant_and_not_in_holm():
    a, b = _runs(["x", "x", "x"], changed={1})
    b.scores["token_f1"][1] = ragmeter.Score.failed("boom")
    b.scores["token_f1"][2] = ragmeter.Score.failed("boom")
    cmp = compare(a, b)
    f1 = cmp.metric("token_f1")
    assert f1.n == 1 and f1.delta is not None and f1.delta < 0
    assert f1.p_value is None and f1.p_holm is None and not f1.significant(0.05)
    assert f1.ci_low is None and "too few" in (f1.note or "")
    row = next(line for line in cmp.to_markdown().splitlines() if line.startswith("| token_f1"))
    assert row.endswith("| n/a | n/a | n/a | 0/0/1 | n/a |")
    assert cmp.metric("mrr").p_holm == 1.0  # Holm counts only the metrics with a p-value


def test_constant_differences_give_a_zero_width_ci_and_an_exact_p():
    a, b = _runs(["x", "x", "y"], changed={1, 2})
    x = next(
        s for s in compare(a, b, by="kind").slices if s.metric == "token_f1" and s.value == "x"
    )
    assert x.n == 2 and x.ci_low == x.ci_high == x.delta
    assert x.p_value == pytest.approx(0.5)  # 4 sign patterns, 2 reach |mean|


def test_metric_directions_in_the_registry():
    directions = {m.name: m.direction for m in list_metrics()}
    assert directions["refusal_rate"] == "none"  # descriptive: no labels, no better side
    assert directions["refusal_accuracy"] == "higher" and directions["ndcg@k"] == "higher"
    assert set(directions.values()) <= {"higher", "lower", "none"}


def _delta(delta: float, direction: str, p: float = 0.001) -> MetricDelta:
    return MetricDelta(
        "m", 20, 0, 0.5, 0.5 + delta, delta, delta - 0.1, delta + 0.1, p, p, 5, 10, 5,
        direction=direction,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("delta", "direction", "word", "fails"),
    [
        (-0.2, "higher", "worse", True),
        (+0.2, "higher", "better", False),
        (+0.2, "lower", "worse", True),
        (-0.2, "lower", "better", False),
        (+0.2, "none", "higher", False),
        (-0.2, "none", "lower", False),
    ],
)
def test_verdict_and_gate_follow_the_direction(delta, direction, word, fails):
    m = _delta(delta, direction)
    assert verdict(m, 0.05) == word
    failures = fail_on_regression(type("C", (), {"metrics": [m]})(), alpha=0.05)
    assert bool(failures) is fails
    if fails:
        assert str(failures[0]).startswith(f"m: {'dropped' if delta < 0 else 'rose'}")
    assert verdict(_delta(delta, direction, p=0.5), 0.05) == "no clear change"


def test_a_data_file_or_a_non_numeric_score_is_a_clear_error_not_a_crash(tmp_path):
    with pytest.raises(DataError, match=r"not a run directory: .*rag_turns.jsonl is a file"):
        load_run(EXAMPLES / "rag_turns.jsonl")
    with pytest.raises(DataError, match=r"not a run directory: .* does not exist"):
        load_run(tmp_path / "nowhere")
    a, _ = _runs(["x", "x"], changed=set())
    a.write(tmp_path / "run")
    scores = tmp_path / "run" / "scores.jsonl"
    lines = scores.read_text().splitlines()
    lines[1] = lines[1].replace('"token_f1":', '"token_f1": "high", "was":', 1)
    lines[0] = lines[0][:-1] + ', "status": "ok"}'
    scores.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError) as err:
        load_run(tmp_path / "run")
    assert "row 2, field 'token_f1'" in str(err.value) and '"high"' in str(err.value)
    assert "row 1, field 'status'" in str(err.value)


def test_bad_statistics_options_are_named_before_any_run_is_read():
    with pytest.raises(DataError) as err:
        compare("no/such/run", "no/such/run", n_resamples=0, permutations=-3, confidence=1.5)
    text = str(err.value)
    assert "field 'n_resamples': must be at least 2, not 0" in text
    assert "field 'permutations': must be at least 1, not -3" in text
    assert "field 'confidence'" in text and "no/such/run" not in text


def test_intersect_and_seed_that_are_no_bool_or_number_are_refused():
    """intersect="no" is truthy: it compared the shared ids when the user asked not to."""
    with pytest.raises(DataError) as err:
        compare("no/such/run", "no/such/run", intersect="no", seed=True)
    text = str(err.value)
    assert "field 'intersect': must be True or False, not 'no'" in text
    assert "field 'seed': must be a whole number >= 0, not True" in text


def test_a_slice_of_one_sample_has_no_ci_rather_than_a_zero_width_one():
    """evaluate --by: one value has no spread to resample; [v, v] looked like certainty."""
    from conftest import make_row
    from ragmeter import evaluate
    from ragmeter.slices import slice_summary

    rows = [make_row(i, metadata={"kind": "a" if i < 4 else "b"}) for i in range(1, 5)]
    result = evaluate(rows, ["token_f1"], n_resamples=50)
    by = {r.value: r for r in slice_summary(result, "kind")}
    assert by["b"].n == 1 and by["b"].mean is not None
    assert by["b"].ci_low is None and by["b"].ci_high is None and by["b"].small
    assert by["a"].n == 3 and by["a"].ci_low is not None


def test_runs_whose_generated_ids_do_not_pair_say_why():
    """Rows without question_id get ids from their row number; reordered rows pair with
    nothing, and the error says so instead of only listing ids."""
    from conftest import make_row
    from ragmeter import evaluate
    from ragmeter.compare import compare
    from ragmeter.errors import UnpairedRunsError

    rows = [make_row(i, question_id=None) for i in range(1, 5)]
    a = evaluate(rows, ["token_f1"], n_resamples=10)
    b = evaluate(rows[::-1], ["token_f1"], n_resamples=10)
    with pytest.raises(UnpairedRunsError, match="generated from row numbers"):
        compare(a, b)
    named = [make_row(i) for i in range(1, 3)]
    other = [make_row(i) for i in range(3, 5)]
    with pytest.raises(UnpairedRunsError) as info:
        compare(
            evaluate(named, ["token_f1"], n_resamples=10),
            evaluate(other, ["token_f1"], n_resamples=10),
        )
    assert "generated" not in str(info.value)


def test_two_in_memory_runs_are_told_apart_as_a_and_b(tmp_path):
    """Both were "in-memory result", so "ids only in in-memory result" could not say which."""
    from ragmeter.errors import UnpairedRunsError

    a = ragmeter.evaluate([make_row(1), make_row(2)], ["token_f1"], n_resamples=10)
    b = ragmeter.evaluate([make_row(2), make_row(3)], ["token_f1"], n_resamples=10)
    with pytest.raises(UnpairedRunsError) as info:
        compare(a, b)
    text = str(info.value)
    assert "1 id(s) only in run A (in-memory): q1" in text
    assert "1 id(s) only in run B (in-memory): q3" in text
    cmp = compare(a, b, intersect=True)
    assert (cmp.a.name, cmp.b.name) == ("run A (in-memory)", "run B (in-memory)")
    assert "`run B (in-memory)` (B) vs `run A (in-memory)` (A)" in cmp.to_markdown()
    a.write(tmp_path / "base")  # a run directory keeps its own name
    assert compare(tmp_path / "base", b, intersect=True).a.name == "base"


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity"])
def test_a_non_finite_score_in_a_run_is_refused(tmp_path, bad):
    """json.loads reads NaN and Infinity, which ragmeter never writes: a hand-edited
    scores.jsonl gave compare delta "+nan", p "<0.001" and the verdict "worse"."""
    a, _ = _runs(["x", "x"], changed=set())
    a.write(tmp_path / "run")
    scores = tmp_path / "run" / "scores.jsonl"
    lines = scores.read_text().splitlines()
    lines[0] = re.sub(r'"token_f1": ?[0-9.e-]+', f'"token_f1":{bad}', lines[0], count=1)
    scores.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"row 1, field 'token_f1': scores.jsonl: .*finite"):
        load_run(tmp_path / "run")


def test_a_differing_url_is_quoted_without_its_credentials():
    """The warning quoting two runs' different base URLs cut each at 60 characters before any
    masking, so a long URL cut before its "@" printed the password, in the terminal, the JSON
    and the pull-request comment."""
    from ragmeter.comparability import _show

    url = "https://user:s3cretpassw0rd@judge.internal.example.com/v1?api-key=abc123"
    shown = _show(url, "settings.base_url")
    assert "s3cret" not in shown and "abc123" not in shown and "user" not in shown
    assert "judge.internal.example.com" in shown
    assert _show("hunter2", "settings.api_key") == '"***"'


def test_markdown_stays_under_githubs_comment_limit():
    """--by on a column of many values made a comment GitHub refuses (over 65,536
    characters); the slices that moved least are left out, and the comment says how many."""
    from ragmeter.compare_render import MARKDOWN_LIMIT

    kinds = [f"a rather long slice label number {i:04d} for this test" for i in range(700)]
    a, b = _runs(kinds, changed=set(range(1, 701, 3)))
    cmp = compare(a, b, by="kind")
    md = cmp.to_markdown()
    assert len(md) <= MARKDOWN_LIMIT
    shown = md.count("| a rather long slice label")
    assert 0 < shown < len(cmp.slices)
    assert f"... and {len(cmp.slices) - shown} more slices" in md
    assert "a rather long slice" in cmp.to_json() and len(cmp.to_dict()["slices"]) == 1400


def test_a_run_compared_with_itself_or_its_copy_is_said_to_be_one(tmp_path):
    """Every delta is 0 by construction: a gate comparing main with main proved nothing."""
    import shutil

    a, b = _runs(["x", "x", "x"], changed={1})
    assert any("the same result" in w for w in compare(a, a).warnings)
    a.write(tmp_path / "a")
    b.write(tmp_path / "b")
    shutil.copytree(tmp_path / "a", tmp_path / "copy")
    (tmp_path / "link").symlink_to(tmp_path / "a")
    same = compare(str(tmp_path / "a"), str(tmp_path / "link")).warnings
    assert any("the same run directory" in w and "every delta is 0" in w for w in same)
    copy = compare(str(tmp_path / "a"), str(tmp_path / "copy")).warnings
    assert any("B looks like a copy of A" in w for w in copy)
    other = compare(str(tmp_path / "a"), str(tmp_path / "b")).warnings
    assert not any("every delta is 0" in w for w in other)
    rerun = ragmeter.evaluate([make_row(i, kind="x") for i in (1, 2, 3)], "token_f1,mrr")
    assert not any("every delta is 0" in w for w in compare(a, rerun).warnings)


def test_two_results_in_memory_made_in_one_second_are_not_a_copy():
    """Two small evaluate() calls in the same second can record the same start, end and wall
    time to the millisecond: they were called a copy of each other ("every delta is 0 by
    construction"), and their questions went unchecked. A copy is a run directory's."""
    a, b = _runs(["x", "x", "x"], changed={1})
    b.manifest = dict(a.manifest)  # what the clock gave both, forced here
    b.samples[0] = b.samples[0].model_copy(update={"question": "Another question?"})
    warnings = compare(a, b).warnings
    assert not any("every delta is 0" in w for w in warnings), warnings
    assert any("1 of the 3 paired ids have another question" in w for w in warnings), warnings


def test_ids_in_an_unpaired_error_are_cut_short():
    from ragmeter.errors import UnpairedRunsError

    err = UnpairedRunsError(["q" * 10_000, "short"], [], none_paired=True)
    assert len(str(err)) < 200 and "short" in str(err) and "q" * 57 + "..." in str(err)


def test_too_few_sign_patterns_to_find_any_change_are_said():
    """permutations=19 over 2 metrics: no p below 2/20 = 0.1, so every change was "n.s." and
    a regression gate passed, without a word."""
    a, b = _runs(["factoid"] * 30, changed=set(range(1, 31)))
    few = compare(a, b, permutations=19)
    said = [w for w in few.warnings if w.startswith("permutations 19:")]
    assert said and "no change can be significant at alpha 0.05" in said[0]
    assert not any(d.significant(0.05) for d in few.metrics)  # what the warning is about
    enough = compare(a, b, permutations=999)
    assert not [w for w in enough.warnings if w.startswith("permutations")]
    assert not [w for w in compare(a, b).warnings if w.startswith("permutations")]
