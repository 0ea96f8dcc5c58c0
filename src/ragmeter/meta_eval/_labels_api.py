"""``ragmeter meta-eval labels``: does ragmeter agree with the user's own annotators?

The run as ``_api.run`` makes it for wikieval (settings and modes checked, resources checked
and built, the preflight, the judge's usage, the profile), on a labels file (``_labels``)
scored per sample (``_labels_run``). Every refusal (file, labels, dimensions, baselines,
settings, resources) is said before a model loads or a judge call is sent (exit 2).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragmeter import _repr
from ragmeter.config import Settings, as_settings
from ragmeter.errors import DataError, OutputError, Problem, ResourceUnavailable, RunAborted
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
from ragmeter.meta_eval._fit_calibration import check_fit_request, fit_from_results
from ragmeter.meta_eval._labels import LABELS_DATASET, check_labels, read_labels
from ragmeter.meta_eval._labels_run import LabelResult, label_scorers, score_labels
from ragmeter.meta_eval._pairs import DIMENSIONS
from ragmeter.meta_eval._scorers import DEFAULT_BASELINES, RAGAS_METRICS
from ragmeter.meta_eval._shared import _interrupted, _kept, _names, _profile, _stats, check_out
from ragmeter.metrics.registry import get_metric
from ragmeter.plan import mode_of_metric
from ragmeter.resources import build_resources


def _fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


@dataclass
class LabelsReport:
    """What the labels meta-eval found: per-scorer results and the JSON payload."""

    results: list[LabelResult]
    judge: str
    modes: dict[str, str]
    payload: dict[str, Any]

    def _repr_parts(self) -> tuple[str, list[tuple[str, ...]]]:
        """Title and one row per scorer (name, dimension, AUROC with the CI the payload
        recorded, accuracy at 0.5, rows labelled / failed) for ``__repr__`` and
        ``_repr_html_``: never the payload as a whole, which holds the settings. The CI is
        read, not computed: a bootstrap on each repr would make printing slow."""
        title = f"judge {_repr.quoted(self.judge, 80)}"
        title += f", {_repr.plural(len(self.results), 'scorer')}"
        recorded = self.payload.get("results") if isinstance(self.payload, dict) else None
        cis: dict[tuple[str, str], Any] = {}
        for d in recorded if isinstance(recorded, list) else []:
            if isinstance(d, dict) and isinstance(d.get("auroc_ci95"), list | tuple):
                cis[(str(d.get("name")), str(d.get("dimension")))] = d["auroc_ci95"]
        rows = []
        for r in self.results:
            ci = cis.get((r.name, r.dimension))
            low, high = (ci[0], ci[1]) if ci and len(ci) == 2 else (None, None)
            rows.append(
                (
                    _repr.cell(r.name),
                    _repr.cell(r.dimension, 30),
                    f"AUROC {_repr.num(r.auroc)} {_repr.interval(low, high)}",
                    f"accuracy {_repr.num(r.accuracy())}",
                    _repr.counts(labelled=r.n_labelled, failed=r.n_failed),
                )
            )
        return f"LabelsReport({title})", rows

    def __repr__(self) -> str:
        """The judge and each scorer's AUROC, a few lines: the dataclass default printed
        every labelled row and the payload's settings."""
        return _repr.text(*self._repr_parts())

    def _repr_html_(self) -> str:
        title, rows = self._repr_parts()
        header = ("scorer", "dimension", "AUROC", "accuracy", "rows")
        return _repr.table_html(title, header, rows)

    @property
    def n_failed(self) -> int:
        """Scores left out of some scorer's statistics because they failed."""
        return sum(r.n_failed for r in self.results)

    @property
    def fit_error(self) -> str | None:
        """Why ``--fit-calibration`` wrote nothing after scoring (too few rows scored), if so."""
        fit = self.payload.get("fit_calibration") if isinstance(self.payload, dict) else None
        return fit.get("error") if isinstance(fit, dict) else None

    def exit_code(self) -> int:
        """1 when a score failed (all written, each with its reason) or the calibration asked
        for could not be fitted from the rows scored, else 0."""
        return 1 if self.n_failed or self.fit_error else 0

    def failure_lines(self) -> list[str]:
        """One line per scorer with failed scores: how many were left out, and why; one for
        a calibration not written."""
        lines = [
            f"{r.name}: {r.n_failed} of {r.n_labelled} labelled row(s) left out, a score "
            f"failed (first: {r.first_failure})"
            for r in self.results
            if r.n_failed
        ]
        if self.fit_error:
            lines.append(f"--fit-calibration: nothing written: {self.fit_error}")
        return lines

    def result_line(self) -> str:
        """``RESULT dim_auroc=.. dim_auroc_lo=.. dim_auroc_hi=.. dim_brier=.. dim_ece=..
        dim_accuracy=.. dim_n=.. dim_failed=.. dim_<baseline>_auroc=.. ... wall_s=..
        judge_tokens=.. judge_calls=.. judge_cached_calls=.. judge_failed_calls=..``: per
        dimension the judged metric, then each baseline's AUROC ("—": not computable)."""
        parts = []
        for dim in self.payload["dimensions"]:
            for r in (x for x in self.results if x.dimension == dim):
                if r.kind == "ragas":
                    ci, cal = r.auroc_ci(), r.calibration()
                    parts += [f"{dim}_auroc={_fmt(r.auroc)}"]
                    parts += [f"{dim}_auroc_lo={_fmt(ci and ci[0])}"]
                    parts += [f"{dim}_auroc_hi={_fmt(ci and ci[1])}"]
                    parts += [f"{dim}_brier={_fmt(cal and cal['brier'])}"]
                    parts += [f"{dim}_ece={_fmt(cal and cal['ece'])}"]
                    parts += [f"{dim}_accuracy={_fmt(r.accuracy())}"]
                    parts += [f"{dim}_n={r.n_labelled}", f"{dim}_failed={r.n_failed}"]
                else:
                    parts.append(f"{dim}_{r.name.split(':')[0]}_auroc={_fmt(r.auroc)}")
        p = self.payload
        return (
            "RESULT "
            + " ".join(parts)
            + f" wall_s={p['ragas_wall_s']:.1f} judge_tokens={p['ragas_judge_tokens']}"
            + f" judge_calls={p['ragas_judge_calls']}"
            + f" judge_cached_calls={p['ragas_judge_cached_calls']}"
            + f" judge_failed_calls={p['ragas_judge_failed_calls']}"
        )

    def write(self, path: str | Path) -> Path:
        """The payload as JSON at ``path``, atomically (as ``MetaEvalReport.write``)."""
        out = check_out(path, self.payload.get("data"))
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            write_json(self.payload, out)
        except OSError as exc:
            raise OutputError(f"--out {out} cannot be written ({exc.strerror or exc})") from None
        return out


def from_run(
    data: str | Path,
    settings: Settings | dict[str, Any] | str | Path | None,
    baselines: str | Sequence[str] | None,
    dimensions: str | Sequence[str] | None,
    limit: int | None,
    progress: Callable[[str], None] | None,
    fit_calibration: str | Path | None = None,
) -> LabelsReport:
    """``run("labels", ...)``: wikieval's default baselines (``run``'s and the CLI's default)
    mean the default set here, which leaves GPT Ranking out (labels have no pairs)."""
    chosen = None if _names(baselines) == list(DEFAULT_BASELINES) else baselines
    return run_labels(
        data,
        settings=settings,
        baselines=chosen,
        dimensions=dimensions,
        limit=limit,
        progress=progress,
        fit_calibration=fit_calibration,
    )


def _dimensions(dimensions: str | Sequence[str] | None) -> list[str] | None:
    """The dimensions asked for, as select_pairs reads them ("a, b" is a and b); None: all
    labelled. DataError for an unknown one."""
    dim_names = _names(dimensions)
    if dim_names is None:
        return None
    dims = list(dict.fromkeys(d.strip() for d in dim_names if d.strip()))
    bad = [d for d in dims if d not in DIMENSIONS]
    if not dims or bad:
        known = ", ".join(DIMENSIONS)
        given = bad or dim_names
        raise DataError(
            [Problem(None, "dimensions", f"unknown dimension(s) {given!r}; known: {known}")]
        )
    return dims


def run_labels(
    data: str | Path,
    *,
    settings: Settings | dict[str, Any] | str | Path | None = None,
    baselines: str | Sequence[str] | None = None,
    dimensions: str | Sequence[str] | None = None,
    limit: int | None = None,
    progress: Callable[[str], None] | None = None,
    fit_calibration: str | Path | None = None,
) -> LabelsReport:
    """AUROC, Brier, ECE and accuracy of the judged metrics (and the per-sample
    ``baselines``; default: wikieval's without GPT Ranking) against the labels in ``data``.
    ``fit_calibration``: a new JSON file to write the faithfulness calibration fitted to
    these labels into (``_fit_calibration``), its cross-validated numbers in the payload.

    Raises ``DataError`` for a bad file, label or request, ``MetricError`` for an unknown
    mode, ``ConfigError`` / ``ResourceUnavailable`` for a resource, all before any scoring.
    """
    s = as_settings(settings)
    check_meta_modes(s)
    names, dims = _names(baselines), _dimensions(dimensions)
    if limit is not None and limit < 1:
        raise DataError([Problem(None, "limit", f"must be at least 1, not {limit}")])
    items = read_labels(data)[:limit]
    dims = check_labels(items, dims, str(data))
    if fit_calibration is not None:  # refused before any model loads (exit 2)
        check_fit_request(fit_calibration, data, dims, items, s)
    wanted = None if names is None else [b.strip() for b in names if b.strip()]
    wanted, scorers = label_scorers(
        [b for b in wanted if b != "none"] if wanted is not None else None, dims
    )
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
    modes = run_modes(dims, s)
    inner = getattr(built.resources.judge, "inner", None)
    stats0, load0, started = _stats(inner), os.getloadavg(), time.perf_counter()
    done = [0]

    def row_done(msg: str) -> None:
        done[0] += 1
        if progress is not None:
            progress(msg)

    async def scored() -> tuple[dict[str, Any], list[LabelResult]]:
        found = await preflight(s, built)  # an unreachable judge stops the run first
        return found, await score_labels(items, scorers, built.resources, progress=row_done)

    try:
        found, results = run_sync(scored())
    except KeyboardInterrupt:
        raise KeyboardInterrupt(_interrupted(s, done[0], len(items))) from None
    except RunAborted as exc:
        exc.args = (f"{exc}. {_kept(s)}",)
        raise
    finally:
        run_sync(built.aclose())
    judge_name = getattr(built.resources.judge, "name", str(s.judge))
    ragas = {r.dimension: r for r in results if r.kind == "ragas"}
    payload: dict[str, Any] = {
        "dataset": LABELS_DATASET,
        "data": str(data),
        "dimensions": dims,
        "n_rows": len(items),
        "n_labelled": {d: sum(d in i.labels for i in items) for d in dims},
        "n_positive": {d: sum(i.labels.get(d, 0) for i in items) for d in dims},
        "judge": judge_name,
        "modes": modes,
        "settings": s.public_dict(),
        "auroc": {d: ragas[d].auroc for d in dims if d in ragas},
        "failed": {d: ragas[d].n_failed for d in dims if d in ragas},
        "calibration": {d: ragas[d].calibration() for d in dims if d in ragas},
        "ragas_wall_s": round(sum(r.wall_s for r in ragas.values()), 1),
        "ragas_judge_tokens": sum(r.judge_tokens for r in ragas.values()),
        "ragas_judge_calls": sum(r.calls for r in ragas.values()),
        "ragas_judge_cached_calls": sum(r.cached_calls for r in ragas.values()),
        "ragas_judge_failed_calls": sum(r.failed_calls for r in ragas.values()),
        "total_wall_s": round(time.perf_counter() - started, 1),
        "preflight": found or None,
    }
    stats1 = _stats(inner)
    payload["local_judge_stats"] = {k: stats1[k] - stats0.get(k, 0) for k in stats1} or None
    payload["profile"] = _profile(
        payload["total_wall_s"], build_s, payload["local_judge_stats"], built.resources.embedder
    )
    payload["loadavg_start_end"] = [round(x, 2) for x in (*load0, *os.getloadavg())]
    payload["usage"] = built.accountant.summary()
    payload["results"] = [r.as_dict() for r in results]
    if fit_calibration is not None:  # after the scores: a fit that fails loses none of them
        payload["fit_calibration"] = fit_from_results(fit_calibration, data, results, judge_name)
    return LabelsReport(results, judge_name, modes, payload)
