"""Metric names -> Metric objects, including parametrised ones such as ``ndcg@10``.

One way: this module imports the metric modules and registers what they declare; no metric
module imports it. ``register`` is also how a user adds a metric of their own.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ragmeter.errors import MetricError
from ragmeter.metrics import (
    faithfulness,
    lexical_batch,
    perplexity,
    reference,
    refusal,
    relevance,
    retrieval,
    reward,
)
from ragmeter.metrics._checked_result import checked_result as checked_result
from ragmeter.metrics._code_digest import code_sha256
from ragmeter.metrics._declared_options import current, declare, declared, with_options
from ragmeter.metrics.base import Metric, Score
from ragmeter.metrics.column import OK, ScoreColumn
from ragmeter.metrics.time_limit import interrupted, limited, seconds
from ragmeter.redact import describe

_FIXED: dict[str, Metric] = {}
_BUILT_IN: set[str] = set()
_GIVEN: dict[str, Metric] = {}  # a user's metric as given to register, by name
_LIMITS: dict[str, float | None] = {}  # its timeout as registered, by name
_GIVEN_TEMPLATES: dict[str, Callable[[int], Metric]] = {}  # a user's template factories
_TEMPLATE_LIMITS: dict[str, float | None] = {}  # a user's template's timeout, by prefix
_TEMPLATES: dict[str, tuple[Callable[[int], Metric], tuple[int, ...]]] = {}
_TEMPLATE_RE = re.compile(r"^([a-z_]+)@(\S+)$")
_MAX_K = 2**63 - 1  # the retrieval kernels' int64
# The keys of a scores.jsonl record besides the metrics' values (runs.RECORD_KEYS, a layer
# above: tests/test_metrics_edges_audit.py keeps the two equal). A metric named "answer" or
# "question_id" wrote its value over the sample's, losing it and breaking resume and compare.
RECORD_KEYS = frozenset(
    {"question_id", "question", "answer", "contexts", "context_ids", "metadata"}
    | {"status", "reasons", "details"}
)


def register(
    metric: Metric, *, timeout: float | None = None, options: Mapping[str, Any] | None = None
) -> Metric:
    """Add a metric of one's own; ``-m NAME`` and ``evaluate(data, ["NAME"])`` then run it.

    ``timeout``: seconds one call of it may take on one sample, after which that sample's
    score is failed ("timed out after 30 s") and the run goes on (``time_limit.limited``
    says how, and why a hung sync ``compute`` leaves a thread behind); None, the default,
    waits as long as it takes.

    ``options``: the options the metric reads, name -> default (``{"short_answer_words":
    50}``); each name starts with the metric's and the default's type is the option's.
    ``Settings(options=...)`` / ``[ragmeter.options]`` then set them, checked when the
    settings are built as the built-ins' are (an unknown or ill-typed one refused before
    any work), and ``acompute`` reads them, defaults filled in, from ``resources.options``.
    Why acompute only: ``compute(sample)`` is given no resources. Registering again replaces
    the declaration.

    Returns the registered metric: the same definition, its results checked on every sample
    (a value that is not a Score, an unknown status, or an ok value that is not a finite
    number within ``value_range`` becomes a failed Score saying so; ``acompute`` may also be
    a plain function). MetricError when the name is taken or could not be selected; the
    same Metric registered again is no error (the metric registered is returned).
    """
    if not isinstance(metric, Metric):
        raise MetricError(f"register takes a ragmeter Metric, not {type(metric).__name__}")
    name = metric.name
    if "@" in name:
        raise MetricError(
            f"metric {name!r}: '@' is reserved for a built-in's parameter, as in ndcg@10; "
            "choose a name without it"
        )
    if name in RECORD_KEYS:
        raise MetricError(
            f"metric {name!r}: the name is a field of every scores.jsonl record "
            f"({', '.join(sorted(RECORD_KEYS))}), whose value the score would overwrite; "
            "choose another name"
        )
    limit = seconds(name, timeout)
    defaults = declared(metric, options)
    if _GIVEN.get(name) is metric or (name not in _BUILT_IN and _FIXED.get(name) is metric):
        # the same definition again (a module imported twice, a notebook cell re-run that
        # registers one made elsewhere): no error; a changed timeout is taken, not ignored
        if _LIMITS.get(name) != limit or current(name) != defaults:
            declare(name, defaults)
            _FIXED[name] = _checking(with_options(limited(_GIVEN[name], limit), defaults))
            _LIMITS[name] = limit
        return _FIXED[name]
    if name in _FIXED:
        whose = "a built-in metric" if name in _BUILT_IN else "already registered"
        raise MetricError(f"metric {name!r} is {whose}: choose another name")
    declare(name, defaults)
    _FIXED[name] = _checking(with_options(limited(metric, limit), defaults))
    _GIVEN[name], _LIMITS[name] = metric, limit
    return _FIXED[name]


def _add_built_in(metric: Metric) -> None:
    _FIXED[metric.name] = metric
    _BUILT_IN.add(metric.name)


def _checking(metric: Metric) -> Metric:
    """``metric`` with its results checked (``checked_result``) as they come back."""
    changes: dict[str, Any] = {}
    if metric.compute is not None:
        sync = metric.compute

        def compute(sample: Any) -> Score:
            if interrupted():
                raise asyncio.CancelledError  # Ctrl-C: stop at this sample, not the last
            try:
                result = sync(sample)
            except Exception as exc:  # this sample fails alone, its reason masked
                return Score.failed(f"internal error: {describe(exc)}")
            return checked_result(metric, result)

        changes["compute"] = compute
    if metric.acompute is not None:
        given = metric.acompute

        async def acompute(sample: Any, resources: Any) -> Score:
            result = given(sample, resources)
            if inspect.isawaitable(result):
                result = await result
            return checked_result(metric, result)

        changes["acompute"] = acompute
    if metric.compute_batch is not None:
        batch_fn = metric.compute_batch

        def compute_batch(rows: Sequence[Any], shared: dict[Any, Any]) -> Any:
            column = batch_fn(rows, shared)
            if isinstance(column, ScoreColumn) and metric.value_range is not None:
                low, high = metric.value_range
                ok = column.values[column.status == OK]
                if ((ok < low) | (ok > high)).any():  # the per-sample path says which rows
                    raise MetricError(f"{metric.name}: a value outside {metric.value_range}")
            return column

        changes["compute_batch"] = compute_batch
    return dataclasses.replace(metric, **changes)


def register_template(
    prefix: str,
    factory: Callable[[int], Metric],
    default_ks: tuple[int, ...],
    *,
    timeout: float | None = None,
    options: Mapping[str, Any] | None = None,
) -> None:
    """Register ``prefix@k``; ``default_ks`` are the k run when no metrics are named.

    ``factory(k)`` returns the Metric named ``prefix@k``, its results checked (and ``timeout``
    applied) as a registered metric's (``register``). ``options``: those its metrics read, as
    ``register``'s, each named ``<prefix>_<what>`` (``mytop_words`` for ``mytop@5``): without
    them the settings refused any such option as unknown. MetricError for a prefix ``-m``
    cannot spell (lower-case letters and '_') or one taken: a prefix ``ndcg`` silently
    replaced the built-in ndcg@k, and one such as ``top-x`` was taken but never found. The
    same factory again takes its new timeout, default_ks and options; a refused one changes
    nothing (it was unregistered first, then refused)."""
    if not isinstance(prefix, str) or not re.fullmatch(r"[a-z_]+", prefix):  # _TEMPLATE_RE
        raise MetricError(f"template {prefix!r}: the prefix must be lower-case letters and '_'")
    again = _GIVEN_TEMPLATES.get(prefix) is factory
    if prefix in _TEMPLATES and not again:
        whose = "already registered" if prefix in _GIVEN_TEMPLATES else "a built-in template"
        raise MetricError(f"template {prefix!r} is {whose}: choose another prefix")
    if not callable(factory):
        raise MetricError(f"template {prefix!r}: factory must be a function of k")
    ks = tuple(default_ks)
    limit = seconds(prefix, timeout)
    if any(isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= _MAX_K for k in ks):
        raise MetricError(f"template {prefix!r}: default_ks must be positive integers, not {ks}")

    def made(k: int) -> Metric:
        metric = factory(k)
        if not isinstance(metric, Metric) or metric.name != f"{prefix}@{k}":
            said = metric.name if isinstance(metric, Metric) else type(metric).__name__
            raise MetricError(f"template {prefix!r}: factory({k}) gave {said}, not {prefix}@{k}")
        return metric

    try:  # made now, as every listing of the metrics makes factory(1): broken, it broke them
        first = made(1)
    except MetricError:
        raise
    except Exception as exc:
        raise MetricError(f"template {prefix!r}: factory(1) raised {describe(exc)}") from None
    defaults = declared(first, options, f"{prefix}@k")  # the name its listing shows
    same = (_TEMPLATE_LIMITS.get(prefix), _TEMPLATES[prefix][1]) if again else None
    if same == (limit, ks) and current(f"{prefix}@k") == defaults:
        return  # the same template again (a module imported twice): nothing changes

    def checked_factory(k: int) -> Metric:
        return _checking(with_options(limited(made(k), limit), defaults))

    text = getattr(factory, "description_template", None)
    if text is not None:  # what list_metrics shows for prefix@k
        checked_factory.description_template = text  # type: ignore[attr-defined]
    declare(f"{prefix}@k", defaults)
    _TEMPLATES[prefix] = (checked_factory, ks)
    _GIVEN_TEMPLATES[prefix], _TEMPLATE_LIMITS[prefix] = factory, limit


# Built-in metrics, model-based first (the order of default runs and listings).
for _metric in (
    faithfulness.METRIC,
    faithfulness.JUDGE_METRIC,
    relevance.AR_METRIC,
    relevance.CR_METRIC,
    reference.CP_METRIC,
    reference.CREC_METRIC,
    reference.AC_METRIC,
    perplexity.METRIC,
    reward.METRIC,
    *refusal.METRICS,
    *lexical_batch.METRICS,
    *retrieval.METRICS,
):
    _add_built_in(_metric)
for _prefix, _factory, _ks in retrieval.TEMPLATES:
    _TEMPLATES[_prefix] = (_factory, _ks)


def timeout_of(name: str) -> float | None:
    """The registered ``timeout`` (seconds) of the user's metric ``name`` (``prefix@k`` for a
    template's), None when it has none or is built in. Why asked: run.json records it, so two
    runs whose limits differ (and so their failed counts) do not look alike."""
    if name in _BUILT_IN:
        return None
    if name in _GIVEN:
        return _LIMITS.get(name)
    match = _TEMPLATE_RE.match(name)
    return _TEMPLATE_LIMITS.get(match.group(1)) if match else None


def code_of(name: str) -> str | None:
    """``code_sha256`` of the user's metric ``name`` as registered (``prefix@k``: its
    template's factory), None for a built-in or code without source (``_code_digest``)."""
    if name in _BUILT_IN:
        return None
    if name in _GIVEN:
        m = _GIVEN[name]
        return code_sha256((m.compute, m.acompute, m.compute_batch))
    match = _TEMPLATE_RE.match(name)
    factory = _GIVEN_TEMPLATES.get(match.group(1)) if match else None
    return code_sha256((factory,)) if factory is not None else None


def options_of(name: str) -> dict[str, Any]:
    """The options the user's metric ``name`` declared, at their defaults (a template's for
    ``prefix@k``); {} for a built-in. Why asked: settings leave out an option at its default,
    so a default changed between two runs was in neither their fingerprint nor compare's view."""
    if name in _BUILT_IN:
        return {}
    match = _TEMPLATE_RE.match(name)
    return current(f"{match.group(1)}@k" if match and name not in _GIVEN else name)


def registered_names() -> frozenset[str]:
    """Every metric name and template (``prefix@k``) registered now, built-ins included.
    Why: a plugin loader compares two of these to say which metrics a plugin added."""
    return frozenset([*_FIXED, *(f"{p}@k" for p in _TEMPLATES)])


def default_modes() -> dict[str, str]:
    """Each metric with modes -> its default mode (``--mode metric=mode`` overrides)."""
    return {m.name: m.default_mode for m in _FIXED.values() if m.default_mode is not None}


def get_metric(name: str) -> Metric:
    if not isinstance(name, str):
        raise MetricError(f"a metric is named by a string, not {type(name).__name__} {name!r}")
    name = name.strip()
    if name in _FIXED:
        return _FIXED[name]
    match = _TEMPLATE_RE.match(name)
    if match and match.group(1) in _TEMPLATES:
        prefix, k_text = match.groups()
        # ASCII digits only: str.isdigit() also accepts '²', which int() refuses
        if not (k_text.isascii() and k_text.isdigit()) or not 1 <= int(k_text) <= _MAX_K:
            raise MetricError(
                f"metric {name!r}: k must be a positive integer, at most {_MAX_K}, e.g. {prefix}@10"
            )
        if k_text != str(int(k_text)):
            # ndcg@010 ran as ndcg@10, so --fail-under ndcg@010=... found no such metric run
            raise MetricError(
                f"metric {name!r}: write k without leading zeros, as {prefix}@{int(k_text)}"
            )
        return _TEMPLATES[prefix][0](int(k_text))
    if name in (f"{p}@k" for p in _TEMPLATES):
        raise MetricError(f"metric {name!r}: give k as a number, e.g. {name[:-1]}10")
    known = ", ".join(sorted([*_FIXED, *(f"{p}@k" for p in _TEMPLATES)]))
    raise MetricError(f"unknown metric {name!r}; known metrics: {known}")


def metric_list(names: Any) -> list[str | Metric]:
    """The entries of a metric list as given: a comma-separated string split, a Metric alone
    as a list of one. Anything else that is no collection of names (a number, bytes) is a
    MetricError saying what is accepted: it was a TypeError, and bytes were read as a list of
    integers ("not int 116")."""
    if isinstance(names, str):
        return [n for n in names.split(",") if n.strip()]
    if isinstance(names, Metric):
        return [names]
    if isinstance(names, (bytes, bytearray)) or not isinstance(names, Iterable):
        raise MetricError(
            "metrics must be a list of metric names (or Metrics) or a comma-separated string, "
            f"not {type(names).__name__}"
        )
    return list(names)


def resolve(names: Sequence[str | Metric] | str) -> list[Metric]:
    """Resolve names (see ``metric_list``); every bad name is reported. A registered Metric
    may stand for its name."""
    names = metric_list(names)
    metrics: list[Metric] = []
    errors: list[str] = []
    seen: set[str] = set()
    for name in names:
        try:
            metric = _registered(name) if isinstance(name, Metric) else get_metric(name)
        except MetricError as exc:
            errors.append(str(exc))
            continue
        if metric.name not in seen:
            seen.add(metric.name)
            metrics.append(metric)
    if errors:
        raise MetricError("; ".join(errors))
    return metrics


def _registered(metric: Metric) -> Metric:
    """The registered metric a Metric object stands for; MetricError when it is not one."""
    name = metric.name
    if _FIXED.get(name) is metric or _GIVEN.get(name) is metric:
        return _FIXED[name]
    try:  # a template's (ndcg@10) is built afresh by each get_metric
        built = get_metric(name) if "@" in name else None
    except MetricError:
        built = None
    if built is not None and (built.description, built.formula) == (
        metric.description,
        metric.formula,
    ):
        return built
    raise MetricError(
        f"metric {name!r} is not registered: register it first "
        "(ragmeter.register_metric(metric)), then name it"
    )


def default_metrics() -> list[Metric]:
    out = [m for m in _FIXED.values() if m.default]
    for factory, ks in _TEMPLATES.values():
        out.extend(factory(k) for k in ks)
    return out


def template_default_ks() -> dict[str, tuple[int, ...]]:
    """Each template's prefix -> the k a run without a metric list uses (ndcg -> (10,))."""
    return {prefix: ks for prefix, (_factory, ks) in _TEMPLATES.items()}


def list_metrics() -> list[Metric]:
    """Every metric, templates shown with their symbolic k."""
    out = list(_FIXED.values())
    for prefix, (factory, _ks) in _TEMPLATES.items():
        template = factory(1)
        text = getattr(factory, "description_template", template.description)
        out.append(
            Metric(
                name=f"{prefix}@k",
                description=text.replace("{k}", "k"),
                requires=template.requires,
                compute=template.compute,
                acompute=template.acompute,  # an acompute template's listing was refused
                needs=template.needs,
                reference_based=template.reference_based,
                formula=template.formula.replace("@1", "@k"),
                direction=template.direction,
            )
        )
    return out
