"""The report's content, computed from a run (and optionally a comparison), before templating.

Everything the template shows is decided here: which samples are worst, which moved most,
what evidence each one carries; the template only lays it out.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ragmeter.compare import Comparison
from ragmeter.compare_render import ci_header, public_text, public_tree
from ragmeter.gates import ASSUMED, known_direction
from ragmeter.reporting import charts
from ragmeter.reporting.evidence import Evidence, evidence_of
from ragmeter.reporting.margins import margin_rows
from ragmeter.runs import Run
from ragmeter.sample import Sample


@dataclass
class SampleView:
    """One sample as shown in a worst-samples or movers list."""

    question_id: str
    question: str
    value: float | None
    answer: str | None = None
    contexts: list[str] = field(default_factory=list)
    evidence: Evidence | None = None
    reason: str | None = None
    other_value: float | None = None  # compare: the value in B
    other_answer: str | None = None
    other_evidence: Evidence | None = None
    other_contexts: list[str] | None = None  # compare: B's contexts, when they differ from A's


def _samples(run: Run) -> dict[str, tuple[int, Sample]]:
    return {s.question_id: (i, s) for i, s in enumerate(run.result.samples)}


def worst_samples(run: Run, metric: str, n: int) -> list[SampleView]:
    """The n worst-scoring samples of a metric (ties by id), with their evidence: the
    lowest, or the highest where lower is better (a plugin's error rate: its lowest, the
    best samples, were listed as its worst). Neither direction better: the lowest. The
    direction of a metric not registered here is the one the run's run.json recorded."""
    res = run.result
    sign = -1.0 if known_direction(metric, run.manifest) == "lower" else 1.0
    scored = [
        (sc.value, s.question_id, s, sc)
        for s, sc in zip(res.samples, res.scores[metric], strict=True)
        if sc.status == "ok" and sc.value is not None
    ]
    scored.sort(key=lambda t: (sign * t[0], t[1]))
    return [
        SampleView(
            qid,
            s.question,
            value,
            s.answer,
            list(s.contexts or []),
            evidence_of(sc.details, s),
            sc.reason,
        )
        for value, qid, s, sc in scored[:n]
    ]


def movers(cmp: Comparison, metric: str, n: int) -> dict[str, list[SampleView]]:
    """The n biggest regressions and improvements of a metric, both runs' answers side by side.

    Which is which follows the metric's direction; a metric where neither direction is
    better (refusal_rate) has its biggest decreases and increases instead.
    """
    by_a, by_b = _samples(cmp.a), _samples(cmp.b)
    pairs = sorted(cmp.pairs(metric), key=lambda t: (t[2] - t[1], t[0]))

    def view(qid: str, va: float, vb: float) -> SampleView:
        ia, sa = by_a[qid]
        ib, sb = by_b[qid]
        return SampleView(
            qid,
            sa.question,
            va,
            sa.answer,
            list(sa.contexts or []),
            evidence_of(cmp.a.result.scores[metric][ia].details, sa),
            None,
            vb,
            sb.answer,
            evidence_of(cmp.b.result.scores[metric][ib].details, sb),
            list(sb.contexts or []) if sb.contexts != sa.contexts else None,
        )

    # The n pairs first, then their views: a view per changed pair (evidence included) was
    # made and all but n dropped, 22 of a 30-second report of two 30,000-sample runs.
    down = [view(*p) for p in [p for p in pairs if p[2] < p[1]][:n]]
    up = [view(*p) for p in [p for p in reversed(pairs) if p[2] > p[1]][:n]]
    direction = cmp.metric(metric).direction
    if direction == "lower":
        return {"regressions": up, "improvements": down}
    if direction == "none":
        return {"decreases": down, "increases": up}
    return {"regressions": down, "improvements": up}


def _summary_rows(run: Run, label: str) -> dict[str, Any]:
    rows = [run.result.aggregates[m].to_dict() for m in run.result.metrics]
    # each run's own CI level and size: B's were labelled with A's
    confidence = run.result.config.get("confidence", 0.95)
    return {
        "label": label,
        "rows": rows,
        "confidence": confidence,
        "ci_header": ci_header(confidence),
        "n_samples": len(run.result.samples),
    }


def _values(run: Run, metric: str) -> list[float]:
    return [
        sc.value
        for sc in run.result.scores.get(metric, [])
        if sc.status == "ok" and sc.value is not None
    ]


def _distributions(run: Run, cmp: Comparison | None, prefix: str) -> list[dict[str, Any]]:
    """One histogram per metric; with a comparison, A's and B's values on the same axes.
    A metric with no value in any run has ``svg`` None (the page names it: it was left out
    silently, an empty section for a run where every score failed)."""
    out: list[dict[str, Any]] = []
    metrics = list(run.result.metrics)
    if cmp is not None:
        metrics += [m for m in cmp.b.result.metrics if m not in metrics]
    for i, metric in enumerate(metrics):
        values = _values(run, metric)
        other = _values(cmp.b, metric) if cmp is not None else None
        svg = charts.histogram(values, metric, f"{prefix}h{i}", other) if values or other else None
        out.append({"metric": metric, "svg": svg})
    return out


def _worst(run: Run, label: str, n: int) -> dict[str, Any]:
    metrics = run.result.metrics
    return {
        "label": label,
        "metrics": {m: worst_samples(run, m, n) for m in metrics},
        "directions": {m: known_direction(m, run.manifest) or "higher" for m in metrics},
    }


# Rows listed per list of scores without a value; past it, counts by metric and reason.
MAX_LISTED = 200
MAX_GROUPS = 50


def _listing(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The first MAX_LISTED rows and, when cut, the counts by (metric, status, reason) of
    all of them (the MAX_GROUPS largest, the rest summed): a run failed on every one of
    20,000 samples wrote a 13 MB page of one repeated reason."""
    out: dict[str, Any] = {"n": len(rows), "rows": rows[:MAX_LISTED], "groups": []}
    out["other_groups"] = out["other_scores"] = 0
    if len(rows) > MAX_LISTED:
        counts = Counter((f["metric"], f["status"], f["reason"] or "") for f in rows)
        ranked = sorted(counts.items(), key=lambda kv: -kv[1])
        out["groups"] = [
            {"metric": m, "status": st, "reason": why, "n": n}
            for (m, st, why), n in ranked[:MAX_GROUPS]
        ]
        out["other_groups"] = len(ranked[MAX_GROUPS:])
        out["other_scores"] = sum(n for _, n in ranked[MAX_GROUPS:])
    return out


# Slices shown per metric, the furthest from the overall mean (A vs B: the largest |delta|)
# first, as slice_summary and compare sort them.
MAX_SLICES = 50


def _cap_slices(rows: list[Any]) -> tuple[list[Any], dict[str, int]]:
    """The first MAX_SLICES rows of each metric, and per metric how many more there were.
    Why: ``--by`` a column of 20,000 distinct values (a user id, free text) wrote 40,000
    table rows, 9 MB, and chromium took 13 s to open the page."""
    shown: list[Any] = []
    more: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for row in rows:
        seen[row.metric] += 1
        if seen[row.metric] <= MAX_SLICES:
            shown.append(row)
        else:
            more[row.metric] += 1
    return shown, dict(more)


def _failures(run: Run, label: str) -> dict[str, Any]:
    """A run's scores without a value, kept apart as summary.json keeps them: ``failed``
    (should have had a value: judge or model error) and ``not_applicable`` (undefined or
    skipped: no value by definition or for lack of inputs), each with its reason. Why apart:
    one "Failures (5)" list for 4 failed and 1 undefined overstated the failures."""
    questions = {s.question_id: s.question for s in run.result.samples}
    rows = [
        {
            **f,
            "question": questions.get(f["question_id"], ""),
            "reason": public_text(f["reason"]) if f["reason"] else f["reason"],
        }
        for f in run.result.failures()
    ]
    return {
        "label": label,
        "failed": _listing([f for f in rows if f["status"] == "failed"]),
        "not_applicable": _listing([f for f in rows if f["status"] != "failed"]),
    }


def _compare_section(cmp: Comparison, n: int, alpha: float) -> dict[str, Any]:
    from ragmeter.compare_render import direction_legend, exclusion_text, metric_rows, verdict

    paired = [m for m in cmp.metrics if m.delta is not None]
    with_ci = [m for m in paired if m.ci_low is not None and m.ci_high is not None]
    forest = (
        charts.delta_forest(
            [m.metric for m in with_ci],
            [m.delta for m in with_ci],  # type: ignore[misc]
            [m.ci_low for m in with_ci],  # type: ignore[misc]
            [m.ci_high for m in with_ci],  # type: ignore[misc]
            [verdict(m, alpha) for m in with_ci],
            "cf",
        )
        if with_ci
        else None
    )
    shown_slices, more_slices = _cap_slices(cmp.slices)
    scatters = []
    for i, m in enumerate(paired):
        pairs = cmp.pairs(m.metric)
        scatters.append(
            {
                "metric": m.metric,
                "svg": charts.scatter(
                    [p[1] for p in pairs], [p[2] for p in pairs], m.metric, f"cs{i}", m.direction
                ),
            }
        )
    return {
        "a": cmp.a.name,
        "b": cmp.b.name,
        "n_paired": len(cmp.ids),
        # n, then the pairs left out and why (failed in A / in B, undefined or skipped)
        "rows": [
            [*row[:2], exclusion_text(m), *row[2:]]
            for row, m in zip(metric_rows(cmp, alpha), cmp.metrics, strict=True)
        ],
        "forest": forest,
        "scatters": scatters,
        "movers": {m.metric: movers(cmp, m.metric, n) for m in paired},
        # a run's "not a finished run" is said at the page's top (``unfinished``), once
        "warnings": [public_text(w) for w in cmp.warnings if w not in _unfinished(cmp.a, cmp)],
        "slices": shown_slices,
        "slices_more": more_slices,
        "by": cmp.by,
        "confidence": cmp.confidence,
        "ci_header": ci_header(cmp.confidence),
        "alpha": alpha,
        "direction_legend": direction_legend(cmp),
        "margins": margin_rows(cmp.margins),  # --max-drop's; [] shows nothing
    }


def _unfinished(run: Run, cmp: Comparison | None) -> list[str]:
    """Why each run may not be whole (run.json not ``complete``), for the page's top. Why:
    a report of a run still running, or crashed, said so only in a note at the page's foot,
    under the failures, and a reader of the summary took its means for the run's."""
    runs = [run] if cmp is None else [cmp.a, cmp.b]
    return [said for r in runs if (said := r.unfinished())]


def _notes(run: Run, label: str) -> dict[str, Any]:
    """A run's notes, fit to show: a crashed run's note quotes run.json's error line, and an
    API key or a URL's credentials in it were printed on the page as written. A metric whose
    direction nothing knows (a run.json written before it recorded them) gets a note: its
    worst samples are its lowest, whether or not lower is better for it."""
    unknown = [m for m in run.result.metrics if known_direction(m, run.manifest) is None]
    assumed = [f"{m}: {ASSUMED} (its worst samples are its lowest)" for m in unknown]
    return {"label": label, "notes": [public_text(n) for n in [*run.result.notes, *assumed]]}


def _manifest(run: Run, label: str) -> dict[str, str]:
    data = public_tree(run.provenance())
    return {"label": label, "text": json.dumps(data, indent=2, ensure_ascii=False, default=str)}


def _per_run(run: Run, cmp: Comparison | None, fn: Any) -> list[Any]:
    """``fn`` of the run alone, or of A and B (labelled) when compared: B's summary and
    failures were not on the page, so a B that failed every judged score looked fine."""
    if cmp is None:
        return [fn(run, "")]
    return [fn(cmp.a, f"A = {cmp.a.name}"), fn(cmp.b, f"B = {cmp.b.name}")]


def run_slices(
    run: Run, cmp: Comparison | None, by: str, seed: int | None = None
) -> list[dict[str, Any]]:
    """Each run's slices by ``by`` (mean, CI, effect vs its overall mean), labelled A and B
    when compared. Why both, and why a run without the column is a note, not an error: the
    comparison slices by B's values where A has none (a column added to B's input), and the
    report then failed ("no sample has a value in column") on the A-only table.

    Each run's CIs are made as its own were: the confidence, resamples (0: no CI) and seed
    its summary.json records (``slices.recorded_bootstrap``; ``seed``, when given, instead
    of its seed). Why: report takes no such options, and every slice was given a 95% CI of
    1000 resamples, a run made at 90% or without CIs included."""
    from ragmeter.errors import DataError
    from ragmeter.slices import recorded_bootstrap, slice_summary

    def entry(r: Run, label: str) -> dict[str, Any]:
        boot = recorded_bootstrap(r.result.config, r.manifest)
        if seed is not None:
            boot["seed"] = seed
        out: dict[str, Any] = {"label": label, "rows": [], "note": None, "more": {}}
        out["ci_header"] = ci_header(boot["confidence"])
        if cmp is None:  # the run alone: a column it lacks is an error, as in evaluate
            out["rows"], out["more"] = _cap_slices(slice_summary(r.result, by, **boot))
            return out
        try:
            out["rows"], out["more"] = _cap_slices(slice_summary(r.result, by, **boot))
        except DataError as exc:
            out["note"] = "; ".join(p.message for p in exc.problems)
        return out

    if cmp is None:
        return [entry(run, "")]
    return [entry(r, f"{side} = {r.name}") for side, r in (("A", cmp.a), ("B", cmp.b))]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ragmeter")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown"


def report_context(
    run: Run,
    *,
    comparison: Comparison | None = None,
    slices: list[dict[str, Any]] | None = None,
    by: str | None = None,
    worst: int = 5,
    alpha: float = 0.05,
    title: str | None = None,
) -> dict[str, Any]:
    """Everything the template renders."""
    return {
        "title": title
        or (
            f"ragmeter report: {comparison.b.name} vs {comparison.a.name}"
            if comparison is not None
            else f"ragmeter report: {run.name}"
        ),
        "version": _version(),
        "run_name": run.name,
        "summaries": _per_run(run, comparison, _summary_rows),
        "distributions": _distributions(run, comparison, "d"),
        "by": by,
        "slices": slices or [],
        # with a comparison, each run's weakest samples: B's are what a reviewer of B asks for
        "worst": _per_run(run, comparison, lambda r, label: _worst(r, label, worst)),
        "worst_n": worst,  # 0: the lists are not shown, and not said to be empty
        "max_slices": MAX_SLICES,
        "failures": _per_run(run, comparison, _failures),
        # each run's notes: B's (no CI, skipped samples, contexts matched by text) were not shown
        "notes": _per_run(run, comparison, _notes),
        "unfinished": [public_text(u) for u in _unfinished(run, comparison)],
        # each run's recorded settings (B's judge or prompts may differ), secrets masked
        "manifests": _per_run(run, comparison, _manifest),
        "compare": _compare_section(comparison, worst, alpha) if comparison is not None else None,
    }
