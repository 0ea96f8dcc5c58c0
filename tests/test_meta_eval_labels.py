"""`ragmeter meta-eval labels`: the metrics against the user's own per-answer labels.

New feature: before it, "labels" was an unknown dataset (exit 2), so every test here fails
on the code before it. The numbers are checked against hand computations; the refusals are
checked to come before any model is built; wikieval keeps its own tests (test_meta_eval*.py).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import fake_server
from ragmeter.cli import app
from ragmeter.errors import DataError
from ragmeter.metrics.base import Score
from ragmeter.sample import Sample
from test_meta_eval_failures import probe_passes

ENV = {"OPENAI_API_KEY": "sk-test-not-a-real-key", "COLUMNS": "200"}
ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "labels.jsonl"


def _row(answer: str, **labels: Any) -> dict[str, Any]:
    return {
        "question": "When did the Eiffel Tower open?",
        "answer": answer,
        "contexts": ["The Eiffel Tower opened in 1889 for the World's Fair."],
        **{f"label_{k}": v for k, v in labels.items()},
    }


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _fields(line: str) -> dict[str, str]:
    assert line.startswith("RESULT "), line
    return dict(part.split("=", 1) for part in line.split()[1:])


# --- the statistics, by hand ---------------------------------------------------------------


def test_auroc_counts_ties_half_and_is_none_with_one_class() -> None:
    from ragmeter.meta_eval import auroc

    # positives 0.9, 0.6, 0.4 against negatives 0.5, 0.1: 5 of 6 pairs ordered right
    assert auroc([0.9, 0.6, 0.4, 0.5, 0.1], [1, 1, 1, 0, 0]) == pytest.approx(5 / 6)
    assert auroc([0.5, 0.5], [1, 0]) == 0.5
    assert auroc([0.2, 0.9], [1, 0]) == 0.0
    assert auroc([0.2, 0.9], [1, 1]) is None


@pytest.mark.parametrize(
    ("value", "want"),
    [(1, 1), (0, 0), (True, 1), (False, 0), (1.0, 1), ("yes", 1), ("No", 0), ("TRUE", 1),
     ("0", 0), ("", None), (None, None), (float("nan"), None)],
)  # fmt: skip
def test_labels_read_as_binary(value: Any, want: int | None) -> None:
    from ragmeter.meta_eval._labels import parse_label

    assert parse_label(value) == want


async def test_scripted_scores_give_the_hand_computed_numbers() -> None:
    """Five labelled rows, scores scripted per answer: AUROC 5/6, Brier 0.158, ECE 0.34,
    accuracy at 0.5 3/5 (0.5 counts as "yes"); a failed and an undefined row are left out
    and counted; each sample is scored once however many rows repeat it."""
    from ragmeter.meta_eval._labels import LabelledSample
    from ragmeter.meta_eval._labels_run import score_labels
    from ragmeter.meta_eval._scorers import PairScorer

    values = {"a": 0.9, "b": 0.6, "c": 0.4, "d": 0.5, "e": 0.1}
    labels = {"a": 1, "b": 1, "c": 1, "d": 0, "e": 0, "fail": 1, "undef": 0}
    calls: list[str] = []

    async def score(sample: Sample, resources: Any) -> Score:
        calls.append(sample.answer or "")
        if sample.answer == "fail":
            return Score.failed("judge said nothing")
        if sample.answer == "undef":
            return Score.undefined("not applicable")
        return Score.ok(values[sample.answer or ""])

    items = [
        LabelledSample(i, Sample(question="q", question_id=f"q{i}", answer=a), {"faithfulness": y})
        for i, (a, y) in enumerate([*labels.items(), ("a", 1)], start=1)
    ]
    sc = PairScorer("ragas:faithfulness", "faithfulness", "ragas", score=score)
    (res,) = await score_labels(items, [sc], resources=object())  # type: ignore[arg-type]
    assert sorted(calls) == sorted(labels)  # the repeated "a" row was scored once
    pos, neg = [0.9, 0.6, 0.4, 0.9], [0.5, 0.1]
    by_hand = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in itertools.product(pos, neg))
    assert res.auroc == pytest.approx(by_hand / 8)
    got = res.as_dict()
    s = [0.9, 0.6, 0.4, 0.5, 0.1, 0.9]
    y = [1, 1, 1, 0, 0, 1]
    assert got["calibration"]["brier"] == pytest.approx(
        sum((a - b) ** 2 for a, b in zip(s, y, strict=True)) / 6
    )
    # bins 0.9 (2 rows, rate 1), 0.6, 0.4, 0.5, 0.1: |0.9-1|*2 + .4 + .6 + .5 + .1 over 6
    assert got["calibration"]["ece"] == pytest.approx((0.2 + 0.4 + 0.6 + 0.5 + 0.1) / 6)
    assert got["accuracy_at_0_5"] == pytest.approx(4 / 6)
    assert (got["n_labelled"], got["n_positive"], got["n_scored"]) == (8, 5, 6)
    assert (got["n_failed"], got["n_undefined"]) == (1, 1)
    assert got["first_failure"] == "judge said nothing"
    low, high = got["auroc_ci95"]
    assert 0.0 <= low <= res.auroc <= high <= 1.0
    assert res.auroc_ci() == res.auroc_ci()  # seeded: a re-run prints the same interval
    assert [r["row"] for r in got["rows"]] == list(range(1, 9))


# --- fail fast, exit 2, before any model ----------------------------------------------------


@pytest.fixture()
def no_models(monkeypatch: pytest.MonkeyPatch) -> None:
    from ragmeter.meta_eval import _labels_api

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a model was built")

    monkeypatch.setattr(_labels_api, "build_resources", refuse)


BAD = [
    ([{"question": "q", "answer": "a", "contexts": ["c"]}], [], "no label column"),
    (
        [_row("a", faithfulness=1), _row("b", faithfulness="maybe")],
        [],
        "row 2, field 'label_faithfulness': not a binary label: 'maybe'",
    ),
    ([_row("a", faithfulness=0.7)], [], "not a binary label: 0.7"),
    (
        [_row("a", faithfulness=1), _row("b", faithfulness=0)],
        ["--dimensions", "answer_relevance"],
        "field 'label_answer_relevance': no row is labelled for answer_relevance",
    ),
    (
        [_row("a", faithfulness=1), _row("b", faithfulness="yes")],
        [],
        "all 2 labelled row(s) are positive (1): AUROC is undefined with one class",
    ),
    (
        [_row("a", faithfulness=1), _row("b", faithfulnes=0)],
        [],
        "row 2, field 'label_faithfulnes': unknown label column",
    ),
    (
        [_row("a", faithfulness=1), {"question": "q", "answer": "b", "label_faithfulness": 0}],
        [],
        "row 2, field 'label_faithfulness': labelled, but faithfulness needs "
        "question+answer+contexts",
    ),
    (
        [_row("a", faithfulness=1), _row("b", faithfulness=0)],
        ["--baselines", "k_precision,gpt_ranking"],
        "gpt_ranking ranks two answers",
    ),
    (
        [_row("a", faithfulness=1), _row("b", faithfulness=0)],
        ["--dimensions", "faithfulness,nope"],
        "unknown dimension(s) ['nope']",
    ),
]


@pytest.mark.parametrize(("rows", "extra", "said"), BAD)
def test_bad_labels_exit_2_before_any_model(
    rows: list[dict[str, Any]], extra: list[str], said: str, tmp_path: Path, no_models: None
) -> None:
    data = _write(tmp_path / "labels.jsonl", rows)
    out = tmp_path / "m.json"
    args = ["meta-eval", "labels", "--data", str(data), "--judge", "openai:fake"]
    result = CliRunner().invoke(app, [*args, *extra, "-o", str(out)], env=ENV)
    assert result.exit_code == 2, result.output
    assert said in " ".join(result.output.split()), result.output
    assert not out.exists()


def test_limit_applies_before_the_class_check(tmp_path: Path) -> None:
    """--limit 1 leaves one class: said, as with a whole file of one class."""
    from ragmeter import meta_eval

    data = _write(tmp_path / "l.jsonl", [_row("a", faithfulness=1), _row("b", faithfulness=0)])
    with pytest.raises(DataError, match="one class"):
        meta_eval.run("labels", data, settings={"judge": "openai:fake"}, limit=1)


# --- end to end on a fake OpenAI-compatible judge -------------------------------------------


def _cli(server: Any, data: Path, out: Path, *extra: str) -> Any:
    return CliRunner().invoke(
        app,
        [
            *("meta-eval", "labels", "--data", str(data), "--judge", "openai:fake"),
            *("--base-url", server.url, "--embedder", "none", "--cache", "off"),
            *("--baselines", "k_precision,question_overlap,context_overlap,gpt_score"),
            *("-o", str(out), *extra),
        ],
        env=ENV,
    )


def test_cli_on_the_example_file_table_json_and_result(tmp_path: Path) -> None:
    out = tmp_path / "labels.json"
    with fake_server.FakeOpenAIServer() as server:
        result = _cli(server, EXAMPLE, out)
    assert result.exit_code == 0, result.output
    payload = json.loads(out.read_text())
    text = out.read_text()
    assert "sk-test" not in text and "sk-test" not in result.output
    assert payload["dataset"] == "labels" and payload["n_rows"] == 12
    assert payload["dimensions"] == ["faithfulness", "answer_relevance", "context_relevance"]
    assert payload["n_labelled"] == {"faithfulness": 12, "answer_relevance": 12,
                                     "context_relevance": 10}  # fmt: skip
    names = {(r["dimension"], r["name"]) for r in payload["results"]}
    assert ("faithfulness", "k_precision") in names and (
        "faithfulness",
        "gpt_score:faithfulness",
    ) in names
    fields = _fields(result.stdout.strip().splitlines()[-1])
    for r in payload["results"]:  # every number recomputed by hand from the rows written
        rows = [x for x in r["rows"] if x["status"] == "ok" and x["value"] is not None]
        pos = [x["value"] for x in rows if x["label"] == 1]
        neg = [x["value"] for x in rows if x["label"] == 0]
        pairs = list(itertools.product(pos, neg))
        by_hand = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in pairs) / len(pairs)
        assert r["auroc"] == pytest.approx(by_hand)
        brier = sum((x["value"] - x["label"]) ** 2 for x in rows) / len(rows)
        assert r["calibration"]["brier"] == pytest.approx(brier)
        assert r["n_labelled"] == payload["n_labelled"][r["dimension"]]
        dim = r["dimension"]
        if r["kind"] == "ragas":
            assert fields[f"{dim}_auroc"] == f"{by_hand:.3f}"
            assert fields[f"{dim}_brier"] == f"{brier:.3f}"
            assert fields[f"{dim}_n"] == str(r["n_labelled"]) and fields[f"{dim}_failed"] == "0"
            assert float(fields[f"{dim}_auroc_lo"]) <= by_hand <= float(fields[f"{dim}_auroc_hi"])
        else:
            assert fields[f"{dim}_{r['name'].split(':')[0]}_auroc"] == f"{by_hand:.3f}"
    assert int(fields["judge_calls"]) > 0
    assert "AUROC [95% CI]" in result.stdout and "reliability" in result.stdout


def test_each_sample_is_scored_once_per_scorer(tmp_path: Path) -> None:
    """Three rows, one labelled dimension: the faithfulness judge sees three samples, not
    more (the fake server counts the requests); the JSON says 3 scored items."""
    rows = [_row("It opened in 1889.", faithfulness=1), _row("It opened in 1925.", faithfulness=0),
            _row("It opened in 1889 in Paris.", faithfulness="yes")]  # fmt: skip
    data = _write(tmp_path / "l.jsonl", rows)
    out = tmp_path / "o.json"
    with fake_server.FakeOpenAIServer() as server:
        result = _cli(server, data, out)
    assert result.exit_code == 0, result.output
    payload = json.loads(out.read_text())
    assert payload["dimensions"] == ["faithfulness"]  # the one labelled
    (ragas,) = [r for r in payload["results"] if r["kind"] == "ragas"]
    assert ragas["scored_items"] == 3 and len(ragas["rows"]) == 3


def test_a_failed_score_is_left_out_and_exits_1(tmp_path: Path) -> None:
    data = _write(tmp_path / "l.jsonl", [_row("a", faithfulness=1), _row("b", faithfulness=0)])
    out = tmp_path / "o.json"
    with fake_server.FakeOpenAIServer(fault_fn=probe_passes("500")) as server:
        result = _cli(server, data, out, "--baselines", "k_precision")
    assert result.exit_code == 1, result.output
    payload = json.loads(out.read_text())
    (ragas,) = [r for r in payload["results"] if r["kind"] == "ragas"]
    assert ragas["n_failed"] == 2 and ragas["auroc"] is None
    fields = _fields(result.stdout.strip().splitlines()[-1])
    assert fields["faithfulness_auroc"] == "—" and fields["faithfulness_failed"] == "2"
    assert fields["faithfulness_k_precision_auroc"] != "—"
    assert "left out" in result.stderr


def test_python_api_and_csv_labels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``meta_eval.run("labels", ...)`` reads a CSV as evaluate does; blank cells are "not
    labelled"; --dimensions restricts."""
    from ragmeter import Settings, meta_eval

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    path = tmp_path / "l.csv"
    path.write_text(
        "question,answer,contexts,label_faithfulness,label_answer_relevance\n"
        'When?,In 1889.,"[""It opened in 1889.""]",yes,\n'
        'When?,In 1925.,"[""It opened in 1889.""]",no,1\n'
        'When?,Paris.,"[""It opened in 1889.""]",,0\n'
    )
    with fake_server.FakeOpenAIServer() as server:
        s = Settings(judge="openai:fake", base_url=server.url, embedder="none", cache="off")
        report = meta_eval.run("labels", path, settings=s, baselines="k_precision",
                               dimensions="faithfulness")  # fmt: skip
    assert isinstance(report, meta_eval.LabelsReport)
    assert report.payload["n_labelled"] == {"faithfulness": 2}
    assert {r.name for r in report.results} == {"ragas:faithfulness", "k_precision"}
    assert report.exit_code() == 0
    assert report.result_line().startswith("RESULT faithfulness_auroc=")


def test_a_cached_rerun_asks_no_verdict_again(tmp_path: Path) -> None:
    """--cache is honoured: the second run's judged calls all come from the cache."""
    rows = [_row("It opened in 1889.", faithfulness=1), _row("It opened in 1925.", faithfulness=0)]
    data = _write(tmp_path / "l.jsonl", rows)
    cache = str(tmp_path / "cache")
    with fake_server.FakeOpenAIServer() as server:
        first = _cli(server, data, tmp_path / "1.json", "--cache", cache)
        second = _cli(server, data, tmp_path / "2.json", "--cache", cache)
    assert first.exit_code == second.exit_code == 0, second.output
    r1 = _fields(first.stdout.strip().splitlines()[-1])
    r2 = _fields(second.stdout.strip().splitlines()[-1])
    assert int(r1["judge_calls"]) > 0 and r2["judge_calls"] == "0"
    assert r2["judge_cached_calls"] == r1["judge_calls"]
    assert r2["faithfulness_auroc"] == r1["faithfulness_auroc"]
