"""Structured-output detection at preflight: transient faults are retried with backoff, only
a definite refusal moves to a weaker mode, faults that outlast the retries stop the run
(exit 3), and run.json says how the mode was decided."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from conftest import make_row
from fake_server import FakeOpenAIServer
from ragmeter import evaluate
from ragmeter.backends.openai_compat import mode_refusal
from ragmeter.cli import app
from ragmeter.config import Settings


def settings(url: str, **kw: Any) -> Settings:
    return Settings(
        judge="openai:m", base_url=url, api_key_env="RM_PF_UNSET", embedder="none", **kw
    )


def first_n_fail(n: int, fault: str = "500") -> Any:
    """The server's first ``n`` requests get ``fault`` (a burst), then it answers."""
    lock, seen = threading.Lock(), [0]

    def fault_fn(body: dict[str, Any], n_seen: int) -> str | None:
        with lock:
            seen[0] += 1
            return fault if seen[0] <= n else None

    return fault_fn


def probes(srv: FakeOpenAIServer) -> list[str | None]:
    """The response_format type of each preflight probe (one message), in order."""
    return [
        (b.get("response_format") or {}).get("type") for b in srv.bodies if len(b["messages"]) == 1
    ]


@pytest.mark.parametrize("fault", ["500", "429", "drop"])
def test_a_transient_burst_at_preflight_is_retried_not_a_downgrade(
    tmp_path: Path, fault: str
) -> None:
    with FakeOpenAIServer(fault_fn=first_n_fail(3, fault)) as srv:
        s = settings(srv.url, cache=str(tmp_path / "cache"))
        result = evaluate([make_row(1)], ["faithfulness"], settings=s, out=tmp_path / "o")
        assert probes(srv) == ["json_schema"] * 4  # three faults, retried, then accepted
    assert result.exit_code() == 0
    run = json.loads((tmp_path / "o" / "run.json").read_text())
    assert run["structured_output"] == "json_schema"
    assert run["judge"]["structured_output_decided"] == "auto, at preflight: json_schema accepted"


def test_faults_that_outlast_the_retries_stop_the_run_with_exit_3(tmp_path: Path) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_text(json.dumps(make_row(1)) + "\n")
    config = tmp_path / "ragmeter.toml"
    config.write_text("max_retries = 2\n")
    with FakeOpenAIServer(fault_fn=lambda b, n: "500") as srv:
        out = CliRunner().invoke(
            app,
            [
                "evaluate",
                str(data),
                *("--judge", "openai:m", "--base-url", srv.url, "--api-key-env", "RM_PF_UNSET"),
                *("--embedder", "none", "--cache", "off", "--config", str(config)),
                *("-m", "faithfulness"),
            ],
            env={"COLUMNS": "300"},
        )
        assert probes(srv) == ["json_schema"] * 3 and srv.calls == 3  # no row was judged
    assert out.exit_code == 3, out.output
    flat = " ".join(out.output.split())
    assert "500" in flat and "structured-output mode could not be found out" in flat


def test_a_5xx_naming_the_format_is_a_refusal_at_once(tmp_path: Path) -> None:
    """llama.cpp's server: HTTP 500 "Either 'json_schema' or 'grammar'..." every time."""
    with FakeOpenAIServer(structured="json_object") as srv:
        result = evaluate([make_row(1)], ["faithfulness"], settings=settings(srv.url, cache="off"))
        assert probes(srv) == ["json_schema", "json_object"]  # not retried: definite
    decided = result.manifest["judge"]["structured_output_decided"]
    assert result.manifest["structured_output"] == "json_object"
    assert decided.startswith("auto, at preflight: json_schema refused (HTTP 500: Either")
    assert decided.endswith("; json_object accepted")


def test_a_reply_ignoring_the_format_is_no_support(tmp_path: Path) -> None:
    def script(body: dict[str, Any]) -> str | None:
        return "Sure, here it is: ok" if body.get("response_format") else None

    with FakeOpenAIServer(script=script) as srv:
        result = evaluate([make_row(1)], ["faithfulness"], settings=settings(srv.url, cache="off"))
        assert probes(srv) == ["json_schema", "json_object", None]
    decided = result.manifest["judge"]["structured_output_decided"]
    assert result.manifest["structured_output"] == "none"
    assert "json_schema ignored" in decided and "json_object ignored" in decided


@pytest.mark.parametrize(
    ("mode", "preflight", "decided"),
    [
        ("json_object", True, "given (--structured-output / Settings.structured_mode)"),
        ("auto", False, "auto without a preflight: json_schema assumed, not probed"),
    ],
)
def test_run_json_says_how_the_mode_was_decided(
    tmp_path: Path, mode: str, preflight: bool, decided: str
) -> None:
    with FakeOpenAIServer() as srv:
        s = settings(srv.url, cache="off", structured_mode=mode, preflight=preflight)
        result = evaluate([make_row(1)], ["faithfulness"], settings=s)
    assert result.manifest["judge"]["structured_output_decided"] == decided


class StatusError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"Error code: {status}")
        self.status_code = status
        self.body = {"error": {"message": message}}


@pytest.mark.parametrize(
    ("status", "message", "refused"),
    [
        (400, "response_format 'json_schema' is not supported", True),
        (422, "unprocessable", True),  # a 4xx to a probe valid apart from its format
        (500, "Either 'json_schema' or 'grammar' can be specified, but not both", True),
        (500, "internal server error", False),  # a fault: retried, never a refusal
        (503, "overloaded", False),
        (429, "rate limited: response_format requests", False),  # not now, not "no"
        (401, "bad key", False),
    ],
)
def test_mode_refusal(status: int, message: str, refused: bool) -> None:
    why = mode_refusal(StatusError(status, message))
    assert (why is not None) is refused
    if refused:
        assert why == f"HTTP {status}: {message}"
