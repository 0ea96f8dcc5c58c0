"""One metric's scores over many samples, held as arrays; each Score is built when read.

Why: the non-LLM metrics cost a few microseconds a sample, and building a ``Score`` (an
object and its details dict) for every (sample, metric) cost as much again: 14 metrics x
100,000 samples is 1.4 million objects before anything is averaged. A metric that can score
a whole batch at once (``Metric.compute_batch``) returns a ``ScoreColumn`` instead: the
values and statuses as arrays, which the aggregates read directly, and a function that
builds row ``i``'s Score, exactly the one the per-sample ``compute`` returns, when someone
reads it. Reading every row (writing scores.jsonl, a DataFrame) builds each once and keeps
them. A column is a ``Sequence[Score]``: indexing, iteration, ``len`` and ``==`` with a list
behave as on the list the per-sample path returns; it pickles as that list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, overload

import numpy as np

from ragmeter.metrics.base import Score, Status, checked

STATUSES: tuple[Status, ...] = ("ok", "undefined", "skipped", "failed")
OK, UNDEFINED, SKIPPED, FAILED = range(4)


class ScoreColumn(Sequence[Score]):
    """Scores of one metric: ``values`` (float64, NaN where not ok), ``status`` (int8 codes
    into ``STATUSES``), and ``make(i)``, which builds row ``i``'s Score."""

    __slots__ = ("_items", "_make", "status", "values")

    def __init__(self, values: Any, status: Any, make: Callable[[int], Score]) -> None:
        self.values = np.asarray(values, dtype=np.float64)
        self.status = np.asarray(status, dtype=np.int8)
        if self.values.shape != self.status.shape or self.values.ndim != 1:
            raise ValueError("values and status must be 1-d arrays of one length")
        bad = (self.status == OK) & ~np.isfinite(self.values)
        if bad.any():  # an ok NaN/inf is a failed score, as Score.ok and ``checked`` make it
            self.status = np.where(bad, np.int8(FAILED), self.status).astype(np.int8)
            built = make

            def make(i: int) -> Score:
                return checked(built(i))

        self._make = make
        self._items: list[Score] | None = None

    def __len__(self) -> int:
        return len(self.status)

    @overload
    def __getitem__(self, i: int) -> Score: ...
    @overload
    def __getitem__(self, i: slice) -> list[Score]: ...
    def __getitem__(self, i: int | slice) -> Score | list[Score]:
        if self._items is not None or isinstance(i, slice):
            return self.materialize()[i]
        n = len(self)
        if not -n <= i < n:
            raise IndexError("score index out of range")
        return self._make(i % n)

    def __setitem__(self, i: int, score: Score) -> None:
        """Replace one row's Score, as in the list (the arrays follow)."""
        items = self.materialize()
        items[i] = score = checked(score)
        ok = score.status == "ok" and score.value is not None
        self.values[i] = score.value if ok else np.nan
        self.status[i] = STATUSES.index(score.status)

    def __iter__(self) -> Iterator[Score]:
        return iter(self.materialize())

    def materialize(self) -> list[Score]:
        """Every row's Score, built once and kept."""
        if self._items is None:
            make = self._make
            self._items = [make(i) for i in range(len(self))]
        return self._items

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (self.materialize(),))

    def __repr__(self) -> str:
        return f"ScoreColumn({len(self)} scores, {self.counts()})"

    def counts(self) -> dict[str, int]:
        """How many rows have each status."""
        per = np.bincount(self.status, minlength=len(STATUSES))
        return {name: int(per[k]) for k, name in enumerate(STATUSES)}

    def ok_values(self) -> np.ndarray:
        """The values of the ok rows, in row order."""
        return self.values[self.status == OK]


def skipped_where(
    column: ScoreColumn, reasons: Sequence[str | None], present: Sequence[int]
) -> ScoreColumn:
    """``column`` (scored on the rows ``present``) spread over all rows; the others are
    skipped with their ``reasons``, as the per-sample path skips them."""
    n = len(reasons)
    values = np.full(n, np.nan)
    status = np.full(n, SKIPPED, dtype=np.int8)
    where = np.asarray(present, dtype=np.intp)
    values[where] = column.values
    status[where] = column.status
    position = dict(zip(present, range(len(present)), strict=True))

    def make(i: int) -> Score:
        reason = reasons[i]
        return Score.skipped(reason) if reason is not None else column[position[i]]

    return ScoreColumn(values, status, make)
