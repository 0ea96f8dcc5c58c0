"""A ``gguf:PATH`` judge whose file is missing or has no GGUF header is refused whatever the
metrics, as a misspelt ``local:KEY`` is (``executors.common.check_judge_form``).

Before: ``evaluate data --judge gguf:/missing.gguf -m mrr`` exited 0 without a word, and
``evaluate(rows, "mrr", settings=Settings(judge="gguf:/nope.gguf"))`` scored and returned:
the path was looked at only when a judged metric was asked, so a typo in it passed unseen.
Now exit 2 (a ConfigError in Python) in the words a judged metric gets, from the file's
existence and first bytes alone: nothing is loaded.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import EXAMPLES
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app
from ragmeter.cli import evaluate as cli_evaluate
from ragmeter.errors import ConfigError
from ragmeter.executors.common import check_judge_form

runner = CliRunner()
TURNS = EXAMPLES / "rag_turns.jsonl"
HEADER_V3 = b"GGUF" + struct.pack("<I", 3) + bytes(16)
ROWS = [{"question": "q", "answer": "a", "contexts": ["c"], "retrieved_ids": ["x"],
         "relevant_ids": ["x"]}]  # fmt: skip


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Scoring (or a dry run's estimate) raises: a refusal must come before it."""

    def refuse(*_: Any, **__: Any) -> None:
        raise AssertionError("work started before --judge was checked")

    monkeypatch.setattr(cli_evaluate, "run_evaluate", refuse)
    monkeypatch.setattr(cli_evaluate, "run_dry", refuse)


def _flat(text: str) -> str:
    return " ".join(text.split())


def _mrr(judge: str, *extra: str) -> Any:
    args = ["evaluate", str(TURNS), "-m", "mrr", "--cache", "off", "--judge", judge, *extra]
    return runner.invoke(app, args, env={"COLUMNS": "300"})


@pytest.mark.parametrize("extra", [[], ["--dry-run"]])
def test_a_missing_gguf_is_refused_without_a_judged_metric(
    no_work: None, tmp_path: Path, extra: list[str]
) -> None:
    missing = tmp_path / "missing.gguf"
    res = _mrr(f"gguf:{missing}", *extra)
    assert res.exit_code == 2, res.output
    text = _flat(res.output)
    assert f"the judge 'gguf:{missing}' was asked for" in text
    assert f"the GGUF file {missing} does not exist; give a .gguf file: --judge gguf:PATH" in text


def test_a_file_with_no_gguf_header_is_refused_without_a_judged_metric(
    no_work: None, tmp_path: Path
) -> None:
    page = tmp_path / "page.gguf"
    page.write_bytes(b"<!DOCTYPE html><html><body>403 Forbidden</body></html>\n")
    res = _mrr(f"gguf:{page}")
    assert res.exit_code == 2, res.output
    text = _flat(res.output)
    assert f"the file {page} is no GGUF model llama.cpp can load: it starts with b'<!DO'" in text


def test_the_python_api_refuses_a_missing_gguf_too(tmp_path: Path) -> None:
    missing = tmp_path / "nope.gguf"
    with pytest.raises(ConfigError, match=r"the GGUF file .*nope\.gguf does not exist"):
        ragmeter.evaluate(ROWS, "mrr", settings={"judge": f"gguf:{missing}", "embedder": "none"})


def test_the_message_is_the_one_a_judged_metric_gets(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """One wording whether or not a judged metric asks (llama.cpp counted as installed, so
    the path is what a judged metric's check speaks of)."""
    from ragmeter import availability
    from ragmeter.config import Settings

    real = availability._found
    monkeypatch.setattr(availability, "_found", lambda m: m == "llama_cpp" or real(m))
    judge = f"gguf:{tmp_path / 'missing.gguf'}"
    with pytest.raises(ConfigError) as info:
        check_judge_form(judge)
    assert str(info.value) == availability.named_judge_problem(Settings(judge=judge))


def test_a_gguf_with_a_header_passes_and_is_not_read_whole(tmp_path: Path) -> None:
    """Guard: a file that starts as a GGUF model does is accepted (no model is loaded: the
    rest of the file is never looked at), and so is every other judge form."""
    good = tmp_path / "good.gguf"
    good.write_bytes(HEADER_V3 + b"\xff" * 4096)
    check_judge_form(f"gguf:{good}")
    for judge in ("local", "none", "openai:gpt-4o-mini", "litellm:ollama/q"):
        check_judge_form(judge)
