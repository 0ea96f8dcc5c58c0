"""A key given twice in one JSON object is refused, naming the file, the row and line, and
the key, by every reader: JSON readers keep one of the two values (Python's the last), so
``{"answer": "x", "answer": "y"}`` was scored on "y" and "x" was lost without a word. Two
columns of one name in a Parquet file or an Arrow table are the same loss, refused too."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app
from ragmeter.errors import DataError
from ragmeter.executors._ray_source import plan_chunks, read_chunk
from ragmeter.executors.source import _validate, check_file

TWICE = "the key '{key}' is given twice in one object (the second at {at}): JSON readers keep "
TWICE += "only one of the two values and lose the other without a word; remove or rename one"
BRIEF = '{"question": "a", "answer": "x", "answer": "y", "contexts": ["..."]}'


def twice(key: str, at: str) -> str:
    return TWICE.format(key=key, at=at)


def _problems(call) -> tuple[list[str], str | None]:
    with pytest.raises(DataError) as info:
        call()
    return [str(p) for p in info.value.problems], info.value.source


def _jsonl(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_brief_s_row_is_refused_not_scored_on_its_last_answer(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, json.dumps(make_row(1)), "", BRIEF)
    said, source = _problems(lambda: ragmeter.load(path))
    assert source == str(path)
    assert said == [f"row 2, line 3, field 'answer': {twice('answer', 'column 34 of the line')}"]


@pytest.mark.parametrize(
    ("line", "field", "column"),
    [
        # nested: in metadata, and in a list of objects inside it
        ('{"question": "q", "metadata": {"src": "a", "src": "b"}}', "metadata.src", 44),
        (
            '{"question": "q", "metadata": {"docs": [{"id": 1}, {"id": 2, "id": 3}]}}',
            "metadata.docs[1].id",
            62,
        ),
        # the same key spelt with an escape; a line jiter refuses for its lone surrogate
        ('{"question": "q", "\\u0071uestion": "r"}', "question", 19),
        ('{"question": "q\\ud83d", "answer": "a", "answer": "b"}', "answer", 40),
        # the same value twice loses nothing, but which was meant is still unknown
        ('{"question": "q", "question": "q"}', "question", 19),
    ],
)
def test_a_repeated_key_is_refused_at_any_depth(tmp_path: Path, line, field, column) -> None:
    """The column is the second occurrence's (its opening quote)."""
    path = _jsonl(tmp_path, line)
    key = field.rsplit(".", 1)[-1].split("[")[0]
    said, _ = _problems(lambda: ragmeter.load(path))
    assert said == [f"row 1, field '{field}': {twice(key, f'column {column} of the line')}"]


@pytest.mark.parametrize("size", [1, 2, 1000])
def test_the_stream_and_ray_readers_say_what_load_says(tmp_path: Path, size: int) -> None:
    path = _jsonl(
        tmp_path,
        json.dumps(make_row(1)),
        BRIEF,
        '{"question": "q", "metadata": {"k": 1, "k": 2}}',
        json.dumps(make_row(4)),
    )
    local, _ = _problems(lambda: ragmeter.load(path))
    assert [p.split(":")[0] for p in local] == [
        "row 2, field 'answer'",
        "row 3, field 'metadata.k'",
    ]
    assert _problems(lambda: check_file(path, batch_size=size)) == (local, str(path))
    ray: list[str] = []
    for chunk in plan_chunks(path, "jsonl", size):
        for batch in read_chunk(str(path), "jsonl", chunk, size):
            ray += [str(p) for p in _validate(batch, str(path))[1]]
    assert ray == local


@pytest.mark.parametrize("executor", ["local", "stream", "ray"])
def test_cli_exits_2_before_scoring(tmp_path: Path, executor: str) -> None:
    """Ray's driver validates the file as the stream executor does, before starting Ray."""
    path = _jsonl(tmp_path, json.dumps(make_row(1)), BRIEF)
    out = tmp_path / "out"
    args = ["evaluate", str(path), "-m", "token_f1", "-o", str(out), "--executor", executor]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert "d.jsonl" in said and "row 2, field 'answer': the key 'answer' is given twice" in said
    assert not (out / "scores.jsonl").exists()


def test_a_json_document_names_the_row_and_the_line(tmp_path: Path) -> None:
    rows = [make_row(1), {"question": "q", "answer": "x", "metadata": {"k": 1}}]
    text = json.dumps(rows, indent=2).replace('"k": 1', '"k": 1,\n      "k": 2')
    for doc, name in ((text, "list.json"), (f'{{"samples": {text}}}', "samples.json")):
        path = tmp_path / name
        path.write_text(doc)
        line = doc.splitlines().index('      "k": 2') + 1
        said, source = _problems(lambda path=path: ragmeter.load(path))
        assert source == str(path)
        assert said == [f"row 2, field 'metadata.k': {twice('k', f'line {line}, column 7')}"]


def test_a_json_document_with_a_column_given_twice(tmp_path: Path) -> None:
    path = tmp_path / "columns.json"
    path.write_text('{"question": ["q1"], "answer": ["a"], "answer": ["b"]}')
    said, _ = _problems(lambda: ragmeter.load(path))
    assert said == [f"field 'answer': {twice('answer', 'column 39')}"]


def test_a_csv_metadata_cell(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text('question,metadata\nq1,"{""a"": 1, ""a"": 2}"\n')
    said, _ = _problems(lambda: ragmeter.load(path))
    assert said == [f"row 1, line 2, field 'metadata.a': {twice('a', 'column 10 of the cell')}"]


def test_parquet_with_two_columns_of_one_name(tmp_path: Path) -> None:
    """pyarrow writes it; to_pylist kept the second column's values and scored them."""
    path = tmp_path / "d.parquet"
    table = pa.Table.from_arrays(
        [pa.array(["q"]), pa.array(["x"]), pa.array(["y"])], names=["question", "answer", "answer"]
    )
    pq.write_table(table, path)
    said = [
        "field 'answer': the file has 2 columns named 'answer': a record keeps only one of their "
        "values, so the others would be lost; rename or drop them"
    ]
    assert _problems(lambda: ragmeter.load(path)) == (said, str(path))
    assert _problems(lambda: check_file(path)) == (said, str(path))
    assert (
        _problems(
            lambda: list(read_chunk(str(path), "parquet", plan_chunks(path, "parquet", 1)[0], 1))
        )[0]
        == said
    )
    assert _problems(lambda: ragmeter.load(table))[0] == [said[0].replace("file", "table")]


def test_valid_rows_read_as_before(tmp_path: Path) -> None:
    """Equal keys in different objects are no repeat; values are json.loads's."""
    row = make_row(1, metadata={"k": {"k": [{"k": 1}, {"k": 2}]}, "n": 10**30, "f": 1.5})
    path = _jsonl(tmp_path, "\ufeff" + json.dumps(row), json.dumps(make_row(2)))
    samples = ragmeter.load(path)
    assert samples[0].metadata == row["metadata"]
    assert [s.question_id for s in samples] == ["q1", "q2"]
