"""The contract with the caller (issue 11): usage errors before any work (exit 2), an
unreachable judge stops the run (exit 3), failed scores exit 1, structured-output fallback,
the run.json manifest, and progress lines for logs."""

from __future__ import annotations

import hashlib
import io
import json
import random
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from conftest import LEXICAL, make_row
from engine_helpers import ensure_registered, rows
from fake_server import FakeOpenAIServer
from ragmeter import evaluate
from ragmeter.cli import app
from ragmeter.config import Settings
from ragmeter.errors import DataError, JudgeUnreachable, MetricError, OutputError, UsageError
from ragmeter.scheduler import PlainProgress

KEY = "sk-failfast-secret-key-000000000001"


def _data(tmp_path: Path, n: int = 3) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(json.dumps(make_row(i)) for i in range(1, n + 1)) + "\n")
    return path


def _judge_args(url: str, tmp_path: Path) -> list[str]:
    return [
        "--judge",
        "openai:m",
        "--base-url",
        url,
        "--api-key-env",
        "RAGMETER_FF_KEY",
        "--embedder",
        "none",
        "--cache",
        str(tmp_path / "cache"),
    ]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# ---- 1. usage and configuration errors: exit 2, before any judge call -----------------------

CLI_CASES = {
    "unknown metric": (["-m", "faithfulnes"], "unknown metric 'faithfulnes'"),
    "empty metric list": (["-m", ","], "no metric named"),
    "unknown metric in --mode": (["--mode", "bogus=fast"], "unknown metric 'bogus'"),
    "unknown mode": (["--mode", "faithfulness=slow"], "choose one of fast, generate"),
    "mode of a metric without modes": (["--mode", "mrr=fast"], "mrr has no modes"),
    "judge spec": (["--judge", "claude"], "judge must be"),
    "embedder spec": (["--embedder", "bogus"], "embedder must be"),
    "structured output": (["--structured-output", "xml"], "structured_mode"),
}


@pytest.mark.parametrize("case", sorted(CLI_CASES))
def test_cli_usage_errors_exit_2_before_any_judge_call(tmp_path: Path, case: str) -> None:
    args, expected = CLI_CASES[case]
    with FakeOpenAIServer() as srv:
        started = time.monotonic()
        out = CliRunner().invoke(
            app,
            [
                "evaluate",
                str(_data(tmp_path)),
                *_judge_args(srv.url, tmp_path),
                *([] if "-m" in args else ["-m", "faithfulness"]),  # -m is given once
                *args,
            ],
            env={"RAGMETER_FF_KEY": KEY, "COLUMNS": "300"},
        )
        assert time.monotonic() - started < 5
        assert srv.calls == 0  # no judge call, no preflight
    assert out.exit_code == 2, out.output
    flat = " ".join(out.output.split())
    assert expected in flat and "Traceback" not in out.output and KEY not in out.output


def test_cli_unreadable_input_exits_2(tmp_path: Path) -> None:
    for path in (tmp_path / "missing.jsonl", tmp_path):
        out = CliRunner().invoke(app, ["evaluate", str(path), "-m", "mrr"])
        assert out.exit_code == 2, out.output
        assert "file not found" in out.output or "is a directory" in out.output


def test_cli_out_that_is_a_file_or_unwritable_exits_2_before_computing(tmp_path: Path) -> None:
    blocker = tmp_path / "taken"
    blocker.write_text("not a directory")
    with FakeOpenAIServer() as srv:
        for target, expected in ((blocker, "is a file"), (blocker / "sub", "cannot be created")):
            out = CliRunner().invoke(
                app,
                [
                    "evaluate",
                    str(_data(tmp_path)),
                    *_judge_args(srv.url, tmp_path),
                    "-m",
                    "faithfulness",
                    "-o",
                    str(target),
                ],
                env={"RAGMETER_FF_KEY": KEY},
            )
            assert out.exit_code == 2, out.output
            assert expected in " ".join(out.output.split())
        assert srv.calls == 0  # checked before the judge was asked anything
    assert blocker.read_text() == "not a directory"


def test_resume_with_other_settings_exits_2_unless_overwrite(tmp_path: Path) -> None:
    data, out_dir = _data(tmp_path), tmp_path / "out"
    base = ["evaluate", str(data), "-m", ",".join(LEXICAL[:4]), "-o", str(out_dir)]
    first = CliRunner().invoke(app, [*base, "--n-resamples", "50"])
    assert first.exit_code == 0, first.output
    same = CliRunner().invoke(app, [*base, "--n-resamples", "50"])  # a resume: same settings
    assert same.exit_code == 0, same.output
    other = CliRunner().invoke(app, [*base, "--n-resamples", "60", "--judge", "none"])
    assert other.exit_code == 2
    flat = " ".join(other.output.split())
    assert "holds a run with other settings" in flat and "--overwrite" in flat
    assert "n_resamples: 50 there, 60 now" in flat
    replaced = CliRunner().invoke(app, [*base, "--n-resamples", "60", "--overwrite"])
    assert replaced.exit_code == 0, replaced.output
    assert json.loads((out_dir / "run.json").read_text())["fingerprint"]["n_resamples"] == 60


def test_api_raises_usage_errors_before_any_work(tmp_path: Path) -> None:
    data = [make_row(i) for i in range(1, 3)]
    with FakeOpenAIServer() as srv:
        s = Settings(judge="openai:m", base_url=srv.url, api_key_env="RAGMETER_FF_UNSET")
        cases: list[tuple[dict[str, Any], type[UsageError]]] = [
            ({"metrics": "faithfulnes"}, DataError),
            ({"metrics": ","}, MetricError),
            ({"metrics": []}, MetricError),
            ({"settings": s.merged(modes={"bogus": "fast"})}, MetricError),
            ({"settings": s.merged(modes={"faithfulness": "slow"})}, MetricError),
            ({"settings": {"judge": "claude"}}, DataError),
            ({"settings": {"embedder": "bogus"}}, DataError),
        ]
        for kwargs, exc_type in cases:
            kwargs = {"metrics": ["faithfulness"], "settings": s, **kwargs}
            with pytest.raises(exc_type):
                evaluate(data, **kwargs)
        (tmp_path / "file").write_text("x")
        with pytest.raises(OutputError, match="is a file"):
            evaluate(data, ["faithfulness"], settings=s, out=tmp_path / "file")
        with pytest.raises(DataError, match="file not found"):
            evaluate(tmp_path / "nope.jsonl", ["faithfulness"], settings=s)
        assert srv.calls == 0
    evaluate(data, ["mrr"], out=tmp_path / "o", n_resamples=10)
    with pytest.raises(OutputError, match="other settings"):
        evaluate(data, ["mrr"], out=tmp_path / "o", n_resamples=20)
    evaluate(data, ["mrr"], out=tmp_path / "o", n_resamples=20, overwrite=True)


# ---- 2. preflight and circuit breaker: exit 3 within seconds --------------------------------


def test_closed_port_exits_3_within_seconds(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    started = time.monotonic()
    out = CliRunner().invoke(
        app,
        ["evaluate", str(_data(tmp_path)), *_judge_args(url, tmp_path), "-m", "faithfulness"],
        env={"RAGMETER_FF_KEY": KEY, "COLUMNS": "300"},
    )
    assert time.monotonic() - started < 30
    assert out.exit_code == 3, out.output
    flat = " ".join(out.output.split())
    assert url in flat and "connection refused" in flat and "resume" in flat
    assert KEY not in out.output and "Traceback" not in out.output


@pytest.mark.parametrize("preflight", [True, False])
def test_401_everywhere_stops_the_run(tmp_path: Path, preflight: bool) -> None:
    """With the preflight the run stops before its first row; without it the breaker stops
    it after a few calls, through the real metrics (guarded must not swallow it)."""
    with FakeOpenAIServer(fault_fn=lambda b, n: "401") as srv:
        s = Settings(
            judge="openai:m",
            base_url=srv.url,
            api_key=KEY,
            embedder="none",
            cache=str(tmp_path / "cache"),
            preflight=preflight,
            concurrency=2,
        )
        started = time.monotonic()
        with pytest.raises(JudgeUnreachable) as err:
            evaluate(
                [make_row(i) for i in range(1, 41)],
                ["faithfulness", "answer_relevance"],
                settings=s,
                out=tmp_path / "out",
            )
        assert time.monotonic() - started < 30
        # the preflight: one request; the breaker: 5 failures, plus the calls in flight
        assert srv.calls == 1 if preflight else 5 <= srv.calls <= 12
        url = srv.url
    text = str(err.value)
    assert "HTTP 401" in text and url in text and KEY not in text and "resume" in text
    manifest = json.loads((tmp_path / "out" / "run.json").read_text())
    assert manifest["status"] == "aborted" and KEY not in json.dumps(manifest)


def test_cli_401_exits_3(tmp_path: Path) -> None:
    with FakeOpenAIServer(fault_fn=lambda b, n: "401") as srv:
        out = CliRunner().invoke(
            app,
            [
                "evaluate",
                str(_data(tmp_path)),
                *_judge_args(srv.url, tmp_path),
                "-m",
                "faithfulness",
            ],
            env={"RAGMETER_FF_KEY": KEY, "COLUMNS": "300"},
        )
    assert out.exit_code == 3, out.output
    assert "HTTP 401" in out.output and KEY not in out.output


def test_transient_500s_are_retried_and_every_sample_scored(tmp_path: Path) -> None:
    rng = random.Random(11)
    name = ensure_registered()
    with FakeOpenAIServer(fault_fn=lambda b, n: "500" if rng.random() < 0.2 else None) as srv:
        data = tmp_path / "rows.jsonl"
        data.write_text("\n".join(json.dumps(r) for r in rows(30)) + "\n")
        out = CliRunner().invoke(
            app,
            [
                "evaluate",
                str(data),
                *_judge_args(srv.url, tmp_path),
                "-m",
                name,
                "-o",
                str(tmp_path / "o"),
            ],
            env={"RAGMETER_FF_KEY": KEY},
        )
        assert srv.faults["500"] > 0
    assert out.exit_code == 0, out.output
    assert "judging: 30/30 (100%), 0 failed" in out.output  # progress lines off a TTY
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["n_failed"] == 0 and summary["failures"] == []
    assert summary["metrics"][name]["n_ok"] == 30


# ---- 3. structured output: detected at preflight, with fallbacks ----------------------------


@pytest.mark.parametrize(
    ("capability", "chosen"),
    [("all", "json_schema"), ("json_object", "json_object"), ("none", "none")],
)
def test_generate_mode_scores_every_row_via_the_fallback(
    tmp_path: Path, capability: str, chosen: str
) -> None:
    with FakeOpenAIServer(structured=capability) as srv:
        s = Settings(
            judge="openai:m",
            base_url=srv.url,
            api_key_env="RAGMETER_FF_UNSET",
            embedder="none",
            cache="off",
            modes={"faithfulness": "generate", "context_precision": "generate"},
        )
        result = evaluate(
            [make_row(i) for i in range(1, 4)], ["faithfulness", "context_precision"], settings=s
        )
        metric_bodies = [b for b in srv.bodies if len(b["messages"]) > 1]
    for name in result.metrics:
        assert [x.status for x in result.scores[name]] == ["ok"] * 3, result.scores[name]
    assert result.manifest["structured_output"] == chosen
    assert result.manifest["judge"]["structured_output"] == chosen
    kinds = {(b.get("response_format") or {}).get("type") for b in metric_bodies}
    assert kinds == {None if chosen == "none" else chosen}
    if chosen != "json_schema":  # the schema went into the prompt
        assert all("JSON schema:" in b["messages"][-1]["content"] for b in metric_bodies)


def test_structured_output_flag_overrides_detection(tmp_path: Path) -> None:
    with FakeOpenAIServer(structured="json_object") as srv:
        out = CliRunner().invoke(
            app,
            [
                "evaluate",
                str(_data(tmp_path, 2)),
                *_judge_args(srv.url, tmp_path),
                "-m",
                "faithfulness",
                "--mode",
                "faithfulness=generate",
                "--structured-output",
                "json_object",
                "-o",
                str(tmp_path / "o"),
            ],
            env={"RAGMETER_FF_KEY": KEY},
        )
        probes = [b for b in srv.bodies if len(b["messages"]) == 1]
    assert out.exit_code == 0, out.output
    assert len(probes) == 1  # the plain probe only: no detection when the mode is given
    assert json.loads((tmp_path / "o" / "run.json").read_text())["structured_output"] == (
        "json_object"
    )


def test_refused_json_schema_without_preflight_says_what_to_change(tmp_path: Path) -> None:
    with FakeOpenAIServer(structured="json_object") as srv:
        s = Settings(
            judge="openai:m",
            base_url=srv.url,
            api_key_env="RAGMETER_FF_UNSET",
            embedder="none",
            cache="off",
            preflight=False,
            max_retries=1,
            modes={"faithfulness": "generate"},
        )
        result = evaluate([make_row(1)], ["faithfulness"], settings=s)
    score = result.scores["faithfulness"][0]
    assert score.status == "failed" and "--structured-output json_object" in (score.reason or "")
    assert result.exit_code() == 1 and result.exit_code(max_failure_rate=1.0) == 0


# ---- 4/5. exit codes mirrored by the API; the manifest --------------------------------------


def test_failed_scores_exit_1_and_max_failure_rate_tolerates_them(tmp_path: Path) -> None:
    name = ensure_registered()

    def faults(body: dict[str, Any], n: int) -> str | None:
        msgs = body["messages"]
        return "500" if len(msgs) > 1 and "number 1?" in msgs[1]["content"] else None

    data = tmp_path / "rows.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows(4)) + "\n")
    config = tmp_path / "ragmeter.toml"
    config.write_text("max_retries = 0\n")  # fail the faulty row at once
    with FakeOpenAIServer(fault_fn=faults) as srv:
        common = ["evaluate", str(data), *_judge_args(srv.url, tmp_path), "-m", name]
        common += ["--config", str(config)]
        env = {"RAGMETER_FF_KEY": KEY}
        strict = CliRunner().invoke(app, [*common, "--cache", "off"], env=env)
        assert strict.exit_code == 1, strict.output
        lenient = CliRunner().invoke(
            app, [*common, "--cache", "off", "--max-failure-rate", "0.25"], env=env
        )
        assert lenient.exit_code == 0, lenient.output
        tight = CliRunner().invoke(
            app, [*common, "--cache", "off", "--max-failure-rate", "0.2"], env=env
        )
        assert tight.exit_code == 1, tight.output


def test_run_json_describes_the_run(tmp_path: Path) -> None:
    data = _data(tmp_path, 3)
    with FakeOpenAIServer() as srv:
        out = CliRunner().invoke(
            app,
            [
                "evaluate",
                str(data),
                *_judge_args(srv.url, tmp_path),
                "-m",
                "faithfulness,mrr",
                "-o",
                str(tmp_path / "o"),
                "--quiet",
            ],
            env={"RAGMETER_FF_KEY": KEY},
        )
        url = srv.url
    assert out.exit_code == 0, out.output
    assert "judging:" not in out.output  # --quiet
    files = sorted(p.name for p in (tmp_path / "o").iterdir())
    assert files == ["run.json", "scores.jsonl", "summary.json"]  # no temp file left behind
    text = (tmp_path / "o" / "run.json").read_text()
    assert KEY not in text
    run = json.loads(text)
    assert run["status"] == "complete" and run["ragmeter_version"]
    assert run["input"] == {
        "file": "rows.jsonl",
        "sha256": hashlib.sha256(data.read_bytes()).hexdigest(),
        "rows": 3,
    }
    faith = next(m for m in run["metrics"] if m["name"] == "faithfulness")
    assert faith["mode"] == "fast" and faith["version"]
    prompt = faith["prompts"]["faithfulness.json"]
    assert prompt["version"].startswith("faithfulness-") and len(prompt["sha256"]) == 64
    assert run["judge"]["model"] == "m" and run["judge"]["base_url"] == url
    assert run["judge"]["temperature"] == 0.0 and run["judge"]["seed"] == 0
    assert run["structured_output"] == "json_schema" and run["seed"] == 0
    assert run["usage"]["calls"] > 0 and run["wall_s"] > 0


# ---- 6. progress in logs --------------------------------------------------------------------


def test_plain_progress_prints_every_tenth_and_every_30_seconds() -> None:
    now = [0.0]
    stream = io.StringIO()
    bar = PlainProgress(100, stream, clock=lambda: now[0])
    for i in range(25):
        now[0] += 0.5
        bar.advance(failed=i == 3)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2 and lines[0].startswith("judging: 10/100 (10%), 1 failed")
    assert "ETA" in lines[0] and "/s" in lines[0]
    now[0] += 31  # a slow job: a line after 30 s even without another 10%
    bar.advance()
    assert len(stream.getvalue().splitlines()) == 3
    assert stream.getvalue().splitlines()[-1].startswith("judging: 26/100 (26%)")


async def test_embedder_batches_do_not_swallow_an_unreachable_endpoint() -> None:
    """CachedEmbedder gathers its batches with return_exceptions: JudgeUnreachable must
    still come out, not become a failed reply."""
    from ragmeter.engine import CachedEmbedder, RetryPolicy

    class Refusing:
        name = "openai:emb"
        base_url = "http://127.0.0.1:9/v1"

        async def embed(self, texts: list[str]) -> Any:
            raise ConnectionRefusedError(111, "Connect call failed")

    emb = CachedEmbedder(Refusing(), policy=RetryPolicy(max_retries=6, base_delay=0.001))
    with pytest.raises(JudgeUnreachable, match=r"127\.0\.0\.1:9.*connection refused"):
        await emb.embed(["a", "b"])
