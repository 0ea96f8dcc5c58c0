"""Spans from the three shapes OpenTelemetry writes them in, into one plain form and back.

- OTLP JSON (the collector's file exporter, Phoenix/Jaeger exports): ``{"resourceSpans":
  [{"resource": ..., "scopeSpans": [{"scope": ..., "spans": [...]}]}]}``, ids in hex,
  attributes as ``[{"key": k, "value": {"stringValue": v}}]``; one object or one per line.
- The Python SDK's ``ReadableSpan.to_json()``, which ``ConsoleSpanExporter`` writes one
  after another (pretty-printed, not one per line): ids as ``0x...``, attributes as a dict.
- ``ReadableSpan`` objects themselves (``InMemorySpanExporter.get_finished_spans()``).

Reading needs no OpenTelemetry package: the formats are plain JSON, parsed here, a key given
twice in one object refused (``_json_rows``), as in every JSON file ragmeter reads.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ragmeter._json_rows import DuplicateKey, dotted, parse_json
from ragmeter.errors import DataError, Problem

KINDS = ("UNSPECIFIED", "INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER")


@dataclass
class Span:
    """One span, whatever it was read from; enough to find samples and to write OTLP back."""

    trace_id: str  # 32 hex digits
    span_id: str  # 16 hex digits
    parent_id: str | None
    name: str
    start_ns: int = 0
    end_ns: int = 0
    kind: int = 1  # OTLP SpanKind number (1 = INTERNAL)
    attributes: dict[str, Any] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    status: dict[str, Any] = field(default_factory=dict)
    resource: dict[str, Any] = field(default_factory=dict)
    scope: dict[str, Any] = field(default_factory=dict)


class RepeatedAttribute(ValueError):
    """One OTLP attribute list naming a key twice. OTLP requires the keys of an attribute
    list to be unique, and which value the exporter meant is not known: a dict kept the
    last one without a word (``input.value`` twice scored the second question)."""

    def __init__(self, key: str, where: str) -> None:
        self.key, self.where = key, where
        super().__init__(
            f"the attribute {key!r} is given twice in {where}: OTLP attribute keys are unique, "
            "and which value was meant is not known; fix the exporter or the file"
        )


def read_spans(source: Any) -> list[Span]:
    """Spans from a file path, an OTLP JSON dict, or an iterable of SDK ReadableSpans."""
    if isinstance(source, (str, Path)):
        return _read_file(Path(source))
    try:
        if isinstance(source, Mapping):
            return list(_from_value(source))
        spans: list[Span] = []
        for item in source:
            spans.extend(_from_value(item) if isinstance(item, Mapping) else [_from_sdk(item)])
    except RepeatedAttribute as exc:
        raise DataError([Problem(None, None, str(exc))]) from None
    return spans


def _read_file(path: Path) -> list[Span]:
    src = str(path)
    if not path.is_file():
        raise DataError([Problem(None, None, f"file not found: {path}")], src)
    text = path.read_text(encoding="utf-8-sig")
    try:
        spans = [s for value in _json_values(text) for s in _from_value(value)]
    except DuplicateKey as exc:
        raise DataError([Problem(None, dotted([*exc.path, exc.key]), exc.reason())], src) from None
    except RepeatedAttribute as exc:
        raise DataError([Problem(None, None, str(exc))], src) from None
    except json.JSONDecodeError as exc:
        msg = f"invalid JSON: {exc.msg} (line {exc.lineno})"
        raise DataError([Problem(None, None, msg, exc.lineno)], src) from None
    if not spans:
        raise DataError(
            [
                Problem(
                    None,
                    None,
                    "no spans found: expected OTLP JSON ({'resourceSpans': [...]}) or the "
                    "OpenTelemetry SDK's span JSON (ConsoleSpanExporter)",
                )
            ],
            src,
        )
    return spans


def _json_values(text: str) -> list[Any]:
    """The JSON values of a file: one document (OTLP JSON), or several one after another (one
    OTLP object a line, the SDK's pretty-printed spans). DuplicateKey, located in the file,
    for a key given twice in one object; JSONDecodeError (where in the file) for invalid
    JSON."""
    try:
        return [parse_json(text)] if text.strip() else []
    except json.JSONDecodeError:
        pass  # several values, or invalid: read one by one below, which says where
    values, pos, decoder = [], 0, json.JSONDecoder()
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return values
        _, end = decoder.raw_decode(text, pos)  # where the value ends
        try:
            values.append(parse_json(text[pos:end]))  # its keys checked
        except DuplicateKey as exc:  # located in the value: now in the file
            if exc.line is None or exc.column is None:
                raise
            line0, col0 = text.count("\n", 0, pos), pos - text.rfind("\n", 0, pos) - 1
            column = exc.column + (col0 if exc.line == 1 else 0)
            raise DuplicateKey(exc.key, exc.path, line0 + exc.line, column) from None
        pos = end


def _from_value(value: Any) -> list[Span]:
    if isinstance(value, list):
        return [s for item in value for s in _from_value(item)]
    if not isinstance(value, Mapping):
        return []
    if "resourceSpans" in value or "resource_spans" in value:
        return _from_otlp(value.get("resourceSpans") or value.get("resource_spans") or [])
    if "context" in value and "name" in value:
        return [_from_sdk_json(value)]
    return []


# ---- OTLP JSON -------------------------------------------------------------------------------


def _hex_id(value: Any, length: int) -> str:
    """OTLP JSON ids are hex; protobuf's own JSON mapping writes them in base64."""
    text = str(value or "")
    try:
        if len(text) == length:
            int(text, 16)
            return text.lower()
        return base64.b64decode(text, validate=True).hex() if text else ""
    except (ValueError, binascii.Error):
        return text


def any_value(value: Mapping[str, Any]) -> Any:
    """The Python value of an OTLP ``AnyValue``."""
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        return int(value["intValue"])
    if "doubleValue" in value:
        return float(value["doubleValue"])
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        return [any_value(v) for v in value["arrayValue"].get("values", [])]
    if "kvlistValue" in value:
        return attrs_from_otlp(value["kvlistValue"].get("values", []), "a kvlistValue")
    if "bytesValue" in value:
        return value["bytesValue"]
    return None


def attrs_from_otlp(items: Iterable[Mapping[str, Any]], where: str) -> dict[str, Any]:
    """An OTLP attribute list as a dict; RepeatedAttribute (naming ``where``) for a key given
    twice."""
    out: dict[str, Any] = {}
    for kv in items:
        key = kv["key"]
        if key in out:
            raise RepeatedAttribute(str(key), where)
        out[key] = any_value(kv.get("value") or {})
    return out


def _kind(value: Any) -> int:
    if isinstance(value, int):
        return value
    name = str(value).rsplit(".", 1)[-1].replace("SPAN_KIND_", "")
    return KINDS.index(name) if name in KINDS else 1


def _from_otlp(resource_spans: Iterable[Mapping[str, Any]]) -> list[Span]:
    spans = []
    for rs in resource_spans:
        resource = attrs_from_otlp(
            (rs.get("resource") or {}).get("attributes", []), "a resource's attributes"
        )
        for ss in rs.get("scopeSpans") or rs.get("scope_spans") or []:
            scope = dict(ss.get("scope") or {})
            for sp in ss.get("spans", []):
                parent = _hex_id(sp.get("parentSpanId"), 16)
                said = f"span {str(sp.get('name', ''))!r} (span id {_hex_id(sp.get('spanId'), 16)})"
                spans.append(
                    Span(
                        trace_id=_hex_id(sp.get("traceId"), 32),
                        span_id=_hex_id(sp.get("spanId"), 16),
                        parent_id=parent or None,
                        name=str(sp.get("name", "")),
                        start_ns=int(sp.get("startTimeUnixNano") or 0),
                        end_ns=int(sp.get("endTimeUnixNano") or 0),
                        kind=_kind(sp.get("kind", 1)),
                        attributes=attrs_from_otlp(
                            sp.get("attributes", []), f"the attributes of {said}"
                        ),
                        events=[
                            {
                                "name": e.get("name", ""),
                                "time_ns": int(e.get("timeUnixNano") or 0),
                                "attributes": attrs_from_otlp(
                                    e.get("attributes", []), f"an event's attributes in {said}"
                                ),
                            }
                            for e in sp.get("events", [])
                        ],
                        status=dict(sp.get("status") or {}),
                        resource=resource,
                        scope=scope,
                    )
                )
    return spans


# ---- the SDK's span JSON and ReadableSpan ----------------------------------------------------


def _iso_ns(value: Any) -> int:
    if not value:
        return 0
    stamp = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return int(stamp.timestamp()) * 1_000_000_000 + stamp.microsecond * 1000


def _strip0x(value: Any) -> str | None:
    return None if value in (None, "") else str(value).removeprefix("0x").lower()


def _from_sdk_json(value: Mapping[str, Any]) -> Span:
    ctx = value.get("context") or {}
    status = dict(value.get("status") or {})
    return Span(
        trace_id=_strip0x(ctx.get("trace_id")) or "",
        span_id=_strip0x(ctx.get("span_id")) or "",
        parent_id=_strip0x(value.get("parent_id")),
        name=str(value.get("name", "")),
        start_ns=_iso_ns(value.get("start_time")),
        end_ns=_iso_ns(value.get("end_time")),
        kind=_kind(value.get("kind", "INTERNAL")),
        attributes=dict(value.get("attributes") or {}),
        events=[
            {
                "name": e.get("name", ""),
                "time_ns": _iso_ns(e.get("timestamp")),
                "attributes": dict(e.get("attributes") or {}),
            }
            for e in value.get("events") or []
        ],
        status=_status(status.get("status_code", "UNSET"), status.get("description"))
        if status
        else {},
        resource=dict((value.get("resource") or {}).get("attributes") or {}),
    )


def _status(code: Any, description: Any) -> dict[str, Any]:
    """A status in the OTLP form (``code``, ``message``): the SDK's description of an error
    is its message, written back by ``otel_export`` (it was dropped: an exported span
    kept ERROR but lost why)."""
    return {"code": code, **({"message": str(description)} if description else {})}


def _from_sdk(span: Any) -> Span:
    """A live ``ReadableSpan`` (read by attribute: the SDK itself is not imported)."""
    ctx = span.context
    scope = getattr(span, "instrumentation_scope", None)
    return Span(
        trace_id=f"{ctx.trace_id:032x}",
        span_id=f"{ctx.span_id:016x}",
        parent_id=f"{span.parent.span_id:016x}" if span.parent is not None else None,
        name=span.name,
        start_ns=int(span.start_time or 0),
        end_ns=int(span.end_time or 0),
        kind=int(span.kind.value) + 1,  # the SDK counts from INTERNAL = 0; OTLP from 1
        attributes=dict(span.attributes or {}),
        events=[
            {"name": e.name, "time_ns": int(e.timestamp), "attributes": dict(e.attributes or {})}
            for e in span.events
        ],
        status=_status(span.status.status_code.name, span.status.description)
        if span.status
        else {},
        resource=dict(span.resource.attributes) if span.resource else {},
        scope={"name": scope.name, "version": scope.version or ""} if scope else {},
    )


# ---- back to OTLP JSON -----------------------------------------------------------------------


def to_any_value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, (list, tuple)):
        return {"arrayValue": {"values": [to_any_value(v) for v in value]}}
    if isinstance(value, Mapping):
        return {"kvlistValue": {"values": attrs_to_otlp(value)}}
    return {"stringValue": str(value)}


def attrs_to_otlp(attrs: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": to_any_value(v)} for k, v in attrs.items() if v is not None]


def _status_to_otlp(status: Mapping[str, Any]) -> dict[str, Any]:
    code = status.get("code", 0)
    names = {"UNSET": 0, "OK": 1, "ERROR": 2}
    out: dict[str, Any] = {"code": names.get(str(code).rsplit("_", 1)[-1], code)}
    if status.get("message"):
        out["message"] = status["message"]
    return out


def to_otlp(spans: Iterable[Span]) -> dict[str, Any]:
    """OTLP JSON (``{"resourceSpans": [...]}``) of ``spans``, grouped by resource and scope."""
    groups: dict[str, dict[str, list[Span]]] = {}
    resources: dict[str, dict[str, Any]] = {}
    scopes: dict[str, dict[str, Any]] = {}
    for s in spans:
        rkey = json.dumps(s.resource, sort_keys=True, default=str)
        skey = json.dumps(s.scope, sort_keys=True, default=str)
        resources[rkey], scopes[skey] = s.resource, s.scope
        groups.setdefault(rkey, {}).setdefault(skey, []).append(s)
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": attrs_to_otlp(resources[rkey])},
                "scopeSpans": [
                    {"scope": scopes[skey], "spans": [_span_to_otlp(s) for s in members]}
                    for skey, members in by_scope.items()
                ],
            }
            for rkey, by_scope in groups.items()
        ]
    }


def _span_to_otlp(s: Span) -> dict[str, Any]:
    out: dict[str, Any] = {
        "traceId": s.trace_id,
        "spanId": s.span_id,
        "name": s.name,
        "kind": s.kind,
        "startTimeUnixNano": str(s.start_ns),
        "endTimeUnixNano": str(s.end_ns),
        "attributes": attrs_to_otlp(s.attributes),
        "events": [
            {
                "name": e["name"],
                "timeUnixNano": str(e.get("time_ns", 0)),
                "attributes": attrs_to_otlp(e.get("attributes") or {}),
            }
            for e in s.events
        ],
        "status": _status_to_otlp(s.status) if s.status else {},
    }
    if s.parent_id:
        out["parentSpanId"] = s.parent_id
    return out
