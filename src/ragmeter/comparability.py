"""Are two runs comparable as measurements of a pipeline? Their manifests say.

Two runs measure the same thing only when the judge, the embedder, the metric modes and
options, the prompt versions and the metric definitions are the same. Those live in
summary.json's ``config.settings`` and in ``run.json`` (``manifest.py``: judge, modes, prompt
versions and hashes, metric definition versions). Both are compared; run-specific keys
(times, data hashes, hosts, usage) are expected to differ and are ignored.
"""

from __future__ import annotations

import json
import re
from typing import Any

# summary.json config.settings fields that change what a score means.
SETTINGS_KEYS = ("judge", "embedder", "modes", "options", "temperature", "structured_mode")
# run.json paths that change what a score means ...
RELEVANT = re.compile(r"judge|embedder|mode|prompt|metric|definition|version|hash|option")
# ... unless they describe the data or the execution rather than the measurement.
IGNORED = re.compile(
    r"data|input|sample|time|date|wall|host|machine|git|created|started|finished|duration|"
    r"usage|tokens|cost|run_id|path|out_dir|output|n_resamples|seed|confidence",
    re.IGNORECASE,
)
MAX_LINES = 12


def flatten(obj: Any, prefix: str = "") -> dict[str, Any]:
    """Nested dicts as {"a.b.c": leaf}; lists are leaves (compared whole)."""
    if isinstance(obj, dict):
        out: dict[str, Any] = {}
        for key, value in obj.items():
            out.update(flatten(value, f"{prefix}.{key}" if prefix else str(key)))
        return out
    return {prefix: obj}


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def comparable_view(provenance: dict[str, Any]) -> dict[str, Any]:
    """The flattened keys of a run's provenance that decide comparability."""
    settings = (provenance.get("config") or {}).get("settings") or {}
    view = {f"settings.{k}": settings[k] for k in SETTINGS_KEYS if k in settings}
    for key, value in flatten(provenance.get("run") or {}).items():
        if RELEVANT.search(key) and not IGNORED.search(key):
            view[f"run.{key}"] = value
    return view


def manifest_differences(a: Any, b: Any) -> list[str]:
    """One warning line per differing key (at most MAX_LINES), for Runs a and b."""
    pa, pb = a.provenance(), b.provenance()
    lines: list[str] = []
    if bool(pa.get("run")) != bool(pb.get("run")):
        has = a.name if pa.get("run") else b.name
        lines.append(
            f"manifest: only {has} has a run.json; the other run's judge and prompts are unknown"
        )
    va, vb = comparable_view(pa), comparable_view(pb)
    both_have_run = bool(pa.get("run")) and bool(pb.get("run"))
    diffs = []
    for key in sorted(set(va) | set(vb)):
        if key.startswith("run.") and not both_have_run:
            continue
        x, y = va.get(key, "(absent)"), vb.get(key, "(absent)")
        if x != y:
            diffs.append(f"manifests differ in {key}: {_show(x)} vs {_show(y)}")
    if diffs:
        lines.append(
            "NOT COMPARABLE as a measurement of the pipeline: the runs were scored differently"
        )
        lines.extend(diffs[:MAX_LINES])
        if len(diffs) > MAX_LINES:
            lines.append(f"... and {len(diffs) - MAX_LINES} more differing keys")
    return lines
