"""An evaluator configured once (judge, embedder, metrics) and used by many tests.

A judge given as a spec string ("local", "openai:MODEL", ...) goes through ``Settings`` and
the normal engine (cache, retries, accounting). A judge given as an object, or "scripted",
is called directly, sample by sample: that path exists for unit tests, where the judge is a
``ScriptedJudge`` and there is nothing to cache or retry.

An in-process judge (local, gguf:PATH) is loaded by the first ``evaluate`` and kept for the
next ones with the same judge settings (a ``JudgePool``), until ``close()``: a test module
calling ``evaluate`` in each of its 20 tests loads the model once, not 20 times, with the same
scores as 20 fresh loads (the judge's verdicts do not depend on what it judged before).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ragmeter.config import Settings, hide_secrets
from ragmeter.errors import ConfigError
from ragmeter.executors.common import run_sync
from ragmeter.executors.judge_pool import JudgePool
from ragmeter.io import load
from ragmeter.metrics.base import Metric, Score
from ragmeter.plan import plan_metrics
from ragmeter.protocols import Resources
from ragmeter.result import EvaluationResult, aggregate
from ragmeter.runner import aevaluate, check_bootstrap

SCRIPTED = ("scripted", "scripted:overlap")


class _DefaultJudge(str):
    """The judge an Evaluator gets when none is named: equal to "local", and told apart from
    a "local" the caller gave (``Settings.model_fields_set``): a named judge that cannot be
    had is refused before any work, the default one leaves the judged metrics out with a
    note, as ``ragmeter evaluate`` without ``--judge``."""

    __slots__ = ()


DEFAULT_JUDGE = _DefaultJudge("local")


@dataclass
class Evaluator:
    """``judge``: a spec ("local" = the embedded judge, "scripted", "openai:MODEL", ...) or
    a Judge object; by default the embedded judge, whose absence leaves the judged metrics out
    with a note, where a judge named that cannot be had is refused before any work (as the
    CLI's ``--judge``); ``embedder``: a spec, an Embedder object, or None (spec default);
    ``metrics``: the default metric list; ``options``: further Settings fields;
    ``judge_pool``: where the in-process judge is kept between calls (give one pool to several
    Evaluators to share a model between them)."""

    judge: Any = DEFAULT_JUDGE
    embedder: Any = None
    metrics: Sequence[str] | str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    judge_pool: JudgePool = field(default_factory=JudgePool, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Keys in ``options`` are held as SecretStr, so this object's repr (which pytest
        prints for a failed assert or a fixture's locals) never shows one, as Settings'.
        A spec judge's settings are checked now (bad spec, option, URL), not at first use, as
        are a judge that is neither a spec nor a Judge (``judge=5`` failed at the first call)
        and ``options`` that are no dict (an AttributeError)."""
        if not isinstance(self.options, dict):
            kind = type(self.options).__name__
            raise ConfigError(f"options must be a dict of settings, not {kind}")
        judge_object = callable(getattr(self.judge, "structured", None))
        if not isinstance(self.judge, str) and not judge_object:
            raise ConfigError(
                "judge must be a spec (local, scripted, openai:MODEL, gguf:PATH, ...) or an object "
                f"with the ragmeter.protocols.Judge methods, not {type(self.judge).__name__}"
            )
        self.options = hide_secrets(self.options)
        if not self.scripted:
            self.settings()
        else:  # a stand-in judge runs, but a typo in the settings must not pass in silence
            self._check_scripted_settings()

    @property
    def scripted(self) -> bool:
        return not isinstance(self.judge, str) or self.judge in SCRIPTED

    def settings(self) -> Settings:
        data = dict(self.options)
        if self.judge is not DEFAULT_JUDGE:
            data["judge"] = self.judge
        if isinstance(self.embedder, str):
            data["embedder"] = self.embedder
        return Settings.parse_dict(data, source="Evaluator options")

    def _check_scripted_settings(self) -> None:
        """The options and a spec embedder of a scripted (or judge object) Evaluator, checked
        as a spec judge's are. Why: ``RAGMETER_JUDGE=scripted`` (the CI switch to fast tests)
        skipped the check, so ``options={"bogus": 1}`` or ``embedder="bogus"`` (the plugin's
        ``--ragmeter-embedder``) passed in silence there and failed only with the real judge.
        The embedder spec is still not used: a scripted run embeds with ``HashEmbedder``."""
        data = dict(self.options)
        if isinstance(self.embedder, str):
            data["embedder"] = self.embedder
        Settings.parse_dict(data, source="Evaluator options")

    def evaluate(
        self, data: Any, metrics: Sequence[str] | str | None = None, **kw: Any
    ) -> EvaluationResult:
        """Score ``data`` (anything ``ragmeter.load`` takes) with this evaluator's models."""
        return run_sync(self.aevaluate(data, metrics, **kw))

    async def aevaluate(
        self, data: Any, metrics: Sequence[str] | str | None = None, **kw: Any
    ) -> EvaluationResult:
        """``evaluate`` for async code (an async test awaiting it through the fixture), on the
        caller's event loop: the same keywords and the same scores. Why: ``evaluate`` inside a
        running loop works only by blocking it while a worker thread runs its own loop, and
        the Evaluator had no awaitable form (an AttributeError for ``await ....aevaluate``)."""
        chosen = metrics if metrics is not None else self.metrics
        if not self.scripted:
            s, pool = self.settings(), self.judge_pool
            return await aevaluate(data, chosen, settings=s, judge_pool=pool, **kw)
        return await self._evaluate_direct(data, chosen, **kw)

    def close(self) -> None:
        """Release the in-process judge kept since the first ``evaluate`` (its model's memory);
        a later ``evaluate`` loads it again. The pytest fixture calls it when the session ends."""
        self.judge_pool.close()

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _resources(self) -> Resources:
        from ragmeter.testing.judge import HashEmbedder, ScriptedJudge

        judge = ScriptedJudge() if isinstance(self.judge, str) else self.judge
        embedder = (
            self.embedder if not isinstance(self.embedder, (str, type(None))) else HashEmbedder()
        )
        return Resources(judge=judge, embedder=embedder, options=self._metric_options())

    def _unavailable(self) -> dict[str, str]:
        """What a scripted judge or judge object run lacks, with why and the fix, in the
        words of ``availability.unavailable_needs``: the plan then refuses a metric named
        for it before any work, as ``ragmeter.evaluate`` does, where every one of its scores
        failed. Judge and embedder are always there (the given ones, or stand-ins)."""
        why = f"Evaluator(judge={_judge_name(self.judge)!r}) calls its judge directly and builds"
        spec = "give a spec judge (judge='local' or 'gguf:PATH': a scorer itself)"
        return {
            "scorer": f"no scorer available: {why} no scorer; {spec}",
            "reward_model": f"no reward model available: {why} no reward model; give a spec "
            "judge and options={'options': {'reward_model': PATH}}",
        }

    def _metric_options(self) -> dict[str, Any]:
        """Per-metric knobs and modes, as Settings.metric_options() gives them to metrics."""
        return {**self.options.get("options", {}), "modes": dict(self.options.get("modes") or {})}

    async def _evaluate_direct(
        self,
        data: Any,
        metrics: Sequence[str] | str | None,
        *,
        n_resamples: int = 1000,
        confidence: float = 0.95,
        seed: int = 0,
        format: str | None = None,
        progress: bool = False,  # nothing to wait for: scripted answers are instant
        out: Any = None,
        overwrite: bool = False,
        gated: Sequence[str] = (),
    ) -> EvaluationResult:
        """The keywords of ``ragmeter.evaluate`` that a test may pass whatever the judge
        (switching RAGMETER_JUDGE to scripted must not turn them into a TypeError)."""
        if out is not None or overwrite:
            raise ConfigError(
                f"Evaluator(judge={_judge_name(self.judge)!r}).evaluate(out=...): a run "
                "directory records its judge's settings (run.json), which a scripted judge or "
                "a judge object does not have; give a spec judge (local, openai:MODEL, ...) "
                "or save what you need from the result (result.to_jsonl(path))"
            )
        check_bootstrap(n_resamples=n_resamples, confidence=confidence, seed=seed)
        samples = load(data, format=format)
        notes: list[str] = []
        chosen = plan_metrics(
            samples,
            metrics,
            notes,
            {"judge", "embedder"},
            self._metric_options(),
            gated=gated,
            unavailable=self._unavailable(),
        )
        sync = [m.name for m in chosen if not m.is_async]
        opts = {"n_resamples": n_resamples, "confidence": confidence, "seed": seed}
        base = await aevaluate(samples, sync, **opts) if sync else None
        scores: dict[str, list[Score]] = dict(base.scores) if base else {}
        resources = self._resources()
        for metric in chosen:
            if metric.is_async:
                scores[metric.name] = [await _score(metric, s, resources) for s in samples]
        names = [m.name for m in chosen]
        return EvaluationResult(
            samples=samples,
            metrics=names,
            scores=scores,
            aggregates={m: aggregate(m, scores[m], **opts) for m in names},
            notes=notes + (base.notes if base else []),
            usage={"judge": getattr(resources.judge, "name", None)},
            config={
                "metrics": names,
                **opts,
                "settings": {"judge": getattr(resources.judge, "name", None)},
            },
        )


async def _score(metric: Metric, sample: Any, resources: Resources) -> Score:
    reason = metric.missing(sample)
    if reason is not None:
        return Score.skipped(reason)
    assert metric.acompute is not None
    try:
        return await metric.acompute(sample, resources)
    except Exception as exc:  # one bad sample must not sink the test run
        return Score.failed(f"internal error: {type(exc).__name__}: {exc}")


def _judge_name(judge: Any) -> str:
    return judge if isinstance(judge, str) else getattr(judge, "name", type(judge).__name__)
