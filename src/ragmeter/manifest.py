"""run.json: what a run was, so its scores can be read without the command that made them.

The manifest records ragmeter's version, each metric with its definition version, mode and
prompt files (version and sha256), the judge (model, weights' sha256 for local files, public
base URL, sampling settings, the structured-output mode in use), the embedder, the input
file's sha256 and row count, timings, calls and tokens. No key ever: URLs pass through
``public_url`` and the settings through ``Settings.public_dict``.
The guard of ``--out`` (``prepare_out``, ``check_out``) is ``out_dir``'s, re-exported here.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ragmeter.config import Settings
from ragmeter.errors import DataError, RunAborted
from ragmeter.io import write_json
from ragmeter.metric_options import read_calibration_file
from ragmeter.metrics.base import Metric
from ragmeter.metrics.registry import code_of, options_of, timeout_of
from ragmeter.out_dir import MANIFEST as MANIFEST  # re-exported: where they were defined
from ragmeter.out_dir import OUTPUTS as OUTPUTS
from ragmeter.out_dir import SCHEMA as SCHEMA
from ragmeter.out_dir import check_out as check_out
from ragmeter.out_dir import prepare_out as prepare_out
from ragmeter.out_lock import release_out
from ragmeter.plugins import loaded, origin_of
from ragmeter.prompts import load_prompts, prompt_file_sha256
from ragmeter.redact import public_text
from ragmeter.sample import Sample

# What must match for a run to resume into an output directory already holding one.
_SETTINGS_KEYS = (
    "judge",
    "base_url",
    "embedder",
    "embedder_base_url",
    "temperature",
    "seed",
    "structured_mode",
    "n_ctx",
    "modes",
    "options",
)


def ragmeter_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ragmeter")
    except PackageNotFoundError:  # running from a source tree
        return "unknown"


def metric_entries(metrics: Sequence[Metric], options: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each metric: name, definition version, mode, and its prompt files (version, sha256);
    a user's metric registered with a ``timeout`` also ``timeout_s`` (absent otherwise, so
    other runs' entries are unchanged): a limit turns slow samples into failed ones, so two
    runs that differ in it must not look alike. A metric a plugin registered (``--plugin``)
    also ``plugin``: its name as given, so a reader of the run knows what defined it. A
    user's metric whose functions have source also ``code_sha256`` (``metrics._code_digest``):
    compare and resume tell its code changed when its author did not bump its version."""
    modes = dict(options.get("modes") or {})
    out = []
    for m in metrics:
        mode = m.mode_in(modes, options.get("mode"))
        entry: dict[str, Any] = {
            "name": m.name,
            "version": m.version,
            "mode": mode,
            "direction": m.direction,  # compare's, for a metric not registered there
            "needs": sorted(m.needs_in(mode)),
            "uses": sorted(m.uses_in(mode)),
            "prompts": {f"{family}.json": _prompt_entry(family, options) for family in m.prompts},
        }
        if (limit := timeout_of(m.name)) is not None:
            entry["timeout_s"] = limit
        if (code := code_of(m.name)) is not None:  # a user's metric: compare says if it moved
            entry["code_sha256"] = code
        if declared := options_of(m.name):  # its options' defaults: settings leave them out
            entry["options"] = declared
        if (plugin := origin_of(m.name)) is not None:  # what defined it, for a later compare
            entry["plugin"] = plugin.name
        out.append(entry)
    return out


def _prompt_entry(family: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """A prompt family's version and sha256; the user's calibration file in place of the
    package's when ``options.faithfulness_calibration`` names one (and its ``path``, as
    given), so run.json and compare say which calibration the scores were combined by. A
    file unreadable by now (deleted during the run) is recorded with its ``error``: the
    manifest of a finished run is still written."""
    user = options.get("faithfulness_calibration")
    if family != "faithfulness_calibration" or not user:
        return {"version": load_prompts(family)["version"], "sha256": prompt_file_sha256(family)}
    try:
        doc, sha256 = read_calibration_file(str(user))
    except ValueError as exc:
        return {"version": None, "sha256": None, "path": str(user), "error": str(exc)}
    return {"version": doc["version"], "sha256": sha256, "path": str(user)}


def fingerprint(
    metrics: Sequence[Metric],
    settings: Settings,
    *,
    n_resamples: int,
    confidence: float,
    seed: int,
) -> dict[str, Any]:
    """The settings that make two runs the same run (compared on resume)."""
    public = settings.public_dict()
    return {
        "metrics": [  # a user's metric's code too: a resume must not mix two definitions
            {k: e[k] for k in ("name", "version", "mode", "code_sha256", "options") if k in e}
            | _user_calibration(e)
            for e in metric_entries(metrics, settings.metric_options())
        ],
        "settings": {k: public.get(k) for k in _SETTINGS_KEYS},
        "n_resamples": n_resamples,
        "confidence": confidence,
        "bootstrap_seed": seed,
    }


def _user_calibration(entry: Mapping[str, Any]) -> dict[str, Any]:
    """``calibration_sha256`` of a metric combining by the user's calibration file, else
    nothing (every other run's fingerprint unchanged). Why: options hold only the file's
    path, so a file refitted in place resumed into, and compared equal to, the old run."""
    cal = (entry.get("prompts") or {}).get("faithfulness_calibration.json") or {}
    return {"calibration_sha256": cal.get("sha256")} if "path" in cal else {}


def input_facts(data: Any, samples: Sequence[Sample]) -> dict[str, Any]:
    """The input: file name and sha256 of its bytes, or sha256 of the validated rows."""
    if isinstance(data, (str, os.PathLike)):
        return file_facts(data, len(samples))
    # pydantic's own JSON encoder (fields in schema order), one row per line: a third of the
    # cost of json.dumps(model_dump()), which took a seventh of a lexical run's time.
    h = hashlib.sha256()
    update = h.update
    for s in samples:
        update(s.model_dump_json().encode())
        update(b"\n")
    return {"file": None, "rows_sha256": h.hexdigest(), "rows": len(samples)}


def file_facts(path: str | os.PathLike[str], rows: int) -> dict[str, Any]:
    """A file input: its name, the sha256 of its bytes (read in 1 MiB blocks), its rows."""
    path, h = Path(path), hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return {"file": path.name, "sha256": h.hexdigest(), "rows": rows}


def build_manifest(
    *,
    status: str,
    fp: Mapping[str, Any],
    metrics: Sequence[Metric],
    settings: Settings,
    input_: Mapping[str, Any],
    facts: Mapping[str, Any],
    usage: Mapping[str, Any],
    started_at: datetime,
    wall_s: float,
) -> dict[str, Any]:
    """The whole manifest of a finished run, or of one aborted, interrupted (Ctrl-C) or
    crashed (``crash_recorded``): a resume compares only the fingerprint and input, so it
    accepts any status."""
    keep = ("calls", "cache_hits", "prompt_tokens", "completion_tokens", "judge_tokens")
    return {
        "schema": SCHEMA,
        "status": status,
        "ragmeter_version": ragmeter_version(),
        "python": platform.python_version(),
        "started_at": started_at.isoformat(timespec="seconds"),
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "wall_s": round(wall_s, 3),
        "input": dict(input_),
        "metrics": metric_entries(metrics, settings.metric_options()),
        "judge": facts.get("judge"),
        "embedder": facts.get("embedder"),
        "structured_output": (facts.get("judge") or {}).get("structured_output"),
        "seed": settings.seed,
        "settings": settings.public_dict(),
        "usage": {k: usage.get(k) for k in keep if k in usage},
        "fingerprint": dict(fp),
        # absent without plugins: the run.json of every other run is unchanged
        **({"plugins": [p.record() for p in plugins]} if (plugins := loaded()) else {}),
    }


def write_manifest(out: str | Path, manifest: Mapping[str, Any]) -> Path:
    write_json(dict(manifest), path := Path(out) / MANIFEST)
    return path


def crash_error(exc: BaseException) -> str:
    """``<ExceptionType>: <message>`` for run.json's ``error``: the message's first line,
    secrets masked (``public_text``: registered keys, key-looking tokens, URL credentials and
    queries) before it is cut to 1,000 characters (cut first, a key could lose the part that
    is matched)."""
    lines = str(exc).strip().splitlines()
    if isinstance(exc, DataError) and exc.problems:  # its first line only counts problems
        lines = [f"{lines[0]}: {exc.problems[0]}"]
    text = f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
    return public_text(text)[:1000]


@contextmanager
def crash_recorded(
    out: str | Path | None, manifest: Callable[[str, dict[str, Any]], dict[str, Any]]
) -> Iterator[None]:
    """Around the part of a run after ``--out`` was claimed (run.json ``running``): an
    exception that ends it, other than an abort (``RunAborted``: the executor writes
    ``aborted``) or Ctrl-C (KeyboardInterrupt, CancelledError: ``interrupted``), writes
    run.json ``crashed`` with ``error`` (``crash_error``), then propagates unchanged.

    Why: a bug in a metric, a disk error writing scores or a MemoryError left run.json
    ``running`` for ever: ``compare`` said "still running, or was killed", a resume could
    not tell a crash from a live run, and the error was on no disk. What the executor keeps
    on an abort (the cache, scores.jsonl.partial) is kept here too: the executor's own
    handlers run first. ``manifest``: the executor's ``build_manifest`` for a status and a
    usage; when it or the write fails (disk full), the original exception still propagates."""
    try:
        yield
    except RunAborted:
        raise
    except Exception as exc:
        if out is not None:
            with suppress(Exception):  # the run's own error is the one to raise
                write_manifest(out, {**manifest("crashed", {}), "error": crash_error(exc)})
        raise
    except BaseException:  # Ctrl-C where no executor handler caught it (a second one, late)
        if out is not None and _recorded(out).get("status") == "running":  # not "complete"
            said = "interrupted: re-run the same command (what the cache kept is not asked again)"
            with suppress(Exception):
                write_manifest(out, {**manifest("interrupted", {}), "error": said})
        raise
    finally:
        if out is not None:
            release_out(out)  # the claim's lock (prepare_out): the next run may start


def interrupted_line(out: str | Path | None) -> str | None:
    """The line an interrupted run left in its run.json (``error`` when ``status`` is
    ``interrupted``), or None: how a streamed run tells the CLI where it got to."""
    doc = _recorded(out) if out is not None else {}
    said = doc.get("error") if doc.get("status") == "interrupted" else None
    return said if isinstance(said, str) else None


def _recorded(out: str | Path) -> dict[str, Any]:
    """run.json in ``out`` as read; {} when there is none or it cannot be read."""
    try:
        doc = json.loads((Path(out) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}
