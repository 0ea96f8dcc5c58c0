"""``executor="ray"``: the run as a Ray Data pipeline, on a laptop or an existing cluster.

    chunks of the file (byte ranges / row groups, planned on the driver: _ray_source)
      -> map_batches(JudgeStage, concurrency=actors)
                                               an actor pool: one judge client / model each,
                                               spread round-robin over base_url's list; each
                                               reads its chunks as the stream executor reads,
                                               validates, scores every metric
         (map_batches(compute_stage), Ray tasks, for a run without model-based metrics)
      -> iter_batches on the driver            scores.jsonl written batch by batch,
                                               summary.json and run.json as a local run's

Why Ray Data and not our own pool: it streams blocks through the stages with backpressure
(memory stays bounded), places actors on a cluster, and re-executes the tasks of an actor that
died (Ray Data's actors default to ``max_restarts=-1``, ``max_task_retries=-1``): a killed
actor's batch is scored again by its restarted self, and the output still holds each input
row exactly once, in input order (``preserve_order``). The judge cache is the same SQLite
file for every actor (WAL mode, safe across processes on one machine): a re-run repeats no
call. On a multi-node cluster give ``cache`` a path on a shared filesystem (see docs/ray.md).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Collection, Sequence
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ragmeter._perf import gc_paused
from ragmeter.availability import RAY_MISSING
from ragmeter.config import as_settings
from ragmeter.errors import ConfigError, ExecutorUnavailable, RunAborted
from ragmeter.executors._ray_cluster import (
    check_address,
    connect,
    ragmeter_cause,
    ray_data_console_quiet,
    task_exception,
    term_interrupts,
)
from ragmeter.executors._ray_source import plan_chunks
from ragmeter.executors._ray_usage import UsageLedger
from ragmeter.executors.common import FilePlan, base_urls, plan_file_run, run_config
from ragmeter.executors.ray_stages import (
    Chunks,
    Dealer,
    JudgeStage,
    compute_stage,
    decode_scores,
)
from ragmeter.executors.source import stream_kind
from ragmeter.executors.stream import check_unchanged, interrupted_said
from ragmeter.executors.streamed import ScoreWriter, StreamedResult, finish_result
from ragmeter.manifest import build_manifest, crash_recorded, write_manifest
from ragmeter.plugins import loaded
from ragmeter.redact import public_text, public_url
from ragmeter.sample import Sample


def _ray() -> Any:
    try:
        import ray
        import ray.data
    except ImportError:
        raise ExecutorUnavailable(RAY_MISSING) from None
    return ray


def ray_evaluate(
    path: str | Path,
    metrics: Sequence[str] | str | None = None,
    *,
    out: str | Path | None = None,
    actors: int = 2,
    address: str | None = None,
    batch_size: int = 256,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    settings: Any = None,
    overwrite: bool = False,
    progress: bool = False,
    gated: Collection[str] = (),
    format: str | None = None,
) -> StreamedResult:
    """Score a JSONL or Parquet file on Ray; see the module docstring. Uses the running Ray
    (``ray.init`` already called), else starts one (``address``: an existing cluster, e.g.
    ``ray://head:10001`` or ``auto``; None: a local one, shut down at the end). ``progress``:
    a "ray: N/M rows" line on stderr at most every 10 s, and at the end. ``format``
    (``jsonl`` or ``parquet``): how to read the file whatever its name, as ``load`` does."""
    started = time.perf_counter()
    started_at = datetime.now(UTC)
    ray = _ray()
    if actors < 1 or batch_size < 1:
        raise ConfigError(f"actors and batch_size must be at least 1, not {actors}, {batch_size}")
    s = as_settings(settings)
    kind = stream_kind(path, format)
    if not ray.is_initialized():
        check_address(address)  # before the validation pass and --out are done
    plan = plan_file_run(
        path,
        metrics,
        s,
        out=out,
        overwrite=overwrite,
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
        gated=gated,
        claim=False,  # claimed by _start, once the cluster is up and the actors fit
        format=kind,
    )
    urls = base_urls(s)
    if len(urls) > 1:  # every replica's answers are cached under one identity
        s = s.model_copy(update={"cache_url": ",".join(public_url(u) for u in urls)})
    ledger = UsageLedger()

    def manifest(status: str, usage: dict[str, Any]) -> dict[str, Any]:
        return build_manifest(
            status=status,
            fp=plan.fp,
            metrics=plan.metrics,
            settings=s,
            input_=plan.input_,
            facts=ledger.facts(urls, s.cache_url),
            usage=usage,
            started_at=started_at,
            wall_s=time.perf_counter() - started,
        )

    own = _start(ray, address, plan, s, actors)
    with crash_recorded(plan.out_dir, manifest), term_interrupts() as term:
        writer = ScoreWriter(plan.out_dir, [m.name for m in plan.metrics])
        if progress:
            writer.on_add = _progress_line(plan.n_rows)
        try:
            extra = _scored(ray, path, kind, plan, s, urls, actors, batch_size, writer, ledger)
            term.scoring = False  # every row is in: a SIGTERM now lets the files be written
        except RunAborted as exc:  # the judge went away: as the stream executor records it
            writer.abandon()
            aborted = {**manifest("aborted", {}), "error": public_text(str(exc))}  # masked
            with suppress(OSError):  # a full disk: the abort is said all the same
                write_manifest(plan.out_dir, aborted)
            exc.args = (f"{exc}. Rows scored so far are in {plan.out_dir}/scores.jsonl.partial.",)
            raise
        except KeyboardInterrupt:  # Ctrl-C: record where it got to, say it (the CLI exits 130)
            term.scoring = False  # a second SIGTERM waits for run.json
            writer.abandon()
            judged = any(m.is_async for m in plan.metrics)
            said = interrupted_said(writer.n_samples, plan.n_rows, plan.out_dir, s.cache, judged)
            write_manifest(plan.out_dir, {**manifest("interrupted", {}), "error": said})
            raise KeyboardInterrupt(said) from None
        except BaseException:
            writer.abandon()
            raise
        finally:
            if own:
                ray.shutdown()
        if writer.n_samples != plan.n_rows:
            raise RuntimeError(f"Ray returned {writer.n_samples} rows for {plan.n_rows}: a bug")
        usage = ledger.usage(s)
        usage.update(extra)
        usage["wall_s"] = round(time.perf_counter() - started, 3)
        usage["judge_urls"] = [public_url(u) for u in urls]
        config = run_config(plan.metrics, s, n_resamples, confidence, seed, "ray")
        result = finish_result(
            writer,
            plan.metrics,
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
            notes=plan.notes,
            usage=usage,
            config=config,
            manifest=manifest("complete", usage),
        )
        result.write()
    return result


def _scored(
    ray: Any,
    path: str | Path,
    kind: str,
    plan: FilePlan,
    s: Any,
    urls: list[str],
    actors: int,
    batch_size: int,
    writer: ScoreWriter,
    ledger: UsageLedger,
) -> dict[str, Any]:
    """``_run_pipeline`` with a Ray task's error that wraps ours raised as ours (another, the
    task's own, in one line), then the input checked unchanged: a file written to meanwhile
    is a DataError, as the stream executor says it (the row count alone raised "Ray returned
    N rows for M: a bug")."""
    try:
        extra = _run_pipeline(
            ray, path, kind, plan.metrics, s, urls, actors, batch_size, writer, ledger
        )
    except BaseException as exc:
        cause = ragmeter_cause(exc)
        if cause is not exc:
            raise cause from None
        crash = task_exception(exc)
        if crash is None:
            raise
        raise crash from exc
    check_unchanged(path, writer.n_samples, plan.input_)
    return extra


def _plugins_by_value(ray: Any) -> None:
    """A metric from ``--plugin path/to/metrics.py`` lives in a module loaded from a path
    (``ragmeter_plugin_<stem>``) that no Ray worker can import by name: cloudpickle's reference
    to it failed in the actor (ModuleNotFoundError). Such modules are sent by value instead
    (Ray's own cloudpickle: the standalone package's registry is another). A dotted-name
    plugin is imported by name, as any library installed where ragmeter is."""
    for plugin in loaded():
        module = sys.modules.get(plugin.module)
        if plugin.kind == "file" and module is not None:
            ray.cloudpickle.register_pickle_by_value(module)


def _run_pipeline(
    ray: Any,
    path: str | Path,
    kind: str,
    chosen: list[Any],
    s: Any,
    urls: list[str],
    actors: int,
    batch_size: int,
    writer: ScoreWriter,
    ledger: UsageLedger,
) -> dict[str, Any]:
    """Build the Ray Data pipeline, drain it into the writer and the actors' usage reports
    into the ledger; the pipeline's own timings."""
    sync = [m for m in chosen if not m.is_async]
    model = [m for m in chosen if m.is_async]
    _plugins_by_value(ray)
    ctx = ray.data.DataContext.get_current()
    saved = (
        ctx.execution_options.preserve_order,
        ctx.enable_progress_bars,
        ctx.raise_original_map_exception,
    )
    ctx.execution_options.preserve_order = True
    ctx.enable_progress_bars = False
    ctx.raise_original_map_exception = True  # our errors, not UserCodeException: _ray_cluster
    try:
        with ray_data_console_quiet():  # our errors are said once, by us: _ray_cluster
            return _drain(ray, path, kind, sync, model, s, urls, actors, batch_size, writer, ledger)
    finally:  # the process-wide Ray Data settings are the user's again
        (
            ctx.execution_options.preserve_order,
            ctx.enable_progress_bars,
            ctx.raise_original_map_exception,
        ) = saved


def _drain(
    ray: Any,
    path: str | Path,
    kind: str,
    sync: list[Any],
    model: list[Any],
    s: Any,
    urls: list[str],
    actors: int,
    batch_size: int,
    writer: ScoreWriter,
    ledger: UsageLedger,
) -> dict[str, Any]:
    started = time.perf_counter()
    source = str(Path(path).resolve())
    chunks = plan_chunks(source, kind, batch_size)
    # An actor beyond the chunks has none to read: it was started anyway (a worker process,
    # its imports and its client, seconds of CPU on a small machine) and Ray Data warned
    # that its pool "only received 1 input(s)".
    pool = max(1, min(actors, len(chunks)))
    ds = ray.data.from_items(chunks, override_num_blocks=len(chunks))
    if model:  # the actors read their chunks themselves: see ray_stages
        dealer = ray.remote(Dealer).remote(urls) if len(urls) > 1 else None
        ds = ds.map_batches(
            JudgeStage,
            batch_size=1,  # one chunk a call: batch_size rows
            batch_format="pyarrow",
            fn_constructor_args=(model, s, dealer, Chunks(source, kind, sync, batch_size)),
            compute=ray.data.ActorPoolStrategy(
                size=pool,
                max_concurrent_calls_per_actor=_batches_per_actor(s),
                max_tasks_in_flight_per_actor=_batches_per_actor(s),
            ),
            num_cpus=_actor_cpus(s, actors),
        )
    else:
        ds = ds.map_batches(
            compute_stage,
            batch_size=1,  # one chunk a call; it yields its rows batch_size at a time
            batch_format="pyarrow",
            fn_kwargs={"path": source, "kind": kind, "metrics": sync, "batch_size": batch_size},
        )
    for batch in ds.iter_batches(batch_size=batch_size, batch_format="pyarrow"):
        with gc_paused():  # a batch of acyclic samples and scores: see _perf.gc_paused
            samples = [Sample.model_validate_json(t) for t in batch.column("sample").to_pylist()]
            scores = decode_scores(batch.column("scores").to_pylist(), writer.metrics)
        if "usage" in batch.column_names:
            ledger.add(batch.column("usage").to_pylist())
        writer.add(samples, scores)
    return {
        "pipeline_wall_s": round(time.perf_counter() - started, 3),
        "actors": pool if model else 0,
    }


def _progress_line(total: int, every_s: float = 10.0) -> Any:
    last = [time.monotonic()]

    def say(n: int) -> None:
        now = time.monotonic()
        if n >= total or now - last[0] >= every_s:
            last[0] = now
            print(f"ray: {n}/{total} rows", file=sys.stderr, flush=True)

    return say


def _start(ray: Any, address: str | None, plan: FilePlan, s: Any, actors: int) -> bool:
    """Connect (or start a local Ray), check the actors fit, and only then claim ``--out``
    (run.json ``running``): a usage error here (no cluster at ``auto``, too many actors)
    leaves ``--out`` as it was. Claimed first, it left a run.json marked ``running`` that
    refused the next run into that directory ("holds a run with other settings") and that
    ``compare`` read as a killed run. Whether this run started Ray (and so stops it)."""
    own = not ray.is_initialized()
    if own:
        connect(ray, address)
    try:
        _check_cpus(ray, plan.metrics, s, actors)
        plan.claim()
    except BaseException:
        if own:
            ray.shutdown()
        raise
    return own


def _check_cpus(ray: Any, chosen: Any, s: Any, actors: int) -> None:
    """The judge actors must fit the cluster, or the run would wait for ever. They are the
    run's only stage when it has model-based metrics (they do the arithmetic too)."""
    if not any(m.is_async for m in chosen):
        return
    cpus = float(ray.cluster_resources().get("CPU", 0))
    need = actors * _actor_cpus(s, actors)
    if need > cpus:
        raise ConfigError(
            f"{actors} judge actor(s) need {need:g} CPUs, and the Ray cluster has {cpus:g}: "
            "lower --actors"
        )


def _actor_cpus(s: Any, actors: int) -> float:
    """CPUs reserved per judge actor. A local model computes: one CPU (its threads). A client
    of a remote judge mostly waits on HTTP: a quarter, so that 4 actors share a core."""
    if s.judge_kind in ("local", "gguf"):
        return 1.0
    return 0.25


def _batches_per_actor(s: Any) -> int:
    """Batches an actor scores at once. A client of a remote judge takes two: the next
    batch's calls fill the slots the last calls of the previous one leave idle, and Ray's
    hand-over of batches (serialising them, the actor task) is hidden behind the calls. Both
    share the actor's session, so its judge concurrency stays as set. A local model takes
    one: it computes one prompt at a time anyway, and one batch's prompts in order keep its
    KV-cache prefix reuse.

    It is also the number of batches an actor is handed at a time: Ray Data's default (twice
    as many) queues batches behind busy actors while another actor is idle. Every chunk is
    ready from the start (the actors read them), so the first actor up took four and the
    last ones were left with none (a 2,000-row run used 2 of its 4 actors); and at the end
    an actor's queued batch waited for it while the others had finished."""
    return 1 if s.judge_kind in ("local", "gguf") else 2
