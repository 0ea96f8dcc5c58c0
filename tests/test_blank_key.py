"""A key variable holding only blanks (a CI secret that expanded to spaces or a newline) is
unset: refused before any work (exit 2) as a missing key is. It was taken for a key, sent as
"Bearer  ", and the run ended on the server's 401 after its retries (exit 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

from ragmeter.cli import app
from ragmeter.redact import env_secret


@pytest.mark.parametrize("value", [" ", "\n", "\t \n"])
def test_a_blank_key_is_no_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("RM_BLANK_KEY", value)
    assert env_secret("RM_BLANK_KEY") is None
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(make_row(1)) + "\n")
    args = ["evaluate", str(data), "--judge", "openai:gpt-4o-mini", "--api-key-env"]
    res = CliRunner().invoke(app, [*args, "RM_BLANK_KEY", "-m", "faithfulness"])
    assert res.exit_code == 2, res.output
    assert "RM_BLANK_KEY" in res.output and "not set" in " ".join(res.output.split())


def test_a_key_read_with_its_line_ending_is_sent_without_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RM_KEY_NL", "sk-test-123\n")
    assert env_secret("RM_KEY_NL") == "sk-test-123"
    monkeypatch.delenv("RM_KEY_UNSET", raising=False)
    assert env_secret("RM_KEY_UNSET") is None and env_secret(None) is None
