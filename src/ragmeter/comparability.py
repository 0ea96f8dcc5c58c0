"""Are two runs comparable as measurements of a pipeline? Decided on the metrics compared.

A compared metric's scores depend on its definition version and mode (run.json's ``metrics``
entries) and, only when it asks a model, on that model: the judge (model, base URL,
sampling, structured output, weights; the prompt files the metric sends, calibration files
among them) for a metric that needs or uses a judge, the embedder for one that uses an
embedder, and the metric options (an option named ``<metric>_<what>``, as a user's metric
declares its own, counts for that metric alone, whether it asks a model or not). Nothing
else can change its scores, so nothing else counts: the metrics a run computed but the other
did not (compare says so apart), the judge of a run whose compared metrics are all lexical
(``--judge none`` beside ``local``), times, data hashes, hosts, usage, concurrency, caches,
time-outs.

Why per metric: comparing every manifest key flagged runs that differed only in which
metrics they ran, or in a judge no compared metric used, as NOT COMPARABLE, and a warning
that is usually false is one users learn to skip.

A run without run.json (older versions) is judged on summary.json's ``config.settings``;
which models its metrics use then comes from ``uses_of`` (the metric registry, passed in by
``ragmeter.compare``: this module sits below the metrics).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ragmeter.redact import _USERINFO, redact_tree

MAX_LINES = 12
MODELS = frozenset({"judge", "embedder", "scorer", "reward_model"})  # a metric may ask
# Settings that identify a model, when run.json records no facts about it (older runs).
JUDGE_SETTINGS = ("judge", "base_url", "temperature", "seed", "structured_mode", "n_ctx")
EMBEDDER_SETTINGS = ("embedder", "embedder_base_url")
# Facts run.json records about a judge that cannot change a score: how the structured-output
# mode was settled (the mode itself counts) and the CPU threads of a local model.
JUDGE_FACTS_IGNORED = frozenset({"structured_output_decided", "n_threads"})
# Options read by one metric (family) or model only; any other option counts for every
# metric that asks a model. ``mode`` / ``modes`` count through each metric's own mode.
OPTION_METRIC = {
    "answer_relevance_n": "answer_relevance",
    "context_relevance_candidates": "context_relevance",
    "faithfulness_combine": "faithfulness",
    "faithfulness_calibration": "faithfulness",
    "answer_correctness_weights": "answer_correctness",
}
OPTION_MODEL = {"scorer_model": "scorer", "reward_model": "reward_model"}
UsesOf = Callable[[str, "str | None"], "Iterable[str] | None"]


def _show(value: Any, key: str = "") -> str:
    """A setting's value for a warning line: secrets masked and URLs without credentials or
    query *before* it is cut to 60 characters (a URL cut before its "@" kept its password),
    as the warning reaches the terminal, the JSON and the pull-request comment."""
    value = redact_tree(value, key.rsplit(".", 1)[-1])
    if isinstance(value, str) and "://" in value:
        value = _USERINFO.sub(r"\1", value.split("?", 1)[0])
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _settings(provenance: dict[str, Any]) -> dict[str, Any]:
    settings = (provenance.get("config") or {}).get("settings")
    if not isinstance(settings, dict):
        settings = (provenance.get("run") or {}).get("settings")
    return settings if isinstance(settings, dict) else {}


def _entry(provenance: dict[str, Any], metric: str) -> dict[str, Any] | None:
    entries = (provenance.get("run") or {}).get("metrics")
    for e in entries if isinstance(entries, list) else []:
        if isinstance(e, dict) and e.get("name") == metric:
            return e
    return None


def _mode(provenance: dict[str, Any], metric: str, entry: dict[str, Any] | None) -> Any:
    if entry is not None:
        return entry.get("mode")
    settings = _settings(provenance)
    modes, options = settings.get("modes") or {}, settings.get("options") or {}
    return modes.get(metric, options.get("mode")) if isinstance(modes, dict) else None


def _models(
    provenance: dict[str, Any], metric: str, entry: dict[str, Any] | None, uses_of: UsesOf | None
) -> set[str]:
    """The models the metric asked in this run: run.json's needs and uses, else the
    registry's; every model when neither knows (an unknown metric is not assumed lexical)."""
    if entry is not None and isinstance(entry.get("needs"), list):
        return set(entry["needs"]) | set(entry.get("uses") or [])
    known = uses_of(metric, _mode(provenance, metric, None)) if uses_of else None
    return set(MODELS) if known is None else set(known)


def _owner(name: str, provenance: dict[str, Any]) -> str | None:
    """The metric of the run an option not built in is named after (``<metric>_<what>``, as a
    user's metric declares its options: ``register_metric(metric, options=...)``), the
    longest such name, or None. Why: a user's option counted for every metric asking a model
    and not for its own metric, when that metric asks none. A template's metrics (``mytop@5``)
    are named by their prefix (``mytop_words``, ``register_template(..., options=...)``)."""
    if name in OPTION_METRIC or name in OPTION_MODEL:
        return None
    entries = (provenance.get("run") or {}).get("metrics")
    names = (
        [e.get("name") for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []
    )
    stems = {m.split("@", 1)[0] for m in names if isinstance(m, str) and m}
    owners = [m for m in stems if m and name.startswith(f"{m}_")]
    return max(owners, key=len) if owners else None


def _option_counts(name: str, metric: str, models: set[str], owner: str | None) -> bool:
    if name in ("mode", "modes"):
        return False
    if owner is not None:  # the metric, or the prefix of a template's mytop@5
        return owner == metric.split("@", 1)[0]
    if name in OPTION_METRIC:
        return metric.startswith(OPTION_METRIC[name])
    if name in OPTION_MODEL:
        return OPTION_MODEL[name] in models
    return bool(models)


def _model_view(
    provenance: dict[str, Any], kind: str, names: Sequence[str], facts: bool
) -> dict[str, Any]:
    """The judge's or embedder's identity: run.json's facts when both runs have them (the
    model actually asked, the structured mode in effect), else the settings that chose it."""
    if facts:
        got = (provenance.get("run") or {}).get(kind) or {}
        return {f"{kind}.{k}": v for k, v in got.items() if k not in JUDGE_FACTS_IGNORED}
    settings = _settings(provenance)
    return {f"settings.{k}": settings.get(k) for k in names}


def metric_view(
    provenance: dict[str, Any],
    metric: str,
    *,
    models: set[str],
    run_json: bool,
    facts: set[str],
) -> dict[str, Any]:
    """The keys that decide one metric's scores in one run (see the module docstring).

    ``models``: what the metric asked in either run; ``run_json``: both runs have run.json
    (versions and prompts are compared only then); ``facts``: the models both runs'
    run.json describe.
    """
    entry = _entry(provenance, metric) if run_json else None
    view: dict[str, Any] = {}
    if entry is not None:
        view["version"], view["mode"] = entry.get("version"), entry.get("mode")
        if entry.get("code_sha256"):  # a user's metric: its code, whatever its version says
            view["code"] = f"sha256 {str(entry['code_sha256'])[:12]}"
        if isinstance(entry.get("options"), dict):  # a user's metric's declared defaults
            for name, default in sorted(entry["options"].items()):
                view[f"options.{name} (default)"] = default
        for name, prompt in sorted((entry.get("prompts") or {}).items()):
            if isinstance(prompt, dict):  # a calibration file is one of a metric's prompts
                sha = str(prompt.get("sha256") or "")[:12]
                view[f"prompts.{name}"] = f"{prompt.get('version')} (sha256 {sha})"
    elif models:  # only a metric that asks a model has modes
        view["mode"] = _mode(provenance, metric, None)
    if "judge" in models:
        view.update(_model_view(provenance, "judge", JUDGE_SETTINGS, "judge" in facts))
    if "embedder" in models:
        view.update(_model_view(provenance, "embedder", EMBEDDER_SETTINGS, "embedder" in facts))
    options = _settings(provenance).get("options") or {}
    for name in sorted(options if isinstance(options, dict) else {}):
        if _option_counts(name, metric, models, _owner(name, provenance)):
            view[f"options.{name}"] = options[name]
    return view


def manifest_differences(
    a: Any, b: Any, metrics: Sequence[str] | None = None, uses_of: UsesOf | None = None
) -> list[str]:
    """One warning line per way the compared ``metrics`` (default: those both runs hold)
    were scored differently in Runs a and b, naming the metrics (at most MAX_LINES)."""
    pa, pb = a.provenance(), b.provenance()
    if metrics is None:
        metrics = [m for m in a.result.metrics if m in b.result.metrics]
    lines: list[str] = []
    if bool(pa.get("run")) != bool(pb.get("run")):
        has = a.name if pa.get("run") else b.name
        lines.append(
            f"manifest: only {has} has a run.json; the other run's metric versions, judge and "
            "prompts are unknown"
        )
    run_json = bool(pa.get("run")) and bool(pb.get("run"))
    facts = {
        kind
        for kind in ("judge", "embedder")
        if run_json and all(isinstance(p["run"].get(kind), dict) for p in (pa, pb))
    }
    grouped: dict[tuple[str, str, str], list[str]] = {}
    for metric in metrics:
        models = set().union(*(_models(p, metric, _entry(p, metric), uses_of) for p in (pa, pb)))
        va, vb = (
            metric_view(p, metric, models=models, run_json=run_json, facts=facts) for p in (pa, pb)
        )
        for key in [*va, *(k for k in vb if k not in va)]:
            x, y = va.get(key, "(absent)"), vb.get(key, "(absent)")
            if x != y:
                grouped.setdefault((key, _show(x, key), _show(y, key)), []).append(metric)
    diffs = [
        f"manifests differ in {key} for {', '.join(names)}: {x} vs {y}"
        for (key, x, y), names in grouped.items()
    ]
    if diffs:
        lines.append(
            "NOT COMPARABLE as a measurement of the pipeline: the compared metrics were scored "
            "differently"
        )
        lines.extend(diffs[:MAX_LINES])
        if len(diffs) > MAX_LINES:
            lines.append(f"... and {len(diffs) - MAX_LINES} more differences")
    return lines
