"""CSV and TSV: read as written, or refused naming the line; never a column shifted or lost."""

from __future__ import annotations

from pathlib import Path

import pytest

import ragmeter


def _load(tmp_path: Path, text: str, name: str = "d.csv") -> list[dict]:
    path = tmp_path / name
    path.write_bytes(text.encode())
    return [s.model_dump(exclude_none=True) for s in ragmeter.load(path)]


def _problems(tmp_path: Path, text: str, name: str = "d.csv") -> list[str]:
    path = tmp_path / name
    path.write_bytes(text.encode())
    with pytest.raises(ragmeter.DataError) as info:
        ragmeter.load(path)
    assert info.value.source == str(path)
    return [str(p) for p in info.value.problems]


def test_a_row_with_a_field_too_many_is_refused_not_shifted(tmp_path: Path) -> None:
    """pandas took the first column of such a file for an index: every question was read
    from the answer column and every answer from the one after it, silently."""
    text = "question,answer\nWhere is Rome?,Rome is in Italy, Europe\nq2,b,c\n"
    assert _problems(tmp_path, text) == [
        f"row {r}, line {r + 1}: has 3 fields where the header has 2 (question, answer): "
        "quote a cell holding a comma or a quote"
        for r in (1, 2)
    ]


def test_a_row_with_a_field_missing_is_refused(tmp_path: Path) -> None:
    problems = _problems(tmp_path, "question\tanswer\nq1\ta\nq2\n", "d.tsv")
    assert problems == [
        "row 2, line 3: has 1 field where the header has 2 (question, answer): "
        "quote a cell holding a tab or a quote"
    ]


def test_a_column_named_twice_is_refused(tmp_path: Path) -> None:
    """It was renamed 'answer.1' and kept in metadata, the second answer silently unused."""
    assert _problems(tmp_path, "question,answer,answer\nq1,a1,a2\n") == [
        "line 1, field 'answer': the header names column 'answer' twice (columns 2 and 3): "
        "rename or remove one"
    ]


def test_problems_name_the_line_the_row_starts_on(tmp_path: Path) -> None:
    """The line was the row number + 1: wrong after a blank line or a cell holding a line
    break (CRLF files included)."""
    text = 'question,contexts\r\n\r\n"two\r\nlines",["ok"]\r\nq2,"[""broken"\r\n'
    assert _problems(tmp_path, text) == [
        "row 2, line 5, field 'contexts': must be a JSON array in CSV: Unterminated "
        "string starting at (got '[\"broken')"
    ]
    text = 'question,answer\n\n"two\nlines",a\n"q2","unclosed\n'
    assert _problems(tmp_path, text) == [
        "row 2, line 5: malformed CSV: unexpected end of data (a cell holding a quote must "
        'be quoted, its quotes doubled: "say ""hi""")'
    ]


def test_cells_are_kept_as_written(tmp_path: Path) -> None:
    text = (
        "\ufeffquestion_id,question,contexts,answer,\n"
        '007,"a, b ""c""","[""x"", ""y""]",,0\n'
        "7,q2,[],NA,1"  # no line break at the end
    )
    assert _load(tmp_path, text) == [
        {
            "question_id": "007",
            "question": 'a, b "c"',
            "contexts": ["x", "y"],
            "metadata": {"Unnamed: 4": "0"},
        },
        {
            "question_id": "7",
            "question": "q2",
            "contexts": [],
            "answer": "NA",
            "metadata": {"Unnamed: 4": "1"},
        },
    ]


def test_a_cell_longer_than_the_csv_module_default_limit(tmp_path: Path) -> None:
    long = "word " * 40_000  # 200,000 characters: over csv's 131,072 default
    rows = _load(tmp_path, f"question,answer\nq1,{long}\n")
    assert rows[0]["answer"] == long
