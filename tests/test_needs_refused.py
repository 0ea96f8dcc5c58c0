"""Every resource a metric named with -m needs, in its chosen mode, and that the settings cannot
give (a judge, a scorer, an embedder, a reward model; a Hugging Face model's path or packages)
is refused before any work (exit 2), naming the metric, the resource, the case and the fixes:
the one plan check the judge case used, on every executor, in the dry run and the library.
Before, `evaluate -m answer_relevance --mode answer_relevance=generate --embedder none` and
`-m answer_reward` without a reward model scored every sample as failed and exited 1.

The registry tests run over every metric and mode, so a new metric, or a new resource, cannot
skip the check. The dry run also refuses `--executor ray` without Ray installed, as the run
does up front."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

import ragmeter
from ragmeter import availability
from ragmeter.availability import CHECKED, a_need, unavailable_needs
from ragmeter.cli import app
from ragmeter.errors import DataError, ExecutorUnavailable
from ragmeter.metrics.base import RESOURCES, Metric
from ragmeter.metrics.registry import get_metric, list_metrics
from ragmeter.plan import plan_metrics
from ragmeter.sample import Sample

runner = CliRunner()
REMOTE = {"judge": "openai:x", "base_url": "http://127.0.0.1:9/v1", "cache": None}
# Settings that can give every resource (with the packages found: ``everything_found``)...
MET: dict[str, Any] = {**REMOTE, "embedder": "openai:e"}
# ... and, per resource, what takes it away (the rest of MET kept).
UNMET: dict[str, dict[str, Any]] = {
    "judge": {"judge": "none"},
    "scorer": {"judge": "none", "options": {}},  # no judge to score with, no scorer_model
    "embedder": {"embedder": "none"},
    "reward_model": {"options": {}},
}


def _flat(text: str) -> str:
    return " ".join(text.split())


def _plan(samples: Any, names: list[str] | None, s: Any, notes: list[str] | None = None) -> Any:
    """The plan a run of these settings makes (what every executor and the dry run call)."""
    available, unavailable = availability.availability(s)
    return plan_metrics(
        samples,
        names,
        [] if notes is None else notes,
        available,
        s.metric_options(),
        unavailable=unavailable,
    )


def _named(metric: Metric) -> Metric:
    """A listed template (ndcg@k) as a metric a run can name (ndcg@3)."""
    return get_metric(metric.name.replace("@k", "@3"))


CASES = [
    (m.name, mode, need)
    for m in list_metrics()
    for mode in (m.mode_names or (None,))
    for need in sorted(m.needs_in(mode))
]


@pytest.fixture
def everything_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every optional package counts as installed: each test says what it takes away."""
    monkeypatch.setattr(availability, "_found", lambda module: True)


@pytest.fixture
def models(tmp_path: Path) -> dict[str, Any]:
    """MET with the Hugging Face scorer and reward model set to paths that exist."""
    for folder in ("scorer", "reward"):  # a saved model's files, by name (never loaded here)
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "config.json").write_text("{}")
        (tmp_path / folder / "model.safetensors").write_bytes(b"")
    options = {"scorer_model": str(tmp_path / "scorer"), "reward_model": str(tmp_path / "reward")}
    return {**MET, "options": options}


def test_every_resource_a_metric_can_need_is_checked() -> None:
    """A resource added to Resources without an availability check would run, and fail every
    score, instead of being refused."""
    assert set(CHECKED) == RESOURCES
    assert {need for _, _, need in CASES} <= set(UNMET)
    assert ("answer_relevance", "generate", "embedder") in CASES
    assert ("answer_reward", None, "reward_model") in CASES


@pytest.mark.parametrize(("name", "mode", "need"), CASES, ids=[f"{n}-{m}-{d}" for n, m, d in CASES])
def test_each_need_of_each_metric_is_refused_when_unmet(
    name: str, mode: str | None, need: str, models: dict[str, Any], everything_found: None
) -> None:
    assert need in UNMET, f"add settings lacking {need!r} to UNMET, and its check to availability"
    samples = [Sample.model_validate(make_row(1))]
    modes = {name: mode} if mode else {}
    assert _plan(samples, [name], ragmeter.Settings(**models, modes=modes))  # met: it runs
    s = ragmeter.Settings(**{**models, **UNMET[need]}, modes=modes)
    unavailable = unavailable_needs(s)
    with pytest.raises(DataError) as err:
        _plan(samples, [name], s)
    line = next(p.message for p in err.value.problems if a_need(need) in p.message)
    assert f"'{name}'" in line and unavailable[need] in line, line
    assert line.endswith("drop it from the metrics (-m)"), line


@pytest.mark.parametrize("metric", list_metrics(), ids=lambda m: m.name)
def test_each_metric_is_refused_when_no_row_has_its_fields(metric: Metric) -> None:
    named = _named(metric)
    fields = {f for group in named.requires for f in group}
    row = {k: v for k, v in make_row(1).items() if k not in fields or k == "question"}
    samples = [Sample.model_validate(row)]
    with pytest.raises(DataError, match=f"metric '{named.name}' needs .*no row has these fields"):
        plan_metrics(samples, [named.name], [], set(CHECKED), unavailable={})


# ---- the cases, through the CLI, the executors, the dry run and the library ----------------


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(make_row(i)) + "\n" for i in range(1, 4)))
    return path


@pytest.fixture
def no_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any scoring or model session fails the test: the refusal must come before them."""

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("scoring started before the needs were checked")

    monkeypatch.setattr("ragmeter.runner.compute_all", forbidden)
    monkeypatch.setattr("ragmeter.executors.stream.compute_all", forbidden)
    monkeypatch.setattr("ragmeter.executors.session.build_resources", forbidden)


REMOTE_ARGS = ["--judge", "openai:x", "--base-url", "http://127.0.0.1:9/v1", "--cache", "off"]
GENERATE = ["-m", "answer_relevance,k_precision", "--mode", "answer_relevance=generate"]


@pytest.mark.parametrize("executor", ["local", "stream"])
@pytest.mark.parametrize("dry", [False, True])
def test_cli_refuses_an_embedder_the_chosen_mode_needs(
    data: Path, tmp_path: Path, executor: str, dry: bool, no_scoring: None
) -> None:
    out = tmp_path / "out"
    args = ["evaluate", str(data), *REMOTE_ARGS, "--embedder", "none", *GENERATE]
    args += ["--quiet", "-o", str(out), "--executor", executor] + (["--dry-run"] if dry else [])
    res = runner.invoke(app, args)
    text = _flat(res.output)
    assert res.exit_code == 2, text
    assert (
        "'answer_relevance' in its generate mode needs an embedder, and there is no embedder "
        "available: --embedder none (embedder='none') was given; choose one with --embedder "
        "(local, st:PATH or openai:MODEL), or run it in another mode "
        "(--mode answer_relevance=fast), or drop it from the metrics (-m)" in text
    )
    assert "k_precision" not in text and "dry run" not in text
    assert not out.exists()


def test_library_refuses_a_reward_model_none_is_configured(data: Path, tmp_path: Path) -> None:
    settings = ragmeter.Settings(judge="none", embedder="none", cache=None)
    said = "'answer_reward' needs a reward model, and there is no reward model available: none"
    for kw in ({}, {"executor": "stream", "out": tmp_path / "s"}):
        with pytest.raises(DataError, match=said):
            ragmeter.evaluate(str(data), ["answer_reward", "token_f1"], settings=settings, **kw)
    with pytest.raises(DataError, match=said):
        ragmeter.dry_run(str(data), ["answer_reward"], settings)
    assert not (tmp_path / "s").exists()


def test_ray_refuses_before_starting_ray(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.needs import require_module

    require_module("ray")
    require_module("ray.data")
    from ragmeter.executors import ray_executor

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("Ray started before the needs were checked")

    monkeypatch.setattr(ray_executor, "_start", forbidden)
    settings = ragmeter.Settings(**REMOTE, embedder="none", modes={"answer_relevance": "generate"})
    with pytest.raises(DataError, match="'answer_relevance' in its generate mode needs an embed"):
        ragmeter.evaluate(
            str(data), ["answer_relevance"], settings=settings, executor="ray", out=tmp_path / "o"
        )
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("option", "metric"),
    [("reward_model", "answer_reward"), ("scorer_model", "context_relevance_perplexity")],
)
def test_a_hugging_face_model_is_checked_up_front(
    data: Path,
    tmp_path: Path,
    option: str,
    metric: str,
    monkeypatch: pytest.MonkeyPatch,
    no_scoring: None,
) -> None:
    """Its path must exist and transformers and torch be installed (backends/hf.py): either
    missing failed every score it was to give."""
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"options": {option: str(tmp_path / "nowhere")}}))
    args = ["evaluate", str(data), "--judge", "none", "-m", metric, "--config", str(config)]
    res = runner.invoke(app, args)
    assert res.exit_code == 2
    assert f"the option {option}={tmp_path / 'nowhere'} names no file or directory" in _flat(
        res.output
    )
    config.write_text(json.dumps({"options": {option: str(tmp_path)}}))
    monkeypatch.setattr(availability, "_found", lambda m: m not in ("torch", "transformers"))
    res = runner.invoke(app, args)
    text = _flat(res.output)
    assert res.exit_code == 2
    assert "which needs transformers and torch, not installed" in text
    assert "pip install 'ragmeter[hf]'" in text and "drop it from the metrics (-m)" in text


def test_an_embedder_not_installed_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, data: Path, no_scoring: None
) -> None:
    monkeypatch.setattr(availability, "_found", lambda m: m != "sentence_transformers")
    args = ["evaluate", str(data), *REMOTE_ARGS, "--embedder", "local", *GENERATE]
    text = _flat(runner.invoke(app, args).output)
    assert "'answer_relevance' in its generate mode needs an embedder" in text
    assert "needs sentence_transformers, not installed" in text and "ragmeter[embed]" in text


def test_a_metric_lacking_two_needs_is_named_under_each(data: Path, no_scoring: None) -> None:
    args = ["evaluate", str(data), "--judge", "none", "--embedder", "none", *GENERATE]
    res = runner.invoke(app, args)
    text = _flat(res.output)
    assert res.exit_code == 2
    assert "'answer_relevance' needs a judge, and there is no judge available" in text
    assert "'answer_relevance' in its generate mode needs an embedder" in text


def test_a_default_run_leaves_it_out_saying_why_and_refuses_a_gate_on_it(data: Path) -> None:
    settings = ragmeter.Settings(**REMOTE, embedder="none", modes={"answer_relevance": "generate"})
    no_embedder = unavailable_needs(settings)["embedder"]
    notes: list[str] = []
    samples = ragmeter.load(str(data))
    chosen = _plan(samples, None, settings, notes)
    assert "answer_relevance" not in {m.name for m in chosen}
    assert f"not run: answer_relevance ({no_embedder})" in notes
    with pytest.raises(DataError, match="'answer_relevance' is gated but will not run: no embed"):
        ragmeter.dry_run(str(data), None, settings, gated=["answer_relevance"])


# ---- the dry run checks that Ray is installed, as the run does ------------------------------


def test_dry_run_refuses_ray_when_it_is_not_installed(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(availability, "_found", lambda m: m != "ray")
    out = tmp_path / "out"
    args = ["evaluate", str(data), "--judge", "none", "-m", "token_f1", "--dry-run"]
    res = runner.invoke(app, [*args, "--executor", "ray", "-o", str(out)])
    text = _flat(res.output)
    assert res.exit_code == 2, text
    assert (
        "the Ray executor needs Ray Data: pip install 'ragmeter[ray]' (ray not installed)" in text
    )
    assert "dry run" not in text and not out.exists()
    settings = ragmeter.Settings(judge="none", cache=None)
    with pytest.raises(ExecutorUnavailable, match="needs Ray Data"):
        ragmeter.dry_run(str(data), ["token_f1"], settings, executor="ray", out=out)
    monkeypatch.undo()
    if availability.ray_problem() is None:  # installed: the dry run goes on (Ray not started)
        assert ragmeter.dry_run(str(data), ["token_f1"], settings, executor="ray", out=out)


@pytest.mark.parametrize(
    ("option", "metric"),
    [("reward_model", "answer_reward"), ("scorer_model", "context_relevance_perplexity")],
)
def test_a_folder_that_is_no_saved_model_is_refused_up_front(
    data: Path, tmp_path: Path, option: str, metric: str, no_scoring: None
) -> None:
    """A folder without config.json or weights (or a file) passed the up-front check and
    failed every score it was to give, one by one."""
    config = tmp_path / "c.json"
    empty = tmp_path / "empty"
    empty.mkdir()
    (tmp_path / "w.bin").write_bytes(b"x")
    args = ["evaluate", str(data), "--judge", "none", "-m", metric, "--config", str(config)]
    for given, why in ((empty, "has no config.json"), (tmp_path / "w.bin", "is a file")):
        config.write_text(json.dumps({"options": {option: str(given)}}))
        res = runner.invoke(app, args)
        assert res.exit_code == 2, res.output
        assert f"the option {option}={given}:" in _flat(res.output) and why in _flat(res.output)
