"""Files as other tools export them: Excel's semicolon CSV, pandas' ``to_csv`` of list
columns (ragas' ``EvaluationDataset.to_csv``), JSON Lines with a comma after each row or a
JSON document saved as ``.jsonl``. Each was refused with a message that did not say what
was wrong; now it is read, or refused naming the cause, and a streamed run says the same."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import ragmeter
from ragmeter.errors import DataError
from ragmeter.executors.source import check_file


def _load(path: Path) -> list[dict]:
    return [s.model_dump(exclude_none=True) for s in ragmeter.load(path)]


def _problems(call) -> list[str]:
    with pytest.raises(DataError) as info:
        call()
    return [str(p) for p in info.value.problems]


def test_excel_semicolon_csv_is_read(tmp_path: Path) -> None:
    """Excel in a comma-decimal locale saves ';'-separated CSV, with a BOM and CRLF; the
    header was taken for one column 'question;answer;contexts' and every row refused as
    "required field is missing"."""
    path = tmp_path / "excel.csv"
    text = (
        "question;answer;contexts;reference\r\n"
        'Where is Rome?;"Rome is in Italy; the capital";"[""Rome, Italy""]";Italy\r\n'
    )
    path.write_bytes(text.encode("utf-8-sig"))
    assert _load(path) == [
        {
            "question": "Where is Rome?",
            "question_id": _load(path)[0]["question_id"],
            "metadata": {},
            "answer": "Rome is in Italy; the capital",
            "contexts": ["Rome, Italy"],
            "reference_answers": ["Italy"],
        }
    ]


def test_semicolon_csv_with_a_bad_row_names_the_semicolon(tmp_path: Path) -> None:
    path = tmp_path / "excel.csv"
    path.write_text("question;answer\nq1;a;b\n", encoding="utf-8")
    assert _problems(lambda: ragmeter.load(path)) == [
        "row 1, line 2: has 3 fields where the header has 2 (question, answer): "
        "quote a cell holding a semicolon or a quote"
    ]


def test_a_comma_csv_whose_cells_hold_semicolons_stays_comma(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("question,answer\nq;1,a;b\n", encoding="utf-8")
    assert [(s["question"], s["answer"]) for s in _load(path)] == [("q;1", "a;b")]


def test_pandas_to_csv_list_columns_are_read(tmp_path: Path) -> None:
    """``df.to_csv`` writes a list cell as Python's repr (['a', "it's"]): ragas'
    EvaluationDataset.to_csv does so, and every row was refused as "must be a JSON array"."""
    df = pd.DataFrame(
        {
            "user_input": ["Where is Rome?"],
            "retrieved_contexts": [["Rome is in Italy.", 'It\'s "eternal".']],
            "retrieved_context_ids": [["d1", "d2"]],
            "response": ["In Italy."],
            "reference": ["Italy"],
            "reference_context_ids": [["d1"]],
            "metadata": [{"split": "dev", "n": 1}],
        }
    )
    path = tmp_path / "ragas.csv"
    df.to_csv(path, index=False)
    (row,) = _load(path)
    assert row["contexts"] == ["Rome is in Italy.", 'It\'s "eternal".']
    assert row["context_ids"] == ["d1", "d2"]
    assert row["reference_context_ids"] == ["d1"]
    assert row["metadata"] == {"split": "dev", "n": 1}


def test_a_numpy_array_as_pandas_prints_it_is_refused_not_merged(tmp_path: Path) -> None:
    """A list column read from Parquet is a numpy array; pandas prints it ['a' 'b'], which
    Python would read as ['ab'] (adjacent strings concatenate): two contexts made one."""
    path = tmp_path / "np.csv"
    path.write_text("question,contexts\nq,\"['a' 'b']\"\n", encoding="utf-8")
    (problem,) = _problems(lambda: ragmeter.load(path))
    assert problem.startswith(
        "row 1, line 2, field 'contexts': holds strings side by side with no comma between them"
    )


def test_a_python_expression_in_a_cell_is_not_run(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text("question,contexts\nq,\"[__import__('os').getcwd()]\"\n", encoding="utf-8")
    (problem,) = _problems(lambda: ragmeter.load(path))
    assert "must be a JSON array in CSV" in problem


@pytest.mark.parametrize("batch", [1, 1000])
def test_jsonl_with_a_comma_after_each_row_says_so(tmp_path: Path, batch: int) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text('{"question": "q1"},\n{"question": "q2"}\n', encoding="utf-8")
    local = _problems(lambda: ragmeter.load(path))
    assert local == [
        "row 1: invalid JSON: Extra data (column 19): a comma after the object; "
        "JSON Lines holds one object a line, with no comma"
    ]
    assert _problems(lambda: check_file(path, batch_size=batch)) == local


def test_a_json_document_saved_as_jsonl_says_so(tmp_path: Path) -> None:
    path = tmp_path / "doc.jsonl"
    path.write_text(json.dumps([{"question": "q"}], indent=2), encoding="utf-8")
    local = _problems(lambda: ragmeter.load(path))
    assert local[0] == (
        "row 1: invalid JSON: Expecting value (column 2): the line holds only '[', as "
        "a JSON document written over several lines starts; JSON Lines holds one whole "
        "object a line (a .json file reads such a document)"
    )
    assert _problems(lambda: check_file(path, batch_size=2)) == local


@pytest.mark.parametrize(
    ("row", "said"),
    [
        ({"input": "q", "actual_output": "a"}, "column 'input' is not read as the question"),
        ({"Question": "q"}, "column 'Question' is not read as the question"),
        ({"qestion": "q"}, "column 'qestion' is not read as the question"),
        (
            {"inputs": {"question": "q"}, "outputs": {"answer": "a"}},
            "column 'inputs' holds 'question', and nested fields are not read",
        ),
    ],
)
def test_a_missing_question_names_the_column_that_looks_like_one(row: dict, said: str) -> None:
    """DeepEval's 'input', LangSmith's nested 'inputs', a capitalised or misspelt header:
    every row was refused as "required field is missing", with no word of that column."""
    (problem,) = _problems(lambda: ragmeter.load([row]))
    assert problem.startswith("row 1, field 'question': required field is missing")
    assert said in problem


def test_a_missing_question_with_nothing_like_one_says_only_that() -> None:
    assert _problems(lambda: ragmeter.load([{"answer": "a"}])) == [
        "row 1, field 'question': required field is missing "
        "(also accepted as 'user_input' or 'query')"
    ]


def test_json_lines_saved_as_json_is_read(tmp_path: Path) -> None:
    """Hugging Face ``Dataset.to_json("data.json")`` writes JSON Lines by default; the file
    was refused as "invalid JSON: Extra data (line 2, column 1)"."""
    path = tmp_path / "data.json"
    pd.DataFrame(
        {"user_input": ["q1", "q2"], "retrieved_contexts": [["c1"], ["c2", "c3"]]}
    ).to_json(path, orient="records", lines=True)
    assert [(s["question"], s["contexts"]) for s in _load(path)] == [
        ("q1", ["c1"]),
        ("q2", ["c2", "c3"]),
    ]
    path.write_text('{"question": "q1"}\n{"question": 2}\n', encoding="utf-8")
    assert _problems(lambda: ragmeter.load(path)) == [
        "row 2, field 'question': expected a string, got int (2)"
    ]


def test_a_broken_json_document_is_still_said_as_one(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    path.write_text('[\n{"question": "q1"},\n]\n', encoding="utf-8")
    (problem,) = _problems(lambda: ragmeter.load(path))
    assert problem.startswith("input: invalid JSON: ")


def test_a_whole_float_id_says_where_it_came_from_and_the_fix_works(tmp_path: Path) -> None:
    """An integer id column with a gap is float in pandas (1.0), in memory, in its JSON and
    in its Parquet; the problem said only "got float (1.0)"."""
    df = pd.DataFrame({"question": ["a", "b"], "question_id": [1, None]})
    path = tmp_path / "d.parquet"
    df.to_parquet(path)
    for data in (df, path):
        (problem,) = _problems(lambda data=data: ragmeter.load(data))
        assert problem.startswith(
            "row 1, field 'question_id': expected a string, got float (1.0): pandas stores "
            "an integer column with a gap as floats"
        )
    df["question_id"] = df["question_id"].astype("Int64")
    df.to_parquet(path)
    for data in (df, path):
        assert ragmeter.load(data)[0].question_id == "1"
    rows = [{"question": "a", "context_ids": [2.0]}]
    (problem,) = _problems(lambda: ragmeter.load(rows))
    assert "field 'context_ids[0]': expected a string, got float (2.0): pandas stores" in problem


def test_a_python_dict_cell_is_held_to_what_json_holds(tmp_path: Path) -> None:
    """A Python dict read back keeps one value of a repeated key, as a JSON reader does
    (refused there), and may have keys JSON cannot (a tuple)."""
    path = tmp_path / "m.csv"
    path.write_text(
        "question,metadata\nq1,\"{'a': 1, 'a': 2}\"\nq2,\"{(1, 2): 'x'}\"\n", encoding="utf-8"
    )
    problems = _problems(lambda: ragmeter.load(path))
    assert problems[0] == (
        "row 1, line 2, field 'metadata': the key 'a' is given twice in one dict: Python keeps "
        "only one of the two values and loses the other without a word; remove or rename one"
    )
    assert problems[1].startswith("row 2, line 3, field 'metadata': must be a JSON object in CSV")
