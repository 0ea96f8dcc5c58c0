"""compare's own options, checked before any run is read: scipy's errors name neither the
option nor the value, and a truthy string such as ``intersect="no"`` would be read as yes."""

from __future__ import annotations

from numbers import Real

from ragmeter.errors import DataError, Problem
from ragmeter.stats import SCIPY_MAX_PAIRS

# scipy's bootstrap takes the standard error over the resamples: one resample has none.
MIN_RESAMPLES = 2
# The most the CLI takes: far past any CI's need (1000 by default), and numpy could not
# allocate 10**20 ("Maximum allowed dimension exceeded": evaluate's internal error, exit 1).
MAX_RESAMPLES = 100_000_000


def check_options(
    confidence: float,
    n_resamples: int,
    permutations: int | None,
    seed: int,
    min_slice: int,
    intersect: bool,
) -> None:
    """DataError naming each bad option, before any run is read (scipy's own errors name
    neither the option nor the value; intersect="no" is truthy)."""
    problems = (
        []
        if isinstance(intersect, bool)
        else [Problem(None, "intersect", f"must be True or False, not {intersect!r}")]
    )
    if isinstance(confidence, bool) or not isinstance(confidence, Real) or not 0 < confidence < 1:
        problems.append(Problem(None, "confidence", f"must be between 0 and 1, not {confidence!r}"))
    for name, value, least in (
        ("n_resamples", n_resamples, MIN_RESAMPLES),
        ("permutations", permutations, 1),
    ):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            problems.append(Problem(None, name, f"must be a whole number, not {value!r}"))
        elif value is not None and value < least:
            problems.append(Problem(None, name, f"must be at least {least}, not {value}"))
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        problems.append(Problem(None, "seed", f"must be a whole number >= 0, not {seed!r}"))
    if not isinstance(min_slice, int) or min_slice < 1:
        problems.append(Problem(None, "min_slice", f"must be at least 1, not {min_slice!r}"))
    if problems:
        raise DataError(problems, "compare's options")


def permutations_floor(permutations: int | None, n_metrics: int, n_pairs: int) -> str | None:
    """A warning when the sign patterns asked for cannot give a significant change at alpha
    0.05 (the default), else None. Why: ``permutations=99`` over 5 metrics gave every change
    "n.s." and passed the gate without a word; no p-value from P patterns is below 2/(P+1),
    and Holm multiplies the smallest by the number of metrics. Past ``SCIPY_MAX_PAIRS``
    pairs the p-value is also bounded analytically (``stats._sign_flip_bound``): no floor."""
    if permutations is None or n_metrics < 1 or n_pairs > SCIPY_MAX_PAIRS:
        return None
    floor = 2 / (permutations + 1)
    if floor * n_metrics < 0.05:
        return None
    return (
        f"permutations {permutations}: no p-value can be below 2/{permutations + 1} = "
        f"{floor:.3g}, and after Holm over {n_metrics} metric(s) none below "
        f"{min(1.0, floor * n_metrics):.3g}: no change can be significant at alpha 0.05; give "
        "more sign patterns (default 9999)"
    )
