"""compare's own options, checked before any run is read: scipy's errors name neither the
option nor the value, and a truthy string such as ``intersect="no"`` would be read as yes."""

from __future__ import annotations

from numbers import Real

from ragmeter.errors import DataError, Problem

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
