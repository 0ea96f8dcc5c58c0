"""meta-eval refuses bad options before any work, with exit 2 and one clear line: an unknown
--mode (metric or mode, as evaluate does) and an --out that is a directory or cannot be
written (which used to surface after the whole run, losing it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import fake_server
from ragmeter import Settings, meta_eval
from ragmeter.cli import app
from ragmeter.errors import MetricError, OutputError
from test_meta_eval import ROWS

ENV = {"OPENAI_API_KEY": "sk-test-not-a-real-key", "COLUMNS": "300"}


@pytest.fixture()
def data(tmp_path: Path) -> Path:
    path = tmp_path / "wikieval.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    return path


def _invoke(data: Path, *extra: str) -> tuple[int, str, int]:
    """(exit code, output, requests the judge's server received)."""
    with fake_server.FakeOpenAIServer() as server:
        result = CliRunner().invoke(
            app,
            [
                *("meta-eval", "wikieval", "--data", str(data), "--judge", "openai:fake"),
                *("--base-url", server.url, "--embedder", "none", "--cache", "off"),
                *("--baselines", "k_precision", *extra),
            ],
            env=ENV,
        )
        return result.exit_code, result.output, server.calls


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("faithfulness=bogus", "unknown mode 'bogus' for faithfulness; choose one of fast"),
        ("bogus_metric=fast", "unknown metric 'bogus_metric'; metrics with modes:"),
    ],
)
def test_an_unknown_mode_exits_2_before_any_work(data, tmp_path, mode, said):
    out = tmp_path / "me.json"
    code, output, calls = _invoke(data, "--mode", mode, "-o", str(out))
    assert code == 2, output
    assert said in output and "internal error" not in output
    assert calls == 0 and not out.exists()


def test_python_api_refuses_an_unknown_mode_before_any_work(data):
    for modes in ({"faithfulness": "bogus"}, {"bogus_metric": "fast"}):
        with pytest.raises(MetricError, match="--mode"):
            meta_eval.run("wikieval", data, settings=Settings(judge="none", modes=modes))
    with pytest.raises(MetricError, match=r"options\.mode"):
        meta_eval.run("wikieval", data, settings=Settings(judge="none", options={"mode": "x"}))


def test_an_out_that_cannot_be_written_exits_2_before_any_work(data, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    for out, said in [
        (f"{blocker}/me.json", "is a file, not a directory"),
        ("/proc/no-such-dir/me.json", "cannot be written"),
    ]:
        code, output, calls = _invoke(data, "-o", out)
        assert code == 2, output
        assert said in output and "internal error" not in output
        assert calls == 0


@pytest.mark.parametrize("kind", ["existing", "trailing_slash"])
def test_a_directory_as_out_is_refused_before_any_work(data, tmp_path, kind):
    """A directory is refused, not written as a file named like it nor given a name of ours."""
    target = tmp_path / "me_dir"
    if kind == "existing":
        target.mkdir()
    out = str(target) + ("/" if kind == "trailing_slash" else "")
    code, output, calls = _invoke(data, "-o", out)
    assert code == 2, output
    assert "is a directory: give the JSON file to write" in output
    assert str(target / "meta_eval.json") in output.replace("\n", "")
    assert calls == 0
    assert (target.is_dir() and not any(target.iterdir())) or not target.exists()


def test_check_out_and_write(tmp_path):
    out = tmp_path / "new" / "deeper" / "me.json"
    assert meta_eval.check_out(out) == out and not out.parent.exists()  # probed, not made
    with pytest.raises(OutputError, match="is a directory"):
        meta_eval.check_out(tmp_path)
    report = meta_eval.MetaEvalReport([], "j", {}, {"agreement": {}})
    assert json.loads(report.write(out).read_text()) == {"agreement": {}}
    with pytest.raises(OutputError, match="is a directory"):
        report.write(tmp_path)
