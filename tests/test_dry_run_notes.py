"""The dry run's notes say what the run would: a resource that cannot be had is noted only when
a metric of the plan needs it (in its chosen mode), as the run fails or refuses only such a
metric. Before, `evaluate data --dry-run --judge openai:MODEL -m faithfulness` printed "note:
no scorer: the judge ... cannot score given continuations" (building a remote judge marks the
scorer unavailable too), though no metric asked for needs a scorer and the run says nothing
of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

from fake_server import FakeOpenAIServer
from ragmeter.cli import app
from ragmeter.config import Settings
from ragmeter.dry_run import estimate
from ragmeter.executors.common import run_sync
from ragmeter.metrics.registry import get_metric
from ragmeter.sample import Sample

runner = CliRunner()
KEYED = {"OPENAI_API_KEY": "sk-test-not-a-real-key", "COLUMNS": "200"}


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(make_row(i)) + "\n" for i in range(1, 3)))
    return path


@pytest.mark.parametrize("metrics", [["-m", "faithfulness"], []], ids=["m", "default-plan"])
def test_no_scorer_note_when_no_planned_metric_needs_one(
    data: Path, tmp_path: Path, metrics: list[str]
) -> None:
    args = ["evaluate", str(data), "--judge", "openai:gpt-4o-mini", *metrics, "--cache", "off"]
    dry = runner.invoke(app, [*args, "--dry-run"], env=KEYED)
    assert dry.exit_code == 0, dry.output
    assert "dry run: estimated judge work" in dry.output
    assert "faithfulness" in dry.output  # estimated: a judged metric is in the plan
    assert "scorer" not in dry.output and "note:" not in dry.output


def test_the_run_with_those_settings_says_nothing_of_a_scorer_either(data: Path) -> None:
    """What the dry run is held to: the run itself (over the fake server), same settings."""
    with FakeOpenAIServer() as srv:
        args = ["evaluate", str(data), "--judge", "openai:m", "--base-url", srv.url]
        args += ["-m", "faithfulness", "--cache", "off", "--no-preflight"]
        real = runner.invoke(app, args, env=KEYED)
        dry = runner.invoke(app, [*args, "--dry-run"], env=KEYED)
    assert real.exit_code == 0, real.output
    assert dry.exit_code == 0, dry.output
    assert "scorer" not in real.output and "note:" not in real.output
    assert "scorer" not in dry.output and "note:" not in dry.output


def test_a_planned_metric_needing_a_scorer_is_refused_alike_by_the_run_and_the_dry_run(
    data: Path,
) -> None:
    """-m context_relevance_perplexity with a remote judge: the run refuses it before any
    work (exit 2, naming the scorer it lacks and the fixes); the dry run says the same."""
    args = ["evaluate", str(data), "--judge", "openai:gpt-4o-mini", "--cache", "off"]
    args += ["-m", "context_relevance_perplexity"]
    real = runner.invoke(app, args, env=KEYED)
    dry = runner.invoke(app, [*args, "--dry-run"], env=KEYED)
    said = (
        "'context_relevance_perplexity' needs a scorer, and there is no scorer available: the "
        "judge 'openai:gpt-4o-mini' cannot score given continuations; teacher forcing needs a "
        "local model (--judge local or gguf:PATH) or the option scorer_model=PATH, or drop it "
        "from the metrics (-m)"
    )
    assert real.exit_code == dry.exit_code == 2, real.output + dry.output
    assert said in _flat(real.output) and said in _flat(dry.output)
    assert "dry run" not in dry.output


def _estimate(names: list[str]) -> dict:  # type: ignore[type-arg]
    settings = Settings(
        judge="openai:m", base_url="http://127.0.0.1:9/v1", cache="off", embedder="none"
    )
    samples = [Sample.model_validate(make_row(i)) for i in (1, 2)]
    metrics = [get_metric(n) for n in names]
    return run_sync(estimate(metrics, samples, settings))  # nothing is sent


def test_the_estimate_notes_only_what_a_metric_of_it_needs() -> None:
    """The note stays where it is true: a metric given to ``estimate`` that needs a scorer
    (the library's way past the plan) is counted as failing for want of one, and noted."""
    assert _estimate(["faithfulness"])["unavailable"] == {}
    # the embedder is one faithfulness only uses (evidence by embedding, on request)
    assert "embedder" not in _estimate(["faithfulness", "k_precision"])["unavailable"]
    both = _estimate(["faithfulness", "context_relevance_perplexity"])
    assert list(both["unavailable"]) == ["scorer"]
    assert "cannot score given continuations" in both["unavailable"]["scorer"]
