"""Without an integration's extra, `import ragmeter` works and each entry point fails with
one line naming the `pip install` (IntegrationUnavailable, a ResourceUnavailable)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import EXAMPLES
from ragmeter.errors import IntegrationUnavailable, ResourceUnavailable
from ragmeter.integrations import langchain as rl
from ragmeter.integrations import llamaindex as rli
from ragmeter.integrations import mlflow as rm
from ragmeter.integrations import otel
from ragmeter.result import EvaluationResult

SRC = Path(__file__).resolve().parents[1] / "src"
LIBS = ("langchain_core", "llama_index", "mlflow", "openinference", "opentelemetry")


def _block(monkeypatch, *names: str) -> None:
    """Make ``import name`` raise ImportError, as if the package were not installed."""
    for name in names:
        for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            monkeypatch.delitem(sys.modules, loaded)
        monkeypatch.setitem(sys.modules, name, None)


def test_core_and_integration_modules_import_none_of_the_libraries():
    code = (
        "import sys, ragmeter, ragmeter.cli\n"
        "import ragmeter.integrations.langchain, ragmeter.integrations.llamaindex\n"
        "import ragmeter.integrations.otel, ragmeter.integrations.otel_export\n"
        "import ragmeter.integrations.mlflow\n"
        f"print([m for m in {LIBS!r} if m in sys.modules])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(SRC), "PATH": ""},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def _one_line(exc: pytest.ExceptionInfo, extra: str) -> None:
    message = str(exc.value)
    assert "\n" not in message
    assert f"pip install 'ragmeter[{extra}]'" in message
    assert isinstance(exc.value, ResourceUnavailable) and isinstance(exc.value, ImportError)


@pytest.mark.parametrize(
    ("blocked", "extra", "call"),
    [
        ("langchain_core", "langchain", lambda: rl.collect(object(), ["q?"])),
        ("langchain_core", "langchain", lambda: rl.RagmeterCallbackHandler),
        ("llama_index", "llamaindex", lambda: rli.collect(object(), ["q?"])),
        ("openinference", "otel", lambda: otel.load_traces({"resourceSpans": []})),
        ("mlflow", "mlflow", lambda: rm.log_result(EvaluationResult([], [], {}, {}))),
    ],
)
def test_each_entry_point_names_its_extra(monkeypatch, blocked, extra, call):
    _block(monkeypatch, blocked)
    with pytest.raises(IntegrationUnavailable) as exc:
        call()
    _one_line(exc, extra)


def test_cli_says_which_extra_before_any_work(monkeypatch, tmp_path):
    from ragmeter.cli import app

    _block(monkeypatch, "openinference", "mlflow")
    traces = tmp_path / "traces.json"
    traces.write_text(json.dumps({"resourceSpans": []}))
    done = CliRunner().invoke(app, ["evaluate", str(traces), "--format", "otel", "-m", "mrr"])
    assert done.exit_code == 2
    assert "pip install 'ragmeter[otel]'" in done.output
    out = tmp_path / "out"
    done = CliRunner().invoke(
        app,
        ["evaluate", str(EXAMPLES / "rag_turns.jsonl"), "-m", "mrr", "--mlflow", "-o", str(out)],
    )
    assert done.exit_code == 2
    assert "pip install 'ragmeter[mlflow]'" in done.output
    assert not (out / "scores.jsonl").exists()  # said before any scoring
