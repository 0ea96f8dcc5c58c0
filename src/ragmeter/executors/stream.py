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
import sys
import time
from collections.abc import Collection, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ragmeter.config import as_settings
from ragmeter.errors import ConfigError, RunAborted
from ragmeter.executors.common import check_single_url, plan_file_run, run_config
from ragmeter.executors.session import ModelSession
from ragmeter.executors.source import iter_batches
from ragmeter.executors.streamed import ScoreWriter, StreamedResult, finish_result
from ragmeter.manifest import build_manifest, crash_recorded, write_manifest
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
) -> StreamedResult:
    """Score a JSONL or Parquet file batch by batch; see the module docstring."""
    started = time.perf_counter()
    started_at = datetime.now(timezone.utc)
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
    with crash_recorded(out_dir, manifest):  # a crash past the claim: run.json says so
        writer = ScoreWriter(out_dir, [m.name for m in chosen])
        session = ModelSession(model, s) if model else None
        usage: dict[str, Any] = {}
        try:
            if session is not None:
                await session.open()
                facts.update(session.facts)
            for batch in iter_batches(path, batch_size):
                scores = compute_all(sync, batch)
                if session is not None:
                    scores.update(await session.score(batch))
                writer.add(batch, scores)
                if progress:
                    print(f"stream: {writer.n_samples}/{n_rows} rows", file=sys.stderr, flush=True)
            if session is not None:
                usage = session.usage()
        except RunAborted as exc:
            writer.abandon()
            aborted = manifest("aborted", {})
            aborted["error"] = public_text(str(exc))  # as a crash's: secrets masked
            write_manifest(out_dir, aborted)
            exc.args = (f"{exc}. Rows scored so far are in {out_dir}/scores.jsonl.partial.",)
            raise
        except (asyncio.CancelledError, KeyboardInterrupt):  # Ctrl-C: record where it got to
            writer.abandon()
            kept = f"kept in {s.cache}; " if s.cache else "not kept (the cache is off); "
            said = (
                f"interrupted: {writer.n_samples} of {n_rows} rows written to "
                f"{out_dir}/scores.jsonl.partial, judged calls {kept}re-run the same command "
                "to resume"
            )
            write_manifest(out_dir, {**manifest("interrupted", {}), "error": said})
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
