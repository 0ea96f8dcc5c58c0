"""Error types that carry every problem found, not just the first one."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input: where it is and what was expected."""

    row: int | None  # 1-based data row; None for file-level problems
    field: str | None
    message: str
    line: int | None = None  # 1-based line in the source file, when it differs from the row

    def __str__(self) -> str:
        where = []
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.line is not None and self.line != self.row:
            where.append(f"line {self.line}")
        if self.field:
            where.append(f"field '{self.field}'")
        prefix = ", ".join(where) if where else "input"
        return f"{prefix}: {self.message}"


class RagmeterError(Exception):
    """Base class of ragmeter's own errors."""


class DataError(RagmeterError, ValueError):
    """The input data (or the requested metrics) cannot be used; lists every problem."""

    def __init__(self, problems: list[Problem], source: str | None = None) -> None:
        self.problems = list(problems)
        self.source = source
        head = f"{len(self.problems)} problem(s) in {source or 'the input'}"
        lines = [head, *(f"  - {p}" for p in self.problems[:50])]
        if len(self.problems) > 50:
            lines.append(f"  ... and {len(self.problems) - 50} more")
        super().__init__("\n".join(lines))


class MetricError(RagmeterError, ValueError):
    """An unknown metric name or bad metric parameter."""


class UnpairedRunsError(RagmeterError, ValueError):
    """Two runs cannot be compared sample by sample: names the ids found in only one run."""

    def __init__(
        self,
        only_in_a: list[str],
        only_in_b: list[str],
        a: str = "A",
        b: str = "B",
        *,
        none_paired: bool = False,
        message: str | None = None,
    ) -> None:
        self.only_in_a = list(only_in_a)
        self.only_in_b = list(only_in_b)
        if message is None:
            parts = []
            for ids, name in ((self.only_in_a, a), (self.only_in_b, b)):
                if ids:
                    shown = ", ".join(ids[:10]) + (
                        f" ... (+{len(ids) - 10})" if len(ids) > 10 else ""
                    )
                    parts.append(f"{len(ids)} id(s) only in {name}: {shown}")
            if none_paired:
                head = "the runs share no question_id: nothing to compare"
            else:
                head = "the runs do not pair: "
                head += (
                    "; ".join(parts)
                    + " (compare on the shared ids with intersect=True / --intersect)"
                )
                parts = []
            message = "; ".join([head, *parts])
        super().__init__(message)

    @classmethod
    def metrics(cls, unknown: list[str], shared: list[str]) -> UnpairedRunsError:
        return cls(
            [],
            [],
            message=f"metric(s) not in both runs: {', '.join(unknown)} "
            f"(shared: {', '.join(shared) or 'none'})",
        )
