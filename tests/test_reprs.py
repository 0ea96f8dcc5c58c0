"""What a notebook or REPL shows for a result, a run read back and the meta-eval reports.

Before: each was the dataclass default repr, every sample with its contexts, every score,
the config and the manifest (24 kB for the 25 samples of examples/rag_turns.jsonl), and the
settings recorded there with them. Now a few bounded lines (and a small HTML table), each
value escaped, nothing from the settings."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from tests.conftest import make_row

import ragmeter
from ragmeter.meta_eval import LabelResult, LabelsReport, MetaEvalReport, ScorerResult
from ragmeter.metrics.base import Score
from ragmeter.result import Aggregate, EvaluationResult, aggregate
from ragmeter.runs import as_run, load_run
from ragmeter.sample import Sample

SECRET = "hunter2-s3cr3t"
URL = f"http://admin:{SECRET}@judge.internal:8000/v1?api_key={SECRET}"


def _big(
    n: int = 2000, metrics: tuple[str, ...] = ("k_precision", "token_recall")
) -> EvaluationResult:
    """``n`` samples with long contexts, scores known: 3 of 4 ok (1.0 or 0.0 by turns), 1 of 4
    failed; the config and manifest hold a URL with credentials."""
    samples = [
        Sample(question=f"q{i}?", question_id=f"q{i}", contexts=["context " * 50], answer="a")
        for i in range(n)
    ]
    scores = {
        m: [
            Score(None, "failed", "judge error") if i % 4 == 3 else Score(float(i % 2))
            for i in range(n)
        ]
        for m in metrics
    }
    return EvaluationResult(
        samples=samples,
        metrics=list(metrics),
        scores=scores,
        aggregates={m: aggregate(m, scores[m], n_resamples=50) for m in metrics},
        config={"base_url": URL},
        manifest={"status": "complete", "settings": {"base_url": URL}, "judge": URL},
    )


def test_a_result_of_2000_samples_has_a_repr_of_a_few_lines() -> None:
    r = _big()
    text = repr(r)
    assert len(text) < 2000, len(text)
    assert str(r) == text
    lines = text.splitlines()
    assert lines[0] == "EvaluationResult(2000 samples, 2 metrics, status complete)"
    agg = r.aggregates["token_recall"]
    ci = f"[{agg.ci_low:.3f}, {agg.ci_high:.3f}]"
    want = ["token_recall", f"{agg.mean:.3f}", *ci.split(), "ok", "1500,", "failed", "500"]
    assert lines[2].split() == want
    assert lines[2].endswith("ok 1500, failed 500")
    assert lines[1].startswith("  k_precision ")
    assert len(lines) == 3
    html = r._repr_html_()
    assert len(html) < 2000 and "<table>" in html and "ok 1500, failed 500" in html


def test_the_repr_of_evaluate_s_result_has_its_numbers() -> None:
    rows = [make_row(i) for i in range(1, 6)]
    rows[0]["answer"] = "Nothing to see."
    r = ragmeter.evaluate(rows, ["token_f1", "mrr"], n_resamples=50)
    a = r.aggregates["token_f1"]
    lines = repr(r).splitlines()
    assert lines[0].startswith("EvaluationResult(5 samples, 2 metrics")
    assert lines[1].split()[:2] == ["token_f1", f"{a.mean:.3f}"]
    assert f"[{a.ci_low:.3f}, {a.ci_high:.3f}]" in lines[1]
    assert lines[2].split()[0] == "mrr"


def test_above_20_metrics_the_first_are_shown_and_the_rest_counted() -> None:
    names = tuple(f"m{i:02d}" for i in range(30))
    r = _big(8, names)
    lines = repr(r).splitlines()
    assert [ln.split()[0] for ln in lines[1:21]] == list(names[:20])
    assert lines[21] == "  ... 10 more"
    assert len(lines) == 22
    assert "... 10 more" in r._repr_html_() and "m20" not in r._repr_html_()


def test_no_mean_and_no_ci_read_as_a_dash() -> None:
    agg = Aggregate("faithfulness", None, None, None, 0, 3, 0, 0)
    r = EvaluationResult([], ["faithfulness"], {"faithfulness": []}, {"faithfulness": agg})
    assert repr(r).splitlines()[1].split() == ["faithfulness", "—", "—", "undefined", "3"]
    one = Aggregate("m", 0.5, None, None, 1, 0, 0, 0)
    r = EvaluationResult([], ["m"], {"m": []}, {"m": one})
    assert repr(r).splitlines()[1].split() == ["m", "0.500", "—", "ok", "1"]


def test_control_characters_in_a_metric_name_or_a_note_do_not_break_the_layout() -> None:
    name = "evil\nname\x1b[31m\r"
    agg = Aggregate(name, 0.25, 0.1, 0.4, 4, 0, 0, 0)
    note = "line one\nline two\x1b]0;title\x07"
    r = EvaluationResult([], [name], {name: []}, {name: agg}, notes=[note, "other"])
    text = repr(r)
    lines = text.splitlines()
    assert len(lines) == 3, lines
    assert "\x1b" not in text and "\r" not in text and "\x07" not in text
    assert lines[1].split()[0] == "evil\\nname\\x1b[31m\\r"
    assert lines[2] == "  2 notes, first: line one\\nline two\\x1b]0;title\\x07"


def test_the_html_table_escapes_every_value() -> None:
    name = "<script>alert(1)</script>"
    agg = Aggregate(name, 0.5, 0.4, 0.6, 2, 0, 0, 0)
    r = EvaluationResult([], [name], {name: []}, {name: agg}, notes=['<img src=x onerror="y">'])
    html = r._repr_html_()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script" not in html and "<img" not in html
    assert "src=" not in html.replace("src=x onerror=&quot;y&quot;", "")  # no asset


def test_no_repr_shows_the_settings_or_a_credential() -> None:
    r = _big(10)
    run = as_run(r)
    meta = MetaEvalReport([], f"openai:m@{URL}", {}, {"settings": {"base_url": URL}})
    labels = LabelsReport([], f"openai:m@{URL}", {}, {"settings": {"base_url": URL}})
    for obj in (r, run, meta, labels):
        for shown in (repr(obj), obj._repr_html_()):
            assert SECRET not in shown and "base_url" not in shown, shown
    assert "judge.internal" in repr(meta)  # the judge is named, its credentials are not


def test_a_run_is_its_source_and_counts(tmp_path: Path) -> None:
    r = ragmeter.evaluate([make_row(i) for i in range(1, 4)], ["token_f1"], n_resamples=20)
    assert repr(as_run(r)) == "Run('in-memory result', 3 samples, 1 metric)"
    r.write(tmp_path / "a")
    (tmp_path / "a" / "run.json").write_text(json.dumps({**r.manifest, "status": "interrupted"}))
    run = load_run(tmp_path / "a")
    assert repr(run) == f"Run({str(tmp_path / 'a')!r}, 3 samples, 1 metric, status interrupted)"
    assert "<table>" in run._repr_html_()
    assert len(repr(as_run(_big()))) < 200


def test_dataclass_equality_replace_and_asdict_still_work() -> None:
    r = _big(6)
    assert r == dataclasses.replace(r)
    changed = dataclasses.replace(r, notes=["x"])
    assert changed != r and changed.notes == ["x"]
    assert dataclasses.asdict(r)["config"] == {"base_url": URL}


def test_a_meta_eval_report_shows_the_judge_and_each_scorer_s_agreement() -> None:
    ragas = ScorerResult("faithfulness", "faithfulness", "ragas", outcomes=[1.0, 0.0, 1.0, None])
    ragas.n_failed = 1
    lexical = ScorerResult("lexical:faithfulness", "faithfulness", "baseline", outcomes=[0.5])
    failed = ScorerResult("gpt_score", "answer_relevance", "baseline", outcomes=[None])
    payload = {"dataset": "wikieval", "pairs": ["x" * 1000] * 1000, "agreement": {}}
    report = MetaEvalReport([ragas, lexical, failed], "gguf:qwen", {}, payload)
    text = repr(report)
    assert len(text) < 1000
    lines = text.splitlines()
    assert lines[0] == "MetaEvalReport(judge 'gguf:qwen', dataset 'wikieval', 3 scorers)"
    assert lines[1].split() == [
        "faithfulness",
        "faithfulness",
        "0.667",
        "pairs",
        "4,",
        "failed",
        "1",
    ]
    assert lines[2].split() == ["lexical:faithfulness", "faithfulness", "0.500", "pairs", "1"]
    assert lines[3].split()[2] == "—"
    assert "0.667" in report._repr_html_()


def test_a_labels_report_shows_each_scorer_s_auroc_with_its_recorded_ci() -> None:
    judged = LabelResult("faithfulness", "faithfulness", "ragas", n_labelled=5, n_failed=1)
    judged.scored = [(0.9, 1), (0.2, 0), (0.8, 1), (0.3, 0)]
    base = LabelResult("lexical:faithfulness", "faithfulness", "baseline", n_labelled=5)
    base.scored = [(0.1, 1), (0.9, 0), (0.8, 1), (0.3, 0)]
    payload = {
        "results": [
            {"name": "faithfulness", "dimension": "faithfulness", "auroc_ci95": [0.75, 1.0]},
            {"name": "lexical:faithfulness", "dimension": "faithfulness", "auroc_ci95": None},
        ],
        "rows": ["x" * 1000] * 1000,
    }
    report = LabelsReport([judged, base], "gguf:qwen", {}, payload)
    text = repr(report)
    assert len(text) < 1000
    lines = text.splitlines()
    assert lines[0] == "LabelsReport(judge 'gguf:qwen', 2 scorers)"
    assert "AUROC 1.000 [0.750, 1.000]" in lines[1] and "accuracy 1.000" in lines[1]
    assert lines[1].endswith("labelled 5, failed 1")
    assert f"AUROC {base.auroc:.3f} —" in lines[2]
    assert "AUROC" in report._repr_html_()


@pytest.mark.parametrize("n", [0, 1])
def test_counts_are_said_in_the_singular_and_for_an_empty_result(n: int) -> None:
    r = _big(n, ("m",))
    said = "1 sample" if n == 1 else "0 samples"
    assert repr(r).splitlines()[0] == f"EvaluationResult({said}, 1 metric, status complete)"


def test_a_streamed_result_is_a_few_lines_without_its_settings(tmp_path: Path) -> None:
    """A streamed run's result (``executor="stream"``) printed its config and manifest, the
    settings' base URL with credentials included, as the in-memory result did."""
    data = tmp_path / "rows.jsonl"
    rows = [make_row(question_id=f"q{i}") for i in range(300)]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    res = ragmeter.evaluate(
        str(data), ["k_precision", "token_recall"], executor="stream", out=tmp_path / "out"
    )
    res.config = {"settings": {"base_url": URL}}
    res.manifest = {**res.manifest, "settings": {"base_url": URL}}
    text = repr(res)
    assert text.startswith("StreamedResult(300 samples, 2 metrics, in ")
    assert "k_precision" in text and "token_recall" in text
    assert SECRET not in text and "judge.internal" not in text
    assert len(text) < 1000 and str(res) == text
    page = res._repr_html_()
    assert "<table>" in page and SECRET not in page


def test_a_scorer_s_result_alone_is_one_line() -> None:
    """``report.results[0]`` printed every pair / labelled row (the dataclass default)."""
    pairs = [{"id": f"p{i}", "a": "x" * 200} for i in range(3000)]
    ragas = ScorerResult("faithfulness", "faithfulness", "ragas", outcomes=[1.0, 0.0] * 1500)
    ragas.pairs = pairs
    text = repr(ragas)
    assert text == (
        "ScorerResult('faithfulness', faithfulness, ragas: agreement 0.500, 3000 pairs, 0 failed)"
    )
    rows = LabelResult("faithfulness", "faithfulness", "ragas", n_labelled=4, n_positive=2)
    rows.scored = [(0.9, 1), (0.8, 1), (0.2, 0), (0.1, 0)]
    rows.rows = pairs
    assert repr(rows) == (
        "LabelResult('faithfulness', faithfulness, ragas: AUROC 1.000, 4 labelled "
        "(2 positive), 0 failed)"
    )
