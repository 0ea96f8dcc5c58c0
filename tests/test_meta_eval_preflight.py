"""meta-eval preflights a remote judge as evaluate does: an unreachable server stops it before
the first pair (exit 3), and ``structured_mode="auto"`` is found out rather than assumed.

Before, meta-eval sent no preflight: against llama.cpp's server (HTTP 500 to json_schema) every
call of a generate-mode metric failed after its retries, since json_schema was assumed."""

from __future__ import annotations

import json

from typer.testing import CliRunner

import fake_server
from ragmeter.cli import app
from test_meta_eval_failures import ENV, data  # noqa: F401  (the fixture)

PROBE = "Reply with the JSON object"


def _args(data, url: str, out) -> list[str]:  # noqa: F811
    return [
        *("meta-eval", "wikieval", "--data", str(data), "--judge", "openai:fake"),
        *("--base-url", url, "--embedder", "none", "--cache", "off"),
        *("--dimensions", "faithfulness", "--baselines", "k_precision", "-o", str(out)),
    ]


def test_an_auto_structured_mode_is_found_out_before_the_first_pair(data, tmp_path):  # noqa: F811
    out = tmp_path / "me.json"
    with fake_server.FakeOpenAIServer(structured="json_object") as server:
        args = [*_args(data, server.url, out), "--mode", "faithfulness=generate"]
        result = CliRunner().invoke(app, args, env=ENV)
        bodies = list(server.bodies)
    assert result.exit_code == 0, result.output
    payload = json.loads(out.read_text())
    assert payload["preflight"]["structured_output"] == "json_object"
    assert "json_schema refused" in payload["preflight"]["structured_output_decided"]
    assert payload["failed_pairs"] == {"faithfulness": 0}
    assert PROBE in json.dumps(bodies[0]) and PROBE in json.dumps(bodies[1])  # the probes
    later = [b for b in bodies[2:] if b.get("response_format")]
    assert later and all(b["response_format"]["type"] == "json_object" for b in later)


def test_a_refused_key_stops_meta_eval_at_its_first_request(data, tmp_path):  # noqa: F811
    """Before: the pairs' calls met the 401 one by one until the breaker opened."""
    out = tmp_path / "me.json"
    with fake_server.FakeOpenAIServer(fault_fn=lambda body, n: "401") as server:
        result = CliRunner().invoke(app, _args(data, server.url, out), env=ENV)
        calls, bodies = server.calls, list(server.bodies)
    assert result.exit_code == 3, result.output
    assert calls == 1 and PROBE in json.dumps(bodies[0]) and not out.exists()
    assert "preflight request" in result.output and "sk-test" not in result.output


def test_fast_mode_preflight_is_one_request_and_recorded(data, tmp_path):  # noqa: F811
    out = tmp_path / "me.json"
    with fake_server.FakeOpenAIServer() as server:
        result = CliRunner().invoke(app, _args(data, server.url, out), env=ENV)
        first = server.bodies[0]
    assert result.exit_code == 0, result.output
    assert PROBE in json.dumps(first)
    assert json.loads(out.read_text())["preflight"]["preflight"] == "ok"


def test_preflight_false_in_the_config_sends_none(data, tmp_path):  # noqa: F811
    out, config = tmp_path / "me.json", tmp_path / "c.toml"
    config.write_text("[ragmeter]\npreflight = false\n")
    with fake_server.FakeOpenAIServer() as server:
        args = [*_args(data, server.url, out), "--config", str(config)]
        result = CliRunner().invoke(app, args, env=ENV)
        bodies = list(server.bodies)
    assert result.exit_code == 0, result.output
    assert bodies and not any(PROBE in json.dumps(b) for b in bodies)
    assert json.loads(out.read_text())["preflight"] is None
