"""A streamed run reads a JSONL file batch by batch, and must say of it exactly what
``ragmeter.load`` says: the same problems, the same messages, whatever the batch size."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import make_row

import ragmeter
from ragmeter.errors import DataError
from ragmeter.executors.source import check_file


def _problems(call) -> list[str]:
    with pytest.raises(DataError) as info:
        call()
    return [str(p) for p in info.value.problems]


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
@pytest.mark.parametrize("size", [1, 2, 3, 1000])
def test_streamed_problems_are_the_local_ones_word_for_word(tmp_path: Path, ending, size) -> None:
    """The line ending is no part of a line's JSON (a cut line's error was at "column 1"
    when streamed), a non-UTF-8 line says where in the line, and a last batch holding only
    unparseable lines (a file cut short) is not also called "no rows: the data is empty";
    the problems come in the file's order."""
    good = [json.dumps(make_row(1, question=42)), json.dumps(make_row(2))]
    cut = '{"question": "When did the bridge open?", "answer": "The bridge'
    path = tmp_path / "cut.jsonl"
    path.write_bytes(
        ending.join([good[0], "", good[1]]).encode()
        + ending.encode()
        + b'{"question": "caf\xe9"}'
        + ending.encode()
        + cut.encode()
    )
    local = _problems(lambda: ragmeter.load(path))
    assert local == [
        "row 1, field 'question': expected a string, got int (42)",
        "row 3, line 4: not UTF-8 text: invalid continuation byte at byte 17 of the line",
        "row 4, line 5: invalid JSON: Unterminated string starting at (column 53)",
    ]
    assert _problems(lambda: check_file(path, batch_size=size)) == local
