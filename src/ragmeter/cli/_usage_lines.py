"""The usage lines under ``evaluate``'s table: which model was asked how often, for how many
tokens, and per metric what one scored sample cost.

Why a module of its own: the run's usage totals (``usage["judge_tokens"]``, ``calls``) sum
every backend the accountant saw, the judge and also an embedder, a Hugging Face scorer or
the answer reward model, so "judge tokens: N" counted tokens no judge read. The judge's own
tally is ``per_backend[usage["judge"]]``; the other models get a line of their own.
"""

from __future__ import annotations

from typing import Any

from ragmeter.executors.streamed import StreamedResult

# "calls" are requests to a model; the progress line ("judging: 6/6") counts scores. A score
# may take several calls (one per statement), or none (answered from the cache).
CALLS_ARE_REQUESTS = (
    "(calls are requests; progress counted scores: one takes several calls, or none)"
)


def usage_lines(usage: dict[str, Any], result: Any) -> list[str]:
    """The usage lines of a run, none when no model was asked (a run all from the cache
    still says so: ``cached: N``)."""
    backends: dict[str, dict[str, Any]] = usage.get("per_backend") or {}
    judge = usage.get("judge")
    used = {n: t for n, t in backends.items() if t.get("calls") or t.get("cache_hits")}
    others = {n: t for n, t in used.items() if n != judge}
    if not (usage.get("judge_tokens") or usage.get("cache_hits") or used):
        return []
    lines = []
    if not backends:  # a usage without per-backend tallies: its totals as they are
        lines.append(_tally_line("judge tokens: ", usage))
    elif judge in used or not others:
        lines.append(_tally_line("judge tokens: ", backends.get(judge) or {}))
    if others:
        names = "; ".join(others)
        lines.append(_tally_line("other model tokens: ", _sum(others.values()), f" ({names})"))
    lines[0] += f"  {CALLS_ARE_REQUESTS}"
    mixed = " (judge and other models)" if others else ""
    return lines + _per_sample_usage(usage, result, mixed)


def _tally_line(head: str, tally: dict[str, Any], tail: str = "") -> str:
    tokens = tally.get("judge_tokens")
    if tokens is None:
        tokens = tally.get("prompt_tokens", 0) + tally.get("completion_tokens", 0)
    return (
        f"{head}{tokens}  calls: {tally.get('calls', 0)}  cached: {tally.get('cache_hits', 0)}"
        f"{tail}"
    )


def _sum(tallies: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for tally in tallies:
        for key in ("calls", "cache_hits", "prompt_tokens", "completion_tokens"):
            out[key] = out.get(key, 0) + int(tally.get(key) or 0)
    return out


def _per_sample_usage(usage: dict[str, Any], result: Any, mixed: str = "") -> list[str]:
    """Per metric, the models' calls and tokens per scored sample (computed: after the local
    judge's KV-prefix reuse); ``mixed`` says when other models' calls are among them (the
    per-metric tallies do not tell one backend from another)."""
    lines = []
    for name, tally in (usage.get("per_metric") or {}).items():
        if isinstance(result, StreamedResult):
            agg = result.aggregates.get(name)
            scored = agg.n - agg.n_skipped if agg is not None else 0
        else:
            scored = sum(s.status != "skipped" for s in result.scores.get(name, []))
        if not scored or not tally.get("calls"):
            continue
        line = (
            f"  {name}: per sample {tally['calls'] / scored:.1f} calls{mixed}, "
            f"{tally['prompt_tokens'] / scored:,.0f} prompt + "
            f"{tally['completion_tokens'] / scored:,.0f} completion tokens"
        )
        if tally.get("computed_tokens"):
            line += f" ({tally['computed_tokens'] / scored:,.0f} computed after prefix reuse)"
        lines.append(line)
    return lines
