"""``assert_scores``: a quality gate inside a test, failing with the samples to look at."""

from __future__ import annotations

from typing import Any, Literal, get_args

from ragmeter.gates import GateFailure, check_threshold_values, fail_under, parse_thresholds

On = Literal["mean", "ci_low", "each"]
ON_CHOICES: tuple[str, ...] = get_args(On)


def _short(text: str | None, limit: int = 70) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _split(result: Any, metric: str, threshold: float) -> tuple[list[str], list[str]]:
    """Lines for the samples below ``threshold`` (lowest first) and for those without a value."""
    low, missing = [], []
    for sample, sc in zip(result.samples, result.scores.get(metric, []), strict=False):
        if sc.status == "ok" and sc.value is not None:
            if sc.value < threshold:
                low.append((sc.value, sample))
        elif sc.status != "skipped":
            missing.append(f"{sample.question_id}  {sc.status}: {_short(sc.reason)}")
    low.sort(key=lambda t: (t[0], t[1].question_id))
    return [f"{s.question_id}  {v:.3f}  {_short(s.question)!r}" for v, s in low], missing


def offending_samples(result: Any, metric: str, threshold: float) -> list[str]:
    """Lines for the samples below ``threshold`` (lowest first), then those without a value."""
    low, missing = _split(result, metric, threshold)
    return low + missing


def assert_scores(
    result: Any,
    thresholds: dict[str, float] | str | None = None,
    *,
    on: On = "mean",
    show: int = 10,
    **by_name: float,
) -> None:
    """Assert every metric reaches its threshold; otherwise fail listing the offending samples.

    ``on="mean"`` (default) gates the mean, ``"ci_low"`` the CI's lower bound, ``"each"``
    every scored sample. Thresholds come as a dict, a "metric=value,..." string, or keywords
    (``assert_scores(result, token_f1=0.5)``; names with '@' need the dict form), each a
    finite number in its metric's range (as the CLI's --fail-under).
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this function's source
    if on not in ON_CHOICES:
        choices = ", ".join(repr(c) for c in ON_CHOICES)
        raise ValueError(f"on must be one of {choices}, not {on!r}")
    limits = parse_thresholds({**parse_thresholds(thresholds), **by_name})
    if not limits:
        raise ValueError("assert_scores needs at least one metric threshold")
    check_threshold_values(limits, option="thresholds", source="assert_scores")
    if on == "each":
        failures = []
        for name, threshold in limits.items():
            low, missing = _split(result, name, threshold)
            if name not in result.aggregates:  # said as the mean's gate says it, with why
                failures += fail_under(result, {name: threshold})
            elif low or missing:
                why = f"{len(low)} sample(s) below {threshold}"
                failures.append(
                    GateFailure(name, why + (f", {len(missing)} unscored" if missing else ""))
                )
    else:
        failures = fail_under(result, limits, on=on)
    if not failures:
        return
    lines = [f"ragmeter: {len(failures)} of {len(limits)} score gate(s) failed"]
    for f in failures:
        lines.append(f"  {f}")
        bad = offending_samples(result, f.metric, limits[f.metric])
        if bad:
            lines.append(f"    samples below {limits[f.metric]} or unscored (worst first):")
            lines += [f"      {b}" for b in bad[:show]]
            if len(bad) > show:
                lines.append(f"      ... and {len(bad) - show} more")
    raise AssertionError("\n".join(lines))
