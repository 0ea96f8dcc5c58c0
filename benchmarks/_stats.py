"""Scores against binary labels: ranking (AUROC, pairwise accuracy, bootstrap CIs), calibration.

Calibration numbers come from ``ragmeter.stats`` (shared with meta-eval); this module
adds the ranking statistics and their bootstrap confidence intervals (scipy.stats.bootstrap).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.stats import bootstrap

from ragmeter.stats import brier, ece, reliability_table

__all__ = ["auroc", "brier", "ece", "pairwise", "reliability_table", "summary"]


def auroc(scores: Sequence[float], labels: Sequence[int]) -> float:
    """P(score of a positive > score of a negative), ties one half."""
    s, y = np.asarray(scores, dtype=float), np.asarray(labels, dtype=int)
    pos, neg = s[y == 1][:, None], s[y == 0][None, :]
    if pos.size == 0 or neg.size == 0:
        return float("nan")
    return float(((pos > neg).sum() + 0.5 * (pos == neg).sum()) / (pos.size * neg.size))


def _ci(stat, data: tuple[np.ndarray, ...], paired: bool = True) -> tuple[float, float]:
    if len(data[0]) < 3:
        return (float("nan"), float("nan"))
    res = bootstrap(
        data,
        stat,
        paired=paired,
        vectorized=False,
        n_resamples=1000,
        method="percentile",
        random_state=np.random.default_rng(0),
    )
    return (float(res.confidence_interval.low), float(res.confidence_interval.high))


def pairwise(outcomes: Sequence[float]) -> tuple[float, tuple[float, float]]:
    """Mean of pair outcomes (1 right ranked higher, 0.5 tie, 0 lower) with a bootstrap CI."""
    o = np.asarray(outcomes, dtype=float)
    if o.size == 0:
        return float("nan"), (float("nan"), float("nan"))
    return float(o.mean()), _ci(lambda x: float(np.mean(x)), (o,))


def summary(scores: Sequence[float], labels: Sequence[int]) -> dict:
    """AUROC with CI, Brier, ECE, accuracy at 0.5, mean score per label, reliability table."""
    s, y = np.asarray(scores, dtype=float), np.asarray(labels, dtype=int)
    out = {
        "n": int(s.size),
        "n_pos": int(y.sum()),
        "auroc": auroc(s, y),
        "auroc_ci": _ci(lambda a, b: auroc(a, b), (s, y)),
        "brier": brier(s, y),
        "ece": ece(s, y),
        "accuracy_at_0.5": float(np.mean((s >= 0.5) == (y == 1))) if s.size else float("nan"),
        "mean_pos": float(s[y == 1].mean()) if (y == 1).any() else float("nan"),
        "mean_neg": float(s[y == 0].mean()) if (y == 0).any() else float("nan"),
        "reliability": reliability_table(s, y),
    }
    return out
