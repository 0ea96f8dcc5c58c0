"""Text that cannot be written (a lone UTF-16 surrogate) is refused at validation, naming the
row and field, in every input and executor: it was scored, then the run failed writing
scores.jsonl ("internal error: UnicodeEncodeError", exit 1), every score lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app

LONE = "\ud83d"  # the first half of an escaped emoji pair, its second half cut off


def _messages(data) -> list[str]:
    with pytest.raises(ragmeter.DataError) as info:
        ragmeter.load(data)
    return [str(p) for p in info.value.problems]


@pytest.mark.parametrize("executor", ["local", "stream"])
def test_cli_refuses_a_lone_surrogate_before_scoring(tmp_path: Path, executor: str) -> None:
    data = tmp_path / "d.jsonl"
    rows = [make_row(1), make_row(2, response=f"Blue {LONE}", answer=None)]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))  # ensure_ascii: "\ud83d"
    out = tmp_path / "out"
    args = ["evaluate", str(data), "-m", "k_precision", "-o", str(out), "--executor", executor]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "row 2, field 'response': holds a lone surrogate '\\ud83d' at character 5" in (
        " ".join(result.output.split())
    )
    assert not (out / "scores.jsonl").exists()


@pytest.mark.parametrize(
    ("row", "where"),
    [
        (make_row(1, question=f"Why{LONE}?"), "row 1, field 'question'"),
        (make_row(1, contexts=["ok", f"x{LONE}"]), "row 1, field 'contexts[1]'"),
        (make_row(1, context_ids=["d1", LONE]), "row 1, field 'context_ids[1]'"),
        (make_row(1, metadata={"tags": ["a", LONE]}), "row 1, field 'metadata.tags[1]'"),
        (make_row(1, source=f"web{LONE}"), "row 1, field 'metadata.source'"),
        ({"question": "q", "question_id": LONE}, "row 1, field 'question_id'"),
    ],
)
def test_every_field_of_a_list_of_records(row: dict, where: str) -> None:
    """(pandas with Arrow strings cannot even build a DataFrame of such text.)"""
    (message,) = _messages([row])
    assert message.startswith(f"{where}: holds a lone surrogate '\\ud83d'"), message


def test_a_json_file_and_a_question_without_id(tmp_path: Path) -> None:
    """A question without question_id crashed generating its id (uuid5 encodes it)."""
    path = tmp_path / "d.json"
    path.write_text(json.dumps([{"question": f"q{LONE}"}]))
    (message,) = _messages(path)
    assert message.startswith("row 1, field 'question': holds a lone surrogate")


def test_escaped_pairs_and_other_text_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    text = "emoji \U0001f600, caf\u00e9, \u7f57\u9a6c, \u200b"
    path.write_text(json.dumps(make_row(1, answer=text)) + "\n")  # "\ud83d\ude00" escapes
    assert ragmeter.load(path)[0].answer == text
    assert ragmeter.load([make_row(1, answer=text)])[0].answer == text


@pytest.mark.parametrize("metadata_key", ["metadata", "metadata_field"])
def test_a_column_and_a_metadata_key_of_the_same_name_that_differ(metadata_key: str) -> None:
    """An unknown column is kept in metadata under its name; when metadata already held that
    name with another value, the column's value was silently dropped."""
    row = {"question": "q", metadata_key: {"source": "wiki"}, "source": "web", "lang": "en"}
    assert _messages([row]) == [
        f"row 1, field 'source': both column 'source' and '{metadata_key}.source' are given "
        "and differ; an unknown column is kept in metadata under its name"
    ]
    same = {**row, "source": "wiki"}
    assert ragmeter.load([same])[0].metadata == {"source": "wiki", "lang": "en"}
