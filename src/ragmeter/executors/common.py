"""What every executor shares: the names, the judge-URL list, the run config, and the checks
made before any work (which the dry run makes too)."""

from __future__ import annotations

import asyncio
import numbers
import os
from collections.abc import Collection, Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ragmeter._gguf_file import gguf_file_problem
from ragmeter.availability import (
    availability,
    named_judge_problem,
    ray_problem,
    unused_settings,
)
from ragmeter.config import Settings
from ragmeter.errors import ConfigError, ExecutorUnavailable, MetricError, ModelNotAvailable
from ragmeter.executors.source import check_file, stream_format
from ragmeter.manifest import check_out, file_facts, fingerprint, prepare_out
from ragmeter.metrics.base import Metric
from ragmeter.metrics.registry import resolve
from ragmeter.plan import FieldPresence, needs_of, plan_metrics
from ragmeter.resources import check_judge_key, open_cache

EXECUTORS = ("local", "stream", "ray")
T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)``, or the same in a worker thread with its own event loop when
    this thread already runs one (Jupyter, an async test, a web handler).

    Why: ``asyncio.run`` refuses to start inside a running loop, leaving the coroutine never
    awaited; the synchronous API (evaluate, dry_run, testing.Evaluator) must work there too.
    Async callers should rather ``await ragmeter.aevaluate(...)``.
    """
    try:
        asyncio.get_running_loop()
        running = True
    except RuntimeError:
        running = False
    if not running:  # outside the except block: a run's own error is not chained to
        return asyncio.run(coro)  # "RuntimeError: no running event loop"
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1, thread_name_prefix="ragmeter-run") as pool:
        return pool.submit(asyncio.run, coro).result()


def base_urls(s: Settings) -> list[str]:
    """The judge endpoints: ``base_url`` may list several, comma-separated (replicas of one
    model behind several servers, spread over by the Ray executor's actors)."""
    return [u.strip() for u in (s.base_url or "").split(",") if u.strip()]


RAY_SPREADS = (
    "only the Ray executor spreads calls over several (--executor ray), others take one URL"
)


def check_single_url(s: Settings, who: str = RAY_SPREADS) -> None:
    """Executors with one judge client accept one URL: say so before any work. ``who``: the
    rest of the message, naming who takes one URL (meta-eval has no --executor)."""
    urls = base_urls(s)
    if len(urls) > 1:
        raise ConfigError(f"base_url lists {len(urls)} servers; {who}")


def check_bootstrap(*, n_resamples: int, confidence: float, seed: int) -> None:
    """ConfigError before any work for bootstrap settings the CIs cannot use: numpy refuses
    a negative seed only when the first CI is drawn, after every score was computed.
    ``n_resamples=0`` is allowed here (no CI at all, for speed); 1 is not: one resample gives
    a zero-width interval that reads as certainty (the CLI asks for 2+)."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ConfigError(f"seed must be an integer of 0 or more, not {seed!r}")
    if not isinstance(n_resamples, numbers.Integral) or n_resamples < 0 or n_resamples == 1:
        raise ConfigError(
            f"n_resamples must be 0 (no CI) or an integer of 2 or more, not {n_resamples!r}"
        )
    real = isinstance(confidence, numbers.Real) and not isinstance(confidence, bool)
    if not real or not 0 < confidence < 1:  # a string was TypeError: '<' not supported
        raise ConfigError(f"confidence must be between 0 and 1 (exclusive), not {confidence!r}")


def check_settings(s: Settings) -> None:
    """ConfigError naming every setting given that neither the judge nor the embedder would
    read, or that they cannot read as given (``availability.unused_settings``: a base URL, a
    key, --structured-output or --no-preflight beside a judge that calls no server; a URL list
    for an embedder that takes one), with the fix: said before any work, whatever the
    metrics, as the settings contradict themselves."""
    if problems := unused_settings(s):
        raise ConfigError("; ".join(problems))


def check_judge_form(judge: str) -> None:
    """Refuses a ``local:KEY`` judge whose KEY names no embedded model, and a ``gguf:PATH``
    judge whose PATH holds no file or a file with no GGUF header (ConfigError), by the
    registry and the file's first bytes alone: no model loaded, no server asked.

    Why: Settings' pattern takes any ``local:WORD`` or ``gguf:PATH``, and the model was
    looked up only when a judged metric was asked, so ``evaluate data --judge local:7b -m
    mrr`` (or ``--judge gguf:/missing.gguf -m mrr``) exited 0 without a word: a typo in
    --judge passed unseen (in Python too: ``evaluate(rows, "mrr",
    settings=Settings(judge="gguf:/nope.gguf"))``). The text is the one said when a judged
    metric is asked (``availability.named_judge_problem``)."""
    kind, _, key = judge.partition(":")
    if kind not in ("local", "gguf") or not key:
        return
    if kind == "gguf":
        why = gguf_file_problem(key)
    else:
        from ragmeter.backends import model_store  # the registry: a dict, nothing loaded

        try:
            model_store.get_model(key)
            why = None
        except ModelNotAvailable as exc:
            known = " or ".join(f"local:{k}" for k in model_store.MODELS)
            why = f"the embedded judge model cannot be had ({exc}): give --judge local or {known}"
    if why is not None:
        raise ConfigError(
            f"the judge {judge!r} was asked for (--judge, or judge in the settings) but cannot "
            f"be had: {why}; or give --judge none to run only the metrics that need no judge"
        )


def check_before_work(
    s: Settings, metrics: Sequence[str] | str | None, *, make_cache: bool = True
) -> None:
    """What the model-based metrics of a run need from its settings, checked before any work:
    no setting given in vain (``check_settings``), the key of a judge asked for by name, a
    named judge that can be had, and a cache that opens: the one a model-based metric of the
    run may use, and one the user gave (``--cache``, ``cache`` in --config or Settings)
    whatever the metrics. Why: ``--cache afile -m mrr`` exited 0 where ``-m faithfulness``
    or ``--judge none`` exited 2, and the README's exit 2 is for any --cache that cannot be
    opened; the default cache is not opened for a run that cannot use it (nothing is made
    that nobody asked for). Without a metric list the run may need all of them; with one, a
    listed metric lacking its judge is plan_metrics' to report (naming it), as are unknown
    metric names and modes."""
    check_settings(s)
    check_judge_form(s.judge)  # a typo in the judge's name, whatever the metrics
    try:
        chosen = None if metrics is None else resolve(metrics)
        needs = {"judge"} if chosen is None else needs_of(chosen, s.metric_options())
    except (MetricError, ValueError):
        return
    if needs & {"judge", "scorer"}:
        check_judge_key(s)
    if chosen is None and (why := named_judge_problem(s)) is not None:
        raise ConfigError(why)  # the default plan would leave the judged metrics out, exit 0
    may_use = chosen is None or any(m.is_async for m in chosen)
    # make_cache=False (a dry run): checked as it would be made, nothing created
    used = s.cache and (may_use or "cache" in s.model_fields_set)
    if used and (cache := open_cache(s.cache, create=make_cache)) is not None:
        cache.close()


OUT_NEEDED = "this executor writes its scores as it goes: give an output directory (--out)"


def check_executor_name(executor: str) -> None:
    """An unknown executor is said first: its options cannot be checked against it."""
    if executor not in EXECUTORS:
        raise ConfigError(f"unknown executor {executor!r}: use {', '.join(EXECUTORS)}")


# The executors that read each option of evaluate() beyond the common ones.
OPTION_READERS = {"ray_address": ("ray",), "actors": ("ray",), "batch_size": ("stream", "ray")}


def check_executor_options(executor: str, *, cli: bool = False, **given: Any) -> None:
    """A ConfigError naming each option given (not None) that ``executor`` does not read
    (``OPTION_READERS``), the executor, and the fix; ``cli``: spelled as the command line
    spells them. Made before any work, by evaluate, the dry run and the CLI alike.

    Why: they were ignored. ``evaluate(path, ray_address="10.0.0.1:6379")`` without
    ``executor="ray"`` ran locally, and its user thought it had run on the cluster; likewise
    ``actors`` on the stream executor and ``batch_size`` on the local one."""
    check_executor_name(executor)
    unread: dict[tuple[str, ...], list[str]] = {}
    for name in sorted(given, key=list(OPTION_READERS).index):  # the same order whoever asks
        readers = OPTION_READERS[name]
        if given[name] is not None and executor not in readers:
            unread.setdefault(readers, []).append(name)
    if unread:
        said = [_unread(executor, readers, names, cli) for readers, names in unread.items()]
        raise ConfigError("; ".join(said))


def _unread(executor: str, readers: tuple[str, ...], names: list[str], cli: bool) -> str:
    """The sentence for ``names``, e.g. ``ray_address applies to executor='ray' only, not
    executor='local': add executor='ray', or leave ray_address out``."""
    if cli:
        opts = " and ".join(f"--{n.replace('_', '-')}" for n in names)
        readers_said = "--executor " + " or ".join(readers)
        chosen = f"--executor {executor}"
    else:
        opts = " and ".join(names)
        readers_said = "executor=" + " or ".join(repr(r) for r in readers)
        chosen = f"executor={executor!r}"
    verb = "applies" if len(names) == 1 else "apply"
    fix = f"add {readers_said}, or leave {opts} out"
    return f"{opts} {verb} to {readers_said} only, not {chosen}: {fix}"


def check_input_kind(executor: str, data: Any, format: str | None) -> None:
    """A known executor, and for stream and ray a file's path, of a format they stream
    (``stream_format``: ``--format`` in any case, else the suffix), refused before any work.

    Why: ``--format csv`` was "reads a .jsonl or .parquet file: give its path", to a user who
    had given one, never naming the format; ``--format JSONL``, read by the local executor
    as jsonl, was refused the same; and a dry run of ``data.csv`` passed where the run
    stopped at once."""
    check_executor_name(executor)
    if executor == "local":
        return
    if not isinstance(data, (str, os.PathLike)):
        raise ConfigError(
            f"the {executor} executor reads a .jsonl or .parquet file: give its path "
            "(in-memory data runs on the local executor)"
        )
    if format is None and not os.path.exists(data):  # "file not found", said by the reader
        return
    if stream_format(data, format) is None:
        what = f"format {format!r}" if format is not None else f"{Path(data).name!r}"
        raise ConfigError(
            f"the {executor} executor reads JSON Lines or Parquet files, not {what}: use "
            "the local executor (executor='local', --executor local), or convert it to "
            ".jsonl or .parquet"
        )


def check_executor(
    executor: str, data: Any, s: Settings, *, format: str | None, out: str | Path | None
) -> None:
    """What an executor refuses before it reads a row (``check_input_kind``, Ray Data not
    installed for ray, an output directory for stream and ray, one judge URL but for ray),
    for a dry run to refuse the same: the run itself finds each of these on its way."""
    check_input_kind(executor, data, format)
    if executor == "ray" and (why := ray_problem()) is not None:
        raise ExecutorUnavailable(why)
    if executor != "local" and out is None:
        raise ConfigError(OUT_NEEDED)
    if executor != "ray":
        check_single_url(s)


def run_config(
    metrics: Sequence[Metric],
    s: Settings,
    n_resamples: int,
    confidence: float,
    seed: int,
    executor: str,
) -> dict[str, Any]:
    """The ``config`` block of summary.json, as a local run writes it, plus the executor."""
    return {
        "metrics": [m.name for m in metrics],
        "n_resamples": n_resamples,
        "confidence": confidence,
        "seed": seed,
        "settings": s.public_dict(),
        "executor": executor,
    }


@dataclass
class FilePlan:
    """A file run, planned before any scoring: rows counted and validated, metrics chosen,
    the output directory claimed (refused when it holds a run of other settings or input)."""

    n_rows: int
    metrics: list[Metric]
    notes: list[str]
    fp: dict[str, Any]
    out_dir: Path
    input_: dict[str, Any]  # the file's name, sha256 and rows, as run.json records them
    overwrite: bool = False
    data: str | Path | None = None  # the input file: an --out that would replace it is refused

    def claim(self) -> None:
        """Claim ``out_dir`` (run.json ``running``), for a plan made with ``claim=False``
        once the executor's own checks have passed: refused as ``prepare_out`` refuses."""
        prepare_out(
            self.out_dir, self.fp, overwrite=self.overwrite, input_=self.input_, data=self.data
        )


def plan_file_run(
    path: str | Path,
    metrics: Sequence[str] | str | None,
    s: Settings,
    *,
    out: str | Path | None,
    overwrite: bool,
    n_resamples: int,
    confidence: float,
    seed: int,
    gated: Collection[str] = (),
    claim: bool = True,
    format: str | None = None,
) -> FilePlan:
    """Validate the whole file (one streamed pass), plan the metrics on every row of it,
    claim ``out``. Every usage error is raised here, before any judge call. ``claim=False``:
    ``out`` is only checked (``check_out``, read only) and the caller claims it with
    ``FilePlan.claim`` after checks of its own (the Ray executor's cluster and CPUs): a
    usage error found there must leave ``out`` as it was, not a run.json marked running
    that refuses the next run with other settings and reads as a killed run to ``compare``.

    Why every row: planned on the first rows, a metric whose inputs appear only later in the
    file was silently left out, where a local run of the same file scores it. The validation
    pass already reads each row; it counts which fields each has (``FieldPresence``, a few
    combinations, not the rows), so the plan is the local one at no extra pass. ``gated``:
    metrics a gate will check, refused here when the plan leaves them out (``plan_metrics``).
    ``format``: ``jsonl`` or ``parquet`` whatever the file's name (``stream_format``)."""
    if out is None:
        raise ConfigError(OUT_NEEDED)
    presence = FieldPresence()
    n_rows = check_file(path, presence=presence, format=format)
    notes: list[str] = []
    available, unavailable = availability(s)
    chosen = plan_metrics(
        presence,
        metrics,
        notes,
        available,
        s.metric_options(),
        gated=gated,
        unavailable=unavailable,
    )
    fp = fingerprint(chosen, s, n_resamples=n_resamples, confidence=confidence, seed=seed)
    input_ = file_facts(path, n_rows)
    if claim:
        out_dir = prepare_out(out, fp, overwrite=overwrite, input_=input_, data=path)
    else:
        check_out(out, fp, overwrite=overwrite, input_=input_, data=path)
        out_dir = Path(out).expanduser()
    return FilePlan(n_rows, chosen, notes, fp, out_dir, input_, overwrite, path)
