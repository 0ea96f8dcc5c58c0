"""Every loader gives the same samples: JSONL, JSON, CSV, TSV, Parquet, pandas, dicts, HF."""

from __future__ import annotations

import json
import os
import stat

import pandas as pd
import pytest

import ragmeter
from conftest import make_row
from needs import require_module
from ragmeter.io import write_json, write_jsonl
from ragmeter.sample import LIST_FIELDS


def _core(samples):
    return [s.model_dump() for s in samples]


@pytest.fixture
def expected(rows):
    return _core(ragmeter.load(rows))


def _csv_frame(rows):
    frame = pd.DataFrame(rows)
    for col in [*LIST_FIELDS, "metadata"]:
        frame[col] = frame[col].map(lambda v: json.dumps(v))
    return frame


def test_list_of_dicts(rows, expected):
    assert len(expected) == 3 and expected[0]["question_id"] == "q1"
    assert ragmeter.load(ragmeter.load(rows)) == ragmeter.load(rows)  # samples pass through


def test_jsonl(tmp_path, rows, expected):
    path = tmp_path / "data.jsonl"
    write_jsonl(rows, path)
    path.write_text("\n" + path.read_text() + "\n\n")  # blank lines are ignored
    assert _core(ragmeter.load(path)) == expected
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + (tmp_path / "data.jsonl").read_bytes())
    assert _core(ragmeter.load(str(bom))) == expected


def test_json_list_samples_key_and_columnar(tmp_path, rows, expected):
    path = tmp_path / "data.json"
    path.write_text(json.dumps(rows))
    assert _core(ragmeter.load(path)) == expected
    path.write_text(json.dumps({"samples": rows}))
    assert _core(ragmeter.load(path)) == expected
    columnar = {k: [r[k] for r in rows] for k in rows[0]}
    path.write_text(json.dumps(columnar))
    assert _core(ragmeter.load(path)) == expected


def test_csv_with_json_array_columns(tmp_path, rows, expected):
    path = tmp_path / "data.csv"
    frame = _csv_frame(rows)
    frame["is_answerable"] = ["true", "false", "yes"]
    frame.to_csv(path, index=False)
    loaded = _core(ragmeter.load(path))
    assert [s["is_answerable"] for s in loaded] == [True, False, True]
    for s, e in zip(loaded, expected, strict=True):
        assert {**s, "is_answerable": True} == e


def test_tsv(tmp_path, rows, expected):
    path = tmp_path / "data.tsv"
    frame = _csv_frame(rows)
    frame["is_answerable"] = "true"
    frame.to_csv(path, index=False, sep="\t")
    assert _core(ragmeter.load(path)) == expected


def test_parquet(tmp_path, rows, expected):
    path = tmp_path / "data.parquet"
    pd.DataFrame(rows).to_parquet(path)  # list columns come back as numpy arrays
    assert _core(ragmeter.load(path)) == expected


def test_pandas_dataframe(rows, expected):
    assert _core(ragmeter.load(pd.DataFrame(rows))) == expected


def test_pandas_dataframe_with_missing_cells(rows):
    rows[1].pop("reference_answers")
    samples = ragmeter.load(pd.DataFrame(rows))  # the hole becomes NaN, read as missing
    assert samples[1].reference_answers is None and samples[0].reference_answers


def test_hf_datasets(rows, expected):
    datasets = require_module("datasets")
    assert _core(ragmeter.load(datasets.Dataset.from_list(rows))) == expected


def test_bundled_examples(example_jsonl, example_csv):
    samples = ragmeter.load(example_jsonl)
    assert 20 <= len(samples) <= 30
    assert {s.metadata["category"] for s in samples} >= {
        "hr_policy",
        "product_docs",
        "science",
        "history",
    }
    assert any(s.is_answerable is False for s in samples)
    assert any(s.context_ids is None and s.reference_contexts for s in samples)
    ragas = ragmeter.load(example_csv)
    assert len(ragas) >= 3
    assert all(s.contexts and s.context_ids and s.reference_answers for s in ragas)


def test_json_line_reads_back_as_json_dumps_did() -> None:
    """scores.jsonl lines come from pydantic-core's serializer (3x faster than json.dumps):
    the values read back the same, including what json.dumps(default=str) stringified."""
    import math
    from pathlib import Path

    import numpy as np

    from ragmeter.io import json_line

    row = {
        "question_id": "q1",
        "answer": 'Zürich, 東京 \u2028 and "quotes"',
        "contexts": ["a", "b"],
        "k_precision": 0.1 + 0.2,
        "tiny": 1e-05,
        "big": 1e16,
        "none": None,
        "details": {"ranks": (1, 3), "p": np.float64(0.25), "n": np.int64(3), 2: "int key"},
        "nan": math.nan,
        "inf": -math.inf,
        "path": Path("/tmp/x"),
    }
    line = json_line(row)
    assert "\n" not in line
    assert "Zürich, 東京" in line  # UTF-8 text, not \u escapes
    old = json.dumps(row, ensure_ascii=False, default=str)
    got, want = json.loads(line), json.loads(old)
    assert math.isnan(want.pop("nan")) and want.pop("inf") == -math.inf
    assert got.pop("nan") is None and got.pop("inf") is None  # JSON has no NaN: null
    assert got["details"].pop("n") == 3  # a numpy int as a number, not json.dumps's "3"
    assert want["details"].pop("n") == "3"
    assert got == want
    assert json.loads(json_line({"s": {"b"}})) == {"s": ["b"]}  # a set becomes a list
    # a metric's numpy details as their values: str() wrote "[   0    1 ... 1999]"
    assert json.loads(json_line({"a": np.arange(2000), "m": np.eye(2)})) == {
        "a": list(range(2000)),
        "m": [[1.0, 0.0], [0.0, 1.0]],
    }


@pytest.mark.parametrize(
    "line",
    [
        '{"n": 123456789012345678901234567890, "f": 1e400, "x": NaN, "z": -0.0}',
        '{"s": "\\ud800"}',  # a lone surrogate: json.loads accepts it, pydantic-core does not
        '{"s": "caf\\u00e9 \\"q\\"", "l": [1.5, true, null, {"k": []}]}',
        ' {"a": 1}\n',
        '{"s": "a\tb"}',  # a raw tab inside a string: invalid
        "[1, 2,]",
        '{"a": 1} x',
        "",
    ],
)
def test_parse_json_is_json_loads(line: str) -> None:
    """Values and errors as json.loads gives them (a repeated key aside: see
    test_loaders_duplicate_keys)."""
    from ragmeter._json_rows import parse_json

    try:
        want = json.loads(line)
    except json.JSONDecodeError as exc:
        with pytest.raises(json.JSONDecodeError) as got:
            parse_json(line)
        assert (got.value.msg, got.value.colno) == (exc.msg, exc.colno)
        return
    assert repr(parse_json(line)) == repr(want)  # repr: NaN equals itself there
    assert repr(parse_json(line, line.encode())) == repr(want)


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_atomic_outputs_follow_the_umask(tmp_path, umask, mode) -> None:
    """run.json, summary.json and scores.jsonl are written atomically, yet with the
    permissions of any other file the process writes (they were always 0600)."""
    old = os.umask(umask)
    try:
        out = tmp_path / "out"
        ragmeter.evaluate([make_row(1), make_row(2)], ["k_precision"], out=out, n_resamples=10)
        write_json({"a": 1}, tmp_path / "x.json")
    finally:
        os.umask(old)
    for path in (out / "run.json", out / "summary.json", out / "scores.jsonl", tmp_path / "x.json"):
        assert stat.S_IMODE(path.stat().st_mode) == mode, path.name
    assert not list(out.glob(".*.tmp")) and not list(tmp_path.glob(".*.tmp"))


@pytest.mark.parametrize(
    ("name", "content", "where"),
    [
        (
            "latin1.csv",
            b"question,answer\r\nq1,a\r\nq2,b\r\nwhat \xe9,x\r\n",
            "line 4: not UTF-8 text: invalid continuation byte at byte 5 of the line "
            "(byte 34 of the file)",
        ),
        (
            "latin1.tsv",
            b"question\tanswer\nwhat is caf\xe9?\ta\n",
            "line 2: not UTF-8 text: invalid continuation byte at byte 11 of the line "
            "(byte 27 of the file)",
        ),
        (
            "latin1.json",
            b'[{"question": "q"},\n {"question": "caf\xe9"}]',
            "line 2: not UTF-8 text: invalid continuation byte at byte 18 of the line "
            "(byte 38 of the file)",
        ),
    ],
)
def test_non_utf8_text_names_line_and_byte(tmp_path, name, content, where) -> None:
    """As for JSONL: the line and the byte of the first bad byte, not an offset within
    whatever buffer the parser was decoding."""
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ragmeter.DataError) as info:
        ragmeter.load(path)
    assert info.value.source == str(path)
    assert [str(p) for p in info.value.problems] == [where]


YES_NO = [True, "true", "TRUE", " Yes ", "1", 1, False, "false", "No", "0", 0]
TRUE_SPELLINGS = ("true", "yes", "1")


def test_is_answerable_spellings_are_the_same_in_every_input(tmp_path):
    """CSV read 'true'/'1'/'yes' (any case) as booleans; lists of dicts, DataFrames and JSONL
    refused them ("expected true or false, got 'true'"), so pd.read_csv(dtype=str) then
    evaluate(df) failed where the path worked."""
    want = [str(v).strip().lower() in TRUE_SPELLINGS for v in YES_NO]
    rows = [make_row(i, is_answerable=v) for i, v in enumerate(YES_NO, 1)]
    path = tmp_path / "flags.jsonl"
    write_jsonl(rows, path)
    csv = tmp_path / "flags.csv"
    _csv_frame(rows).to_csv(csv, index=False)
    as_text = pd.DataFrame({"question": ["q"] * len(YES_NO), "is_answerable": YES_NO})
    as_text.to_csv(tmp_path / "plain.csv", index=False)
    inputs = {
        "dicts": rows,
        "jsonl": path,
        "dataframe": pd.DataFrame(rows),
        "csv": csv,
        "read_csv(dtype=str)": pd.read_csv(tmp_path / "plain.csv", dtype=str),
    }
    for name, data in inputs.items():
        got = [s.is_answerable for s in ragmeter.load(data)]
        assert got == want, name
    # a 0/1 column with a gap comes out of pandas as floats
    gappy = pd.DataFrame({"question": ["a", "b", "c"], "is_answerable": [1, None, 0]})
    assert [s.is_answerable for s in ragmeter.load(gappy)] == [True, None, False]
    for bad in ("maybe", 2, 0.5, "", [True]):
        with pytest.raises(ragmeter.DataError, match=r"is_answerable.*expected true or false"):
            ragmeter.load([make_row(1, is_answerable=bad)])


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_a_truncated_jsonl_line_names_its_own_line_and_column(tmp_path, ending) -> None:
    """The line ending is no part of the JSON: json.loads saw it and placed the error at
    column 1 of a next line that does not exist; the error is at the cut, column 65."""
    cut = '{"question": "When did the bridge open?", "answer": "The bridge"'
    assert len(cut) == 64
    lines = [json.dumps(make_row(1)), "", cut, json.dumps(make_row(2)), '{"question" "q"}', ""]
    path = tmp_path / "cut.jsonl"
    path.write_bytes(ending.join(lines).encode())
    with pytest.raises(ragmeter.DataError) as info:
        ragmeter.load(path)
    assert [str(p) for p in info.value.problems] == [
        "row 2, line 3: invalid JSON: Expecting ',' delimiter (column 65)",
        "row 4, line 5: invalid JSON: Expecting ':' delimiter (column 13)",
    ]
