"""Reports and PR comments never show a secret a run's files recorded, and show B's settings.

A run written by an older or patched ragmeter, or edited by hand, may hold a key-like
setting, a URL with user:password@ or a key in its query; the report's manifest and the
comparison's warnings (which quote differing settings) printed them as they were.
"""

from __future__ import annotations

import json

import pytest
from tests.conftest import make_row
from tests.needs import require_module

from ragmeter.compare import compare
from ragmeter.testing import Evaluator

KEY = "sk-proj-ABCDEFGHIJKLMNOPQRSTUV123"
PASSWORD = "hunter2hunter2"
QUERY_KEY = "Zq9Zq9Zq9Zq9Zq9"
TOKEN = "tok_secret_value_123456"
LEAKS = (KEY, "ABCDEFGHIJKLMNOPQRSTUV123", PASSWORD, QUERY_KEY, TOKEN)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("secret_runs")
    rows = [make_row(i) for i in range(1, 5)]
    result = Evaluator(judge="scripted").evaluate(
        rows, ["token_f1", "faithfulness"], n_resamples=50
    )
    result.write(root / "a")
    result.write(root / "b")
    summary_path = root / "b" / "summary.json"
    summary = json.loads(summary_path.read_text())
    settings = summary["config"].setdefault("settings", {})
    settings["api_key"] = KEY
    settings["base_url"] = f"https://user:{PASSWORD}@judge.example/v1?api-key={QUERY_KEY}"
    settings["headers"] = {"Authorization": f"Bearer {TOKEN}"}
    settings["judge"] = "judge-b"
    summary_path.write_text(json.dumps(summary))
    return root / "a", root / "b"


def _assert_no_secret(text: str) -> None:
    for leak in LEAKS:
        assert leak not in text


def test_single_run_report_masks_recorded_secrets(runs):
    require_module("jinja2")
    require_module("matplotlib")
    from ragmeter.reporting import render_report

    html = render_report(runs[1])
    _assert_no_secret(html)
    manifest = html.split('<section id="manifest">', 1)[1]
    assert "judge.example/v1" in manifest and "judge-b" in manifest  # the rest still shown


def test_compare_report_shows_both_manifests_without_secrets(runs):
    require_module("jinja2")
    require_module("matplotlib")
    from ragmeter.reporting import render_report

    html = render_report(runs[0], runs[1])
    _assert_no_secret(html)
    manifest = html.split('<section id="manifest">', 1)[1]
    # B's settings were not on the page at all: a reviewer could not see B's judge
    assert "A = a" in manifest and "B = b" in manifest and "judge-b" in manifest


def test_markdown_warnings_mask_a_quoted_url_secret(runs):
    cmp = compare(*runs)
    assert any("base_url" in w for w in cmp.warnings)  # the warning quotes the setting
    md = cmp.to_markdown()
    assert "base_url" in md
    _assert_no_secret(md)


def test_terminal_and_json_warnings_mask_a_quoted_url_secret(runs):
    """The warnings are masked where they are made (comparability); the terminal and --json
    now apply Markdown's second defence too (a CI log and a JSON artifact are shared as
    widely as a PR comment). A regression guard: it passed before that second defence."""
    from typer.testing import CliRunner

    from ragmeter.cli import app

    assert "base_url" in compare(*runs).to_json()
    _assert_no_secret(compare(*runs).to_json())
    for args in ([], ["--format", "json"]):
        res = CliRunner().invoke(app, ["compare", str(runs[0]), str(runs[1]), *args])
        assert res.exit_code == 0, res.output
        assert "base_url" in res.output
        _assert_no_secret(res.output)
