"""The CLI over bad or surprising configuration, end to end against the fake server:
$OPENAI_BASE_URL, config-file keys and options, missing keys, bad paths, interruption."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

from fake_server import FakeOpenAIServer
from ragmeter.cli import app


def write_rows(path: Path, n: int = 3) -> Path:
    path.write_text("".join(json.dumps(make_row(i)) + "\n" for i in range(1, n + 1)))
    return path


def invoke(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result.exit_code, " ".join(result.output.split())


def test_openai_base_url_is_recorded_and_keys_the_cache(tmp_path: Path, monkeypatch) -> None:
    """Calls followed $OPENAI_BASE_URL while run.json said api.openai.com and the cache keyed
    them as OpenAI's: a run against another server was then served the first one's answers."""
    data = write_rows(tmp_path / "d.jsonl")
    cache = tmp_path / "cache"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    with FakeOpenAIServer() as a, FakeOpenAIServer(yes_logprob=-2.0) as b:
        for srv, out in ((a, "o1"), (b, "o2")):
            monkeypatch.setenv("OPENAI_BASE_URL", srv.url)
            args = ["evaluate", data, "--judge", "openai:fake", "-m", "answer_relevance"]
            args += ["--embedder", "none", "--cache", cache, "-o", tmp_path / out, "-q"]
            code, text = invoke(args)
            assert code == 0, text
            run = json.loads((tmp_path / out / "run.json").read_text())
            assert run["judge"]["base_url"] == srv.url == run["settings"]["base_url"]
            summary = json.loads((tmp_path / out / "summary.json").read_text())
            assert summary["config"]["settings"]["base_url"] == srv.url
        assert a.calls > 0 and b.calls == a.calls  # b was asked everything: no shared entries
    monkeypatch.delenv("OPENAI_BASE_URL")
    code, text = invoke(["compare", tmp_path / "o1", tmp_path / "o2"])
    assert "NOT COMPARABLE" in text and "base_url" in text, text


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ('{ api_key = "sk-abcdefghijklmnop1234" }', "--api-key-env"),
        ("{ evidnece_k = 0 }", "did you mean 'evidence_k'"),
        ('{ evidence_k = "abc", max_context_tokens = "x" }', "max_context_tokens"),
        ("{ evidence_k = -2 }", "greater than or equal to 0"),
    ],
)
def test_bad_options_in_a_config_file_exit_2_before_any_call(
    tmp_path: Path, options: str, expected: str
) -> None:
    """A key in options was written into run.json, summary.json and the report; a typo was
    ignored; a wrong type failed every score after the judge was called (exit 1)."""
    data = write_rows(tmp_path / "d.jsonl")
    with FakeOpenAIServer() as srv:
        config = tmp_path / "c.toml"
        config.write_text(
            f'[ragmeter]\njudge = "openai:fake"\nbase_url = "{srv.url}"\noptions = {options}\n'
        )
        args = ["evaluate", data, "-m", "faithfulness", "--config", config, "--cache", "off"]
        code, text = invoke([*args, "-o", tmp_path / "out"])
        assert srv.calls == 0
    assert code == 2, text
    assert expected in text and "abcdefghijklmnop" not in text and "Traceback" not in text
    assert not (tmp_path / "out").exists()


def test_keys_beside_the_ragmeter_table_exit_2(tmp_path: Path) -> None:
    data = write_rows(tmp_path / "d.jsonl")
    config = tmp_path / "c.toml"
    config.write_text('concurency = 3\n[ragmeter]\njudge = "none"\n')
    code, text = invoke(["evaluate", data, "-m", "k_precision", "--config", config])
    assert code == 2 and "did you mean 'concurrency'" in text, text


@pytest.mark.parametrize("metrics", [["-m", "answer_relevance"], []])
def test_a_named_judge_without_its_key_exits_2_before_any_work(
    tmp_path: Path, monkeypatch, metrics: list[str]
) -> None:
    """Every judged score failed "no API key" (exit 1), or without -m the judged metrics
    were left out with a dim note (exit 0). The dry run still estimates, with a warning."""
    monkeypatch.delenv("RAGMETER_TEST_UNSET", raising=False)
    data = write_rows(tmp_path / "d.jsonl")
    keyless = ["--api-key-env", "RAGMETER_TEST_UNSET", "--cache", tmp_path / "c"]
    args = ["evaluate", data, "--judge", "openai:gpt-4o-mini", *metrics, *keyless]
    code, text = invoke([*args, "--embedder", "none", "-o", tmp_path / "out"])
    assert code == 2, text
    assert "no API key" in text and "RAGMETER_TEST_UNSET" in text and "--api-key-env" in text
    assert not (tmp_path / "out").exists()
    code, text = invoke([*args, "--dry-run"])
    assert code == 0 and "warning: no API key" in text, text
    code, text = invoke(["evaluate", data, "-m", "k_precision", "--judge", "openai:m", *keyless])
    assert code == 0, text  # no judged metric asked for: no key needed


def _bad_caches(tmp_path: Path) -> list[tuple[Path, str]]:
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    corrupt = tmp_path / "corrupt"
    corrupt.mkdir()
    (corrupt / "ragmeter-cache.sqlite").write_text("not a database at all\n")
    foreign = tmp_path / "foreign.sqlite"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE people (name TEXT)")
    con.commit()
    con.close()
    return [
        (a_file, "is a file"),
        (a_file / "sub", "Not a directory"),
        (corrupt, "is not a ragmeter cache"),
        (foreign, "is not a ragmeter cache"),
    ]


def test_bad_cache_paths_exit_2_before_any_work(tmp_path: Path) -> None:
    """FileExistsError, FileNotFoundError and "DatabaseError: file is not a database" were
    internal errors (exit 1) once the run reached its judged metrics."""
    data = write_rows(tmp_path / "d.jsonl")
    cases = _bad_caches(tmp_path)
    before = {p: p.read_bytes() for p, _ in cases if p.is_file()}
    before[tmp_path / "corrupt" / "ragmeter-cache.sqlite"] = b"not a database at all\n"
    with FakeOpenAIServer() as srv:
        for cache, expected in cases:
            args = ["evaluate", data, "--judge", "openai:m", "--base-url", srv.url]
            args += ["-m", "k_precision,answer_relevance", "--embedder", "none", "--cache", cache]
            code, text = invoke([*args, "-o", tmp_path / "out"])
            assert code == 2, text
            assert str(cache) in text and expected in text and "Traceback" not in text, text
            code, text = invoke([*args, "--dry-run"])
            assert code == 2 and expected in text, text
        assert srv.calls == 0
    assert not (tmp_path / "out").exists()
    assert {p: p.read_bytes() for p in before} == before  # never changed, never removed


def test_ctrl_c_says_where_it_got_to_and_a_resume_accepts_the_run(tmp_path: Path) -> None:
    """SIGINT exited 130 without a word and left run.json "running": now one line (scores
    done, where they are kept) and run.json "interrupted", which the same command resumes."""
    import ragmeter

    src = str(Path(ragmeter.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    data = write_rows(tmp_path / "d.jsonl", n=12)
    out, cache = tmp_path / "out", tmp_path / "cache"
    args = ["evaluate", data, "--judge", "openai:fake", "-m", "answer_relevance", "--no-preflight"]
    args += ["--embedder", "none", "--cache", cache, "-o", out, "--concurrency", "1"]
    with FakeOpenAIServer(latency=0.3) as srv:
        args += ["--base-url", srv.url]
        proc = subprocess.Popen(
            [sys.executable, "-m", "ragmeter", *map(str, args)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        deadline = time.time() + 60
        while srv.calls < 3 and time.time() < deadline and proc.poll() is None:
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        flat = " ".join(err.split())
        assert proc.returncode == 130, flat
        said = re.search(r"interrupted: (\d+) of 12 judged scores done, kept in (\S+);", flat)
        assert said and 0 < int(said[1]) < 12 and said[2] == str(cache), flat
        assert "re-run the same command to resume" in flat
        run = json.loads((out / "run.json").read_text())
        assert run["status"] == "interrupted" and run["error"].startswith("interrupted: ")
        asked = srv.calls
        code, text = invoke(args)  # the same command resumes
        assert code == 0, text
        assert json.loads((out / "run.json").read_text())["status"] == "complete"
        assert srv.calls - asked <= 12 - int(said[1])  # what was done came from the cache


def test_ctrl_c_on_the_stream_executor_says_where_it_got_to(tmp_path: Path) -> None:
    """The streamed run too: one line (rows written, where judged calls are kept) and
    run.json "interrupted"; the same command resumes."""
    import ragmeter

    src = str(Path(ragmeter.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    data = write_rows(tmp_path / "d.jsonl", n=12)
    out, cache = tmp_path / "out", tmp_path / "cache"
    args = ["evaluate", data, "--judge", "openai:fake", "-m", "answer_relevance", "--no-preflight"]
    args += ["--embedder", "none", "--cache", cache, "-o", out, "--concurrency", "1"]
    args += ["--executor", "stream", "--batch-size", "2"]
    with FakeOpenAIServer(latency=0.3) as srv:
        args += ["--base-url", srv.url]
        proc = subprocess.Popen(
            [sys.executable, "-m", "ragmeter", *map(str, args)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        deadline = time.time() + 60
        while srv.calls < 5 and time.time() < deadline and proc.poll() is None:
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        flat = " ".join(err.split())
        assert proc.returncode == 130, flat
        said = re.search(
            r"interrupted: (\d+) of 12 rows written to \S+, judged calls kept in (\S+);", flat
        )
        assert said and said[2] == str(cache), flat
        assert json.loads((out / "run.json").read_text())["status"] == "interrupted"
        code, text = invoke(args)  # the same command resumes
        assert code == 0, text
        assert json.loads((out / "run.json").read_text())["status"] == "complete"


def test_preflight_option_beats_the_config_file(tmp_path: Path, monkeypatch: Any) -> None:
    """--preflight on the command line could not undo a file's preflight = false: the flag's
    default True was passed as 'not given'."""
    import ragmeter.cli.evaluate as ev

    config = tmp_path / "team.toml"
    config.write_text(
        '[ragmeter]\njudge = "openai:m"\nbase_url = "http://127.0.0.1:9/v1"\n'
        'preflight = false\ncache = "off"\n'
    )
    data = tmp_path / "d.jsonl"
    data.write_text('{"question": "q?", "answer": "a.", "contexts": ["a."], "reference": "a."}\n')
    seen = []
    real = ev.settings_from_options

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(real(*args, **kwargs).preflight)
        raise SystemExit(0)

    monkeypatch.setattr(ev, "settings_from_options", spy)
    for extra in ([], ["--preflight"], ["--no-preflight"]):
        args = ["evaluate", str(data), "--config", str(config), "-m", "token_f1", *extra]
        CliRunner().invoke(app, args)
    assert seen == [False, True, False]
