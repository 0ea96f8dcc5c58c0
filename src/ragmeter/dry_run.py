"""dry_run(): the calls, tokens and cost a run would spend, without spending any."""

from __future__ import annotations

import json
import sys
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from ragmeter.availability import availability, missing_key
from ragmeter.config import Settings, as_settings
from ragmeter.engine import Accountant
from ragmeter.engine.dryrun import (
    CHARS_PER_TOKEN,
    DryRunEmbedder,
    DryRunJudge,
    DryRunRewardModel,
    DryRunScorer,
)
from ragmeter.executors._ray_cluster import address_form
from ragmeter.executors.common import (
    check_before_work,
    check_bootstrap,
    check_executor,
    check_executor_options,
    run_sync,
)
from ragmeter.io import expand_user, load
from ragmeter.manifest import check_out, fingerprint, input_facts
from ragmeter.metrics.base import Metric
from ragmeter.metrics.registry import metric_list
from ragmeter.plan import mode_of_metric, needs_of, plan_metrics
from ragmeter.plugins import settings_with_plugins
from ragmeter.protocols import Resources
from ragmeter.resources import Built, build_resources
from ragmeter.sample import Sample
from ragmeter.scheduler import score_all


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
    ``list_items_assumed_by`` names the metrics whose estimate rests on that assumed length
    (the statements a judge extracts in generate mode, unknown before the run).

    ``unavailable`` holds only what a metric here needs in its chosen mode (``_needed``), not
    all that the build recorded: building a remote judge marks the scorer unavailable too,
    and the dry run of ``-m faithfulness --judge openai:MODEL`` printed "note: no scorer"
    though no metric of it uses one; the run says nothing of it.
    """
    s = as_settings(settings)
    needs = needs_of(metrics, s.metric_options())
    built = build_resources(s, needs, load_local=False, make_cache=False)  # reads, makes none
    real = built.resources
    acc = Accountant(built.accountant.prices)
    judge = DryRunJudge(real.judge, acc, list_items) if real.judge is not None else None
    fake = Resources(
        judge=judge,
        embedder=DryRunEmbedder(real.embedder, acc) if real.embedder is not None else None,
        scorer=DryRunScorer(real.scorer, acc) if real.scorer is not None else None,
        reward_model=DryRunRewardModel(real.reward_model, acc) if real.reward_model else None,
        options=real.options,
    )
    dry = Built(fake, acc, None, built.unavailable)
    try:
        scores = await score_all(metrics, samples, dry, 1, progress=False)
    finally:
        await built.aclose()
    out = acc.summary()
    out["estimated"] = True
    out["list_items_assumed"] = list_items
    out["list_items_assumed_by"] = sorted(judge.assumed) if judge is not None else []
    out["chars_per_token"] = CHARS_PER_TOKEN
    needed = _needed(metrics, s)
    out["unavailable"] = {k: v for k, v in built.unavailable.items() if k in needed}
    out["skipped"] = {m: sum(1 for x in col if x.status == "skipped") for m, col in scores.items()}
    out["unpriced"] = unpriced(acc)
    out["caveats"] = caveats(out)
    return out


def cost_text(est: dict[str, Any]) -> str:
    """The estimated cost in words: dollars, or why it is unknown (the models without a
    price, and the line that gives one), never $0 for a bill not known."""
    if est.get("cost_usd") is not None:
        return f"${est['cost_usd']:.4f}"
    names = est.get("unpriced") or []
    if not names:
        return "unknown (no price configured)"
    model = names[0].split(":", 1)[-1].split("@", 1)[0]
    return (
        f"unknown (no price configured for {', '.join(names)}: set "
        f"[prices.{json.dumps(model)}] input = ... output = ..., USD per 1M tokens, in --config)"
    )


def unpriced(acc: Accountant) -> list[str]:
    """The paid backends the estimate would call that have no price, which make the cost
    unknown (``cost_usd`` None). Why: "unknown (no price configured)" named none, so a user
    who had priced the judge could not tell that the embedder was the one lacking."""
    return [
        name
        for name, t in acc.per_backend.items()
        if t.calls and acc.prices.cost(name, t.prompt_tokens, t.completion_tokens) is None
    ]


def caveats(est: dict[str, Any]) -> list[str]:
    """What the estimate's numbers rest on and leave out, in words. Why: "lists assumed to
    hold 3 items" was all the output said of generate mode, where the statements a judge
    draws from an answer (and so the calls and tokens that follow) cannot be known before
    the run; and samples the run skips for missing inputs left the counts without a word."""
    lines: list[str] = []
    if est.get("list_items_assumed_by"):
        lines.append(
            f"{', '.join(est['list_items_assumed_by'])}: how many statements (or questions) "
            "the judge draws from each text is not known before the run; assumed "
            f"{est['list_items_assumed']} each, so these counts are a rough estimate"
        )
    for metric, n in est.get("skipped", {}).items():
        if n:
            lines.append(f"{metric}: {n} sample(s) skipped (inputs missing), not counted")
    return lines


def _needed(metrics: Sequence[Metric], s: Settings) -> set[str]:
    """The resources the metrics cannot score without, in the run's modes (``needs_of`` adds
    those they only use when there: an embedder picking faithfulness's evidence)."""
    options = s.metric_options()
    return {n for m in metrics for n in m.needs_in(mode_of_metric(m, options))}


# Stands in for a missing key so the judge can be built; a dry run sends nothing.
DRY_RUN_KEY = "ragmeter-dry-run-no-key-sent"


def dry_run(
    data: Any,
    metrics: Sequence[str] | str | None,
    settings: Settings | dict[str, Any] | None = None,
    format: str | None = None,
    *,
    gated: Collection[str] = (),
    executor: str = "local",
    out: str | Path | None = None,
    overwrite: bool = False,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    ray_address: str | None = None,
) -> dict[str, Any]:
    """Load ``data``, plan metrics as ``evaluate`` would, and estimate the model work.

    It refuses what ``evaluate`` with the same arguments would refuse before any work (a
    UsageError, CLI exit 2): bootstrap settings, the executor's input and ``out``, a
    ``ray_address`` given to an executor that does not read it or that is no Ray address (its
    form only: nothing is connected to), a cache that does not open, the plan's problems (a
    named judged metric with no judge, a ``gated`` metric the plan leaves out), and an
    ``out`` that is a file or holds a run of other settings or input (checked read only:
    nothing is created or claimed). Why: a dry run said "fine, this costs $0.40" to a
    command that would then stop at once.

    Without the judge's API key the estimate is made as if it were set (counting tokens
    needs no key: the point of a dry run is to know the cost before getting one), and
    ``key_missing`` says that a real run would stop before any work (``check_judge_key``).
    """
    real = as_settings(settings_with_plugins(settings))  # as evaluate: the file's plugins
    data = expand_user(data)  # as evaluate reads it
    if metrics is not None:  # a generator, read once by the checks, left none to plan
        metrics = metric_list(metrics)
    check_bootstrap(n_resamples=n_resamples, confidence=confidence, seed=seed)
    check_executor_options(executor, ray_address=ray_address)
    check_executor(executor, data, real, format=format, out=out)
    if executor == "ray":
        check_ray_address(ray_address)
    s, key_missing = real, None
    if (variable := missing_key(real)) is not None:
        key_missing = (
            f"no API key: the environment variable {variable} is not set. Estimated as if it "
            "were; a real run would stop before any work (exit 2): set "
            f"{variable}, or name another variable with --api-key-env"
        )
        s = real.merged()
        s.api_key = SecretStr(DRY_RUN_KEY)
    check_before_nothing_made(s, metrics)
    samples = load(data, format=format)
    notes: list[str] = []
    available, unavailable = availability(s)
    planned = plan_metrics(
        samples, metrics, notes, available, s.metric_options(), gated=gated, unavailable=unavailable
    )
    if out is not None:
        fp = fingerprint(planned, real, n_resamples=n_resamples, confidence=confidence, seed=seed)
        facts = input_facts(data, samples)
        check_out(out, fp, overwrite=overwrite, input_=facts, data=data)
    chosen = [m for m in planned if m.is_async]
    result = run_sync(estimate(chosen, samples, s)) if chosen else _nothing_to_estimate()
    result["key_missing"] = key_missing
    result["notes"] = ([key_missing] if key_missing else []) + notes
    result["samples"] = len(samples)
    return result


def check_before_nothing_made(s: Settings, metrics: Sequence[str] | str | None) -> None:
    """``check_before_work`` as the run makes it, the cache checked without creating it
    (``open_cache(create=False)``: an existing one opened read only, a missing one's folder
    found writable). Why: ``--dry-run --cache DIR`` created DIR and an empty SQLite store."""
    check_before_work(s, metrics, make_cache=False)


def check_ray_address(address: str | None) -> None:
    """ConfigError for an address that is no ``HOST:PORT`` / ``ray://HOST:PORT`` / ``auto``,
    by the ray executor's own check before it connects (``_ray_cluster.address_form``),
    without connecting: a dry run sends nothing, and the cluster may not be up yet. Why: the
    dry run took any address ("head", "ray:/head:10001") and gave its estimate; the run then
    stopped at once on it. As the run, an address is not checked once Ray is running in this
    process (it is not used); ``ray`` is not imported here, only looked up."""
    ray = sys.modules.get("ray")
    if ray is not None and getattr(ray, "is_initialized", lambda: False)():
        return
    address_form(address)


def _nothing_to_estimate() -> dict[str, Any]:
    """The estimate of a run with no model-based metric: every key an estimate has (a
    reader of ``judge_tokens`` or ``per_backend`` got a KeyError), all zero."""
    out = Accountant().summary()
    out.update(estimated=True, list_items_assumed=0, list_items_assumed_by=[])
    out.update(chars_per_token=CHARS_PER_TOKEN)
    out.update(unavailable={}, skipped={}, unpriced=[], caveats=[])
    return out
