"""Scoring every pair with every scorer of its dimension, in a prefix-friendly order.

A pair counts 1 when the human-preferred side scores strictly higher, 0 when lower, and 1/2
for a tie or a side without a value by definition (undefined, skipped: the metric does not
apply, which is a finding about the pair). A pair where a side's score FAILED is left out of
the agreement and counted (``n_failed``): a broken judge is no evidence either way, and
counting it as a tie pulled every agreement towards 0.5 without a word.

Calls run one after another: pairs are grouped by source row and, within a row, every
scorer's calls on one context are sent back to back, so a local judge evaluates each context
(and its longer variant) about once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ragmeter.meta_eval._pairs import PreferencePair
from ragmeter.meta_eval._scorers import PairScorer
from ragmeter.metrics.base import Score
from ragmeter.protocols import Resources
from ragmeter.sample import Sample
from ragmeter.stats import brier, ece, reliability_table


@dataclass
class ScorerResult:
    name: str
    dimension: str
    kind: str
    # per pair 1 / 0.5 / 0, or None where a side's score failed (left out of the agreement)
    outcomes: list[float | None] = field(default_factory=list)
    pairs: list[dict[str, Any]] = field(default_factory=list)
    n_missing: int = 0  # pairs with a side not applicable (undefined, skipped): ties
    n_failed: int = 0  # pairs left out: a side's score failed
    first_failure: str | None = None  # the reason of the first failed score
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0  # judge calls
    n_samples: int = 0  # samples (or pairs, for rankers) scored with the judge
    wall_s: float = 0.0
    # tokens the local judge actually processed: prompt tokens evaluated after prefix reuse
    # plus generated tokens (None for judges that do not report it)
    computed_tokens: int | None = None
    # (score, label) per scored side: preferred = 1, other = 0 (calibration against the pairs)
    labelled: list[tuple[float, int]] = field(default_factory=list)

    def calibration(self) -> dict[str, Any] | None:
        """Brier, ECE and reliability table of the scores, preferred side = 1, other = 0."""
        if not self.labelled:
            return None
        s, y = [v for v, _ in self.labelled], [lab for _, lab in self.labelled]
        return {
            "n": len(s),
            "brier": brier(s, y),
            "ece": ece(s, y),
            "reliability": reliability_table(s, y),
        }

    @property
    def agreement(self) -> float | None:
        """Mean outcome of the pairs whose sides were both scored; None when there is none
        (every pair failed), never a 0.5 made of failures."""
        counted = [o for o in self.outcomes if o is not None]
        return float(np.mean(counted)) if counted else None

    def add_failure(self, *scores: Score) -> bool:
        """Count the pair as failed when one of its scores failed (keeping the first reason);
        True when it did."""
        failed = [sc for sc in scores if sc.status == "failed"]
        if failed:
            self.n_failed += 1
            self.first_failure = self.first_failure or failed[0].reason or "no reason given"
        return bool(failed)

    def tokens_per_sample(self) -> float | None:
        if not self.n_samples:
            return None
        return (self.prompt_tokens + self.completion_tokens) / self.n_samples

    def as_dict(self, with_pairs: bool = True) -> dict[str, Any]:
        out = {
            "name": self.name,
            "dimension": self.dimension,
            "kind": self.kind,
            "agreement": self.agreement,
            "n_pairs": len(self.outcomes),
            "n_counted": len(self.outcomes) - self.n_failed,
            "n_missing": self.n_missing,
            "n_failed": self.n_failed,
            "first_failure": self.first_failure,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "judge_calls": self.calls,
            "judge_calls_per_item": self.calls / self.n_samples if self.n_samples else None,
            "scored_items": self.n_samples,
            "judge_tokens_per_item": self.tokens_per_sample(),
            "computed_tokens": self.computed_tokens,
            "computed_tokens_per_item": (
                self.computed_tokens / self.n_samples
                if self.computed_tokens and self.n_samples
                else None
            ),
            "wall_s": round(self.wall_s, 2),
            "calibration": self.calibration(),
        }
        if with_pairs:
            out["pairs"] = self.pairs
        return out


def _judge_stats(judge: Any) -> Any:
    """The local judge's work counters under any engine wrappers (None for remote judges)."""
    for _ in range(5):
        attrs = getattr(judge, "__dict__", {})
        if attrs.get("stats") is not None:
            return attrs["stats"]
        judge = attrs.get("inner")
    return None


def outcome(preferred: Score, other: Score) -> float | None:
    """1 / 0 when the preferred side scores higher / lower, 0.5 for a tie or a side without a
    value by definition (undefined, skipped); None when a side failed (see the module doc)."""
    if preferred.status == "failed" or other.status == "failed":
        return None
    if preferred.value is None or other.value is None:
        return 0.5
    if preferred.value > other.value:
        return 1.0
    return 0.0 if preferred.value < other.value else 0.5


def _tokens(score: Score) -> tuple[int, int]:
    j = score.details.get("judge") or {}
    return int(j.get("prompt_tokens", 0)), int(j.get("completion_tokens", 0))


def _calls(score: Score) -> int:
    return int((score.details.get("judge") or {}).get("calls", 0))


def _brief(score: Score) -> dict[str, Any]:
    out: dict[str, Any] = {"value": score.value, "status": score.status}
    pt, ct = _tokens(score)
    if pt or ct:  # per sample: the judge's calls, prompt and completion tokens
        out["judge_tokens"] = pt + ct
        out["judge_calls"] = _calls(score)
        out["prompt_tokens"], out["completion_tokens"] = pt, ct
    if score.reason:
        out["reason"] = score.reason
    for key in (
        "mode",
        "statements",
        "p_yes",
        "verdicts",
        "kept_numbers",
        "total_sentences",
        "questions",
        "flipped",
    ):
        if key in score.details:
            out[key] = score.details[key]
    return out


async def run_meta_eval(
    pairs: Sequence[PreferencePair],
    scorers: Sequence[PairScorer],
    resources: Resources,
    *,
    progress: Callable[[str], None] | None = None,
) -> list[ScorerResult]:
    """Score every pair with every scorer of its dimension; see the module doc for the order."""
    results = {s.name: ScorerResult(s.name, s.dimension, s.kind) for s in scorers}
    groups: dict[str, list[PreferencePair]] = {}
    for p in pairs:
        groups.setdefault(p.group, []).append(p)
    memo: dict[tuple[str, str], Score] = {}
    stats = _judge_stats(getattr(resources, "judge", None))

    def work_done() -> int | None:
        if stats is None or not hasattr(stats, "prompt_tokens_evaluated"):
            return None
        return int(stats.prompt_tokens_evaluated) + int(stats.completion_tokens)

    async def score(sc: PairScorer, sample: Sample) -> Score:
        key = (sc.name, sample.model_dump_json(exclude={"question_id"}))
        if key not in memo:
            memo[key] = await sc.score(sample, resources)  # type: ignore[misc]
            res = results[sc.name]
            pt, ct = _tokens(memo[key])
            res.prompt_tokens += pt
            res.completion_tokens += ct
            res.calls += _calls(memo[key])
            res.n_samples += 1
        return memo[key]

    # RAGAS metrics first (their wall time is the one the target is about), then baselines.
    for kind in ("ragas", "baseline"):
        for gi, members in enumerate(groups.values()):
            for sc in (s for s in scorers if s.kind == kind):
                for pair in (p for p in members if p.dimension == sc.dimension):
                    res = results[sc.name]
                    t0, w0 = time.perf_counter(), work_done()
                    if sc.rank is not None:
                        win, detail = await sc.rank(pair, resources)
                        pt, ct = _tokens(detail)
                        res.prompt_tokens += pt
                        res.completion_tokens += ct
                        res.calls += _calls(detail)
                        res.n_samples += 1
                        failed = res.add_failure(detail)
                        res.n_missing += int(not failed and detail.value is None)
                        won = None if failed else win
                        res.outcomes.append(won)
                        res.pairs.append(
                            {"pair": pair.pair_id, "outcome": won, "ranking": _brief(detail)}
                        )
                    else:
                        a = await score(sc, pair.preferred)
                        b = await score(sc, pair.other)
                        if not res.add_failure(a, b):
                            res.n_missing += int(a.value is None or b.value is None)
                        for side, label in ((a, 1), (b, 0)):
                            if side.value is not None and 0.0 <= side.value <= 1.0:
                                res.labelled.append((side.value, label))
                        got = outcome(a, b)
                        res.outcomes.append(got)
                        res.pairs.append(
                            {
                                "pair": pair.pair_id,
                                "outcome": got,
                                "preferred": _brief(a),
                                "other": _brief(b),
                            }
                        )
                    res.wall_s += time.perf_counter() - t0
                    w1 = work_done()
                    if w0 is not None and w1 is not None:
                        res.computed_tokens = (res.computed_tokens or 0) + w1 - w0
            if progress is not None:
                progress(f"{kind}: {gi + 1}/{len(groups)} rows")
    return list(results.values())
