"""CI gates: turn a run or a comparison into pass / fail with one line per failed gate.

``fail_under``: a metric's mean (or its CI lower bound, ``on="ci_low"``) must reach a
threshold. ``fail_on_regression``: no metric may get significantly worse (Holm-adjusted p
below alpha, against the metric's direction: a drop for higher-is-better metrics; a metric
with no better direction, such as refusal_rate, never fails by its change), B may not
fail more of a metric's scores than A did, have no score for a sample A scored, nor leave
out a metric A computed. The CLI's
``--fail-under`` / ``--fail-on-regression`` and the pytest helper ``assert_scores`` call these.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from numbers import Real
from typing import Any, Literal

from ragmeter.errors import DataError, Problem

GateOn = Literal["mean", "ci_low"]


@dataclass(frozen=True)
class GateFailure:
    """One failed gate: which metric and why, as one line."""

    metric: str
    reason: str

    def __str__(self) -> str:
        return f"{self.metric}: {self.reason}"


def parse_thresholds(spec: str | dict[str, float] | None) -> dict[str, float]:
    """'faithfulness=0.8,context_relevance=0.6' -> {name: threshold}; DataError naming bad parts."""
    if spec is None:
        return {}
    if isinstance(spec, dict):
        items = [(str(k), v) for k, v in spec.items()]
    elif not isinstance(spec, str):  # a list of pairs or a number: AttributeError on .split
        said = "give a dict {metric: value} or a 'METRIC=VALUE,...' string, not "
        said += type(spec).__name__
        raise DataError([Problem(None, "--fail-under", said)])
    else:
        items = []
        for part in (p.strip() for p in spec.split(",")):
            if not part:
                continue
            name, sep, value = part.partition("=")
            if not sep or not name.strip():
                raise DataError([Problem(None, "--fail-under", f"'{part}' is not METRIC=VALUE")])
            items.append((name.strip(), value.strip()))
        if not items:  # "" from an unset CI variable: no gate at all, said nowhere
            said = f"{spec!r} names no gate: give METRIC=VALUE[,...], or leave the option out"
            raise DataError([Problem(None, "--fail-under", said)])
    out: dict[str, float] = {}
    problems = []
    given: dict[str, Any] = {}
    for name, value in items:
        if name in given:  # the last kept, the first dropped without a word
            said = f"{name} is given twice ({given[name]}, then {value}): give one threshold"
            problems.append(Problem(None, "--fail-under", said))
            continue
        given[name] = value
        try:
            out[name] = float(value)
        except (TypeError, ValueError):
            problems.append(Problem(None, "--fail-under", f"{name}: '{value}' is not a number"))
            continue
        if not math.isfinite(out[name]):  # 'nan' reads as a number, and no mean is below it
            problems.append(Problem(None, "--fail-under", f"{name}={value}: not a finite number"))
    if problems:
        raise DataError(problems)
    return out


def check_metric_names(thresholds: dict[str, float], metrics: list[str] | None) -> None:
    """Before any work: every gated metric must exist and, when metrics are listed, be one.

    Without a list the run's plan decides which metrics run: ``evaluate(gated=...)`` checks
    the gated ones against it once it is known, before any judge call (the same check,
    ``plan.gate_problems``, with the plan's reason for each metric it leaves out).
    """
    from ragmeter.plan import gate_problems

    if problems := gate_problems(thresholds, metrics):
        raise DataError(problems)


def known_direction(name: str, manifest: Mapping[str, Any] | None = None) -> str | None:
    """The metric's better direction: the registry's, else the one its run's run.json
    recorded (``manifest``), else None (unknown: a run.json written before directions were).
    Why: a metric of one's own registered only in the process that ran it was gated and
    reported as higher-is-better where the run was read back (a latency's floor passed the
    slower runs; its fastest samples were listed as its worst)."""
    from ragmeter.errors import MetricError
    from ragmeter.metrics.registry import get_metric

    try:
        return get_metric(name).direction
    except (MetricError, KeyError):
        pass
    entries = (manifest or {}).get("metrics") or ()
    said = (e.get("direction") for e in entries if isinstance(e, dict) and e.get("name") == name)
    return next((d for d in said if d in ("higher", "lower", "none")), None)


ASSUMED = "direction unknown (not registered here, not in run.json): higher-is-better assumed"


def check_threshold_values(
    thresholds: dict[str, float],
    *,
    option: str = "--fail-under",
    source: str = "command line",
    manifest: Mapping[str, Any] | None = None,
) -> None:
    """Before any work: each threshold is a finite number within its metric's range.

    Why: ``float()`` reads 'nan' and 'inf', and ``mean < nan`` is never true, so a NaN gate
    silently passed every run; a threshold outside the metric's range (1.5, -1 for a share)
    gates nothing. A metric whose lower values are better (``direction="lower"``) is refused:
    failing a mean below the threshold would fail its better runs and pass the worse ones.
    DataError naming each bad threshold (CLI exit 2). The CLI and
    ``assert_scores`` both call it; a name no metric has is left to ``check_metric_names``
    (a run read back may hold metrics this process never registered): its direction is then
    the one its run.json (``manifest``) recorded, and a lower-is-better one is refused too.
    """
    from ragmeter.errors import MetricError
    from ragmeter.metrics.registry import get_metric

    problems = []
    for name, value in thresholds.items():
        if isinstance(value, bool) or not isinstance(value, Real):  # "0.5" < x: a TypeError
            problems.append(Problem(None, option, f"{name}={value!r}: not a number"))
            continue
        if not math.isfinite(value):
            problems.append(Problem(None, option, f"{name}={value}: not a finite number"))
            continue
        try:
            bounds = get_metric(name).value_range
        except (MetricError, KeyError):
            bounds = None  # a metric registered where the run ran: its run.json's direction
        # lower is better: the gate would fail the better runs and pass the worse
        if known_direction(name, manifest) == "lower":
            problems.append(
                Problem(
                    None,
                    option,
                    f"{name} is lower-is-better: a gate failing means below {value:g} would "
                    "fail the better runs",
                )
            )
            continue
        if bounds is not None and not bounds[0] <= value <= bounds[1]:
            problems.append(
                Problem(
                    None,
                    option,
                    f"{name}={value:g} is outside {name}'s range [{bounds[0]:g}, {bounds[1]:g}]",
                )
            )
    if problems:
        raise DataError(problems, source=source)


def fail_under(
    result: Any, thresholds: dict[str, float], *, on: GateOn = "mean"
) -> list[GateFailure]:
    """The gates a run fails: mean (or CI lower bound) below its metric's threshold.

    The thresholds are checked first (``check_threshold_values``), as the CLI and
    ``assert_scores`` check them: called directly, a NaN threshold passed every run and a
    string one raised a TypeError from the comparison. ``result`` may be a run read back
    (``load_run(path)``): its run.json gives the direction of a metric not registered here
    (``known_direction``); when nothing does, a failed gate says higher-is-better was
    assumed, and a UserWarning says it whether the gate fails or passes."""
    manifest = getattr(result, "manifest", None)
    result = getattr(result, "result", result)  # a Run: its EvaluationResult
    if on not in ("mean", "ci_low"):  # a DataError is a ValueError, as this was
        said = f"must be 'mean' or 'ci_low', not {on!r}"
        raise DataError([Problem(None, "on", said)], source="fail_under()")
    if not isinstance(thresholds, dict):
        said = f"must be a dict of metric -> threshold, not {thresholds!r}"
        raise DataError([Problem(None, "thresholds", said)], source="fail_under()")
    check_threshold_values(
        thresholds, option="thresholds", source="fail_under()", manifest=manifest
    )
    failures = []
    assumed = [n for n in thresholds if n in result.aggregates and not known_direction(n, manifest)]
    if assumed:
        warnings.warn(f"{', '.join(assumed)}: {ASSUMED}", UserWarning, stacklevel=2)
    for name, threshold in thresholds.items():
        agg = result.aggregates.get(name)
        if agg is None:  # evaluate(gated=...) / the CLI refuse this before the run
            why = _not_run_reason(result, name)
            failures.append(
                GateFailure(name, f"not computed in this run{why} (threshold {threshold})")
            )
            continue
        value = agg.mean if on == "mean" else agg.ci_low
        label = "mean" if on == "mean" else "CI lower bound"
        if value is None and agg.mean is not None:  # on ci_low, one scored sample: unknown
            failures.append(GateFailure(name, f"{agg.ci_note} (threshold {threshold})"))
        elif value is None:
            why = unscored_reason(result, name, agg)
            failures.append(
                GateFailure(
                    name,
                    f"no value: {agg.n_ok} of {agg.n} samples scored{why} (threshold {threshold})",
                )
            )
        elif value < threshold:
            shown = _below(value, threshold)
            failures.append(GateFailure(name, f"{label} {shown} < {threshold} (n={agg.n_ok})"))
    return [
        GateFailure(f.metric, f"{f.reason}; {ASSUMED}") if f.metric in assumed else f
        for f in failures
    ]


def _not_run_reason(result: Any, name: str) -> str:
    """': no judge available' when the run's notes say why its plan left the metric out."""
    prefix = f"not run: {name} ("
    for note in getattr(result, "notes", None) or []:
        if isinstance(note, str) and note.startswith(prefix) and note.endswith(")"):
            return f": {note[len(prefix) : -1]}"
    return ""


def _short(text: str, limit: int = 120) -> str:
    """A reason on one gate line: a judge's error may hold a whole HTML page (12,000 chars)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _below(value: float, threshold: float) -> str:
    """``value`` with 3 decimals, or as many more as it takes to read below ``threshold``
    (a mean of 0.9999999 under 1.0 read "mean 1.000 < 1.0")."""
    for decimals in range(3, 17):
        if float(text := f"{value:.{decimals}f}") < threshold:
            return text
    return repr(value)


def unscored_reason(result: Any, name: str, agg: Any) -> str:
    """'; 5 undefined (no reference contexts: relevance is undefined)': how a planned metric
    ended with no value, and its most frequent reason, for the gate line. Why: a metric that
    ran but scored no sample fails its gate after the run, and 'no value' alone sent the
    user to summary.json to find out why."""
    counts = [
        f"{k} {status}"
        for status, k in (
            ("failed", agg.n_failed),
            ("undefined", agg.n_undefined),
            ("skipped", agg.n_skipped),
        )
        if k
    ]
    if not counts:
        return ""
    listed = getattr(result, "failures", None)
    rows = listed() if callable(listed) else []
    reasons = Counter(r["reason"] for r in rows if r.get("metric") == name and r.get("reason"))
    common = f" ({_short(reasons.most_common(1)[0][0])})" if reasons else ""
    return f"; {', '.join(counts)}{common}"


def fail_on_regression(
    comparison: Any, *, alpha: float = 0.05, allow_lost_scores: bool = False
) -> list[GateFailure]:
    """The metrics that got worse in B: significantly (Holm p < alpha and the delta against
    the metric's direction, ``MetricDelta.worse``), or by failing: B failed more of its
    scores than A (``lost_to_failures``; whatever its direction), B has no score for samples
    A scored (``lost_beyond_failures``: failed, undefined or skipped in B; with
    ``allow_lost_scores`` only the failed ones count), or B did not compute a metric A did
    (``lost_metrics``: empty when ``compare(metrics=...)`` chose the metrics).
    Why the last three: a metric whose every score failed in B, or that B never computed (a
    CI job without the judge), had no pair, hence no p-value, and passed the gate; a sample B
    left undefined (or failed, while A failed as many others) silently left the pairs."""
    from ragmeter.compare_render import lost_text

    # DataError is a ValueError, as these were: "no" is truthy and excused lost scores
    problems = (
        []
        if isinstance(allow_lost_scores, bool)
        else [
            Problem(None, "allow_lost_scores", f"must be True or False, not {allow_lost_scores!r}")
        ]
    )
    if isinstance(alpha, bool) or not isinstance(alpha, Real) or not 0 < alpha < 1:
        problems.append(Problem(None, "alpha", f"must be a number in (0, 1), not {alpha!r}"))
    if problems:
        raise DataError(problems, source="fail_on_regression()")
    failures = [
        GateFailure(name, "computed in A, not in B (to accept that, compare --metrics without it)")
        for name in getattr(comparison, "lost_metrics", [])
    ]
    for m in comparison.metrics:
        if getattr(m, "lost_to_failures", False):
            left = "no pair left to compare" if m.n == 0 else f"{m.n} pair(s) left"
            failures.append(
                GateFailure(
                    m.metric,
                    f"B failed {m.failed_b} of {m.n + m.n_excluded} scores, A failed "
                    f"{m.failed_a} ({left})",
                )
            )
        lost = getattr(m, "lost_beyond_failures", 0)
        excused = m.lost_b - m.lost_b_failed if lost and allow_lost_scores else 0
        if lost > excused:
            hint = ""
            if m.lost_b > m.lost_b_failed:  # some were undefined or skipped in B
                hint = (
                    "; --allow-lost-scores accepts the undefined or skipped, not the failed"
                    if allow_lost_scores
                    else "; to accept the undefined or skipped, --allow-lost-scores"
                )
            failures.append(GateFailure(m.metric, f"{lost_text(m)}{hint}"))
        if m.worse(alpha):
            moved = "dropped" if m.delta < 0 else "rose"
            failures.append(
                GateFailure(
                    m.metric,
                    f"{moved} {m.delta:+.3f} (CI [{m.ci_low:+.3f}, {m.ci_high:+.3f}]), "
                    f"Holm p={m.p_holm:.3g} < {alpha} over {m.n} pairs",
                )
            )
    return failures
