"""``executor="stream"``: one process, the input read batch by batch, scores written as they
come, memory bounded by the batch size (not the input size).

The same stages as a local run (validate -> plan -> score -> aggregate -> write), each on a
batch: a first pass validates the whole file (bad input fails before any judge call) and
counts which fields its rows have, so the plan is made on every row (the metrics a local run
of the same file would choose); the model-based metrics share one ModelSession (a
local model is loaded once). Scores are identical to a local run's on the same input: the same
metric code runs on the same samples, batch boundaries change nothing a metric sees.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
import time
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ragmeter.config import as_settings
from ragmeter.errors import ConfigError, DataError, Problem, RunAborted
from ragmeter.executors.common import check_single_url, plan_file_run, run_config
from ragmeter.executors.session import ModelSession
from ragmeter.executors.source import iter_batches
from ragmeter.executors.streamed import ScoreWriter, StreamedResult, finish_result
from ragmeter.manifest import build_manifest, crash_recorded, file_facts, write_manifest
from ragmeter.redact import public_text
from ragmeter.scheduler import compute_all


async def astream_evaluate(
    path: str | Path,
    metrics: Sequence[str] | str | None = None,
    *,
    out: str | Path | None = None,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    settings: Any = None,
    overwrite: bool = False,
    batch_size: int = 10_000,
    progress: bool = False,
    gated: Collection[str] = (),
    format: str | None = None,
) -> StreamedResult:
    """Score a JSONL or Parquet file batch by batch; see the module docstring. ``format``
    (``jsonl`` or ``parquet``): how to read the file whatever its name, as ``load`` reads it."""
    started = time.perf_counter()
    started_at = datetime.now(UTC)
    if batch_size < 1:
        raise ConfigError(f"batch_size must be at least 1, not {batch_size}")
    s = as_settings(settings)
    check_single_url(s)
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
        format=format,
    )
    chosen, notes, n_rows, out_dir = plan.metrics, plan.notes, plan.n_rows, plan.out_dir
    facts: dict[str, Any] = {}
    input_ = plan.input_

    def manifest(status: str, usage: dict[str, Any]) -> dict[str, Any]:
        return build_manifest(
            status=status,
            fp=plan.fp,
            metrics=chosen,
            settings=s,
            input_=input_,
            facts=facts,
            usage=usage,
            started_at=started_at,
            wall_s=time.perf_counter() - started,
        )

    sync = [m for m in chosen if not m.is_async]
    model = [m for m in chosen if m.is_async]
    # a crash past the claim: run.json says so; SIGTERM stops the run as Ctrl-C does
    with crash_recorded(out_dir, manifest), term_cancels() as terminated:
        writer = ScoreWriter(out_dir, [m.name for m in chosen])
        session = ModelSession(model, s) if model else None
        usage: dict[str, Any] = {}
        try:
            if session is not None:
                await session.open()
                facts.update(session.facts)
            for batch in iter_batches(path, batch_size, format):
                # Ctrl-C and SIGTERM cancel this task, felt at an await only: a run of
                # arithmetic metrics awaits nothing, went on to the end, then said
                # "interrupted" (exit 130) beside a run.json saying complete.
                await asyncio.sleep(0)
                if writer.n_samples + len(batch) > n_rows:  # appended to: not judged
                    raise input_changed(path, f"it holds more than the {n_rows} rows validated")
                scores = compute_all(sync, batch)
                if session is not None:
                    scores.update(await session.score(batch))
                writer.add(batch, scores)
                if progress:
                    print(f"stream: {writer.n_samples}/{n_rows} rows", file=sys.stderr, flush=True)
            await scoring_ends(path, writer.n_samples, input_, terminated)
            if session is not None:
                usage = session.usage()
        except RunAborted as exc:
            writer.abandon()
            # secrets masked, as a crash's
            aborted = {**manifest("aborted", {}), "error": public_text(str(exc))}
            with suppress(OSError):  # a full disk (ScoreWriter): the abort is said all the same
                write_manifest(out_dir, aborted)
            exc.args = (f"{exc}. Rows scored so far are in {out_dir}/scores.jsonl.partial.",)
            raise
        except (asyncio.CancelledError, KeyboardInterrupt):  # Ctrl-C: record where it got to
            writer.abandon()
            said = interrupted_said(writer.n_samples, n_rows, out_dir, s.cache, bool(model))
            write_manifest(out_dir, {**manifest("interrupted", {}), "error": said})
            if (
                terminated.received
            ):  # a bare CancelledError is no interruption to asyncio.run's caller
                raise KeyboardInterrupt(said) from None
            raise
        except BaseException:
            writer.abandon()
            raise
        finally:
            if session is not None:
                await session.close()
        usage["wall_s"] = round(time.perf_counter() - started, 3)
        config = run_config(chosen, s, n_resamples, confidence, seed, "stream")
        result = finish_result(
            writer,
            chosen,
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
            notes=notes,
            usage=usage,
            config=config,
            manifest=manifest("complete", usage),
        )
        result.write()
    return result


@dataclass
class Term:
    """What ``term_cancels`` saw: ``received`` a SIGTERM; ``scoring``: one cancels the run
    (cleared once the rows are scored: the run is then finished, not cut short)."""

    received: bool = False
    scoring: bool = True


@contextmanager
def term_cancels() -> Iterator[Term]:
    """While the rows are scored, SIGTERM cancels the run as Ctrl-C does (run.json
    ``interrupted``, the line saying where it got to, exit 130); once they all are, the run
    finishes (aggregates, files) and ends as complete.

    Why: ``timeout``, systemd, ``docker stop`` and a cancelled CI job send SIGTERM, whose
    default ends the process at once: run.json said ``running`` for ever and nothing was
    said. Only where SIGTERM has its default action and this is the main thread (an
    application's own handler is left alone); restored to the default afterwards."""
    got = Term()
    loop, task = asyncio.get_running_loop(), asyncio.current_task()
    ours = (
        task is not None
        and threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    )
    if ours:
        assert task is not None

        def on_term() -> None:
            got.received = True
            if got.scoring:
                task.cancel()

        try:
            loop.add_signal_handler(signal.SIGTERM, on_term)
        except (NotImplementedError, RuntimeError, ValueError):  # Windows: the default stays
            ours = False
    try:
        yield got
    finally:
        if ours:
            loop.remove_signal_handler(signal.SIGTERM)


def interrupted_said(done: int, n_rows: int, out_dir: Path, cache: str | None, judged: bool) -> str:
    """The line an interrupted run prints and leaves in run.json: where it got to. A run of
    arithmetic metrics (``judged`` False) was told its judged calls were kept in a cache it
    never opened."""
    if not judged:
        kept = "nothing is judged: re-run the same command to score them again"
    else:
        where = f"kept in {cache}" if cache else "not kept (the cache is off)"
        kept = f"judged calls {where}; re-run the same command to resume"
    return f"interrupted: {done} of {n_rows} rows written to {out_dir}/scores.jsonl.partial, {kept}"


async def scoring_ends(path: str | Path, n_read: int, input_: dict[str, Any], term: Term) -> None:
    """Every row is scored: the input is checked unchanged (``check_unchanged``), a Ctrl-C
    or SIGTERM during the last batch is felt (this await), and from here on a SIGTERM
    lets the run finish, as its files are being written."""
    check_unchanged(path, n_read, input_)
    await asyncio.sleep(0)
    term.scoring = False


def check_unchanged(path: str | Path, n_read: int, input_: dict[str, Any]) -> None:
    """A DataError (``input_changed``) unless the scoring pass read the rows validated and
    the file's bytes are still those hashed then (an edited row keeps the count)."""
    n_rows = input_["rows"]
    if n_read < n_rows:
        raise input_changed(path, f"{n_read} of the {n_rows} rows validated read")
    if file_facts(path, n_rows) != input_:
        raise input_changed(path, "its bytes differ from the validated ones (sha256)")


def input_changed(path: str | Path, how: str) -> DataError:
    """The input file was written to between the validation pass and the end of scoring.

    Why: the file is read twice (validated, then scored). Rows appended meanwhile (a log still
    being written) were scored unvalidated, duplicate ids and all, and the run ended
    ``complete`` with a run.json naming the file's old sha256 and row count beside a
    scores.jsonl of other rows; an edited row was scored as edited under the old hash.
    """
    said = (
        f"the file changed while it was being scored ({how}): its scores would be of neither "
        "version. Scores so far are in scores.jsonl.partial; once the file no longer "
        "changes, re-run with --overwrite (judged calls already answered are cached)"
    )
    return DataError([Problem(None, None, said)], str(path))
