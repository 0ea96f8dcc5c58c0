"""A file saved as UTF-16 or UTF-32 (Windows tools do: PowerShell 5's ``>``, Notepad's
"Unicode") is refused in one line that says what it is and how to convert it; it was refused
row by row as "not UTF-8 text" and "invalid JSON"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ragmeter
from ragmeter._json_rows import parse_line, wide_text
from ragmeter.errors import DataError

ROWS = [{"question": f"q{i}?", "answer": "a", "contexts": ["c"]} for i in range(3)]


@pytest.mark.parametrize(
    ("encoding", "name", "order"),
    [
        ("utf-16", "UTF-16", "little-endian"),  # Python writes the machine's order, with a BOM
        ("utf-16-be", "UTF-16", "big-endian"),
        ("utf-32", "UTF-32", "little-endian"),
    ],
)
@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".csv"])
def test_a_wide_text_file_is_one_problem_saying_what_it_is(
    tmp_path: Path, encoding: str, name: str, order: str, suffix: str
) -> None:
    if suffix == ".jsonl":
        text = "".join(json.dumps(r) + "\n" for r in ROWS)
    elif suffix == ".json":
        text = json.dumps(ROWS)
    else:
        text = "question,answer\n" + "".join(f"{r['question']},a\n" for r in ROWS)
    data = text.encode(encoding)
    if encoding == "utf-16-be":
        data = b"\xfe\xff" + data  # the -be codec writes no mark
    path = tmp_path / f"rows{suffix}"
    path.write_bytes(data)
    with pytest.raises(DataError) as info:
        ragmeter.load(path)
    [problem] = info.value.problems
    assert f"the file is {name} text ({order}" in problem.message
    assert f"iconv -f {name} -t UTF-8" in problem.message


def test_utf8_with_or_without_its_mark_is_read_and_other_bytes_say_where() -> None:
    assert wide_text(b"\xef\xbb\xbf{") is None and wide_text(b'{"q') is None
    record, problem = parse_line('\ufeff{"question": "q"}\n'.encode(), 1)
    assert problem is None and record == {"question": "q"}
    _, (_, said) = parse_line(b"\xff\xfe{\x00", 1)  # the stream executor's reader: line 1
    assert said.startswith("the file is UTF-16 text")
    _, (_, said) = parse_line(b'{"q": "\xff"}', 2)  # not a mark: where the bad byte is
    assert said.startswith("not UTF-8 text") and "byte 7 of the line" in said
