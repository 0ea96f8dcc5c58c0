"""dry_run(): the calls, tokens and cost a run would spend, without spending any."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import SecretStr

from ragmeter.config import Settings, as_settings
from ragmeter.engine import Accountant
from ragmeter.engine.dryrun import DryRunEmbedder, DryRunJudge, DryRunScorer
from ragmeter.executors.common import run_sync
from ragmeter.io import load
from ragmeter.metrics.base import Metric
from ragmeter.plan import needs_of, plan_metrics
from ragmeter.protocols import Resources
from ragmeter.resources import Built, available_needs, build_resources, missing_key
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
    """
    s = as_settings(settings)
    built = build_resources(s, needs_of(metrics, s.metric_options()), load_local=False)
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
        scores = await score_all(metrics, samples, dry, 1, progress=False)
    finally:
        await built.aclose()
    out = acc.summary()
    out["estimated"] = True
    out["list_items_assumed"] = list_items
    out["unavailable"] = dict(built.unavailable)
    out["skipped"] = {m: sum(1 for x in col if x.status == "skipped") for m, col in scores.items()}
    return out


# Stands in for a missing key so the judge can be built; a dry run sends nothing.
DRY_RUN_KEY = "ragmeter-dry-run-no-key-sent"


def dry_run(
    data: Any,
    metrics: Sequence[str] | str | None,
    settings: Settings | dict[str, Any] | None = None,
    format: str | None = None,
) -> dict[str, Any]:
    """Load ``data``, plan metrics as ``evaluate`` would, and estimate the model work.

    Without the judge's API key the estimate is made as if it were set (counting tokens
    needs no key: the point of a dry run is to know the cost before getting one), and
    ``key_missing`` says that a real run would stop before any work (``check_judge_key``).
    """
    s = as_settings(settings)
    samples = load(data, format=format)
    key_missing = None
    if (variable := missing_key(s)) is not None:
        key_missing = (
            f"no API key: the environment variable {variable} is not set. Estimated as if it "
            "were; a real run would stop before any work (exit 2): set "
            f"{variable}, or name another variable with --api-key-env"
        )
        s = s.merged()
        s.api_key = SecretStr(DRY_RUN_KEY)
    notes: list[str] = []
    available = available_needs(s) if metrics is None else None
    chosen = [
        m
        for m in plan_metrics(samples, metrics, notes, available, s.metric_options())
        if m.is_async
    ]
    out = run_sync(estimate(chosen, samples, s)) if chosen else _nothing_to_estimate()
    out["key_missing"] = key_missing
    out["notes"] = ([key_missing] if key_missing else []) + notes
    out["samples"] = len(samples)
    return out


def _nothing_to_estimate() -> dict[str, Any]:
    """The estimate of a run with no model-based metric: every key an estimate has (a
    reader of ``judge_tokens`` or ``per_backend`` got a KeyError), all zero."""
    out = Accountant().summary()
    out.update(estimated=True, list_items_assumed=0, unavailable={}, skipped={})
    return out
