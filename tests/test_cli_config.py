"""The CLI over bad or surprising configuration, end to end against the fake server:
$OPENAI_BASE_URL, config-file keys and options, missing keys, bad paths, interruption."""

from __future__ import annotations

import json
from pathlib import Path

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
