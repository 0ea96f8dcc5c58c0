"""Scores back onto the traces they came from, as OTLP JSON for the user's trace viewer.

Each scored trace's root span gets one attribute per metric, ``ragmeter.<metric>`` (the
value, when the score is ok) or ``ragmeter.<metric>.status`` and ``.reason`` (when it is
not), and one event ``ragmeter.evaluation`` holding all of them. Every other span is
written back unchanged. The output is OTLP JSON (``{"resourceSpans": [...]}``), which
Phoenix, Jaeger and the OpenTelemetry collector read, and which ``--format otel`` loads
again. Pure JSON: no OpenTelemetry package is needed to write it.
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path
from typing import Any

from ragmeter.integrations.otel import group_traces, root_span
from ragmeter.integrations.otel_spans import Span, read_spans, to_otlp
from ragmeter.io import write_json
from ragmeter.result import EvaluationResult

PREFIX = "ragmeter."


def score_attributes(result: EvaluationResult, question_id: str) -> dict[str, Any]:
    """``ragmeter.<metric>`` attributes of one sample (trace), from a result."""
    attrs: dict[str, Any] = {}
    for metric in result.metrics:
        sc = result.score(metric, question_id)
        if sc.status == "ok" and sc.value is not None:
            attrs[f"{PREFIX}{metric}"] = float(sc.value)
        else:
            attrs[f"{PREFIX}{metric}.status"] = sc.status
            if sc.reason:
                attrs[f"{PREFIX}{metric}.reason"] = sc.reason
    return attrs


def _previous(attributes: dict[str, Any], metrics: list[str]) -> list[str]:
    """The attributes an earlier annotation left for ``metrics`` (value, status, reason).
    Re-annotating a file (``--format otel`` loads annotated files) must replace them, not
    leave an old failed status beside a new score, or an old score beside a new failure."""
    names = {f"{PREFIX}{m}{end}" for m in metrics for end in ("", ".status", ".reason")}
    return [k for k in attributes if k in names]


def annotate(
    result: EvaluationResult, source: Any, out: str | Path | None = None
) -> dict[str, Any]:
    """OTLP JSON of the spans in ``source`` (what ``--format otel`` loaded: a file, an OTLP
    dict or SDK spans) with ``result``'s scores on each trace's root span; written to
    ``out`` when given. Traces the result did not score are copied unchanged. A root span
    annotated before keeps its earlier ``ragmeter.evaluation`` events (the history), but its
    attributes for this result's metrics are replaced."""
    spans: list[Span] = read_spans(source)
    scored = {s.question_id for s in result.samples}
    now = time.time_ns()
    traces = group_traces(spans)
    absent = [q for q in scored if q not in traces]
    if absent:  # another file, or samples not loaded from traces: their scores go nowhere
        warnings.warn(
            f"{len(absent)} of the {len(scored)} samples the result scored are not traces in "
            f"the source (first: {sorted(absent)[0]!r}), so their scores are not written "
            "back: give the traces the result was evaluated on",
            RuntimeWarning,
            stacklevel=2,
        )
    for trace_id, members in traces.items():
        if trace_id not in scored:
            continue
        root = root_span(members)
        attrs = score_attributes(result, trace_id)
        for stale in _previous(root.attributes, result.metrics):
            del root.attributes[stale]
        root.attributes.update(attrs)
        root.events.append({"name": "ragmeter.evaluation", "time_ns": now, "attributes": attrs})
    otlp = to_otlp(spans)
    if out is not None:
        write_json(otlp, out)
    return otlp
