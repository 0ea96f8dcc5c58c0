"""executor="stream": the same scores as a local run, batch by batch, with usage errors first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import ragmeter
from fake_server import FakeOpenAIServer
from ragmeter.errors import ConfigError, DataError
from ragmeter.executors.source import check_file, iter_batches

LEXICAL = ["k_precision", "token_f1", "mrr", "exact_match"]


def rows(n: int) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        out.append(
            {
                "question_id": f"q{i}",
                "question": f"Where was the treaty number {i} signed?",
                "answer": f"The treaty number {i} was signed in Paris in {1900 + i}.",
                "contexts": [
                    f"Treaty {i} was signed in Paris in {1900 + i} by two nations.",
                    f"It ended a war that lasted {i % 7 + 2} years.",
                ],
                "context_ids": [f"d{i}", f"e{i}"],
                "reference_context_ids": [f"d{i}"],
                "reference_answers": [f"Paris, in {1900 + i}"],
            }
        )
    return out


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def read_rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_stream_equals_local_on_lexical_metrics(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "in.jsonl", rows(57))
    local = ragmeter.evaluate(str(data), LEXICAL, n_resamples=50, out=tmp_path / "local")
    streamed = ragmeter.evaluate(
        str(data), LEXICAL, n_resamples=50, out=tmp_path / "st", executor="stream", batch_size=10
    )
    assert read_rows(tmp_path / "st" / "scores.jsonl") == read_rows(
        tmp_path / "local" / "scores.jsonl"
    )
    assert streamed.n_samples == 57
    assert streamed.summary()["metrics"] == local.summary()["metrics"]
    run = json.loads((tmp_path / "st" / "run.json").read_text())
    assert run["status"] == "complete" and run["input"]["rows"] == 57
    assert not (tmp_path / "st" / "scores.jsonl.partial").exists()


def test_stream_equals_local_on_a_judged_metric(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "in.jsonl", rows(23))
    with FakeOpenAIServer() as srv:

        def settings(cache: str) -> ragmeter.Settings:
            return ragmeter.Settings(
                judge="openai:m",
                base_url=srv.url,
                cache=str(tmp_path / cache),
                embedder="none",
                api_key_env="RAGMETER_TEST_UNSET",
                concurrency=4,
            )

        local = ragmeter.evaluate(str(data), ["faithfulness"], settings=settings("c1"))
        streamed = ragmeter.evaluate(
            str(data),
            ["faithfulness"],
            settings=settings("c2"),
            out=tmp_path / "st",
            executor="stream",
            batch_size=5,
        )
    got = [r["faithfulness"] for r in read_rows(tmp_path / "st" / "scores.jsonl")]
    assert got == [s.value for s in local.scores["faithfulness"]]
    assert streamed.usage["calls"] == local.usage["calls"] > 0


def test_stream_reads_parquet(tmp_path: Path) -> None:
    import pandas as pd

    records = rows(12)
    pd.DataFrame(records).to_parquet(tmp_path / "in.parquet")
    write_jsonl(tmp_path / "in.jsonl", records)
    ragmeter.evaluate(
        str(tmp_path / "in.parquet"),
        LEXICAL,
        n_resamples=0,
        out=tmp_path / "p",
        executor="stream",
        batch_size=5,
    )
    ragmeter.evaluate(
        str(tmp_path / "in.jsonl"), LEXICAL, n_resamples=0, out=tmp_path / "j", executor="stream"
    )
    scores = [{m: r[m] for m in LEXICAL} for r in read_rows(tmp_path / "p" / "scores.jsonl")]
    assert scores == [
        {m: r[m] for m in LEXICAL} for r in read_rows(tmp_path / "j" / "scores.jsonl")
    ]


def test_bad_rows_anywhere_fail_before_scoring(tmp_path: Path) -> None:
    records = rows(30)
    records[25]["answer"] = 7  # not a string
    records[28]["question_id"] = "q3"  # a duplicate across batches
    data = write_jsonl(tmp_path / "in.jsonl", records)
    with pytest.raises(DataError) as err:
        ragmeter.evaluate(str(data), LEXICAL, out=tmp_path / "o", executor="stream", batch_size=10)
    text = str(err.value)
    assert "row 26" in text and "duplicate question_id 'q3'" in text
    assert not (tmp_path / "o" / "scores.jsonl.partial").exists()  # nothing was started


def test_stream_usage_errors(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "in.jsonl", rows(3))
    with pytest.raises(ConfigError, match="output directory"):
        ragmeter.evaluate(str(data), LEXICAL, executor="stream")
    with pytest.raises(ConfigError, match="file"):
        ragmeter.evaluate(rows(3), LEXICAL, out=tmp_path / "o", executor="stream")
    with pytest.raises(ConfigError, match="unknown executor"):
        ragmeter.evaluate(str(data), LEXICAL, out=tmp_path / "o", executor="spark")
    settings = ragmeter.Settings(judge="openai:m", base_url="http://a:1/v1,http://b:2/v1")
    with pytest.raises(ConfigError, match="only the Ray executor"):
        ragmeter.evaluate(str(data), LEXICAL, settings=settings)


def test_check_file_counts_rows_and_skips_blank_lines(tmp_path: Path) -> None:
    data = tmp_path / "in.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows(4)) + "\n\n")
    assert check_file(data, batch_size=3) == 4


def test_cli_stream_writes_the_run_and_usage_errors_exit_2(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ragmeter.cli import app

    data = write_jsonl(tmp_path / "in.jsonl", rows(9))
    cli = CliRunner()
    args = ["evaluate", str(data), "--metrics", "k_precision,mrr", "--executor", "stream"]
    ok = cli.invoke(app, [*args, "--batch-size", "4", "--out", str(tmp_path / "o"), "-q"])
    assert ok.exit_code == 0, ok.output
    assert "9 samples" in ok.output
    assert len((tmp_path / "o" / "scores.jsonl").read_text().splitlines()) == 9
    no_out = cli.invoke(app, [*args, "-q"])
    assert no_out.exit_code == 2 and "--out" in no_out.output
    by = cli.invoke(app, [*args, "--out", str(tmp_path / "p"), "--by", "question", "-q"])
    assert by.exit_code == 2 and "--executor local" in by.output


def test_batches_number_rows_and_lines_as_the_local_loader_does(tmp_path: Path) -> None:
    """Parsing batch by batch (each batch with the collector paused) keeps the file's row and
    line numbers, whatever the batch boundaries: blank, unparseable and non-UTF-8 lines
    anywhere give the same problems as ``ragmeter.load``."""
    good = [json.dumps(r) for r in rows(5)]
    text = "\n".join([good[0], "", good[1], "{not json", good[2], "", "", good[3]]) + "\n"
    data = tmp_path / "bad.jsonl"
    data.write_bytes(text.encode() + b'{"question": "caf\xe9"}\n' + good[4].encode() + b"\n")
    with pytest.raises(DataError) as local:
        ragmeter.load(str(data))
    for size in (1, 2, 3, 100):
        with pytest.raises(DataError) as streamed:
            check_file(data, batch_size=size)
        got = [(p.row, p.line, p.message[:14]) for p in streamed.value.problems]
        assert got == [(p.row, p.line, p.message[:14]) for p in local.value.problems], size
        assert [(p.row, p.line) for p in streamed.value.problems] == [(3, 4), (6, 9)]


def test_batches_keep_order_and_leave_the_collector_on(tmp_path: Path) -> None:
    import gc

    records = rows(5)
    data = tmp_path / "in.jsonl"
    data.write_text("\n\n".join(json.dumps(r) for r in records) + "\n")
    sizes, ids = [], []
    for batch in iter_batches(data, batch_size=2):
        assert gc.isenabled()  # paused only while a batch is parsed, never across a yield
        sizes.append(len(batch))
        ids += [s.question_id for s in batch]
    assert sizes == [2, 2, 1] and ids == [r["question_id"] for r in records]
    assert gc.isenabled()


def test_stream_progress_goes_to_stderr(tmp_path: Path) -> None:
    """Progress lines went to stdout, mixed into the result table a script reads; the local
    executor's go to stderr."""
    from typer.testing import CliRunner

    from ragmeter.cli import app

    data = write_jsonl(tmp_path / "in.jsonl", rows(9))
    args = ["evaluate", str(data), "-m", "k_precision", "--executor", "stream"]
    res = CliRunner().invoke(app, [*args, "--batch-size", "4", "--out", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    assert "stream: 9/9 rows" in res.stderr
    assert "stream:" not in res.stdout and "9 samples" in res.stdout


def test_many_problems_are_counted_right(tmp_path: Path) -> None:
    """120 bad rows said "51 problem(s)": the 50 listed plus the "... and 70 more" line."""
    from ragmeter.errors import DataError
    from ragmeter.executors.source import check_file

    data = tmp_path / "bad.jsonl"
    data.write_text("".join(json.dumps({"answer": f"a{i}"}) + "\n" for i in range(120)))
    with pytest.raises(DataError) as err:
        check_file(data, batch_size=7)
    text = str(err.value)
    assert text.splitlines()[0].startswith("120 problem(s)")
    assert text.splitlines()[-1] == "  ... and 70 more"
    assert err.value.total == 120 and len(err.value.problems) == 50
