"""``format`` is honoured by the stream and Ray executors as by the local one (2026-11-27):
a JSON Lines file named ``data``/``.txt``/``.log`` read with ``format="jsonl"``, the format
in any case, a format it cannot stream refused before any work naming the format and the
executor that reads it (a dry run too), and a file holding the other format's bytes named
so. Each test failed before its fix, but those marked as guards (suffixes in any case, which
were read before too).

``ragmeter.evaluate(..., executor="stream", format=...)`` itself also needs runner.py to hand
``format`` to the executor (outside this room; see the audit report): these tests call the
executors as runner.py then does."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ragmeter
from ragmeter.errors import ConfigError, DataError
from ragmeter.executors.common import check_input_kind
from ragmeter.executors.stream import astream_evaluate
from test_streaming import read_rows, rows, write_jsonl

LEXICAL = ["token_f1", "mrr"]


def _stream(path: Path, out: Path, **kw: Any) -> Any:
    return asyncio.run(astream_evaluate(path, LEXICAL, out=out, n_resamples=20, **kw))


def _local_scores(path: Path, out: Path, format: str) -> list[dict[str, Any]]:
    ragmeter.evaluate(str(path), LEXICAL, n_resamples=20, out=out, format=format)
    return read_rows(out / "scores.jsonl")


@pytest.mark.parametrize("name", ["data", "data.txt", "run.log"])
def test_a_jsonl_file_of_any_name_is_streamed_with_format_jsonl(tmp_path: Path, name: str) -> None:
    data = write_jsonl(tmp_path / name, rows(7))
    check_input_kind("stream", data, "jsonl")  # not refused before the run
    result = _stream(data, tmp_path / "s", format="jsonl")
    assert result.n_samples == 7
    local = _local_scores(data, tmp_path / "l", "jsonl")
    assert read_rows(tmp_path / "s" / "scores.jsonl") == local


def test_a_parquet_file_without_a_suffix_is_streamed_with_format_parquet(tmp_path: Path) -> None:
    data = tmp_path / "export"
    pq.write_table(pa.Table.from_pylist(rows(5)), data)
    result = _stream(data, tmp_path / "s", format="parquet")
    assert result.n_samples == 5
    assert read_rows(tmp_path / "s" / "scores.jsonl") == _local_scores(
        data, tmp_path / "l", "parquet"
    )


def test_the_format_is_read_in_any_case_as_the_local_executor_reads_it(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "data", rows(3))
    check_input_kind("stream", data, "JSONL")  # was "reads a .jsonl or .parquet file"
    assert _stream(data, tmp_path / "s", format="JSONL").n_samples == 3


def test_a_format_it_cannot_stream_is_refused_naming_it_and_the_local_executor(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data.csv"
    data.write_text("question_id,question,answer\nq1,Q,A\n")
    out = tmp_path / "out"
    for executor in ("stream", "ray"):
        with pytest.raises(ConfigError) as said:
            ragmeter.evaluate(str(data), LEXICAL, format="csv", executor=executor, out=out)
        assert "format 'csv'" in str(said.value), said.value
        assert f"the {executor} executor" in str(said.value)
        assert "--executor local" in str(said.value)
    assert not out.exists()  # before any work


def test_a_dry_run_refuses_the_file_a_streamed_run_refuses(tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    data.write_text("question_id,question,answer\nq1,Q,A\n")
    with pytest.raises(ConfigError, match=r"'data\.csv'"):  # a dry run said it was fine
        ragmeter.dry_run(data, LEXICAL, executor="stream", out=tmp_path / "out")
    with pytest.raises(ConfigError, match="format 'csv'"):
        ragmeter.dry_run(data, LEXICAL, format="csv", executor="stream", out=tmp_path / "o")


def test_a_dry_run_with_format_jsonl_and_the_run_agree(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "data", rows(4))
    est = ragmeter.dry_run(data, LEXICAL, format="jsonl", executor="stream", out=tmp_path / "o")
    assert est["samples"] == 4
    assert _stream(data, tmp_path / "o", format="jsonl").n_samples == 4


@pytest.mark.parametrize("name", ["data.ndjson", "data.JSONL", "data.NDJSON"])
def test_guard_json_lines_suffixes_in_any_case_are_streamed(tmp_path: Path, name: str) -> None:
    data = write_jsonl(tmp_path / name, rows(3))
    assert _stream(data, tmp_path / "s").n_samples == 3


@pytest.mark.parametrize("name", ["data.PARQUET", "data.Pq"])
def test_guard_parquet_suffixes_in_any_case_are_streamed(tmp_path: Path, name: str) -> None:
    data = tmp_path / name
    pq.write_table(pa.Table.from_pylist(rows(3)), data)
    assert _stream(data, tmp_path / "s").n_samples == 3


def test_parquet_bytes_named_jsonl_are_named_parquet(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    pq.write_table(pa.Table.from_pylist(rows(3)), data)
    with pytest.raises(DataError) as said:  # was one "invalid JSON" a row of binary
        _stream(data, tmp_path / "s")
    assert len(said.value.problems) == 1
    assert "data.jsonl is a Parquet file" in str(said.value)
    assert "--format parquet" in str(said.value)
    assert _stream(data, tmp_path / "s2", format="parquet").n_samples == 3  # as it says


def test_json_lines_named_parquet_are_named_json_lines(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "data.parquet", rows(3))
    with pytest.raises(DataError) as said:  # was pyarrow's "magic bytes not found in footer"
        _stream(data, tmp_path / "s")
    assert "data.parquet is JSON Lines, not a Parquet file" in str(said.value)
    assert "--format jsonl" in str(said.value)
    copy = shutil.copy(data, tmp_path / "data.jsonl")
    assert _stream(Path(copy), tmp_path / "s2").n_samples == 3


def test_guard_a_corrupt_parquet_file_is_still_pyarrows_problem(tmp_path: Path) -> None:
    data = tmp_path / "data.parquet"  # neither format: said as before
    data.write_bytes(b"\x00\x01garbage")
    with pytest.raises(DataError, match="unreadable Parquet file"):
        _stream(data, tmp_path / "s")


def test_guard_a_missing_file_is_not_found_not_of_a_format(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="file not found"):
        ragmeter.evaluate(str(tmp_path / "nope"), LEXICAL, executor="stream", out=tmp_path / "o")


def test_the_ray_executor_reads_a_file_without_a_suffix_given_its_format(tmp_path: Path) -> None:
    """One short local Ray run: ``format`` reaches the validation pass and the workers."""
    from needs import require_module

    require_module("ray")
    require_module("ray.data")
    from ragmeter.executors.ray_executor import ray_evaluate

    data = write_jsonl(tmp_path / "data", rows(6))
    result = ray_evaluate(
        data, LEXICAL, out=tmp_path / "r", actors=1, n_resamples=20, format="jsonl"
    )
    assert result.n_samples == 6
    assert read_rows(tmp_path / "r" / "scores.jsonl") == _local_scores(
        data, tmp_path / "l", "jsonl"
    )


def test_evaluate_streams_a_suffixless_file_given_format_jsonl(tmp_path: Path) -> None:
    """runner took ``format`` out of the arguments and never handed it to the executor: the
    file was refused for its name, though the executors read it given its format."""
    data = tmp_path / "data"
    examples = Path(__file__).resolve().parent.parent / "examples" / "rag_turns.jsonl"
    data.write_text(examples.read_text(encoding="utf-8"), encoding="utf-8")
    got = ragmeter.evaluate(
        str(data), ["token_f1"], format="jsonl", executor="stream", out=tmp_path / "o"
    )
    assert got.n_samples == len(data.read_text(encoding="utf-8").splitlines())
