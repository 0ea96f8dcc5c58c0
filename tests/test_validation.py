"""Bad input: each kind gets a clear error naming where it is, and the CLI exits 2, no traceback.

Row-level problems name the row (and the line where it differs) and the field; problems with
the requested metrics name the field 'metrics' or the missing fields; file-level problems
(empty, unreadable, a directory...) name the file and say what is wrong with it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app
from ragmeter.errors import DataError


def _jsonl(*rows) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def _no_ids(i: int) -> dict:
    return make_row(i, context_ids=None, reference_context_ids=None, reference_contexts=None)


@dataclass(frozen=True)
class Case:
    name: str
    filename: str
    content: str | bytes | None  # None: the path is made by `make`
    row: int | None  # expected problem row (None: file- or request-level)
    field: str | None  # expected field (None: none applies)
    message: str  # expected fragment of the message
    metrics: str | None = None
    line: int | None = None
    make: Callable[[Path], None] | None = None


CASES = [
    Case(
        "wrong type",
        "d.jsonl",
        _jsonl(make_row(1, question=42)),
        1,
        "question",
        "expected a string, got int",
    ),
    Case(
        "missing required field",
        "d.jsonl",
        _jsonl(make_row(1), make_row(2, question=None)),
        2,
        "question",
        "required field is missing",
    ),
    Case(
        "missing field for a requested metric",
        "d.jsonl",
        _jsonl(_no_ids(1), _no_ids(2)),
        None,
        "context_ids+reference_context_ids | contexts+reference_contexts",
        "metric 'mrr' needs",
        metrics="mrr",
    ),
    Case(
        "ids and texts of different lengths",
        "d.jsonl",
        _jsonl(make_row(1, context_ids=["only-one"])),
        1,
        "context_ids",
        "has 1 ids but 'contexts' has 2 texts",
    ),
    Case("empty file", "d.jsonl", "", None, None, "no rows"),
    Case("empty JSON file", "d.json", "  \n", None, None, "no rows"),
    Case("empty CSV file", "d.csv", "", None, None, "no rows"),
    Case(
        "unreadable JSON line",
        "d.jsonl",
        _jsonl(make_row(1)) + '\n{"question": "broken\n',
        2,
        None,
        "invalid JSON",
        line=3,
    ),
    Case(
        "not UTF-8",
        "d.jsonl",
        _jsonl(make_row(1)).encode() + b'{"question": "caf\xe9"}\n',
        2,
        None,
        "not UTF-8",
        line=2,
    ),
    Case(
        "duplicate question_id",
        "d.jsonl",
        _jsonl(make_row(1), make_row(1)),
        2,
        "question_id",
        "duplicate question_id 'q1' (first used in row 1)",
    ),
    Case(
        "ambiguous alias columns",
        "d.jsonl",
        _jsonl(make_row(1, response="a different answer")),
        1,
        "response",
        "both 'answer' and 'response' are given and differ",
    ),
    Case(
        "bad JSON array in a CSV cell",
        "d.csv",
        'question,contexts\nWhy?,"[""ok"""\n',
        1,
        "contexts",
        "must be a JSON array in CSV",
        line=2,
    ),
    Case(
        "unknown metric",
        "d.jsonl",
        _jsonl(make_row(1)),
        None,
        "metrics",
        "unknown metric 'faithfulnes'",
        metrics="mrr,faithfulnes",
    ),
    Case(
        "bad @k",
        "d.jsonl",
        _jsonl(make_row(1)),
        None,
        "metrics",
        "k must be a positive integer",
        metrics="ndcg@0",
    ),
    Case(
        "non-object row",
        "d.jsonl",
        _jsonl(make_row(1), [1, 2]),
        2,
        None,
        "expected an object with named fields, got list",
    ),
    Case(
        "list item not a string",
        "d.jsonl",
        _jsonl(make_row(1, contexts=["fine", 3])),
        1,
        "contexts[1]",
        "expected a string, got int",
    ),
    Case(
        "single string where a list is expected",
        "d.jsonl",
        _jsonl(make_row(1, contexts="one text", context_ids=None)),
        1,
        "contexts",
        "got a single string",
    ),
    Case(
        "metadata not an object",
        "d.jsonl",
        _jsonl(make_row(1, metadata=["hr"])),
        1,
        "metadata",
        "expected an object (dict), got list",
    ),
    Case(
        "is_answerable not a bool",
        "d.jsonl",
        _jsonl(make_row(1, is_answerable="maybe")),
        1,
        "is_answerable",
        "expected true or false",
    ),
    Case(
        "empty question",
        "d.jsonl",
        _jsonl(make_row(1, question="  ")),
        1,
        "question",
        "must not be empty",
    ),
    Case(
        "JSON that is not a list of rows",
        "d.json",
        "42",
        None,
        None,
        "expected a JSON list of objects",
    ),
    Case(
        "unsupported extension",
        "d.txt",
        "question\nWhy?\n",
        None,
        None,
        "unsupported file type '.txt'",
    ),
    Case("directory given", "adir", None, None, None, "is a directory", make=lambda p: p.mkdir()),
    Case(
        "file not found", "missing.jsonl", None, None, None, "file not found", make=lambda p: None
    ),
    Case(
        "corrupt Parquet",
        "d.parquet",
        b"PAR1 not really parquet",
        None,
        None,
        "unreadable Parquet file",
    ),
]


def _write(tmp_path: Path, case: Case) -> Path:
    path = tmp_path / case.filename
    if case.make is not None:
        case.make(path)
    elif isinstance(case.content, bytes):
        path.write_bytes(case.content)
    else:
        assert case.content is not None
        path.write_text(case.content, encoding="utf-8")
    return path


def _where(case: Case) -> list[str]:
    """The fragments an error line must hold to say where the problem is."""
    parts = [case.message]
    if case.row is not None:
        parts.append(f"row {case.row}")
    if case.line is not None and case.line != case.row:
        parts.append(f"line {case.line}")
    if case.field is not None:
        parts.append(f"field '{case.field}'")
    return parts


def test_at_least_fifteen_distinct_kinds(tmp_path):
    """The library tells at least 15 kinds of bad input apart: each case's expected message
    is a different one, and the library really produces it for that case."""
    produced = set()
    for i, case in enumerate(CASES):
        folder = tmp_path / str(i)
        folder.mkdir()
        with pytest.raises(DataError) as err:
            ragmeter.evaluate(_write(folder, case), case.metrics, n_resamples=0)
        if any(case.message in p.message for p in err.value.problems):
            produced.add(case.message)
    assert len(produced) == len({c.message for c in CASES}) >= 15, produced


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_library_error_names_row_and_field(tmp_path, case):
    path = _write(tmp_path, case)
    with pytest.raises(DataError) as err:
        ragmeter.evaluate(path, case.metrics, n_resamples=0)
    matching = [p for p in err.value.problems if case.message in p.message]
    assert matching, [str(p) for p in err.value.problems]
    problem = matching[0]
    assert problem.row == case.row
    assert problem.field == case.field
    if case.line is not None:
        assert problem.line == case.line
    text = str(problem)
    assert all(part in text for part in _where(case)), text


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_cli_exits_2_without_traceback(tmp_path, case):
    path = _write(tmp_path, case)
    args = ["evaluate", str(path), "--n-resamples", "10"]
    if case.metrics:
        args += ["--metrics", case.metrics]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
    flat = " ".join(result.output.split())
    assert "error:" in flat
    assert all(" ".join(part.split()) in flat for part in _where(case)), flat


def test_every_problem_is_collected_in_one_pass(tmp_path):
    path = tmp_path / "many.jsonl"
    path.write_text(
        _jsonl(
            make_row(1, question=1),
            make_row(2),
            make_row(3, metadata=4),
            make_row(4, contexts=["a", None, 5]),
            make_row(2),
        )
    )
    with pytest.raises(DataError) as err:
        ragmeter.load(path)
    located = {(p.row, p.field) for p in err.value.problems}
    assert located == {(1, "question"), (3, "metadata"), (4, "contexts[1]"), (5, "question_id")}
    assert "4 problem(s)" in str(err.value)


def test_unparseable_lines_and_invalid_rows_are_reported_together(tmp_path):
    # A broken JSON line must not hide the problems of the rows around it, and row numbers
    # stay those of the file (blank lines skipped), not of the parsed records.
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        json.dumps(make_row(1, question=3))
        + "\n{broken\n\n"
        + json.dumps(make_row(3))
        + "\n"
        + json.dumps(make_row(4, contexts="oops"))
        + "\n"
    )
    with pytest.raises(DataError) as err:
        ragmeter.load(path)
    located = [(p.row, p.line, p.field) for p in err.value.problems]
    assert located == [(1, 1, "question"), (2, 2, None), (4, 5, "contexts")]


def test_a_data_error_survives_pickling():
    """Pickled by a Ray task or a process pool, a DataError came back built from its message
    as if that were its problem list (one problem per character)."""
    import pickle

    from ragmeter.errors import DataError, Problem

    err = DataError([Problem(3, "answer", "must be a string")], "in.jsonl", total=7)
    back = pickle.loads(pickle.dumps(err))
    assert str(back) == str(err) and back.problems == err.problems
    assert back.source == "in.jsonl" and back.total == 7
