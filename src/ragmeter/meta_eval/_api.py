"""``ragmeter.meta_eval.run``: the whole meta-evaluation as one library call.

Validates the request before any model loads (dataset, dimensions, baselines, settings,
resources), scores the pairs, and returns a ``MetaEvalReport`` holding the per-scorer
results and the JSON payload that ``ragmeter meta-eval --out`` writes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragmeter import _repr
from ragmeter.config import Settings, as_settings
from ragmeter.errors import (
    DataError,
    OutputError,
    Problem,
    ResourceUnavailable,
    RunAborted,
)
from ragmeter.executors.common import run_sync
from ragmeter.executors.session import preflight
from ragmeter.io import write_json
from ragmeter.meta_eval._checks import (
    BASELINE_NEEDS,
    check_meta_modes,
    check_resources,
    judged_needs,
    needs_of_run,
    run_modes,
)
from ragmeter.meta_eval._lexical import LEXICAL_BASELINE
from ragmeter.meta_eval._pairs import DATASETS, DIMENSIONS, PAPER_TABLE1, PreferencePair
from ragmeter.meta_eval._run import ScorerResult, run_meta_eval
from ragmeter.meta_eval._scorers import (
    DEFAULT_BASELINES,
    RAGAS_METRICS,
    build_scorers,
)
from ragmeter.meta_eval._shared import _interrupted, _kept, _names, _profile, _stats, check_out
from ragmeter.metrics.registry import get_metric
from ragmeter.plan import mode_of_metric
from ragmeter.resources import build_resources

if TYPE_CHECKING:  # _labels_api imports this module's helpers
    from ragmeter.meta_eval._labels_api import LabelsReport


@dataclass
class MetaEvalReport:
    """What a meta-evaluation found: per-scorer results and the JSON payload (``as_dict``)."""

    results: list[ScorerResult]
    judge: str
    modes: dict[str, str]
    payload: dict[str, Any]

    def _repr_parts(self) -> tuple[str, list[tuple[str, str, str, str]]]:
        """Title and one row per scorer (name, dimension, agreement, pairs counted / failed)
        for ``__repr__`` and ``_repr_html_``: never the payload, which holds the settings."""
        dataset = self.payload.get("dataset") if isinstance(self.payload, dict) else None
        title = f"judge {_repr.quoted(self.judge, 80)}"
        title += f", dataset {_repr.quoted(dataset, 40)}" if isinstance(dataset, str) else ""
        title += f", {_repr.plural(len(self.results), 'scorer')}"
        rows = [
            (
                _repr.cell(r.name),
                _repr.cell(r.dimension, 30),
                _repr.num(r.agreement),
                _repr.counts(pairs=len(r.outcomes), failed=r.n_failed),
            )
            for r in self.results
        ]
        return f"MetaEvalReport({title})", rows

    def __repr__(self) -> str:
        """The judge and each scorer's agreement, a few lines: the dataclass default printed
        every pair and the payload's settings."""
        return _repr.text(*self._repr_parts())

    def _repr_html_(self) -> str:
        title, rows = self._repr_parts()
        return _repr.table_html(title, ("scorer", "dimension", "agreement", "pairs"), rows)

    @property
    def agreement(self) -> dict[str, float | None]:
        """The RAGAS metrics' agreement per dimension (None where not run, or where every
        pair failed)."""
        return dict(self.payload["agreement"])

    @property
    def n_failed(self) -> int:
        """Pairs left out of some scorer's agreement because a side's score failed."""
        return sum(r.n_failed for r in self.results)

    def exit_code(self) -> int:
        """1 when a score failed (the README's exit codes: all written, each with its
        reason), else 0. meta-eval has no --max-failure-rate: agreement over the pairs that
        were left is another number than the one asked for."""
        return 1 if self.n_failed else 0

    def failure_lines(self) -> list[str]:
        """One line per scorer with failed pairs: how many were left out, and why (the first
        reason; every reason is in the JSON's pairs)."""
        return [
            f"{r.name}: {r.n_failed} of {len(r.outcomes)} pair(s) left out of the agreement, "
            f"a score failed (first: {r.first_failure})"
            for r in self.results
            if r.n_failed
        ]

    def result_line(self) -> str:
        """``RESULT dim=agreement dim_failed=N dim_lexical=... dim_brier=... wall_s=...
        judge_tokens=... judge_calls=... judge_cached_calls=... judge_failed_calls=...``: per
        judged metric run, its agreement ("—" when every pair failed), its pairs left out as
        failed, its no-model baseline's agreement and Brier; then the judged metrics' wall
        time and judge usage, as evaluate counts it: tokens billed and calls sent in this
        run, calls answered from the cache (no tokens now), calls that failed."""
        by_name = {r.name: r for r in self.results}
        ragas = {r.dimension: r for r in self.results if r.kind == "ragas"}
        parts = []
        for d, a in self.agreement.items():
            if d not in ragas:
                continue
            parts.append(f"{d}={'—' if a is None else f'{a:.3f}'}")
            parts.append(f"{d}_failed={ragas[d].n_failed}")
            lex = by_name.get(LEXICAL_BASELINE[d])
            if lex is not None and lex.agreement is not None:
                parts.append(f"{d}_lexical={lex.agreement:.3f}")
            cal = (self.payload.get("calibration") or {}).get(d)
            if cal:
                parts.append(f"{d}_brier={cal['brier']:.3f}")
        return (
            "RESULT "
            + " ".join(parts)
            + f" wall_s={self.payload['ragas_wall_s']:.1f}"
            + f" judge_tokens={self.payload['ragas_judge_tokens']}"
            + f" judge_calls={self.payload['ragas_judge_calls']}"
            + f" judge_cached_calls={self.payload['ragas_judge_cached_calls']}"
            + f" judge_failed_calls={self.payload['ragas_judge_failed_calls']}"
        )

    def write(self, path: str | Path) -> Path:
        """The payload as JSON at ``path`` (checked with ``check_out``; OutputError if not),
        written atomically (``io.write_json``: a temporary file renamed over it). Why: it was
        written in place, so a full disk or a crash while writing left half a JSON file (or
        an earlier run's file cut short) under the name the user reads."""
        out = check_out(path, self.payload.get("data"))
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            write_json(self.payload, out)
        except OSError as exc:
            raise OutputError(f"--out {out} cannot be written ({exc.strerror or exc})") from None
        return out


def select_pairs(
    dataset: str,
    data: str | Path,
    dimensions: str | Sequence[str] | None = None,
    limit: int | None = None,
) -> list[PreferencePair]:
    """The dataset's pairs for ``dimensions`` (default: all), first ``limit`` source rows."""
    dimensions = _names(dimensions)
    if dataset not in DATASETS:
        known = ", ".join([*DATASETS, "labels"])
        raise DataError([Problem(None, "dataset", f"unknown dataset {dataset!r}; known: {known}")])
    dims = list(DIMENSIONS) if dimensions is None else [d.strip() for d in dimensions if d.strip()]
    bad = [d for d in dims if d not in DIMENSIONS]
    if bad or not dims:
        raise DataError(
            [
                Problem(
                    None,
                    "dimensions",
                    f"unknown dimension(s) {bad or list(dimensions or [])!r}; "
                    f"known: {', '.join(DIMENSIONS)}",
                )
            ]
        )
    if limit is not None and limit < 1:
        raise DataError([Problem(None, "limit", f"must be at least 1, not {limit}")])
    pairs = [p for p in DATASETS[dataset](data) if p.dimension in dims]
    if limit is not None:
        groups = set(list(dict.fromkeys(p.group for p in pairs))[:limit])
        pairs = [p for p in pairs if p.group in groups]
    return pairs


def run(
    dataset: str,
    data: str | Path,
    *,
    settings: Settings | dict[str, Any] | str | Path | None = None,
    baselines: str | Sequence[str] = DEFAULT_BASELINES,
    dimensions: str | Sequence[str] | None = None,
    limit: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> MetaEvalReport | LabelsReport:
    """Agreement of the RAGAS metrics (and ``baselines``) with human pairwise preferences;
    ``dataset="labels"``: with the user's own per-answer labels (a ``LabelsReport``).

    Raises ``DataError`` for a bad request, ``MetricError`` for an unknown mode,
    ``ConfigError`` for a resource the run needs that cannot be had (``check_resources``,
    before any model loads) and ``ResourceUnavailable`` for one that fails to load, all
    before any pair is scored.
    """
    if dataset == "labels":  # the user's own per-answer labels
        from ragmeter.meta_eval._labels_api import from_run

        return from_run(data, settings, baselines, dimensions, limit, progress)
    s = as_settings(settings)
    check_meta_modes(s)
    baselines, dimensions = _names(baselines) or [], _names(dimensions)
    pairs = select_pairs(dataset, data, dimensions, limit)
    # as select_pairs reads them: " answer_relevance" (--dimensions "a, b") had its pairs
    # read but no scorer, and was left out without a word
    dims = list(DIMENSIONS) if dimensions is None else [d.strip() for d in dimensions]
    dims = list(dict.fromkeys(d for d in dims if d))
    wanted = [b.strip() for b in baselines if b.strip() and b.strip() != "none"]
    scorers = [sc for sc in build_scorers(wanted) if sc.dimension in dims]
    needs = needs_of_run(scorers, wanted, s)
    judged = [get_metric(RAGAS_METRICS[sc.dimension]) for sc in scorers if sc.kind == "ragas"]
    uses = {u for m in judged for u in m.uses_in(mode_of_metric(m, s.metric_options()))}
    check_resources(s, needs, judged)
    t_build = time.perf_counter()
    built = build_resources(s, needs | uses)
    build_s = time.perf_counter() - t_build
    missing = [
        f"{why}, which {BASELINE_NEEDS[need]} needs (leave it out of --baselines, or configure one)"
        if need in BASELINE_NEEDS and need not in judged_needs(judged, s)
        else why
        for need, why in built.unavailable.items()
        if need in needs
    ]
    if missing:
        run_sync(built.aclose())
        raise ResourceUnavailable("; ".join(missing))
    modes = run_modes(dims, s)  # of the dimensions run only
    inner = getattr(built.resources.judge, "inner", None)
    stats0 = _stats(inner)
    load0 = os.getloadavg()
    started = time.perf_counter()

    rows_done = [0]  # rows finished, judged metrics first and then baselines (run_meta_eval)

    def row_done(msg: str) -> None:
        rows_done[0] += 1
        if progress is not None:
            progress(msg)

    async def scored() -> tuple[dict[str, Any], list[ScorerResult]]:
        # the preflight in the pairs' event loop (the HTTP client is bound to it): an
        # unreachable server stops the run before its first pair, and an "auto" structured
        # mode is found out instead of assumed (full mode's calls need it)
        found = await preflight(s, built)
        return found, await run_meta_eval(pairs, scorers, built.resources, progress=row_done)

    try:
        found, results = run_sync(scored())
    except KeyboardInterrupt:
        n_rows = len({p.group for p in pairs})
        raise KeyboardInterrupt(_interrupted(s, rows_done[0], n_rows)) from None
    except RunAborted as exc:
        exc.args = (f"{exc}. {_kept(s)}",)
        raise
    finally:
        run_sync(built.aclose())
    judge_name = getattr(built.resources.judge, "name", str(s.judge))
    payload = _payload(dataset, data, dims, pairs, judge_name, modes, s, results)
    payload["total_wall_s"] = round(time.perf_counter() - started, 1)
    payload["preflight"] = found or None  # what the remote judge's preflight found
    stats1 = _stats(inner)
    payload["local_judge_stats"] = {k: stats1[k] - stats0.get(k, 0) for k in stats1} or None
    payload["profile"] = _profile(
        payload["total_wall_s"], build_s, payload["local_judge_stats"], built.resources.embedder
    )
    payload["loadavg_start_end"] = [round(x, 2) for x in (*load0, *os.getloadavg())]
    payload["cpu_count"] = os.cpu_count()
    payload["usage"] = built.accountant.summary()  # every call, in evaluate's usage shape
    payload["results"] = [r.as_dict() for r in results]
    return MetaEvalReport(results, judge_name, modes, payload)


def _payload(
    dataset: str,
    data: str | Path,
    dims: list[str],
    pairs: list[PreferencePair],
    judge_name: str,
    modes: dict[str, str],
    s: Settings,
    results: list[ScorerResult],
) -> dict[str, Any]:
    ragas = {r.dimension: r for r in results if r.kind == "ragas"}
    return {
        "dataset": dataset,
        "data": str(data),
        "dimensions": dims,
        "n_pairs_per_dimension": len(pairs) // max(1, len(dims)),
        "judge": judge_name,
        "modes": modes,
        "settings": s.public_dict(),
        "paper_table1": PAPER_TABLE1,
        "agreement": {d: (ragas[d].agreement if d in ragas else None) for d in DIMENSIONS},
        "failed_pairs": {d: ragas[d].n_failed for d in DIMENSIONS if d in ragas},
        "calibration": {d: ragas[d].calibration() for d in DIMENSIONS if d in ragas},
        "ragas_wall_s": round(sum(r.wall_s for r in ragas.values()), 1),
        # as evaluate's usage: billed and sent in this run; from the cache; failed
        "ragas_judge_tokens": sum(r.judge_tokens for r in ragas.values()),
        "ragas_judge_calls": sum(r.calls for r in ragas.values()),
        "ragas_judge_cached_calls": sum(r.cached_calls for r in ragas.values()),
        "ragas_judge_failed_calls": sum(r.failed_calls for r in ragas.values()),
        "ragas_computed_tokens": sum(r.computed_tokens or 0 for r in ragas.values()) or None,
    }
