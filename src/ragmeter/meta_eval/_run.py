"""Scoring every pair with every scorer of its dimension, in a prefix-friendly order.

A pair counts 1 when the human-preferred side scores strictly higher, 0 when lower, and 1/2
for a tie or a side without a value by definition (undefined, skipped: the metric does not
apply, which is a finding about the pair). A pair where a side's score FAILED is left out of
the agreement and counted (``n_failed``): a broken judge is no evidence either way, and
counting it as a tie pulled every agreement towards 0.5 without a word. As evaluate's
scheduler makes them, a scorer that raises gives a failed score ("internal error: ...") and
an "ok" score without a finite value a failed one, every reason redacted: the first ended
the whole run, every pair scored lost; the second was counted a tie.

Calls run one after another: pairs are grouped by source row and, within a row, every
scorer's calls on one context are sent back to back, so a local judge evaluates each context
(and its longer variant) about once.

Judge usage means what ``evaluate``'s usage means (``engine.accounting.Tally``), read from
the judge's accountant item by item (the run is sequential, so what the tally gained during
an item is that item's): ``judge_calls`` and the tokens are calls sent to the judge in this
run, failed ones included (their replies are billed too); ``judge_cached_calls`` were
answered from the cache and cost nothing now; ``judge_failed_calls`` gave no usable answer.
Why not the scores' own tallies: a failed score carries none, so a run whose every call
failed, or was served from the cache, said 0 tokens with nothing to tell the cases apart.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ragmeter import _repr
from ragmeter.engine.accounting import CALL_TAG, Tally
from ragmeter.errors import RunAborted
from ragmeter.meta_eval._pairs import PreferencePair
from ragmeter.meta_eval._scorers import PairScorer
from ragmeter.metrics.base import Score, checked
from ragmeter.protocols import Resources
from ragmeter.redact import describe, redact
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
    prompt_tokens: int = 0  # billed in this run (calls sent, failed ones included)
    completion_tokens: int = 0
    calls: int = 0  # judge calls sent in this run (not cache hits; failed ones included)
    cached_calls: int = 0  # judge calls answered from the cache (no tokens billed now)
    failed_calls: int = 0  # judge calls that gave no usable answer after their retries
    retries: int = 0
    n_samples: int = 0  # samples (or pairs, for rankers) scored
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

    def __repr__(self) -> str:
        """One line: the dataclass default printed every pair (thousands of lines)."""
        return (
            f"ScorerResult({_repr.cell(self.name)!r}, {_repr.cell(self.dimension)}, "
            f"{_repr.cell(self.kind)}: agreement {_repr.num(self.agreement)}, "
            f"{_repr.plural(len(self.outcomes), 'pair')}, {self.n_failed} failed)"
        )

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

    def add_usage(self, used: Tally) -> None:
        """Count one item's judge usage (see the module doc)."""
        self.calls += used.calls
        self.cached_calls += used.cache_hits
        self.failed_calls += used.failures
        self.retries += used.retries
        self.prompt_tokens += used.prompt_tokens
        self.completion_tokens += used.completion_tokens
        self.n_samples += 1

    @property
    def judge_tokens(self) -> int:
        """Tokens billed in this run: 0 for a run served from the cache (see cached_calls)."""
        return self.prompt_tokens + self.completion_tokens

    def tokens_per_sample(self) -> float | None:
        if not self.n_samples:
            return None
        return self.judge_tokens / self.n_samples

    def _per_item(self, n: int | None) -> float | None:
        return n / self.n_samples if n is not None and self.n_samples else None

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
            "judge_tokens": self.judge_tokens,
            "judge_calls": self.calls,
            "judge_cached_calls": self.cached_calls,
            "judge_failed_calls": self.failed_calls,
            "judge_retries": self.retries,
            "judge_calls_per_item": self._per_item(self.calls),
            "judge_cached_calls_per_item": self._per_item(self.cached_calls),
            "scored_items": self.n_samples,
            "judge_tokens_per_item": self.tokens_per_sample(),
            "computed_tokens": self.computed_tokens,
            "computed_tokens_per_item": self._per_item(self.computed_tokens or None),
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


def _details_usage(score: Score) -> Tally:
    """A judge's usage from a score's own tally, for judges without an accountant (test
    doubles): calls sent and from the cache; failures and retries are not known there."""
    j = score.details.get("judge") or {}
    cached = int(j.get("cached_calls", 0))
    return Tally(
        calls=int(j.get("calls", 0)) - cached,
        cache_hits=cached,
        prompt_tokens=int(j.get("prompt_tokens", 0)),
        completion_tokens=int(j.get("completion_tokens", 0)),
    )


def _judge_meter(judge: Any) -> Callable[[], Tally] | None:
    """A reading of the judge's running tally in its accountant (the engine's CachedJudge),
    or None for a judge that keeps none."""
    acc, name = getattr(judge, "accountant", None), getattr(judge, "name", None)
    per_backend = getattr(acc, "per_backend", None)
    if not isinstance(per_backend, dict) or not isinstance(name, str):
        return None
    return lambda: (per_backend.get(name) or Tally()).copy()


def _brief(score: Score, used: Tally) -> dict[str, Any]:
    out: dict[str, Any] = {"value": score.value, "status": score.status}
    if used.calls or used.cache_hits:  # per item: the judge's calls and tokens (module doc)
        out["judge_tokens"] = used.prompt_tokens + used.completion_tokens
        out["judge_calls"] = used.calls
        out["judge_cached_calls"] = used.cache_hits
        out["judge_failed_calls"] = used.failures
        out["prompt_tokens"], out["completion_tokens"] = used.prompt_tokens, used.completion_tokens
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


class _Session:
    """One meta-eval run's scoring: each item measured (score and judge usage), each
    sample's score memoised per scorer (a side shared by two pairs is scored once)."""

    def __init__(self, resources: Resources, results: dict[str, ScorerResult]) -> None:
        self.resources = resources
        self.results = results
        self.memo: dict[tuple[str, str], tuple[Score, Tally]] = {}
        self.meter = _judge_meter(getattr(resources, "judge", None))

    async def measured(
        self, sc: PairScorer, item: str, job: Awaitable[tuple[float, Score]]
    ) -> tuple[float, Score, Tally]:
        """(win, score, judge usage) of one item, its calls tagged for the accountant's
        per-metric tallies as evaluate tags them."""
        before = self.meter() if self.meter is not None else None
        token = CALL_TAG.set((sc.name, item))
        try:
            win, got = await job
        except (asyncio.CancelledError, RunAborted):
            raise
        except Exception as exc:  # one item's error is its failed score, as evaluate's
            win, got = 0.5, Score.failed(f"internal error: {describe(exc)}")
        finally:
            CALL_TAG.reset(token)
        got = checked(got)  # a NaN "ok" (a Score built directly) was a tie; it failed
        if got.reason:
            got.reason = redact(got.reason)
        if self.meter is None or before is None:
            return win, got, _details_usage(got)
        return win, got, self.meter().since(before)

    async def score(self, sc: PairScorer, sample: Sample) -> tuple[Score, Tally]:
        key = (sc.name, sample.model_dump_json(exclude={"question_id"}))
        if key not in self.memo:
            _, got, used = await self.measured(sc, sample.question_id, self._side(sc, sample))
            self.memo[key] = got, used
            self.results[sc.name].add_usage(used)
        return self.memo[key]

    async def _side(self, sc: PairScorer, sample: Sample) -> tuple[float, Score]:
        assert sc.score is not None
        return 0.0, await sc.score(sample, self.resources)

    async def rank_pair(self, sc: PairScorer, pair: PreferencePair) -> None:
        assert sc.rank is not None
        res = self.results[sc.name]
        win, detail, used = await self.measured(sc, pair.pair_id, sc.rank(pair, self.resources))
        res.add_usage(used)
        failed = res.add_failure(detail)
        res.n_missing += int(not failed and detail.value is None)
        won = None if failed else win
        res.outcomes.append(won)
        res.pairs.append({"pair": pair.pair_id, "outcome": won, "ranking": _brief(detail, used)})

    async def score_pair(self, sc: PairScorer, pair: PreferencePair) -> None:
        res = self.results[sc.name]
        a, used_a = await self.score(sc, pair.preferred)
        b, used_b = await self.score(sc, pair.other)
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
                "preferred": _brief(a, used_a),
                "other": _brief(b, used_b),
            }
        )


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
    session = _Session(resources, results)
    stats = _judge_stats(getattr(resources, "judge", None))

    def work_done() -> int | None:
        if stats is None or not hasattr(stats, "prompt_tokens_evaluated"):
            return None
        return int(stats.prompt_tokens_evaluated) + int(stats.completion_tokens)

    # RAGAS metrics first (their wall time is the one the target is about), then baselines.
    for kind in ("ragas", "baseline"):
        for gi, members in enumerate(groups.values()):
            for sc in (s for s in scorers if s.kind == kind):
                for pair in (p for p in members if p.dimension == sc.dimension):
                    res = results[sc.name]
                    t0, w0 = time.perf_counter(), work_done()
                    if sc.rank is not None:
                        await session.rank_pair(sc, pair)
                    else:
                        await session.score_pair(sc, pair)
                    res.wall_s += time.perf_counter() - t0
                    w1 = work_done()
                    if w0 is not None and w1 is not None:
                        res.computed_tokens = (res.computed_tokens or 0) + w1 - w0
            if progress is not None:
                progress(f"{kind}: {gi + 1}/{len(groups)} rows")
    return list(results.values())
