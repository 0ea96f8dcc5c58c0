"""``assert_scores``: a quality gate inside a test, failing with the samples to look at."""

from __future__ import annotations

import numbers
from typing import Any, Literal, get_args

from ragmeter.errors import DataError, Problem
from ragmeter.gates import (
    ASSUMED,
    GateFailure,
    check_threshold_values,
    fail_under,
    known_direction,
    parse_thresholds,
)

On = Literal["mean", "ci_low", "each"]
ON_CHOICES: tuple[str, ...] = get_args(On)


def _short(text: str | None, limit: int = 70) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _split(
    result: Any, metric: str, threshold: float, allow_undefined: bool = False
) -> tuple[list[str], list[str]]:
    """Lines for the samples below ``threshold`` (lowest first) and for those without a value
    (failed, and undefined unless ``allow_undefined``; skipped ones lack the metric's inputs
    and are not listed), each with its question: an id alone sent the reader to the data."""
    low, missing = [], []
    for sample, sc in zip(result.samples, result.scores.get(metric, []), strict=False):
        if sc.status == "ok" and sc.value is not None:
            if sc.value < threshold:
                low.append((sc.value, sample))
        elif sc.status == "failed" or (sc.status == "undefined" and not allow_undefined):
            said = f"{sample.question_id}  {sc.status}: {_short(sc.reason)}"
            missing.append(f"{said}  {_short(sample.question, 50)!r}")
    low.sort(key=lambda t: (t[0], t[1].question_id))
    lines = [f"{s.question_id}  {_below(v, threshold)}  {_short(s.question)!r}" for v, s in low]
    return lines, missing


def _below(value: float, threshold: float) -> str:
    """``value`` with 3 decimals, or as many more as it takes to read below ``threshold``.
    Why: a faithfulness of 0.9999999 under a bar of 1.0 was listed as "1.000", a sample
    "below 1.0" whose shown value is not."""
    for decimals in range(3, 17):
        text = f"{value:.{decimals}f}"
        if float(text) < threshold:
            return text
    return repr(value)


def offending_samples(
    result: Any, metric: str, threshold: float, *, allow_undefined: bool = False
) -> list[str]:
    """Lines for the samples below ``threshold`` (lowest first), then those without a value
    (undefined ones unless ``allow_undefined``)."""
    low, missing = _split(result, metric, threshold, allow_undefined)
    return low + missing


def _each_failure(
    result: Any, name: str, threshold: float, too_many: str | None, allow_undefined: bool
) -> GateFailure | None:
    """The ``on="each"`` gate of one metric: a sample below the threshold fails it, and so
    does one without a value: undefined (unless ``allow_undefined``), or failed beyond
    ``max_failure_rate`` (``too_many``). Why undefined fails by default: it is not a low
    score, but "each" promises every sample met the bar, and a sample nothing could score
    (no contexts, an answer without claims, no relevant id) is often a broken row that the
    mean and CI gates, which leave it out, would pass in silence. A metric with no value at
    all fails as the mean's gate says it ("no value: 0 of 3 samples scored; ...")."""
    agg = result.aggregates.get(name)
    if agg is None or agg.mean is None:
        return fail_under(result, {name: threshold})[0]
    low, _ = _split(result, name, threshold, allow_undefined)
    unscored = [] if allow_undefined or not agg.n_undefined else [f"{agg.n_undefined} undefined"]
    if too_many:
        unscored.append(too_many)
    if not low and not unscored:
        return None
    why = f"{len(low)} sample(s) below {threshold}"
    n_unscored = (0 if allow_undefined else agg.n_undefined) + (agg.n_failed if too_many else 0)
    return GateFailure(
        name, why + (f", {n_unscored} unscored: {'; '.join(unscored)}" if unscored else "")
    )


def _too_many_failed(result: Any, metric: str, max_failure_rate: float) -> str | None:
    """Why ``metric``'s failed scores fail the gate (their share of the scores it had to
    compute is over ``max_failure_rate``), or None."""
    agg = result.aggregates.get(metric)
    if agg is None or not agg.n_failed:
        return None
    attempted = agg.n - agg.n_skipped
    if agg.n_failed / attempted <= max_failure_rate:
        return None
    return f"{agg.n_failed} of {attempted} scores failed (max_failure_rate {max_failure_rate})"


def _check_arguments(
    on: str, show: int, max_failure_rate: float, allow_undefined: Any, by_name: dict[str, Any]
) -> None:
    """DataError (a UsageError, and a ValueError as before) for arguments that cannot gate,
    before any score is looked at: a plain ValueError or TypeError was no ragmeter error, and
    a result that is not one raised AttributeError from deep inside."""
    if on not in ON_CHOICES:
        choices = ", ".join(repr(c) for c in ON_CHOICES)
        raise _usage(f"on must be one of {choices}, not {on!r}")
    if isinstance(show, bool) or not isinstance(show, int) or show < 0:
        raise _usage(f"show must be an integer of 0 or more, not {show!r}")
    rate = max_failure_rate
    if isinstance(rate, bool) or not isinstance(rate, numbers.Real) or not 0.0 <= rate <= 1.0:
        raise _usage(f"max_failure_rate must be in [0, 1], not {max_failure_rate!r}")
    if not isinstance(allow_undefined, bool):
        raise _usage(f"allow_undefined must be True or False, not {allow_undefined!r}")
    if allow_undefined and on != "each":  # an option that would do nothing is a mistake
        raise _usage(
            f"allow_undefined applies to on='each' only: on={on!r} gates a statistic of the "
            "samples with a value, undefined ones left out"
        )
    flags = [f"{k}={v!r}" for k, v in by_name.items() if isinstance(v, bool)]
    if flags:  # float(True) is 1.0: a typo would gate at the top of the range
        raise _usage(f"thresholds must be numbers, not {', '.join(flags)}")


def _check_result(result: Any) -> None:
    if not hasattr(result, "aggregates"):
        raise _usage(
            "result must be what ragmeter.evaluate returned (an EvaluationResult), not "
            f"{type(result).__name__}; for a run directory: ragmeter.load_run(path)"
        )


def _usage(message: str) -> DataError:
    return DataError([Problem(None, None, message)], "assert_scores's arguments")


def assert_scores(
    result: Any,
    thresholds: dict[str, float] | str | None = None,
    *,
    on: On = "mean",
    show: int = 10,
    max_failure_rate: float = 0.0,
    allow_undefined: bool = False,
    **by_name: float,
) -> None:
    """Assert every metric reaches its threshold; otherwise fail listing the offending samples.

    ``on="mean"`` (default) gates the mean, ``"ci_low"`` the CI's lower bound (both over the
    samples with a value), ``"each"`` every sample the metric applies to: each must have a
    value at or above the threshold, so an undefined score fails it too (a sample nothing
    could score may be a broken row), unless ``allow_undefined=True`` (refusals, answers
    without claims that you expect); skipped samples, which lack the metric's inputs, are
    never gated. Thresholds come as a dict, a "metric=value,..." string, or keywords
    (``assert_scores(result, token_f1=0.5)``; names with '@' need the dict form), each a
    finite number in its metric's range (as the CLI's --fail-under). A gated metric whose
    failed scores are more than ``max_failure_rate`` of those it had to compute fails too
    (default 0: any failure, as the CLI's exit code): a mean over the scores that survived
    a judge failing on most samples is not a pass. ``result`` may be a run read back,
    ``ragmeter.load_run(path)``: its run.json gives the direction of a metric of your own not
    registered in this process, so a lower-is-better one is refused as a registered one is
    (``load_run(path).result`` carries no run.json: a failure says higher-is-better was
    assumed).
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this function's source
    given = thresholds if isinstance(thresholds, dict) else {}
    _check_arguments(on, show, max_failure_rate, allow_undefined, {**given, **by_name})
    limits = parse_thresholds({**parse_thresholds(thresholds), **by_name})
    if not limits:
        raise _usage("assert_scores needs at least one metric threshold")
    manifest = getattr(result, "manifest", None)
    check_threshold_values(limits, option="thresholds", source="assert_scores", manifest=manifest)
    run, result = result, getattr(result, "result", result)  # a Run: its EvaluationResult
    _check_result(result)
    failures = []
    for name, threshold in limits.items():
        too_many = _too_many_failed(result, name, max_failure_rate)
        if on == "each":
            failed = _each_failure(result, name, threshold, too_many, allow_undefined)
            unknown = name in result.aggregates and not known_direction(name, manifest)
            if failed is not None and unknown and ASSUMED not in failed.reason:
                failed = GateFailure(name, f"{failed.reason}; {ASSUMED}")
            failures += [failed] if failed is not None else []
        else:
            gate = fail_under(run, {name: threshold}, on=on)
            reasons = [f.reason for f in gate] + ([too_many] if too_many else [])
            if reasons:
                failures.append(GateFailure(name, "; ".join(reasons)))
    if not failures:
        return
    lines = [f"ragmeter: {len(failures)} of {len(limits)} score gate(s) failed"]
    for f in failures:
        lines.append(f"  {f}")
        bad = offending_samples(
            result, f.metric, limits[f.metric], allow_undefined=allow_undefined and on == "each"
        )
        if bad:
            lines.append(f"    samples below {limits[f.metric]} or unscored (worst first):")
            lines += [f"      {b}" for b in bad[:show]]
            if len(bad) > show:
                lines.append(f"      ... and {len(bad) - show} more")
    raise AssertionError("\n".join(lines))
