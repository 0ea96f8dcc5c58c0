"""evaluate(): load -> validate -> plan -> check --out -> build resources -> preflight ->
score -> aggregate -> result (-> write).

Usage errors (data, metrics, modes, settings, an unusable --out) raise before any judge call.
Nothing computed is lost: an exception in one (sample, metric) becomes a failed Score with
its reason and the run goes on; rows lacking a metric's inputs are skipped and listed. Only
an unreachable judge (``JudgeUnreachable``, from the preflight or the circuit breaker) stops
the run; every call already answered is in the cache, so running it again resumes.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import time
from collections.abc import Callable, Collection, Sequence
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ragmeter.availability import availability
from ragmeter.config import Settings, as_settings
from ragmeter.errors import ConfigError, RunAborted
from ragmeter.executors.common import (
    check_before_work,
    check_bootstrap,
    check_executor_options,
    check_input_kind,
    check_single_url,
    run_sync,
)
from ragmeter.executors.judge_pool import JudgePool
from ragmeter.executors.notes import metric_notes, text_matched
from ragmeter.executors.session import ModelSession
from ragmeter.executors.stream import term_cancels
from ragmeter.executors.streamed import StreamedResult
from ragmeter.io import expand_user, load
from ragmeter.manifest import (
    build_manifest,
    crash_recorded,
    fingerprint,
    input_facts,
    interrupted_line,
    prepare_out,
    write_manifest,
)
from ragmeter.metrics.base import Metric, Score
from ragmeter.metrics.registry import metric_list
from ragmeter.plan import plan_metrics
from ragmeter.plugins import settings_with_plugins
from ragmeter.redact import public_text
from ragmeter.result import EvaluationResult, aggregate
from ragmeter.sample import Sample
from ragmeter.scheduler import compute_all

# evaluate()'s defaults for the options of the stream and ray executors (None: not given).
# Ray's chunks are smaller: a chunk is the unit an actor is handed, so 10,000 rows in one
# chunk left every actor but one idle on a run of fewer rows (Python used 10,000 until 11-27).
BATCH_SIZE = {"stream": 10_000, "ray": 256}
ACTORS = 2

# A list the sync evaluate() reads when Ctrl-C stops a run: the line saying where it got to.
_INTERRUPTED: contextvars.ContextVar[list[str]] = contextvars.ContextVar("ragmeter_interrupted")


def evaluate(
    data: Any,
    metrics: Sequence[str] | str | None = None,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    settings: Any = None,
    progress: bool = False,
    out: str | Path | None = None,
    overwrite: bool = False,
    format: str | None = None,
    executor: str = "local",
    batch_size: int | None = None,
    actors: int | None = None,
    ray_address: str | None = None,
    gated: Collection[str] = (),
    judge_pool: JudgePool | None = None,
) -> EvaluationResult | StreamedResult:
    """Score every sample with every metric; see EvaluationResult for what comes back.

    ``data`` is anything ``ragmeter.load`` takes. ``metrics`` is a list of names or a
    comma-separated string; by default every metric whose inputs are present in some row.
    ``settings`` configures judges and embedders for the model-based metrics. With ``out``,
    the directory is checked before any work and scores.jsonl, summary.json and run.json are
    written into it; a directory holding a run with other settings raises OutputError unless
    ``overwrite``. ``format`` names a file's format when its suffix does not (``otel``:
    OpenInference traces). Raises a UsageError before any work, JudgeUnreachable (a RunAborted) when
    the judge cannot be reached.

    ``executor``: ``local`` (default: everything in memory, one process); ``stream`` (a
    JSONL/Parquet file read ``batch_size`` rows at a time, default 10,000, scores written as
    they come, bounded memory; needs ``out``); ``ray`` (a Ray Data pipeline with ``actors``
    judge actors, default 2, in chunks of ``batch_size`` rows, default 256, on ``ray_address``
    or a local Ray; the ``ray`` extra; docs/ray.md). Both return a StreamedResult: the
    aggregates, the scores in ``out``/scores.jsonl. An option the chosen executor does not read
    (``ray_address`` or ``actors`` but for ray, ``batch_size`` for local) raises a ConfigError
    before any work: ignored, it let a run meant for a cluster run locally. Their defaults are
    None, meaning the values above, so that an option given (even at its default) is told from
    one not.

    ``gated``: the metrics a gate will check afterwards (the CLI's ``--fail-under``,
    ``ragmeter.gates.fail_under``): one the plan will not run raises a DataError naming the
    plan's reason once the plan is known, before any judge call, embedding or scoring.
    ``judge_pool``: a ``JudgePool`` that keeps an in-process judge (local, gguf:PATH) loaded
    for the next run with the same judge settings, instead of loading it for each (the local
    executor; ``ragmeter.testing.Evaluator`` holds one).
    """
    check_bootstrap(n_resamples=n_resamples, confidence=confidence, seed=seed)
    check_executor_options(executor, batch_size=batch_size, actors=actors, ray_address=ray_address)
    data = expand_user(data)  # "~/data.jsonl": every executor reads the same file
    for name, flag in (("overwrite", overwrite), ("progress", progress)):
        if not isinstance(flag, bool):  # overwrite="no" is truthy: it replaced the run
            raise ConfigError(f"{name} must be True or False, not {flag!r}")
    if metrics is not None:  # a generator, read once by check_before_work, left none to plan
        metrics = metric_list(metrics)
    if executor != "local":
        if judge_pool is not None:  # they build their judge once per run already
            raise ConfigError(f"judge_pool is for the local executor, not {executor!r}")
        settings = as_settings(settings_with_plugins(settings))
        check_before_work(settings, metrics)
        return _other_executor(
            executor,
            data,
            metrics,
            out=out,
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
            settings=settings,
            overwrite=overwrite,
            format=format,
            batch_size=batch_size,
            actors=actors,
            ray_address=ray_address,
            progress=progress,
            gated=gated,
        )
    holder: list[EvaluationResult] = []
    said: list[str] = []  # where an interrupted run got to (see _INTERRUPTED)

    async def run() -> None:
        # The result is handed back through a list, not as the coroutine's return value:
        # Python 3.11's asyncio.Runner can repr() the finished main task, result included,
        # which costs seconds on a large result.
        _INTERRUPTED.set(said)
        holder.append(
            await aevaluate(
                data,
                metrics,
                n_resamples=n_resamples,
                confidence=confidence,
                seed=seed,
                settings=settings,
                progress=progress,
                out=out,
                overwrite=overwrite,
                format=format,
                gated=gated,
                judge_pool=judge_pool,
            )
        )

    try:
        run_sync(run())  # in a worker thread when a loop already runs here (Jupyter)
    except KeyboardInterrupt:
        if said:
            raise KeyboardInterrupt(said[0]) from None  # the CLI prints it, exits 130
        if not holder:  # else a Ctrl-C once every row was scored, felt as run() returned: the
            raise  # run finished, its files complete (it said "interrupted" beside them)
    return holder[0]


def _other_executor(executor: str, data: Any, metrics: Any, **kw: Any) -> StreamedResult:
    check_input_kind(executor, data, kw["format"])
    batch_size, actors, address = kw.pop("batch_size"), kw.pop("actors"), kw.pop("ray_address")
    batch_size = BATCH_SIZE[executor] if batch_size is None else batch_size
    if executor == "stream":
        from ragmeter.executors.stream import astream_evaluate

        kept: list[StreamedResult] = []

        async def run() -> None:  # a Ctrl-C felt at its return leaves its result here
            kept.append(await astream_evaluate(data, metrics, batch_size=batch_size, **kw))

        try:
            run_sync(run())
        except KeyboardInterrupt:  # the line the stream executor left in run.json, if any
            said = interrupted_line(kw["out"])
            if said is not None:
                raise KeyboardInterrupt(said) from None
            if not kept:  # else finished: a Ctrl-C after the scoring is none, as in evaluate
                raise
        return kept[0]
    from ragmeter.executors.ray_executor import ray_evaluate

    actors = ACTORS if actors is None else actors
    return ray_evaluate(data, metrics, actors=actors, address=address, batch_size=batch_size, **kw)


async def aevaluate(
    data: Any,
    metrics: Sequence[str] | str | None = None,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    settings: Any = None,
    progress: bool = False,
    out: str | Path | None = None,
    overwrite: bool = False,
    format: str | None = None,
    gated: Collection[str] = (),
    judge_pool: JudgePool | None = None,
) -> EvaluationResult:
    """The async form of evaluate(), for callers already inside an event loop."""
    check_bootstrap(n_resamples=n_resamples, confidence=confidence, seed=seed)
    data = expand_user(data)  # hashed and checked against out as the file read
    if metrics is not None:  # a generator: see evaluate
        metrics = metric_list(metrics)
    started = time.perf_counter()
    started_at = datetime.now(UTC)
    s = as_settings(settings_with_plugins(settings))
    check_single_url(s)
    check_before_work(s, metrics)
    samples = load(data, format=format)
    notes: list[str] = []
    available, unavailable = availability(s)
    chosen = plan_metrics(
        samples, metrics, notes, available, s.metric_options(), gated=gated, unavailable=unavailable
    )
    fp = fingerprint(chosen, s, n_resamples=n_resamples, confidence=confidence, seed=seed)
    input_ = input_facts(data, samples)  # hashed once: checked against --out, then recorded
    out_dir = None
    if out is not None:
        out_dir = prepare_out(out, fp, overwrite=overwrite, input_=input_, data=data)
    facts: dict[str, Any] = {}

    def manifest(status: str, usage: dict[str, Any]) -> dict[str, Any]:
        return build_manifest(
            status=status,
            fp=fp,
            metrics=chosen,
            settings=s,
            input_=input_,
            facts=facts,
            usage=usage,
            started_at=started_at,
            wall_s=time.perf_counter() - started,
        )

    # A crash past the claim of --out: run.json says so; SIGTERM stops the scoring as Ctrl-C.
    with crash_recorded(out_dir, manifest), term_cancels() as term:
        usage: dict[str, Any] = {}
        model_metrics = [m for m in chosen if m.is_async]
        done = [0]  # judged scores finished, for the line an interrupted run prints
        try:
            scores = compute_all([m for m in chosen if not m.is_async], samples)
            await asyncio.sleep(0)  # Ctrl-C/SIGTERM are felt at an await: arithmetic has none
            if model_metrics:
                model_scores, usage = await run_model_metrics(
                    _counted(model_metrics, done),
                    samples,
                    s,
                    progress=progress,
                    facts=facts,
                    judge_pool=judge_pool,
                )
                scores.update(model_scores)
            await asyncio.sleep(0)  # a stop during the last scores is felt here, not at the end
            term.scoring = False  # every row is scored: from here on the run finishes
        except (asyncio.CancelledError, KeyboardInterrupt):  # Ctrl-C: say where it got to
            todo = sum(m.missing(x) is None for m in model_metrics for x in samples)
            said = _interrupted(s, done[0], todo, len(samples) if not model_metrics else None)
            if out_dir is not None:  # a resume accepts it: the fingerprint is what is compared
                write_manifest(out_dir, {**manifest("interrupted", {}), "error": said})
            if term.received:  # a bare CancelledError is no interruption to asyncio.run's caller
                raise KeyboardInterrupt(said) from None
            raise
        except RunAborted as exc:
            hint = (
                f" Every call already answered is kept in the cache ({s.cache}): run the same "
                "command again to resume."
                if s.cache
                else " The cache is off, so nothing computed was kept."
            )
            if out_dir is not None:  # secrets masked, as a crash's
                write_manifest(out_dir, {**manifest("aborted", {}), "error": public_text(str(exc))})
            exc.args = (f"{exc}.{hint}",)
            raise

        names = [m.name for m in chosen]
        aggregates = {
            m: aggregate(m, scores[m], n_resamples=n_resamples, confidence=confidence, seed=seed)
            for m in names
        }
        matched = text_matched(samples, scores)  # worded as the stream and Ray executors word it
        for metric in chosen:
            notes += metric_notes(metric, aggregates[metric.name], matched.get(metric.name, 0))
        usage["wall_s"] = round(time.perf_counter() - started, 3)
        config = {
            "metrics": names,
            "n_resamples": n_resamples,
            "confidence": confidence,
            "seed": seed,
        }
        config["settings"] = s.public_dict()
        result = EvaluationResult(
            samples=samples,
            metrics=names,
            scores=scores,
            aggregates=aggregates,
            notes=notes,
            usage=usage,
            config=config,
            manifest=manifest("complete", usage),
        )
        if out_dir is not None:
            _write_or_abort(result, out_dir, s, manifest)
    return result


def _write_or_abort(
    result: EvaluationResult, out_dir: Path, s: Settings, manifest: Callable[..., dict[str, Any]]
) -> None:
    """The run's files, or an abort naming where (exit 3), as the stream executor's. Why: a
    full disk at the end was "internal error: OSError: [Errno 28] No space left on device",
    exit 1, naming no file; every score was computed, and the judged calls are cached."""
    try:
        result.write(out_dir)
    except OSError as exc:
        kept = "judged calls already answered are cached" if s.cache else "the cache is off"
        said = (
            f"cannot write into {out_dir} ({exc.strerror or exc}): free space there, then run "
            f"the same command again ({kept})"
        )
        with suppress(OSError):  # no room for run.json either: the abort is said all the same
            write_manifest(out_dir, {**manifest("aborted", {}), "error": public_text(said)})
        raise RunAborted(said) from None


def _interrupted(s: Settings, done: int, todo: int, unjudged: int | None = None) -> str:
    """The line an interrupted run ends with, handed to the sync evaluate() (the CLI).
    ``unjudged``: the rows of a run of arithmetic metrics only (no cache opened)."""
    resume = f"kept in {s.cache}; re-run the same command to resume"
    kept = resume if s.cache else "not kept: the cache is off"
    said = f"interrupted: {done} of {todo} judged scores done, {kept}"
    if unjudged is not None:
        kept = "nothing is judged: re-run the same command to score them again"
        said = f"interrupted: the scores of {unjudged} rows were not written; {kept}"
    note = _INTERRUPTED.get(None)
    if note is not None:
        note.append(said)
    return said


def _counted(metrics: Sequence[Metric], done: list[int]) -> list[Metric]:
    """The metrics, each counting into ``done`` the scores it finished (a failure too)."""

    def counting(fn: Any) -> Any:
        async def acompute(sample: Sample, resources: Any) -> Any:
            try:
                score = await fn(sample, resources)
            except Exception:  # a failed score is finished too; a cancelled one is not
                done[0] += 1
                raise
            done[0] += 1
            return score

        return acompute

    return [dataclasses.replace(m, acompute=counting(m.acompute)) for m in metrics]


async def run_model_metrics(
    metrics: Sequence[Metric],
    samples: Sequence[Sample],
    settings: Settings | dict[str, Any] | None = None,
    *,
    progress: bool = False,
    facts: dict[str, Any] | None = None,
    judge_pool: JudgePool | None = None,
) -> tuple[dict[str, list[Score]], dict[str, Any]]:
    """Scores of every model-based metric on every sample, and what it cost.

    ``facts`` (when given) receives what the manifest records about the judge and embedder;
    ``judge_pool`` lends an in-process judge kept loaded across runs.
    """
    async with ModelSession(metrics, settings, progress=progress, judge_pool=judge_pool) as session:
        if facts is not None:
            facts.update(session.facts)
        scores = await session.score(samples)
        return scores, session.usage()
