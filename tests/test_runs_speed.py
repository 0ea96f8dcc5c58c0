"""load_run's fast reading returns exactly what the reading before it did.

Why: ``load_run`` took about 15 s and 1.5 GB on a 200k-row run (json.loads line by line, a
Score built per value, a validated Sample per row); it now parses with jiter, keeps scores
as ScoreColumns and builds Samples unvalidated when their types are known. These tests hold
it to the old reading (``_reference`` below, as runs.py read a run before) field by field,
on a run with every status, reasons, details, metadata and odd values.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import make_row

import ragmeter
from ragmeter import runs
from ragmeter.metrics.base import Score
from ragmeter.metrics.column import ScoreColumn
from ragmeter.run_aggregates import run_aggregates
from ragmeter.runs import Run, load_run
from ragmeter.sample import Sample

METRICS = ["token_f1", "k_precision", "mrr", "refusal_rate"]


def _old_sample(row: dict[str, Any]) -> Sample:
    contexts, ids, meta = row.get("contexts"), row.get("context_ids"), row.get("metadata")
    return Sample(
        question_id=str(row["question_id"]),
        question=str(row.get("question") or ""),
        answer=row.get("answer"),
        contexts=list(contexts) if isinstance(contexts, list) else None,
        context_ids=[str(i) for i in ids] if isinstance(ids, list) else None,
        metadata=dict(meta) if isinstance(meta, dict) else {},
    )


def _old_score(row: dict[str, Any], metric: str) -> Score:
    status = (row.get("status") or {}).get(metric, "ok")
    reason = (row.get("reasons") or {}).get(metric)
    details = (row.get("details") or {}).get(metric) or {}
    value = row.get(metric)
    if status == "ok" and value is None:
        status, reason = "undefined", reason or "no value recorded"
    return Score(None if value is None else float(value), status, reason, dict(details))


def _reference(directory: Path) -> Run:
    """A valid run directory read as load_run read it before the fast path."""
    summary = json.loads((directory / "summary.json").read_text(encoding="utf-8"))
    manifest = json.loads((directory / "run.json").read_text(encoding="utf-8"))
    with (directory / "scores.jsonl").open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    metrics = list(summary["metrics"])
    scores = {m: [_old_score(row, m) for row in rows] for m in metrics}
    config = dict(summary.get("config") or {})
    aggregates, edited = run_aggregates(summary["metrics"], scores, config)
    result = ragmeter.EvaluationResult(
        samples=[_old_sample(row) for row in rows],
        metrics=metrics,
        scores=scores,
        aggregates=aggregates,
        notes=[*([edited] if edited else []), *(summary.get("notes") or [])],
        usage=dict(summary.get("usage") or {}),
        config=config,
        manifest=manifest,  # since 2026-11-27 the result read holds its run.json too
    )
    return Run(result, manifest, str(directory))


def _assert_same(new: Run, old: Run) -> None:
    """Equal field by field, down to each value's type and each Sample's set fields."""
    a, b = new.result, old.result
    assert (new.manifest, new.source) == (old.manifest, old.source)
    assert (a.metrics, a.aggregates, a.notes, a.usage, a.config) == (
        b.metrics,
        b.aggregates,
        b.notes,
        b.usage,
        b.config,
    )
    assert len(a.samples) == len(b.samples)
    for x, y in zip(a.samples, b.samples, strict=True):
        assert x == y
        assert (x.model_fields_set, type(x.model_fields_set)) == (y.model_fields_set, set)
        assert list(x.__dict__.items()) == list(y.__dict__.items())
    assert list(a.scores) == list(b.scores)
    for metric, column in a.scores.items():
        got, want = list(column), b.scores[metric]
        assert got == want, metric
        for s, t in zip(got, want, strict=True):
            assert (type(s.value), type(s.details)) == (type(t.value), type(t.details))
    assert a == b


def _odd_run(tmp_path: Path) -> Path:
    """A real run of 40 rows, its records then edited to hold every status, reasons, details,
    metadata, unicode, a NaN written as null, an int value, an explicit "ok"."""
    data = [make_row(i) for i in range(40)]
    data[3]["metadata"] = {"lang": "日本語", "emoji": "🙂", "nested": {"k": [1, 2.5, None]}}
    data[4]["question"] = 'Quote " and back\\slash\tand \u2028 line separator?'
    data[5]["answer"] = "I don't know"
    del data[6]["reference_context_ids"], data[6]["reference_contexts"]  # mrr skipped
    out = tmp_path / "run"
    ragmeter.evaluate(data, METRICS, out=out, n_resamples=50)
    path = out / "scores.jsonl"
    records = [json.loads(x) for x in path.read_text(encoding="utf-8").split("\n") if x]
    records[7]["token_f1"] = None  # a NaN written as null, no status: undefined
    records[8].update(token_f1=None, status={"token_f1": "undefined"})
    records[8]["reasons"] = {"token_f1": "no tokens in the answer"}
    records[9].update(k_precision=None, status={"k_precision": "failed", "mrr": "ok"})
    records[9]["reasons"] = {"k_precision": "model error: 500 – naïve"}
    records[9]["details"]["k_precision"] = {"attempts": 3, "last": "timeout"}
    records[10].update(refusal_rate=1, status={"refusal_rate": "ok"})  # an int, stated ok
    records[11].update(mrr=0.5, status={"mrr": "skipped"}, reasons={"mrr": None})
    records[12]["metadata"] = {}
    del records[13]["contexts"], records[13]["context_ids"]
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=i % 2 == 0) + "\n" for i, r in enumerate(records))
        + "\n",  # a blank last line
        encoding="utf-8",
    )
    return out


def test_the_fast_reading_returns_what_the_old_reading_did(tmp_path: Path) -> None:
    out = _odd_run(tmp_path)
    new, old = load_run(out), _reference(out)
    statuses = {s.status for column in old.result.scores.values() for s in column}
    assert statuses == {"ok", "undefined", "skipped", "failed"}  # the run holds every one
    assert all(isinstance(c, ScoreColumn) for c in new.result.scores.values())
    _assert_same(new, old)
    seventh = new.result.scores["token_f1"][7]
    assert (seventh.value, seventh.status, seventh.reason) == (
        None,
        "undefined",
        "no value recorded",
    )
    assert new.result.samples[3].metadata["nested"] == {"k": [1, 2.5, None]}


def test_a_file_left_to_the_old_reading_gives_the_same_run(tmp_path: Path) -> None:
    """Windows line endings take the line-by-line reading; the run read is the same."""
    out = _odd_run(tmp_path)
    fast = load_run(out)
    path = out / "scores.jsonl"
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    _assert_same(load_run(out), fast)


def test_details_that_are_no_object_are_read_as_before(tmp_path: Path) -> None:
    """Pairs where an object belongs become the dict they always became, at load time."""
    out = _odd_run(tmp_path)
    path = out / "scores.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]
    records[0]["details"]["token_f1"] = [["common_tokens", 2]]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    new = load_run(out)
    _assert_same(new, _reference(out))
    assert new.result.scores["token_f1"][0].details == {"common_tokens": 2}


def test_a_clean_run_is_read_without_a_score_a_validation_or_a_json_loads_per_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What made 200k rows take 15 s: json.loads per line, a Score per (row, metric), a
    validated Sample per row. None of them happens per row now; the aggregates are those
    summary.json holds, and a Score read is built then."""
    out = tmp_path / "run"
    ragmeter.evaluate([make_row(i) for i in range(300)], METRICS, out=out, n_resamples=50)
    calls = {"loads": 0, "score": 0, "validated": 0}
    loads, score_init, sample_init = runs.loads, Score.__init__, Sample.__init__

    def counted_loads(*args: Any, **kwargs: Any) -> Any:
        calls["loads"] += 1
        return loads(*args, **kwargs)

    def counted_score(self: Score, *args: Any, **kwargs: Any) -> None:
        calls["score"] += 1
        score_init(self, *args, **kwargs)

    def counted_sample(self: Sample, **kwargs: Any) -> None:
        calls["validated"] += 1
        sample_init(self, **kwargs)

    monkeypatch.setattr(runs, "loads", counted_loads)
    monkeypatch.setattr(Score, "__init__", counted_score)
    monkeypatch.setattr(Sample, "__init__", counted_sample)
    run = load_run(out)
    assert calls == {"loads": 2, "score": 0, "validated": 0}  # summary.json, run.json
    assert len(run.result.samples) == 300
    kept = json.loads((out / "summary.json").read_text(encoding="utf-8"))["metrics"]
    assert math.isclose(run.result.aggregates["mrr"].mean, kept["mrr"]["mean"])
    assert run.result.scores["mrr"][0].status == "ok"
    assert calls["score"] == 1


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (
            lambda b: b"\xef\xbb\xbf" + b,
            "row 1: scores.jsonl: invalid JSON: Unexpected UTF-8 BOM (decode using utf-8-sig) "
            "(column 1)",
        ),
        (
            lambda b: b.replace(b'"q2"', b'"q2\xff"', 1),
            "field 'scores.jsonl': not UTF-8 text: invalid start byte",
        ),
        (
            lambda b: b.replace(b"\n", b"\n[1, 2]\n", 1),
            "row 2, field 'question_id': a record needs",
        ),
    ],
    ids=["bom", "not-utf8", "not-a-record"],
)
def test_a_file_the_fast_reading_refuses_says_what_it_said(
    tmp_path: Path, damage: Any, said: str
) -> None:
    """What jiter refuses is read line by line, as before: the same problem, same words."""
    out = tmp_path / "run"
    ragmeter.evaluate([make_row(i) for i in range(4)], ["mrr"], out=out, n_resamples=0)
    path = out / "scores.jsonl"
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(ragmeter.DataError) as info:
        load_run(out)
    assert said in str(info.value)


def test_compare_reads_score_columns_as_it_reads_scores() -> None:
    """compare_pairs reads a ScoreColumn's arrays (a Score per row made compare of two
    200,000-sample runs 3x slower): the same values and failed ids as from the Scores."""
    from dataclasses import replace

    from tests.conftest import make_row

    import ragmeter
    from ragmeter.compare_pairs import failed_ids, values_of
    from ragmeter.metrics.base import Score
    from ragmeter.metrics.column import ScoreColumn
    from ragmeter.runs import Run

    scores = [Score(0.25), Score(None, "undefined", "no ref"), Score(None, "failed", "x"), Score(1)]
    nan = float("nan")
    column = ScoreColumn([0.25, nan, nan, 1.0], [0, 1, 3, 0], scores.__getitem__)
    base = ragmeter.evaluate([make_row(i) for i in range(1, 5)], ["token_f1"], n_resamples=0)
    as_list = Run(replace(base, scores={"token_f1": scores}))
    as_column = Run(replace(base, scores={"token_f1": column}))
    assert values_of(as_column, "token_f1") == values_of(as_list, "token_f1")
    assert values_of(as_column, "token_f1")["q1"] == 0.25
    assert failed_ids(as_column, "token_f1") == failed_ids(as_list, "token_f1") == {"q3"}
