"""Slices by a column read from CSV, whose cells are strings: numbers written as text are
binned as JSONL's numbers are, ids and words are not, and a CSV run compares with a JSONL
run of the same rows without a false "another value in B" warning.

Before: ``evaluate data.csv --by ctx_len`` over 30 distinct lengths printed 30 one-row
slices (JSONL gave 5 bins); one "n/a" among numbers did the same; comparing the JSONL run
with its CSV copy by a boolean column warned that every id had another value in B."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app
from ragmeter.io import load_file as load_samples
from ragmeter.slices import MISSING, N_BINS, column_labels, slice_summary

runner = CliRunner()
FIELDS = ("question_id", "question", "answer", "reference_answers")


def _rows(column: list[Any]) -> list[dict[str, Any]]:
    """Rows whose answers are right on even questions only, ``x`` from ``column``."""
    out = []
    for i, x in enumerate(column, start=1):
        row = {k: v for k, v in make_row(i).items() if k in FIELDS}
        row["answer"] = row["answer"] if i % 2 == 0 else "Nothing useful here."
        out.append(row | ({} if x is None else {"x": x}))
    return out


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, [*FIELDS, "x"])
        writer.writeheader()
        for row in rows:
            cells = {k: json.dumps(v) if isinstance(v, list) else v for k, v in row.items()}
            writer.writerow(cells)
    return path


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _labels(path: Path) -> list[str]:
    return column_labels([s.metadata.get("x") for s in load_samples(path)])


def test_a_csv_column_of_numbers_is_binned_as_the_same_jsonl_column_is(tmp_path):
    lengths = [i * 37 for i in range(1, 31)]  # 30 distinct context lengths
    rows = _rows(lengths)
    from_csv = load_samples(_write_csv(tmp_path / "d.csv", rows))
    from_jsonl = load_samples(_write_jsonl(tmp_path / "d.jsonl", rows))
    assert [s.metadata["x"] for s in from_csv] == [str(n) for n in lengths]  # kept as text
    csv_labels = _labels(tmp_path / "d.csv")
    assert csv_labels == _labels(tmp_path / "d.jsonl") == column_labels(lengths)
    assert len(set(csv_labels)) == N_BINS
    a = ragmeter.evaluate(from_csv, "token_f1", n_resamples=50)
    b = ragmeter.evaluate(from_jsonl, "token_f1", n_resamples=50)
    summary = [(r.value, r.n, r.mean) for r in slice_summary(a, "x")]
    assert summary == [(r.value, r.n, r.mean) for r in slice_summary(b, "x")]
    assert {s.metadata["x"] for s in a.samples} == {str(n) for n in lengths}  # never changed


def test_evaluate_by_a_csv_number_column_prints_bins(tmp_path):
    data = _write_csv(tmp_path / "d.csv", _rows([f"{i * 1.5}" for i in range(1, 31)]))
    res = runner.invoke(app, ["evaluate", str(data), "-m", "token_f1", "--by", "x"])
    assert res.exit_code == 0, res.output
    assert "[1.5, 10.2)" in res.output and "[36.3, 45]" in res.output
    assert "22.5 " not in res.output  # no one-row slice of its own
    run = tmp_path / "run"
    res = runner.invoke(app, ["evaluate", str(data), "-m", "token_f1", "-o", str(run)])
    assert res.exit_code == 0, res.output
    html = tmp_path / "r.html"
    res = runner.invoke(app, ["report", str(run), "-o", str(html), "--by", "x"])
    assert res.exit_code == 0, res.output
    text = html.read_text(encoding="utf-8")
    assert "[1.5, 10.2)" in text and "[36.3, 45]" in text and ">22.5<" not in text


def test_compare_and_report_of_csv_runs_slice_by_the_same_bins(tmp_path):
    lengths = [str(i * 37) for i in range(1, 31)]
    a = load_samples(_write_csv(tmp_path / "a.csv", _rows(lengths)))
    rows_b = [dict(r, answer=make_row(i)["answer"]) for i, r in enumerate(_rows(lengths), 1)]
    b = load_samples(_write_csv(tmp_path / "b.csv", rows_b))
    run_a = ragmeter.evaluate(a, "token_f1", n_resamples=50)
    run_b = ragmeter.evaluate(b, "token_f1", n_resamples=50)
    cmp = ragmeter.compare(run_a, run_b, by="x", n_resamples=50)
    assert {s.value for s in cmp.slices} == set(column_labels(lengths))
    assert len(cmp.slices) == N_BINS and sum(s.n for s in cmp.slices) == 30
    assert {r.value for r in slice_summary(run_a, "x")} == {s.value for s in cmp.slices}


@pytest.mark.parametrize(
    ("column", "numeric"),
    [
        ([f"{i}.25" for i in range(30)], True),  # decimals
        ([f"{i}e3" for i in range(1, 31)], True),  # exponents
        ([f"-{i}" for i in range(1, 31)], True),  # negative
        ([f" {i}" for i in range(1, 31)], True),  # a space after the comma
        ([f"{i:03d}" for i in range(1, 31)], False),  # "001": ids, as written
        ([f"0{i + 2130}" for i in range(30)], False),  # "02130": ZIP codes, as written
        ([f"{i}_000" for i in range(1, 31)], False),  # float() reads it; no one writes it
        ([f"0x{i:x}" for i in range(1, 31)], False),  # hex: a code
    ],
)
def test_which_text_is_a_number(tmp_path, column, numeric):
    labels = _labels(_write_csv(tmp_path / "d.csv", _rows(column)))
    assert (len(set(labels)) == N_BINS) is numeric
    if not numeric:
        assert labels == column


def test_a_mixed_column_bins_its_numbers_and_keeps_each_word_as_written(tmp_path):
    """One "n/a" among the lengths gave 31 one-row slices; a missing cell stays missing."""
    column = [*[str(i * 37) for i in range(1, 31)], "n/a", "n/a", None, "1e400"]
    labels = _labels(_write_csv(tmp_path / "d.csv", _rows(column)))
    assert len(set(labels[:30])) == N_BINS
    assert labels[30:] == ["n/a", "n/a", MISSING, "1e400"]
    assert column_labels([*range(30), "other"])[-1] == "other"  # JSON alike
    assert len(set(column_labels([*range(30), "other"]))) == N_BINS + 1


def test_a_jsonl_run_and_its_csv_copy_compare_without_a_false_warning(tmp_path):
    """true in JSONL is "true" in CSV, 3.5 may be "3.50": the values are the same."""
    flags = [i % 3 == 0 for i in range(1, 13)]
    rows = _rows(flags)
    a = ragmeter.evaluate(load_samples(_write_jsonl(tmp_path / "a.jsonl", rows)), "token_f1")
    csv_rows = [dict(r, x="true" if r["x"] else "false") for r in rows]
    b = ragmeter.evaluate(load_samples(_write_csv(tmp_path / "b.csv", csv_rows)), "token_f1")
    cmp = ragmeter.compare(a, b, by="x", n_resamples=50)
    assert not [w for w in cmp.warnings if "another value" in w], cmp.warnings
    assert len(cmp.slices) == 2  # the same two slices, by A's labels
    rows_b = [dict(r, x="3.50" if r["x"] else "4") for r in rows]
    c = ragmeter.evaluate(load_samples(_write_csv(tmp_path / "c.csv", rows_b)), "token_f1")
    d_rows = [dict(r, x=3.5 if r["x"] else 4) for r in rows]
    d = ragmeter.evaluate(load_samples(_write_jsonl(tmp_path / "d.jsonl", d_rows)), "token_f1")
    assert not [w for w in ragmeter.compare(d, c, by="x").warnings if "another value" in w]
    changed = [dict(r, x="false") for r in csv_rows]  # a real difference is still said
    e = ragmeter.evaluate(load_samples(_write_csv(tmp_path / "e.csv", changed)), "token_f1")
    assert [w for w in ragmeter.compare(a, e, by="x").warnings if "another value" in w]
