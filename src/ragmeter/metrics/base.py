"""What every metric returns and declares.

A Score is never a bare NaN: a value that cannot be computed carries a status and a reason,
so failures are counted and shown instead of silently dropping out of averages.
"""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from ragmeter.errors import MetricError
from ragmeter.protocols import Resources
from ragmeter.sample import Sample

Status = Literal["ok", "undefined", "skipped", "failed"]
# Which way a metric is better: compare calls a significant change better or worse by it, and
# the regression gate fails only on worse. "none": a descriptive metric (refusal_rate: without
# labels, more refusals are neither better nor worse), whose changes are shown, never judged.
Direction = Literal["higher", "lower", "none"]
DIRECTIONS: tuple[str, ...] = ("higher", "lower", "none")
# What a metric may need or use: the models a run hands to ``acompute`` (protocols.Resources).
RESOURCES = frozenset(f.name for f in fields(Resources) if f.name != "options")
SAMPLE_FIELDS: tuple[str, ...] = tuple(Sample.model_fields)
# A name that -m (commas), --mode and --fail-under (``name=...``) can all spell; ``@k`` is
# a template's parameter (``ndcg@10``), which registered metrics cannot take (registry.py).
NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*(@[A-Za-z0-9]+)?$")


@dataclass
class Score:
    value: float | None
    status: Status = "ok"
    reason: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def ok(cls, value: float, **details: Any) -> Score:
        """A computed value; a NaN or infinite one is a failed Score saying so, never an ok
        NaN that would turn every mean and CI it enters into NaN. A value that is no number
        (``Score.ok(None)``) is a failed Score saying so, where it failed its sample as
        "internal error: TypeError: float() argument must be ..."."""
        try:
            value = float(value)
        except (TypeError, ValueError):
            return cls(None, "failed", not_a_number_reason(value), details)
        except OverflowError:  # an int beyond any float (10**400)
            value = math.inf
        if not math.isfinite(value):
            return cls(None, "failed", non_finite_reason(value), details)
        return cls(value, "ok", None, details)

    @classmethod
    def undefined(cls, reason: str, **details: Any) -> Score:
        """The metric has no value for this sample by definition (e.g. no statements)."""
        return cls(None, "undefined", reason, details)

    @classmethod
    def skipped(cls, reason: str) -> Score:
        """The inputs the metric needs are absent from this sample."""
        return cls(None, "skipped", reason)

    @classmethod
    def failed(cls, reason: str, **details: Any) -> Score:
        """Something went wrong computing it (judge error, model error, internal error)."""
        return cls(None, "failed", reason, details)


def not_a_number_reason(value: Any) -> str:
    hint = " (Score.undefined(reason) when the sample has no value)" if value is None else ""
    return f"Score.ok takes a number, not {type(value).__name__}{hint}"


def non_finite_reason(value: float) -> str:
    return f"the metric computed a non-finite value ({value}), which is no score"


def checked(score: Score) -> Score:
    """``score``, or a failed Score when it is ok with a value that is not a finite number.

    The last check where Scores are gathered (scheduler), for a metric that builds its
    Score directly rather than through ``Score.ok``: no NaN or inf is ever reported as ok.
    """
    if score.status != "ok" or (score.value is not None and math.isfinite(score.value)):
        return score
    why = non_finite_reason(score.value) if score.value is not None else "ok without a value"
    return Score(None, "failed", why, score.details)


SyncFn = Callable[[Sample], Score]
AsyncFn = Callable[[Sample, Any], Awaitable[Score]]
# Scores a batch of samples (every one has the fields ``requires`` asks for) at once, as a
# ScoreColumn (metrics/column.py); the dict is shared by the metrics of one batch, for the
# intermediate results they have in common.
BatchFn = Callable[[Sequence[Sample], dict[Any, Any]], Sequence[Score]]


@dataclass(frozen=True)
class Mode:
    """One way of computing a metric: the resources it cannot do without (``needs``) and
    those it uses when configured (``uses``), e.g. faithfulness ``fast`` needs a judge and
    uses an embedder to pick evidence sentences when ``options.evidence`` is "embedding"."""

    needs: frozenset[str] = frozenset()
    uses: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Metric:
    """A named metric: what it needs, what it means, and how to compute it.

    ``requires`` lists alternatives: the metric applies to a sample when every field of at
    least one group is present. Exactly one of ``compute`` (pure arithmetic) or ``acompute``
    (needs a judge, embedder or model, given as ``resources``) is set.

    A metric with several procedures declares them in ``modes`` (name -> ``Mode``) with a
    ``default_mode``; its resource needs are then those of the mode a run chooses. A metric
    without modes declares ``needs`` / ``uses`` directly.
    """

    name: str
    description: str
    requires: tuple[tuple[str, ...], ...]
    compute: SyncFn | None = None
    acompute: AsyncFn | None = None
    needs: frozenset[str] = frozenset()
    uses: frozenset[str] = frozenset()  # resources used when configured, not required
    reference_based: bool = False
    default: bool = True
    formula: str = ""
    modes: tuple[tuple[str, Mode], ...] = ()  # (name, Mode) pairs; empty: no modes
    default_mode: str | None = None
    # The definition's version (bump when the arithmetic changes) and the prompt files
    # (``ragmeter/prompts/<family>.json``) it asks the judge with: a run's manifest records both.
    version: str = "1"
    prompts: tuple[str, ...] = ()
    # Optional, beside ``compute``: the same scores for a whole batch, as a ScoreColumn whose
    # rows equal what ``compute`` returns (tests/test_score_columns.py checks each metric).
    compute_batch: BatchFn | None = None
    # The values a score can take, inclusive: every built-in metric is a share or a
    # probability. A gate (--fail-under) outside it could never fail or never pass, so it is
    # refused; a metric on another scale declares its own, None when unbounded.
    value_range: tuple[float, float] | None = (0.0, 1.0)
    direction: Direction = "higher"

    def __post_init__(self) -> None:
        """MetricError naming every part of the definition that cannot work, when it is made
        rather than on every sample of a run (or as a crash after the other metrics' work)."""
        problems = _definition_problems(self)
        if problems:
            raise MetricError(f"metric {self.name!r}: " + "; ".join(problems))

    @property
    def mode_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.modes)

    def mode_in(
        self, modes: Mapping[str, str] | None = None, fallback: str | None = None
    ) -> str | None:
        """The mode a run uses: ``modes[name]``, else ``fallback``, else the default (None when
        the metric has no modes). Not validated here: ``mode_spec`` says when it is unknown."""
        if not self.modes:
            return None
        return (modes or {}).get(self.name) or fallback or self.default_mode

    def mode_spec(self, mode: str | None = None) -> Mode:
        """What ``mode`` (default: the default mode) needs and uses."""
        if not self.modes:
            return Mode(self.needs, self.uses)
        wanted = mode or self.default_mode
        for name, spec in self.modes:
            if name == wanted:
                return spec
        known = ", ".join(self.mode_names)
        raise MetricError(
            f"{self.name}: unknown mode {wanted!r} (--mode, or options.mode for every metric); "
            f"choose one of {known}"
        )

    def needs_in(self, mode: str | None = None) -> frozenset[str]:
        return self.mode_spec(mode).needs

    def uses_in(self, mode: str | None = None) -> frozenset[str]:
        return self.mode_spec(mode).uses

    def missing(self, sample: Sample) -> str | None:
        """Why this metric cannot score the sample, or None when it can."""
        for group in self.requires:
            if all(getattr(sample, f) is not None for f in group):
                return None
        alts = " or ".join("+".join(g) for g in self.requires)
        return f"needs {alts}"

    def required_text(self) -> str:
        return " | ".join("+".join(g) for g in self.requires)

    @property
    def is_async(self) -> bool:
        return self.acompute is not None


def _definition_problems(m: Metric) -> list[str]:
    out: list[str] = []
    if not isinstance(m.name, str) or not NAME_RE.match(m.name):
        out.append(
            "the name must be ASCII letters, digits, '_', '.' or '-' (no spaces, commas or "
            "'=': -m, --mode and --fail-under could not name it)"
        )
    if (m.compute is None) == (m.acompute is None):
        out.append(
            "give exactly one of compute (a function of the sample) or acompute (an async "
            "function of the sample and the resources)"
        )
    for attr in ("compute", "acompute", "compute_batch"):
        fn = getattr(m, attr)
        if fn is not None and not callable(fn):
            out.append(f"{attr} is {type(fn).__name__}, not a function")
    out += _arity_problems(m)
    if m.compute is not None and inspect.iscoroutinefunction(m.compute):
        out.append("compute is an async function: give it as acompute=(sample, resources)")
    out += _requires_problems(m.requires)
    specs = [("", Mode(m.needs, m.uses))] + [(f"mode {n!r}: ", spec) for n, spec in m.modes]
    for where, spec in specs:
        unknown = sorted((set(spec.needs) | set(spec.uses)) - RESOURCES)
        if unknown:
            out.append(
                f"{where}unknown resource(s) {', '.join(map(repr, unknown))} in needs/uses; "
                f"a metric can need {', '.join(sorted(RESOURCES))}"
            )
    names = [name for name, _ in m.modes]
    if m.modes and m.default_mode not in names:
        out.append(f"default_mode must be one of {names}")
    if m.direction not in DIRECTIONS:
        out.append(f"direction {m.direction!r}: use one of {', '.join(DIRECTIONS)}")
    out += _range_problems(m.value_range)
    return out


_ARGS = {
    "compute": "(sample)",
    "acompute": "(sample, resources)",
    "compute_batch": "(rows, shared)",
}


def _arity_problems(m: Metric) -> list[str]:
    """A function that cannot be called with the arguments a run gives it: it failed on every
    sample with "internal error: TypeError: <lambda>() takes 0 positional arguments", after
    the other metrics' work, where the definition can say so when made."""
    out: list[str] = []
    for attr, args in _ARGS.items():
        fn = getattr(m, attr)
        if fn is None or not callable(fn):
            continue
        try:
            signature = inspect.signature(fn)
        except (TypeError, ValueError):  # a builtin or extension without one: not checkable
            continue
        try:
            signature.bind(*(None for _ in args.split(",")))
        except TypeError as exc:
            out.append(f"{attr} must take {args}: {exc}")
    return out


def _items(bounds: Any) -> tuple[Any, ...]:
    try:
        return tuple(bounds)
    except TypeError:
        return ()


def _requires_problems(requires: Any) -> list[str]:
    """``requires`` is a non-empty tuple of non-empty groups of Sample field names."""
    shape = (
        'requires must be groups of Sample fields, e.g. (("question", "answer"),), '
        "one group per alternative"
    )
    if isinstance(requires, str) or not isinstance(requires, Sequence) or not requires:
        return [shape]
    out: list[str] = []
    for group in requires:
        if isinstance(group, str) or not isinstance(group, Sequence) or not group:
            return [shape]
        unknown = [f for f in group if f not in SAMPLE_FIELDS]
        if unknown:
            out.append(
                f"requires unknown field(s) {', '.join(map(repr, unknown))}; "
                f"Sample fields: {', '.join(SAMPLE_FIELDS)}"
            )
    return out


def _range_problems(bounds: Any) -> list[str]:
    if bounds is None:
        return []
    if isinstance(bounds, (str, bytes)) or any(
        isinstance(b, (str, bytes, bool)) for b in _items(bounds)
    ):
        # float("1") passed, then every sample failed comparing a score with "1"
        return [f"value_range {bounds!r}: give (low, high) as numbers or None when unbounded"]
    try:
        low, high = (float(b) for b in bounds)
    except (TypeError, ValueError):
        return [f"value_range {bounds!r}: give (low, high) or None when unbounded"]
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        return [
            f"value_range {bounds!r}: low and high must be finite numbers with low < high "
            "(None when unbounded)"
        ]
    return []
