"""What meta-eval checks before any model loads: its settings, as given to it (``CLI_OPTIONS``),
the modes, and the resources its scorers need; and the modes it reports.

Why a module of its own: ``_api.run`` holds the run and its report; these are the refusals
said before it (exit 2), each as ``evaluate`` says it, with meta-eval's options.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragmeter.availability import CHECKED, a_need, availability, unused_settings
from ragmeter.config import Settings
from ragmeter.errors import ConfigError, MetricError
from ragmeter.executors.common import check_single_url
from ragmeter.meta_eval._scorers import RAGAS_METRICS, PairScorer
from ragmeter.metrics.registry import get_metric
from ragmeter.plan import check_modes, mode_of_metric

# The settings `ragmeter meta-eval` takes as options of its own (cli/meta_eval.py): a message
# names any other as a setting of its --config file (``setting_names.as_given``).
CLI_OPTIONS = frozenset({"judge", "base_url", "embedder", "cache", "modes"})


def check_meta_modes(s: Settings) -> None:
    """Every ``--mode`` names a metric that has that mode (``plan.check_modes``, as evaluate
    checks them), and the judged metrics' modes, ``options.mode`` included, exist: an
    unknown one was an internal ValueError, or silently ignored, once the data was read."""
    check_modes(s.modes)
    for name in RAGAS_METRICS.values():
        metric = get_metric(name)
        mode = mode_of_metric(metric, s.metric_options())
        if mode is not None and mode not in metric.mode_names:
            raise MetricError(
                f"mode {mode!r} (options.mode) is no mode of {name}; choose one of "
                + ", ".join(metric.mode_names)
            )


def needs_of_run(scorers: Sequence[PairScorer], baselines: Sequence[str], s: Settings) -> set[str]:
    """Resources the run cannot do without (``needs``) and those it uses when present."""
    judged = [get_metric(RAGAS_METRICS[sc.dimension]) for sc in scorers if sc.kind == "ragas"]
    needs = {"judge"}
    for m in judged:
        needs |= set(m.needs_in(mode_of_metric(m, s.metric_options())))
    if "embedding_cosine" in baselines:
        needs.add("embedder")
    if "perplexity" in baselines:
        needs.add("scorer")
    return needs


def judged_needs(judged: Sequence[Any], s: Settings) -> set[str]:
    """What the judged metrics themselves need (the rest of ``_needs`` is the baselines')."""
    return {n for m in judged for n in m.needs_in(mode_of_metric(m, s.metric_options()))}


BASELINE_NEEDS = {"embedder": "the embedding_cosine baseline", "scorer": "the perplexity baseline"}


def check_resources(s: Settings, needs: set[str], judged: Sequence[Any]) -> None:
    """ConfigError before any model is loaded or pair scored, as evaluate refuses: a setting
    given in vain (a base URL beside a local judge), and each resource the run needs that
    cannot be had (``availability``: --judge none, an extra or model not installed, a key
    not set), naming who needs it, why it is missing and the fixes.

    Why: meta-eval built its models first and said what was missing only then, after
    loading the judge (a minute on 2 CPUs); a missing embedder or scorer was found after it.
    Settings are named as given to meta-eval (``CLI_OPTIONS``): it has no --no-preflight."""
    # one judge client: a comma list reached it as one address, refused only at connecting;
    # said first, as evaluate's advice on a list (a remote judge's replicas, --executor ray)
    # is for evaluate
    check_single_url(s, "meta-eval judges with one client: give one URL (--base-url)")
    if unused := unused_settings(s, CLI_OPTIONS):
        raise ConfigError("; ".join(unused))
    _, unavailable = availability(s, CLI_OPTIONS)
    problems = []
    for need in sorted(needs & set(unavailable), key=CHECKED.index):
        why = unavailable[need]
        users = [m for m in judged if need in m.needs_in(mode_of_metric(m, s.metric_options()))]
        if need == "judge":
            problems.append(
                f"meta-eval needs {a_need(need)} (its RAGAS metrics are judged), and there is {why}"
            )
        elif users:
            names = ", ".join(f"'{m.name}'" for m in users)
            problems.append(
                f"{names} in the mode chosen need(s) {a_need(need)}, and there is {why}, or "
                "choose another --mode, or leave the dimension out (--dimensions)"
            )
        else:
            problems.append(
                f"{BASELINE_NEEDS[need]} needs {a_need(need)}, and there is {why}, or leave "
                "it out of --baselines"
            )
    if problems:
        raise ConfigError("; ".join(problems))


def run_modes(dims: Sequence[str], s: Settings) -> dict[str, str]:
    """The mode each judged metric of ``dims`` runs in, as the scorers resolve it (``--mode``,
    else ``options.mode``, else the metric's default). Why: the report listed the default
    mode of all three (``modes: faithfulness=fast, answer_relevance=fast, ...``) whatever
    ``--dimensions`` ran, and missed a mode ``options.mode`` chose."""
    options = s.metric_options()
    out = {}
    for dim in dims:
        metric = get_metric(RAGAS_METRICS[dim])
        mode = mode_of_metric(metric, options)
        if mode is not None:
            out[metric.name] = mode
    return out
