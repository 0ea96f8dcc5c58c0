"""Non-inferiority margins of a comparison (``compare(max_drop=...)``, ``--max-drop``), and
a Comparison's short repr.

Why: ``--fail-on-regression`` fails only on a *significant* drop, and on the 25-200 samples
CI gates run on a real drop of 0.05-0.10 is often not significant: the gate took absence of
evidence for evidence of absence. A margin asks the converse: B passes only when the paired
CI of mean(B - A) (the one the comparison reports, at its confidence) shows B is not worse
than A by more than DELTA: ``ci_low >= -DELTA`` for a higher-is-better metric, ``ci_high <=
+DELTA`` for a lower-is-better one. No CI (too few pairs) fails: nothing was shown. A bound
beyond DELTA by at most ``stats.TIE`` is float noise (0.48 - 0.5 is -0.020000000000000018),
as the comparison counts it everywhere else.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from numbers import Real
from typing import Any

from ragmeter.compare_render import ci_header, fmt, fmt_ci
from ragmeter.errors import MetricError
from ragmeter.md_escape import visible
from ragmeter.metrics.registry import get_metric
from ragmeter.redact import public_text
from ragmeter.stats import TIE

SPEC = "METRIC=DELTA[,METRIC=DELTA...]"


def _refuse(option: str, problems: list[str]) -> None:
    """One line naming every problem (a MetricError: CLI exit 2, a ValueError in Python)."""
    if problems:
        raise MetricError(f"{option}: {'; '.join(problems)}")


def parse_max_drop(spec: Any, *, option: str = "max_drop") -> dict[str, float]:
    """``"faithfulness=0.02,mrr=0.05"``, a list of such strings (``--max-drop`` repeated) or
    a dict -> {metric: allowed drop}; None -> {} (no margin). Refused in one line: an empty
    spec (an unset CI variable would gate nothing, said nowhere), a part not METRIC=DELTA, a
    name given twice, a DELTA that is no number, NaN, infinite or negative (NaN compares
    false, so it passed every run; a negative one asks B to be better, not "not worse")."""
    if spec is None:
        return {}
    items: list[tuple[str, Any]] = []
    problems: list[str] = []
    if isinstance(spec, Mapping):
        items = [(str(k), v) for k, v in spec.items()]
    elif isinstance(spec, str) or (
        isinstance(spec, list | tuple) and all(isinstance(s, str) for s in spec)
    ):
        for part in (
            p.strip() for s in ([spec] if isinstance(spec, str) else spec) for p in s.split(",")
        ):
            name, sep, value = part.partition("=")
            if not part:
                continue
            if not sep or not name.strip():
                problems.append(f"'{visible(part)}' is not METRIC=DELTA")
            else:
                items.append((name.strip(), value.strip()))
    else:
        _refuse(option, [f"give a dict {{metric: delta}} or '{SPEC}', not {type(spec).__name__}"])
    if not items and not problems:
        _refuse(option, [f"{spec!r} names no margin: give {SPEC}, or leave the option out"])
    out: dict[str, float] = {}
    seen: set[str] = set()
    for name, value in items:
        shown = visible(f"{name}={value}")
        if name in seen:
            problems.append(f"{visible(name)} is given twice: give one allowed drop")
            continue
        seen.add(name)
        if isinstance(value, bool) or not isinstance(value, Real | str):
            problems.append(f"{shown}: DELTA is not a number")
        else:
            try:
                delta = float(value)
            except ValueError:
                problems.append(f"{shown}: DELTA is not a number")
                continue
            if not math.isfinite(delta):
                problems.append(f"{shown}: DELTA must be a finite number")
            elif delta < 0:
                problems.append(f"{shown}: DELTA must be >= 0 (the drop B is allowed)")
            out[name] = delta
    _refuse(option, problems)
    return out


def check_max_drop(
    drops: dict[str, float], compared: list[str], direction: Callable[[str], str]
) -> None:
    """Before any statistics: each margin's metric is compared (in both runs and, with
    ``metrics=``, listed), has a better direction (refusal_rate has none: no side is
    worse), and its DELTA is narrower than the metric's range (a margin as wide as [0, 1]
    can never fail: a gate that gates nothing)."""
    problems = []
    unknown = [m for m in drops if m not in compared]
    if unknown:
        names = ", ".join(visible(m) for m in unknown)
        problems.append(
            f"metric(s) not compared in both runs: {names} (compared: "
            f"{', '.join(map(visible, compared)) or 'none'})"
        )
    for name, delta in drops.items():
        if name in unknown:
            continue
        if direction(name) not in ("higher", "lower"):
            problems.append(f"{visible(name)} has no better direction: no change of it is worse")
            continue
        try:
            low, high = get_metric(name).value_range or (-math.inf, math.inf)
        except (MetricError, ValueError):
            continue  # registered where the run ran: its range is not known here
        if delta >= high - low:
            problems.append(
                f"{visible(name)}={delta:g} allows any change over its range [{low:g}, "
                f"{high:g}]: it can never fail"
            )
    _refuse("max_drop (--max-drop)", problems)


def _past(value: float, limit: float) -> str:
    """``value`` to 3 decimals, or as many more as it takes to read beyond ``limit`` (a drop
    of 0.0204 over 0.02 read "up to 0.020")."""
    for decimals in range(3, 17):
        if float(text := f"{value:.{decimals}f}") > limit:
            return text
    return repr(value)


@dataclass(frozen=True)
class Margin:
    """One metric's margin: the drop allowed, the CI bound on its worse side, pass or fail.

    ``bound``: ci_low (higher is better) or ci_high (lower is better) of B - A, None without
    a CI; ``worst_drop``: how much worse B may be at that bound (negative: better even there).
    ``str()`` is the line the gate prints."""

    metric: str
    max_drop: float
    direction: str
    bound: float | None
    worst_drop: float | None
    passed: bool
    ci_low: float | None
    ci_high: float | None
    confidence: float
    note: str | None = None  # why there is no CI

    def __str__(self) -> str:
        allowed = "drop" if self.direction == "higher" else "rise (lower is better)"
        allowed = f"allowed {allowed} {self.max_drop:g}"
        if self.worst_drop is None:
            why = self.note or "no CI"
            return f"{self.metric}: cannot show non-inferiority ({why}); {allowed}"
        ci = f"{ci_header(self.confidence)} of B-A {fmt_ci(self.ci_low, self.ci_high)}"
        if not self.passed:
            up_to = _past(self.worst_drop, self.max_drop)
            return f"{self.metric}: B may be worse than A by up to {up_to} ({ci}); {allowed}"
        if self.worst_drop <= 0:
            return f"{self.metric}: B is not worse than A ({ci}); {allowed}"
        return (
            f"{self.metric}: B is worse than A by at most {fmt(self.worst_drop)} ({ci}); {allowed}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "reason": str(self)}


def margins_of(deltas: list[Any], drops: dict[str, float], confidence: float) -> list[Margin]:
    """The margin of each metric in ``drops`` (``check_max_drop`` passed) from its
    ``MetricDelta``, in the comparison's metric order."""
    out = []
    for m in deltas:
        if m.metric not in drops:
            continue
        allowed = drops[m.metric]
        bound = m.ci_low if m.direction == "higher" else m.ci_high
        if m.ci_low is None or m.ci_high is None or bound is None:
            worst = None
        else:
            worst = -bound if m.direction == "higher" else bound
        passed = worst is not None and worst <= allowed + TIE
        shown = None if worst is None else bound
        note = m.note or (None if worst is not None else "no CI")
        out.append(
            Margin(
                m.metric,
                allowed,
                m.direction,
                shown,
                worst,
                passed,
                m.ci_low,
                m.ci_high,
                confidence,
                note,
            )
        )
    return out


REPR_METRICS = 12  # metric lines a repr shows; the rest counted
REPR_NAME = 60  # characters of a run or metric name a repr shows


def _cut(text: str) -> str:
    text = visible(public_text(str(text)))
    return text if len(text) <= REPR_NAME else text[: REPR_NAME - 1] + "…"


def summary_repr(cmp: Any) -> str:
    """A Comparison in a few lines: A, B, pairs, one line per metric (delta, CI, n), the
    margins' outcome. Why: the dataclass repr printed both runs whole (every sample and
    score), megabytes in a notebook or a log for a 10,000-sample run."""
    lines = [
        f"Comparison(A={_cut(cmp.a.name)!r}, B={_cut(cmp.b.name)!r}, n_paired={len(cmp.ids)}, "
        f"confidence={cmp.confidence:g}"
    ]
    for m in cmp.metrics[:REPR_METRICS]:
        ci = m.note or fmt_ci(m.ci_low, m.ci_high)
        lines.append(f"  {_cut(m.metric)}: delta {fmt(m.delta, signed=True)} CI {ci} (n={m.n})")
    if len(cmp.metrics) > REPR_METRICS:
        lines.append(f"  ... and {len(cmp.metrics) - REPR_METRICS} more metric(s)")
    extra = [f"{len(cmp.slices)} slice(s) by {_cut(cmp.by)}"] if cmp.slices else []
    if cmp.margins:
        failed = sum(not g.passed for g in cmp.margins)
        extra.append(f"margins: {len(cmp.margins) - failed} met, {failed} failed")
    if cmp.warnings:
        extra.append(f"{len(cmp.warnings)} warning(s)")
    if extra:
        lines.append(f"  {'; '.join(extra)}")
    return "\n".join(lines) + ")"
