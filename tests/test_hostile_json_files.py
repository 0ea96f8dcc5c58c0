"""JSON files ragmeter writes with ``io.write_json`` (run.json, summary.json, meta-eval's
``--out``) hold C1 and bidi controls as ``\\uXXXX`` escapes: the input's file name is data,
and a name holding U+202E reversed what ``cat run.json`` showed after it (U+009B, the 8-bit
CSI, starts a terminal control sequence). ``compare --json FILE`` already escapes them
(tests/test_hostile_output.py); these files did not."""

from __future__ import annotations

import json
from pathlib import Path

import ragmeter
from ragmeter.io import write_json

RAW = ("\u202e", "\u2066", "\u009b", "\x7f")


def test_write_json_escapes_controls_and_reads_back_the_same(tmp_path: Path) -> None:
    value = {"file": "h\u202eq.jsonl", "note": "a\u009b31mb\x7f\u2066c", "plain": "héllo 中文"}
    path = tmp_path / "x.json"
    write_json(value, path)
    text = path.read_text(encoding="utf-8")
    assert not any(ch in text for ch in RAW), repr(text)
    assert "\\u202e" in text and "héllo 中文" in text  # other text stays as written
    assert json.loads(text) == value


def test_run_json_of_a_file_named_with_a_bidi_control(tmp_path: Path) -> None:
    data = tmp_path / "turns\u202elmth.jsonl"
    data.write_text(json.dumps({"question": "q?", "answer": "a", "reference_answers": ["a"]}))
    out = tmp_path / "out"
    ragmeter.evaluate(str(data), ["exact_match"], out=out)
    for name in ("run.json", "summary.json"):
        text = (out / name).read_text(encoding="utf-8")
        assert not any(ch in text for ch in RAW), (name, text[:400])
    assert json.loads((out / "run.json").read_text())["input"]["file"] == data.name


def test_scores_jsonl_escapes_controls_from_the_data(tmp_path: Path) -> None:
    """scores.jsonl is printed with cat and tail as often as it is parsed: an answer holding
    U+202E reversed the rest of its line, U+009B opened a control sequence. Local, stream and
    the partial file a stream run writes as it goes all use ``io.json_line``."""
    answer = "Rome\u202e is \u009b31mthe capital\u2066."
    row = {"question_id": "h\u202e1", "question": "What is the capital?", "answer": answer}
    row["reference_answers"] = [answer]
    data = tmp_path / "turns.jsonl"
    data.write_text(json.dumps(row) + "\n", encoding="utf-8")
    for executor in ("local", "stream"):
        out = tmp_path / executor
        ragmeter.evaluate(str(data), ["exact_match"], out=out, executor=executor)
        text = (out / "scores.jsonl").read_text(encoding="utf-8")
        assert not any(ch in text for ch in RAW), (executor, text[:400])
        back = json.loads(text.splitlines()[0])
        assert back["question_id"] == "h\u202e1"
        assert json.dumps(back).count("\\u202e") >= 1  # the same value, read back
