"""A metric named with -m that needs a judge no setting can give is refused before any work
(exit 2), naming it, the case (--judge none, the local judge's extra or model not installed,
a remote judge's key not set) and the fix; on every executor, in the library, and in the dry
run. Before, `evaluate data --judge none -m faithfulness,k_precision` scored every sample,
failed every faithfulness score ("no judge configured (--judge none)") and exited 1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app
from ragmeter.errors import DataError
from ragmeter.plan import plan_metrics

runner = CliRunner()
NO_JUDGE = {"judge": "none", "embedder": "none", "cache": None}


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(make_row(i)) + "\n" for i in range(1, 4)))
    return path


@pytest.fixture
def no_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any scoring or model session fails the test: the refusal must come before them."""

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("scoring started before the judge was checked")

    monkeypatch.setattr("ragmeter.runner.compute_all", forbidden)
    monkeypatch.setattr("ragmeter.executors.stream.compute_all", forbidden)
    monkeypatch.setattr("ragmeter.executors.session.build_resources", forbidden)


@pytest.mark.parametrize("executor", ["local", "stream"])
def test_cli_refuses_judged_metrics_without_a_judge_before_any_work(
    data: Path, tmp_path: Path, executor: str, no_scoring: None
) -> None:
    out = tmp_path / "out"
    args = ["evaluate", str(data), "--judge", "none", "-m", "faithfulness,k_precision"]
    res = runner.invoke(app, [*args, "--quiet", "-o", str(out), "--executor", executor])
    text = _flat(res.output)
    assert res.exit_code == 2, text
    assert (
        "'faithfulness' needs a judge, and there is no judge available: --judge none "
        "(judge='none') was given; choose one with --judge (local, openai:MODEL, "
        "litellm:MODEL or gguf:PATH), or drop it from the metrics (-m)" in text
    )
    assert "k_precision" not in text  # the metric that needs no judge is not named
    assert not out.exists()


def test_several_judged_metrics_are_named_in_one_line(data: Path, no_scoring: None) -> None:
    args = ["evaluate", str(data), "--judge", "none", "-m", "faithfulness,mrr,answer_relevance"]
    text = _flat(runner.invoke(app, args).output)
    assert "'faithfulness', 'answer_relevance' need a judge" in text
    assert "or drop them from the metrics (-m)" in text


def test_library_and_executors_share_the_check(data: Path, tmp_path: Path) -> None:
    settings = ragmeter.Settings(**NO_JUDGE)
    metrics = ["context_relevance", "token_f1"]
    with pytest.raises(DataError, match="'context_relevance' needs a judge"):
        ragmeter.evaluate(str(data), metrics, settings=settings)
    with pytest.raises(DataError, match="'context_relevance' needs a judge"):
        ragmeter.evaluate(
            str(data), metrics, settings=settings, executor="stream", out=tmp_path / "s"
        )
    assert not (tmp_path / "s").exists()
    # the metrics that need no judge still run
    ok = ragmeter.evaluate(str(data), ["token_f1"], settings=settings)
    assert ok.aggregates["token_f1"].n_ok == 3


def test_ray_refuses_before_starting_ray(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.needs import require_module

    require_module("ray")
    require_module("ray.data")
    from ragmeter.executors import ray_executor

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("Ray started before the judge was checked")

    monkeypatch.setattr(ray_executor, "_start", forbidden)
    with pytest.raises(DataError, match="'faithfulness' needs a judge"):
        ragmeter.evaluate(
            str(data),
            ["faithfulness"],
            settings=ragmeter.Settings(**NO_JUDGE),
            executor="ray",
            out=tmp_path / "o",
        )
    assert not (tmp_path / "o").exists()


def test_the_local_judge_not_installed_says_how_to_install_it(
    data: Path, monkeypatch: pytest.MonkeyPatch, no_scoring: None
) -> None:
    from ragmeter import availability

    real = availability._found
    monkeypatch.setattr(availability, "_found", lambda m: m != "llama_cpp" and real(m))
    args = ["evaluate", str(data), "--judge", "local", "-m", "faithfulness"]
    text = _flat(runner.invoke(app, args).output)
    assert "the local judge needs llama-cpp-python, which is not installed" in text
    assert "pip install 'ragmeter[local]'" in text and "ragmeter models install" in text


def test_the_embedded_model_not_installed_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ragmeter import availability
    from ragmeter.backends import model_store

    monkeypatch.setattr(availability, "_found", lambda m: True)

    def nothing_installed(models: Any, locate: Any = None) -> list[Any]:
        return [model_store.ModelStatus(m, Path("/x"), 0, False, False) for m in models]

    monkeypatch.setattr(model_store, "status", nothing_installed)
    why = availability.unavailable_needs(ragmeter.Settings(judge="local"))["judge"]
    assert why.startswith("no judge available: the embedded judge model")
    assert "0 of 22 chunk packages found" in why and "ragmeter models install" in why


def test_a_remote_judge_without_its_key_names_the_variable_never_a_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ragmeter import availability

    monkeypatch.delenv("RM_JN_UNSET", raising=False)
    settings = ragmeter.Settings(judge="openai:gpt-4o-mini", api_key_env="RM_JN_UNSET")
    why = availability.unavailable_needs(settings)["judge"]
    assert "the environment variable RM_JN_UNSET is not set" in why
    monkeypatch.setenv("RM_JN_UNSET", "sk-secret-value-123")
    assert "judge" not in availability.unavailable_needs(settings)


def test_a_scorer_model_option_is_a_scorer_without_a_judge(tmp_path: Path) -> None:
    from ragmeter import availability

    (tmp_path / "config.json").write_text("{}")  # a saved model's files, by name
    (tmp_path / "model.safetensors").write_bytes(b"")
    with_scorer = ragmeter.Settings(judge="none", options={"scorer_model": str(tmp_path)})
    assert "scorer" not in availability.unavailable_needs(with_scorer)
    assert "scorer" in availability.unavailable_needs(ragmeter.Settings(judge="none"))


def test_the_default_plan_and_the_gate_say_which_case_it_is(data: Path) -> None:
    result = ragmeter.evaluate(str(data), settings=ragmeter.Settings(**NO_JUDGE))
    assert (
        "not run: faithfulness (no judge available: --judge none (judge='none') was given; "
        "choose one with --judge (local, openai:MODEL, litellm:MODEL or gguf:PATH))"
    ) in result.notes
    res = runner.invoke(
        app, ["evaluate", str(data), "--judge", "none", "--fail-under", "faithfulness=0.5"]
    )
    assert res.exit_code == 2
    assert "'faithfulness' is gated but will not run: no judge available: --judge none" in (
        _flat(res.output)
    )


def test_plan_without_reasons_keeps_the_old_words() -> None:
    """A caller that gives only the set of available resources (tests, the scripted
    evaluator) gets "no judge available", and no check of a listed metric."""
    notes: list[str] = []
    samples = ragmeter.load([make_row(1)])
    plan_metrics(samples, None, notes, set())
    assert "not run: faithfulness (no judge available)" in notes
    assert [m.name for m in plan_metrics(samples, ["faithfulness"], [], set())] == ["faithfulness"]


# ---- the dry run refuses what the run would ------------------------------------------------


@pytest.mark.parametrize(
    "extra, said",
    [
        (["--fail-under", "faithfulness=0.5"], "'faithfulness' is gated but will not run"),
        (["-m", "faithfulness"], "'faithfulness' needs a judge"),
        (["-m", "token_f1", "--fail-under", "mrr=0.5"], "'mrr' is gated but not among"),
        (["--fail-under", "token_f1=1.5"], "token_f1"),
        (["--fail-under", "nosuch=0.5"], "nosuch"),
        (["--by", "nosuch_column"], "nosuch_column"),
        (["--executor", "stream"], "give an output directory (--out)"),
        (["--batch-size", "5"], "--batch-size applies to --executor stream or ray only"),
        (["--base-url", "http://a:1/v1,http://b:1/v1"], "only the Ray executor"),
    ],
)
def test_dry_run_refuses_what_the_run_would(
    data: Path, extra: list[str], said: str, no_scoring: None
) -> None:
    res = runner.invoke(app, ["evaluate", str(data), "--judge", "none", "--dry-run", *extra])
    assert res.exit_code == 2, res.output
    assert said in _flat(res.output)
    assert "dry run" not in res.output  # no estimate was printed


def test_dry_run_checks_out_read_only(data: Path, tmp_path: Path) -> None:
    base = ["evaluate", str(data), "--judge", "none", "-m", "token_f1"]
    a_file = tmp_path / "file"
    a_file.write_text("x")
    res = runner.invoke(app, [*base, "--dry-run", "-o", str(a_file)])
    assert res.exit_code == 2 and "exists and is a file" in _flat(res.output)
    fresh = tmp_path / "fresh"
    assert runner.invoke(app, [*base, "--dry-run", "-o", str(fresh)]).exit_code == 0
    assert not fresh.exists()  # nothing created or claimed
    done = tmp_path / "done"
    assert runner.invoke(app, [*base, "--quiet", "-o", str(done)]).exit_code == 0
    before = (done / "run.json").read_text()
    assert runner.invoke(app, [*base, "--dry-run", "-o", str(done)]).exit_code == 0  # a resume
    other = runner.invoke(app, [*base, "--dry-run", "-o", str(done), "--n-resamples", "50"])
    assert other.exit_code == 2 and "holds a run with other settings" in _flat(other.output)
    assert (done / "run.json").read_text() == before
    ok = runner.invoke(
        app, [*base, "--dry-run", "-o", str(done), "--n-resamples", "50", "--overwrite"]
    )
    assert ok.exit_code == 0 and (done / "run.json").read_text() == before


def test_library_dry_run_takes_the_gates(data: Path) -> None:
    settings = ragmeter.Settings(**NO_JUDGE)
    with pytest.raises(DataError, match="'faithfulness' is gated but will not run"):
        ragmeter.dry_run(str(data), None, settings, gated=["faithfulness"])
    est = ragmeter.dry_run(str(data), None, settings, gated=["token_f1"])
    assert est["calls"] == 0
