"""Each metric runs, in each of its modes, with exactly the resources it declares it needs.

A metric that uses a resource it did not declare fails here (the resource is absent); a
metric that declares one it does not use would be dropped from runs that lack it, which
the CLI test with ``--embedder none`` catches for the default judged metrics.
"""

from __future__ import annotations

import json
import types
import typing
from typing import Any

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from judged_fakes import HashEmbedder, ScriptedJudge
from ragmeter.metrics.registry import list_metrics
from ragmeter.protocols import JudgeReply, Resources, TokenLogprobs
from ragmeter.sample import Sample

SAMPLE = Sample(
    question_id="q1",
    question="What colour is the sky on a clear day?",
    answer="The sky is blue on a clear day. It looks blue because of Rayleigh scattering.",
    contexts=[
        "On a clear day the sky is blue. Rayleigh scattering makes short wavelengths dominate.",
        "Grass is green.",
    ],
    context_ids=["d1", "d2"],
    reference_answers=["The sky is blue."],
    reference_contexts=["On a clear day the sky is blue."],
    reference_context_ids=["d1"],
)


def _value(annotation: Any) -> Any:
    """A plausible value of ``annotation`` for a scripted structured reply."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (list, tuple, set):
        return [_value(args[0] if args else str)]
    if origin in (typing.Union, types.UnionType):
        return _value(next(a for a in args if a is not type(None)))
    if origin is typing.Literal:
        return args[0]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _fill(annotation)
    return {bool: True, int: 1, float: 1.0}.get(annotation, "The sky is blue on a clear day.")


def _fill(schema: type[BaseModel]) -> dict[str, Any]:
    return {name: _value(f.annotation) for name, f in schema.model_fields.items()}


class FixedScorer:
    name = "fixed:test"

    async def target_logprobs(self, prompt: str, target: str, *, prompt_version: str):  # type: ignore[no-untyped-def]
        return JudgeReply(value=TokenLogprobs(tokens=["a", "b"], logprobs=[-1.0, -2.0]))


class FixedRewardModel:
    name = "fixed-reward:test"

    async def score(self, question: str, answer: str) -> JudgeReply[float]:
        return JudgeReply(value=0.75, raw="1.0986")


STAND_INS = {
    "judge": lambda: ScriptedJudge(lambda _t: 0.8, lambda _t, schema: _fill(schema)),
    "embedder": HashEmbedder,
    "scorer": FixedScorer,
    "reward_model": FixedRewardModel,
}

CASES = [
    (m, mode)
    for m in list_metrics()
    if m.acompute is not None
    for mode in (m.mode_names or (None,))
]


def test_every_model_metric_is_covered() -> None:
    names = {m.name for m, _ in CASES}
    assert {"faithfulness", "answer_relevance", "context_relevance", "answer_reward"} <= names
    assert ("answer_relevance", "generate") in {(m.name, mode) for m, mode in CASES}


@pytest.mark.parametrize(
    ("metric", "mode"), CASES, ids=[f"{m.name}-{mode or 'only'}" for m, mode in CASES]
)
async def test_runs_with_exactly_its_declared_needs(metric, mode) -> None:
    needs = metric.needs_in(mode)
    resources = Resources(
        **{need: STAND_INS[need]() for need in needs},
        options={"modes": {metric.name: mode}} if mode else {},
    )
    score = await metric.acompute(SAMPLE, resources)
    assert score.status == "ok", (score.status, score.reason)
    missing = {"judge", "embedder", "scorer", "reward_model"} - set(needs)
    for absent in missing:  # nothing it did not declare was asked for
        assert getattr(resources, absent) is None


def test_default_judged_metrics_run_with_embedder_none(tmp_path, monkeypatch) -> None:
    """`--embedder none`: no default judged metric in its default mode needs an embedder, so
    none is dropped or fails for lack of one (the scripted judge stands in for the model)."""
    from ragmeter.cli import app
    from ragmeter.metrics.registry import default_metrics

    defaults = [m for m in default_metrics() if m.is_async]
    assert defaults and all("embedder" not in m.needs_in(m.default_mode) for m in defaults)
    judge = STAND_INS["judge"]()
    monkeypatch.setattr("ragmeter.resources._build_judge", lambda s: judge)
    data = tmp_path / "d.jsonl"
    data.write_text(SAMPLE.model_dump_json(exclude_none=True) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    names = ",".join(m.name for m in defaults)
    result = CliRunner().invoke(
        app,
        [
            "evaluate",
            str(data),
            "-m",
            names,
            "--judge",
            "openai:scripted",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--embedder",
            "none",
            "--cache",
            "off",
            "-o",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    counts = {m: (a["n_ok"], a["n_failed"]) for m, a in summary["metrics"].items()}
    assert counts == {m.name: (1, 0) for m in defaults}, summary["failures"]
