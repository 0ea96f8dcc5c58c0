"""The default plan: when no metric applies, the error says why."""

from __future__ import annotations

import pytest

from ragmeter.errors import DataError
from ragmeter.io import load
from ragmeter.plan import FieldPresence, plan_metrics


def _presence(samples: list) -> FieldPresence:
    fp = FieldPresence()
    for s in samples:
        fp.add(s)
    return fp


def test_no_metric_applies_says_which_model_is_missing_not_that_fields_are() -> None:
    # the rows feed context_relevance, which needs a judge: the old message said no row
    # had the fields any metric needs
    samples = load([{"question": "q", "contexts": ["c"]}])
    for rows in (samples, _presence(samples)):
        with pytest.raises(DataError) as info:
            plan_metrics(rows, None, [], available_needs=set())
        text = str(info.value)
        assert "context_relevance (no judge available)" in text
        assert "no row has" not in text


def test_no_metric_applies_for_lack_of_fields_still_says_so() -> None:
    with pytest.raises(DataError, match="every metric needs fields that no row has"):
        plan_metrics(load([{"question": "q"}]), None, [], available_needs=set())


def test_a_mode_for_every_metric_that_one_lacks_is_a_usage_error(tmp_path) -> None:
    # options.mode = "bogus" (a config file's [ragmeter.options]) ended the CLI with
    # "internal error: ValueError", exit 1
    import subprocess
    import sys
    from pathlib import Path

    from ragmeter.errors import UsageError

    samples = load([{"question": "q", "answer": "a", "contexts": ["c"]}])
    with pytest.raises(UsageError, match="faithfulness: unknown mode 'bogus'"):
        plan_metrics(samples, "faithfulness,mrr", [], None, {"mode": "bogus"})
    with pytest.raises(UsageError, match="faithfulness: unknown mode 'bogus'"):
        plan_metrics(samples, None, [], {"judge"}, {"mode": "bogus"})
    data, config = tmp_path / "d.jsonl", tmp_path / "c.toml"
    data.write_text('{"question": "q", "answer": "a", "contexts": ["c"]}\n')
    config.write_text(
        '[ragmeter]\njudge = "openai:x"\nbase_url = "http://127.0.0.1:9"\n'
        '[ragmeter.options]\nmode = "bogus"\n'
    )
    src = str(Path(__file__).resolve().parents[1] / "src")
    cmd = [sys.executable, "-m", "ragmeter", "evaluate", str(data), "-m", "faithfulness"]
    proc = subprocess.run(
        [*cmd, "--config", str(config), "-o", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": src, "PATH": "/usr/bin:/bin", "OPENAI_API_KEY": "sk-test"},
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr
    assert "unknown mode 'bogus'" in proc.stderr and "internal error" not in proc.stderr
    assert not (tmp_path / "out").exists()
