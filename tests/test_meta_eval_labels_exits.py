"""`ragmeter meta-eval labels`: the paths the first tests left out: a Parquet file, a judge
that refuses the key (exit 3, at the first request or mid-run with the cache keeping what was
answered) and Ctrl-C (exit 130, saying how far the run got). wikieval has the same tests
(test_meta_eval_preflight.py, test_meta_eval_audit.py); labels shares its runner, and these
pin that it keeps sharing it."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import fake_server
from ragmeter import meta_eval
from ragmeter.cli import app
from ragmeter.cli import meta_eval as cli_meta_eval
from test_meta_eval_labels import ENV, _row, _write

PROBE = "Reply with the JSON object"


def _rows(n: int = 4) -> list[dict]:
    """n rows (n even), one claim each: the breaker stops a run at its 5th refused call."""
    years, towns = ("1889", "1925"), ("Paris", "Lyon", "Lille", "Nice")
    return [
        _row(f"It opened in {years[i % 2]} in {towns[i // 2 % 4]}.", faithfulness=1 - i % 2)
        for i in range(n)
    ]


def _args(data: Path, url: str, cache: str, *extra: str) -> list[str]:
    return [
        *("meta-eval", "labels", "--data", str(data), "--judge", "openai:fake"),
        *("--base-url", url, "--embedder", "none", "--cache", cache),
        *("--baselines", "k_precision", *extra),
    ]


def test_a_parquet_file_gives_the_numbers_its_jsonl_gives(tmp_path: Path) -> None:
    """The loader evaluate uses reads Parquet: labels as integers, booleans or strings."""
    rows = _rows()
    jsonl = _write(tmp_path / "l.jsonl", rows)
    columns = {
        "int": pa.array([1, 0, 1, 0]),
        "bool": pa.array([True, False, True, False]),
        "str": pa.array(["yes", "no", "1", "false"]),
    }
    paths = {"jsonl": jsonl}
    for kind, labels in columns.items():
        table = pa.Table.from_pylist([{k: v for k, v in r.items() if k != "label_faithfulness"}
                                      for r in rows])  # fmt: skip
        paths[kind] = tmp_path / f"l_{kind}.parquet"
        pq.write_table(table.append_column("label_faithfulness", labels), paths[kind])
    outs = {}
    with fake_server.FakeOpenAIServer() as server:
        for name, path in paths.items():
            out = tmp_path / f"{name}.json"
            res = CliRunner().invoke(
                app, [*_args(path, server.url, "off"), "-o", str(out)], env=ENV
            )
            assert res.exit_code == 0, (name, res.output)
            outs[name] = json.loads(out.read_text())
    for name in columns:
        assert outs[name]["n_labelled"] == {"faithfulness": 4}
        for a, b in zip(outs["jsonl"]["results"], outs[name]["results"], strict=True):
            assert (a["name"], a["auroc"], a["calibration"]["brier"]) == (
                b["name"],
                b["auroc"],
                b["calibration"]["brier"],
            )
            assert [x["label"] for x in b["rows"]] == [1, 0, 1, 0]
            assert [x["value"] for x in a["rows"]] == [x["value"] for x in b["rows"]]


def test_a_refused_key_stops_at_the_first_request_with_exit_3(tmp_path: Path) -> None:
    data = _write(tmp_path / "l.jsonl", _rows())
    out = tmp_path / "o.json"
    with fake_server.FakeOpenAIServer(fault_fn=lambda body, n: "401") as server:
        res = CliRunner().invoke(app, [*_args(data, server.url, "off"), "-o", str(out)], env=ENV)
        calls, bodies = server.calls, list(server.bodies)
    assert res.exit_code == 3, res.output
    assert calls == 1 and PROBE in json.dumps(bodies[0]) and not out.exists()
    assert "not-a-real-key" not in res.output


def test_a_key_refused_mid_run_exits_3_and_the_cache_keeps_the_answers(tmp_path: Path) -> None:
    def refuse_after_preflight(body: dict, n: int) -> str | None:
        return None if PROBE in json.dumps(body) else "401"

    data = _write(tmp_path / "l.jsonl", _rows(8))
    cache = tmp_path / "cache"
    with fake_server.FakeOpenAIServer(fault_fn=refuse_after_preflight) as server:
        res = CliRunner().invoke(app, _args(data, server.url, str(cache)), env=ENV)
    assert res.exit_code == 3, res.output
    flat = " ".join(res.stderr.split())
    assert "aborted:" in flat and "HTTP 401" in flat
    assert f"kept in the cache ({cache}): run the same command again to resume" in flat
    assert "not-a-real-key" not in res.output


def test_ctrl_c_says_how_far_it_got_and_a_rerun_resumes_from_the_cache(tmp_path: Path) -> None:
    def ctrl_c(msg: str) -> None:  # Ctrl-C as the first row is done
        raise KeyboardInterrupt

    data = _write(tmp_path / "l.jsonl", _rows())
    cache = str(tmp_path / "cache")
    with fake_server.FakeOpenAIServer() as server:
        s = {"judge": "openai:fake", "base_url": server.url, "embedder": "none", "cache": cache}
        with pytest.raises(KeyboardInterrupt) as said:
            meta_eval.run("labels", data, settings=s, baselines=["none"], progress=ctrl_c)
        line = str(said.value)
        assert line.startswith("interrupted: 1 of 4 rows scored by the judged metrics"), line
        assert f"kept in the cache ({cache}): run the same command again to resume" in line
        sent = server.calls
        again = meta_eval.run("labels", data, settings=s, baselines=["none"], limit=2)
        assert server.calls - sent == 1 + 1  # the preflight, and row 2 (row 1 was cached)
    assert again.payload["n_labelled"] == {"faithfulness": 2}


def test_ctrl_c_on_the_command_line_exits_130(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _write(tmp_path / "l.jsonl", _rows())

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt("interrupted: 0 of 4 rows scored by the judged metrics")

    monkeypatch.setattr(cli_meta_eval, "run_meta_eval", interrupted)
    res = CliRunner().invoke(app, _args(data, "http://127.0.0.1:9", "off"), env=ENV)
    assert res.exit_code == 130, res.output
    assert "interrupted" in res.output and "Traceback" not in res.output
