"""Meta-eval as a demanding user meets it: the --out file is never left half-written, an
interrupted or aborted run says what it kept, a result that cannot be written is still shown,
and bad rows are refused before any judge call."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

import fake_server
import ragmeter
from ragmeter import meta_eval
from ragmeter.cli import app
from ragmeter.errors import DataError, OutputError
from ragmeter.meta_eval import MetaEvalReport
from test_meta_eval import ROWS

SRC = Path(ragmeter.__file__).resolve().parents[1]  # the ragmeter these tests import


def test_a_write_cut_short_leaves_the_earlier_file_whole(tmp_path: Path) -> None:
    """A full disk while writing --out (here a file-size limit, as EFBIG) left the earlier
    run's JSON cut short under its name: it was written in place. Now it is written beside
    and renamed, so the old file stays whole, no temporary file is left, and OutputError
    says why."""
    out = tmp_path / "me.json"
    before = json.dumps({"agreement": {"faithfulness": 0.9}})
    out.write_text(before, encoding="utf-8")
    script = textwrap.dedent(
        f"""
        import resource, signal, sys
        sys.path.insert(0, {str(SRC)!r})
        from ragmeter.errors import OutputError
        from ragmeter.meta_eval import MetaEvalReport
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead
        report = MetaEvalReport([], "j", {{}}, {{"pairs": ["x" * 100] * 100}})
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        try:
            report.write({str(out)!r})
        except OutputError as exc:
            print("OutputError:", exc)
        """
    )
    got = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert got.returncode == 0, got.stderr
    assert "OutputError: --out" in got.stdout and "cannot be written" in got.stdout
    assert out.read_text(encoding="utf-8") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["me.json"]


def test_the_json_written_is_strict_json(tmp_path: Path) -> None:
    """The payload is JSON any reader takes: a non-finite number is null, not a bare NaN."""

    report = MetaEvalReport([], "j", {}, {"agreement": {"faithfulness": float("nan")}})
    written = report.write(tmp_path / "me.json")

    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in the JSON")

    got = json.loads(written.read_text(encoding="utf-8"), parse_constant=refuse)
    assert got == {"agreement": {"faithfulness": None}}


@pytest.fixture()
def data(tmp_path: Path) -> Path:
    path = tmp_path / "wikieval.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n", encoding="utf-8")
    return path


ENV = {"OPENAI_API_KEY": "sk-test-not-a-real-key", "COLUMNS": "200"}


def _settings(url: str, cache: str) -> dict[str, str]:
    return {"judge": "openai:fake", "base_url": url, "embedder": "none", "cache": cache}


def test_an_interrupted_run_says_how_far_it_got_and_that_the_cache_keeps_it(
    data: Path, tmp_path: Path
) -> None:
    """Ctrl-C said only "interrupted": not how far the run got, nor that the judge's answers
    are in the cache, so the same command resumes. Now the line says both, and a re-run asks
    the judge nothing it answered before the interruption."""

    def ctrl_c(msg: str) -> None:  # Ctrl-C as the first row is done
        raise KeyboardInterrupt

    cache = str(tmp_path / "cache")
    with fake_server.FakeOpenAIServer() as server:
        s = _settings(server.url, cache)
        with pytest.raises(KeyboardInterrupt) as said:
            meta_eval.run("wikieval", data, settings=s, baselines=["none"], progress=ctrl_c)
        line = str(said.value)
        assert line.startswith("interrupted: 1 of 2 rows scored by the judged metrics")
        assert f"kept in the cache ({cache}): run the same command again to resume" in line
        sent = server.calls
        again = meta_eval.run("wikieval", data, settings=s, baselines=["none"], limit=1)
        assert server.calls - sent == 1  # the preflight alone: the first row came from the cache
    assert again.payload["ragas_judge_calls"] == 0
    assert again.payload["ragas_judge_cached_calls"] > 0


def test_an_interrupted_run_without_a_cache_says_nothing_was_kept(data: Path) -> None:

    calls = []

    def ctrl_c(msg: str) -> None:  # Ctrl-C as the baselines' first row is done
        calls.append(msg)
        if msg.startswith("baseline"):
            raise KeyboardInterrupt

    with fake_server.FakeOpenAIServer() as server:
        s = _settings(server.url, "off")
        with pytest.raises(KeyboardInterrupt) as said:
            meta_eval.run("wikieval", data, settings=s, baselines=["k_precision"], progress=ctrl_c)
    assert calls == ["ragas: 1/2 rows", "ragas: 2/2 rows", "baseline: 1/2 rows"]
    assert str(said.value) == (
        "interrupted: 2 of 2 rows scored by the judged metrics, 1 of 2 by the baselines, "
        "no result written. The cache is off, so nothing computed was kept"
    )


def test_an_aborted_run_says_the_cache_keeps_what_was_answered(data: Path, tmp_path: Path) -> None:
    """Exit 3 (the judge refused the key mid-run) named the judge but not that its answers
    so far are in the cache; evaluate says it. The key the server echoes stays masked."""

    def refuse_after_preflight(body: dict, n: int) -> str | None:
        return None if "Reply with the JSON object" in json.dumps(body) else "401"

    cache = tmp_path / "cache"
    with fake_server.FakeOpenAIServer(fault_fn=refuse_after_preflight) as server:
        res = CliRunner().invoke(
            app,
            [
                *("meta-eval", "wikieval", "--data", str(data), "--judge", "openai:fake"),
                *("--base-url", server.url, "--embedder", "none", "--cache", str(cache)),
                *("--baselines", "none"),
            ],
            env=ENV,
        )
    assert res.exit_code == 3, res.output
    flat = " ".join(res.stderr.split())
    assert "aborted:" in flat and "HTTP 401" in flat
    assert f"kept in the cache ({cache}): run the same command again to resume" in flat
    assert "not-a-real-key" not in res.output


def test_results_that_cannot_be_written_are_still_shown(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--out passed its check before the run, then the disk filled: it exited 2 before the
    table and the RESULT line, and the run's numbers were nowhere. Now they are shown, then
    the error, exit 2."""

    def disk_full(self: MetaEvalReport, path: str | Path) -> Path:
        raise OutputError(f"--out {path} cannot be written (No space left on device)")

    monkeypatch.setattr(MetaEvalReport, "write", disk_full)
    out = tmp_path / "me.json"
    with fake_server.FakeOpenAIServer() as server:
        res = CliRunner().invoke(
            app,
            [
                *("meta-eval", "wikieval", "--data", str(data), "--judge", "openai:fake"),
                *("--base-url", server.url, "--embedder", "none", "--cache", "off"),
                *("--baselines", "k_precision", "-o", str(out)),
            ],
            env=ENV,
        )
    assert res.exit_code == 2, res.output
    assert "RESULT faithfulness=" in res.stdout and "RAGAs (ragmeter)" in res.stdout
    assert "wrote" not in res.stdout
    flat = " ".join(res.stderr.split())
    assert f"error: --out {out} cannot be written (No space left on device)" in flat


def test_the_dataset_file_is_refused_as_out_before_any_call(data: Path) -> None:
    """``-o`` naming the --data file (here through another spelling of its path) wrote the
    JSON over the human labels after the run. Now it is refused before any judge call."""

    before = data.read_bytes()
    same = data.parent / "." / data.name
    with fake_server.FakeOpenAIServer() as server:
        res = CliRunner().invoke(
            app,
            [
                *("meta-eval", "wikieval", "--data", str(data), "--judge", "openai:fake"),
                *("--base-url", server.url, "--embedder", "none", "--cache", "off"),
                *("--baselines", "none", "-o", str(same)),
            ],
            env=ENV,
        )
        calls = server.calls
    assert res.exit_code == 2, res.output
    flat = " ".join(res.stderr.split())
    assert f"--out {same} is the dataset file read (--data {data})" in flat
    assert calls == 0
    assert data.read_bytes() == before


def test_the_library_refuses_to_write_over_the_dataset(data: Path) -> None:

    before = data.read_bytes()
    report = MetaEvalReport([], "j", {}, {"data": str(data)})
    with pytest.raises(OutputError, match="is the dataset file read"):
        report.write(data)
    assert data.read_bytes() == before


def test_blank_fields_are_refused_naming_row_and_field_before_any_call(tmp_path: Path) -> None:
    """A question that is its "Question: " prefix alone, an answer of white space, contexts
    of blank strings passed the "missing or empty" check: the judge was asked about an empty
    question, and a blank answer made its pair a tie counted in the agreement."""

    rows = [
        {**ROWS[0], "question": "Question: "},
        {**ROWS[1], "poor_answer": "Answer:  ", "context_v2": ["", "  \n"]},
        {**ROWS[0], "ungrounded_answer": " \t"},
    ]
    path = tmp_path / "wikieval.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as got:  # no settings: it is refused before any judge is built
        meta_eval.run("wikieval", path, settings={"judge": "none"})
    said = [(p.row, p.field, p.message) for p in got.value.problems]
    assert said == [
        (1, "question", "blank: nothing but white space or its 'Question:' prefix"),
        (2, "poor_answer", "blank: nothing but white space or its 'Answer:' prefix"),
        (2, "context_v2", "blank: every context in it is empty or white space"),
        (3, "ungrounded_answer", "blank: nothing but white space or its 'Answer:' prefix"),
    ]


async def test_a_scorer_that_raises_or_gives_nan_fails_its_pair_and_the_run_goes_on(
    data: Path,
) -> None:
    """A scorer raising on one sample ended the whole run (an internal error, every pair
    scored lost), where evaluate makes it that sample's failed score; a Score built "ok"
    with a NaN value was counted a tie. Both are now that pair's failure, left out and said."""
    from ragmeter.meta_eval import PairScorer, run_meta_eval, wikieval_pairs
    from ragmeter.metrics.base import Score
    from ragmeter.protocols import Resources

    def grounded(sample) -> Score:
        return Score.ok(0.9 if any(w in (sample.answer or "") for w in ("1937", "Ann")) else 0.3)

    async def raising(sample, resources):
        if "1950" in (sample.answer or ""):
            raise RuntimeError("tokenizer blew up on sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX")
        return grounded(sample)

    async def nan_ok(sample, resources):
        if "Bob Ray" in (sample.answer or ""):
            return Score(float("nan"), "ok", None, {})
        return grounded(sample)

    scorers = [
        PairScorer("raising", "faithfulness", "ragas", score=raising),
        PairScorer("nan_ok", "faithfulness", "baseline", score=nan_ok),
    ]
    got = {r.name: r for r in await run_meta_eval(wikieval_pairs(data), scorers, Resources())}
    assert got["raising"].outcomes == [None, 1.0]
    assert got["raising"].first_failure.startswith("internal error: RuntimeError: tokenizer")
    assert "ABCDEFGHIJ" not in got["raising"].first_failure
    assert got["nan_ok"].outcomes == [1.0, None]
    assert got["nan_ok"].n_failed == 1 and got["nan_ok"].agreement == 1.0


def test_a_string_of_names_is_read_as_the_cli_reads_it(data: Path) -> None:
    """``dimensions="faithfulness"`` (as the CLI's option is written) was read letter by
    letter and refused as "unknown dimension(s) ['f', 'a', 'i', ...]"; so was a baselines
    string. Now one string is a comma-separated list, as on the command line."""
    with fake_server.FakeOpenAIServer() as server:
        report = meta_eval.run(
            "wikieval",
            data,
            settings=_settings(server.url, "off"),
            baselines="k_precision, gpt_score",
            dimensions="faithfulness",
            limit=1,
        )
    assert [r.name for r in report.results] == [
        "ragas:faithfulness",
        "k_precision",
        "gpt_score:faithfulness",
    ]
    assert report.payload["dimensions"] == ["faithfulness"]
    assert [p.dimension for p in meta_eval.select_pairs("wikieval", data, "faithfulness")] == [
        "faithfulness",
        "faithfulness",
    ]


def test_the_hugging_face_parquet_is_read_as_its_jsonl(data: Path, tmp_path: Path) -> None:
    """WikiEval's Parquet file given as --data was read as text: "2338 problem(s)", one
    "not UTF-8 text" per line. It is now read as evaluate reads Parquet, into the same pairs,
    and its bad rows are named as a JSONL file's are."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ragmeter.meta_eval import wikieval_pairs

    parquet = tmp_path / "wikieval.parquet"
    pq.write_table(pa.Table.from_pylist(ROWS), parquet)
    assert wikieval_pairs(parquet) == wikieval_pairs(data)
    broken = tmp_path / "broken.parquet"
    pq.write_table(pa.Table.from_pylist([ROWS[0], {**ROWS[1], "poor_answer": None}]), broken)
    with pytest.raises(DataError) as got:
        wikieval_pairs(broken)
    assert [(p.row, p.field, p.message) for p in got.value.problems] == [
        (2, "poor_answer", "missing or empty")
    ]


@pytest.mark.parametrize("indent", [None, 2], ids=["one-line", "indented"])
def test_a_json_array_is_read_as_its_jsonl(data: Path, tmp_path: Path, indent: int | None) -> None:
    """A JSON array of the rows (``json.dump(rows, f, indent=2)``, pandas' ``to_json(orient=
    "records")``) was read line by line: "row 1: expected a JSON object, got list", or one
    "invalid JSON" per line of an indented file. It is now read into the same pairs."""
    from ragmeter.meta_eval import wikieval_pairs

    array = tmp_path / "wikieval.json"
    array.write_text(json.dumps(ROWS, indent=indent), encoding="utf-8")
    assert wikieval_pairs(array) == wikieval_pairs(data)
    array.write_text(json.dumps([ROWS[0], 3], indent=indent), encoding="utf-8")
    with pytest.raises(DataError) as got:
        wikieval_pairs(array)
    assert [str(p) for p in got.value.problems] == ["row 2: expected a JSON object, got int"]
    array.write_text("[]", encoding="utf-8")
    with pytest.raises(DataError, match="no rows: the JSON array is empty"):
        wikieval_pairs(array)
