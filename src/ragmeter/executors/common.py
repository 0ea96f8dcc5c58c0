"""What every executor shares: the names, the judge-URL list, the run config."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragmeter.config import Settings
from ragmeter.errors import ConfigError
from ragmeter.metrics.base import Metric

EXECUTORS = ("local", "stream", "ray")


def base_urls(s: Settings) -> list[str]:
    """The judge endpoints: ``base_url`` may list several, comma-separated (replicas of one
    model behind several servers, spread over by the Ray executor's actors)."""
    return [u.strip() for u in (s.base_url or "").split(",") if u.strip()]


def check_single_url(s: Settings) -> None:
    """Executors with one judge client accept one URL: say so before any work."""
    urls = base_urls(s)
    if len(urls) > 1:
        raise ConfigError(
            f"base_url lists {len(urls)} servers; only the Ray executor spreads calls over "
            "several (--executor ray), others take one URL"
        )


def run_config(
    metrics: Sequence[Metric],
    s: Settings,
    n_resamples: int,
    confidence: float,
    seed: int,
    executor: str,
) -> dict[str, Any]:
    """The ``config`` block of summary.json, as a local run writes it, plus the executor."""
    return {
        "metrics": [m.name for m in metrics],
        "n_resamples": n_resamples,
        "confidence": confidence,
        "seed": seed,
        "settings": s.public_dict(),
        "executor": executor,
    }
