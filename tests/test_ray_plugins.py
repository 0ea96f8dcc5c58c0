"""A metric from ``--plugin path/to/metrics.py`` on ``--executor ray``: the module is loaded
from a path, under a name no Ray worker can import, so cloudpickle's reference to it failed in
the worker (``ModuleNotFoundError: No module named 'ragmeter_plugin_...'``). Such a module is
now pickled by value. A dotted-name plugin is importable where ragmeter is, as any library.
One small local Ray, started by the test as a user's own ``ray.init()``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from needs import require_module
from ragmeter.cli import app
from test_plugins import SHORT, _plugin, clean  # noqa: F401  (the fixture: plugins forgotten)

ROWS = [
    {"question_id": f"q{i}", "question": "What is X?", "answer": " ".join(["word"] * (i % 7 + 1))}
    for i in range(40)
]


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    ray = require_module("ray")
    require_module("ray.data")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def test_a_file_plugins_metric_runs_on_ray_as_it_does_locally(
    ray_cluster: Any, tmp_path: Path
) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    plugin = _plugin(tmp_path / "team", "plg_rayshort", "plg_rayshort")
    config = tmp_path / "ragmeter.toml"
    config.write_text("[ragmeter.options]\nplg_rayshort_words = 3\n", encoding="utf-8")
    scores = {}
    for executor in ("local", "ray"):
        out = tmp_path / executor
        args = ["evaluate", str(data), "-m", "plg_rayshort", "-o", str(out), "-q"]
        args += ["--plugin", str(plugin), "--config", str(config), "--n-resamples", "10"]
        args += ["--batch-size", "8"] if executor == "ray" else []
        result = CliRunner().invoke(app, [*args, "--executor", executor])
        assert result.exit_code == 0, (executor, result.output)
        rows = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
        scores[executor] = {r["question_id"]: r["plg_rayshort"] for r in rows}
    assert scores["ray"] == scores["local"]
    values = [s["value"] if isinstance(s, dict) else s for s in scores["ray"].values()]
    assert sorted(set(values)) == [0.0, 1.0]  # the option (3 words) reached the workers
    assert sum(values) == sum(1 for r in ROWS if len(r["answer"].split()) <= 3)
