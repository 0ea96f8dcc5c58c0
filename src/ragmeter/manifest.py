"""run.json: what a run was, so its scores can be read without the command that made them.

The manifest records ragmeter's version, each metric with its definition version, mode and
prompt files (version and sha256), the judge (model, weights' sha256 for local files, public
base URL, sampling settings, the structured-output mode in use), the embedder, the input
file's sha256 and row count, timings, calls and tokens. No key ever: URLs pass through
``public_url`` and the settings through ``Settings.public_dict``.
It also guards ``--out``: ``prepare_out`` runs before any work, refuses a path that is a
file or cannot be written, or a directory holding a run of other settings or input
(``overwrite=True`` replaces it). A matching run there is a resume: the cache answers it.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ragmeter.config import Settings
from ragmeter.errors import DataError, OutputError, RunAborted
from ragmeter.io import stat_problem, write_json
from ragmeter.metrics.base import Metric
from ragmeter.out_lock import lock_out, release_out
from ragmeter.prompts import load_prompts, prompt_file_sha256
from ragmeter.redact import public_text
from ragmeter.sample import Sample

MANIFEST = "run.json"
SCHEMA = "ragmeter.run/1"
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
    """Each metric: name, definition version, mode, and its prompt files (version, sha256)."""
    modes = dict(options.get("modes") or {})
    out = []
    for m in metrics:
        mode = m.mode_in(modes, options.get("mode"))
        out.append(
            {
                "name": m.name,
                "version": m.version,
                "mode": mode,
                "direction": m.direction,  # compare's, for a metric not registered there
                "needs": sorted(m.needs_in(mode)),
                "uses": sorted(m.uses_in(mode)),
                "prompts": {
                    f"{family}.json": {
                        "version": load_prompts(family)["version"],
                        "sha256": prompt_file_sha256(family),
                    }
                    for family in m.prompts
                },
            }
        )
    return out


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
        "metrics": [
            {"name": e["name"], "version": e["version"], "mode": e["mode"]}
            for e in metric_entries(metrics, settings.metric_options())
        ],
        "settings": {k: public.get(k) for k in _SETTINGS_KEYS},
        "n_resamples": n_resamples,
        "confidence": confidence,
        "bootstrap_seed": seed,
    }


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


def _differences(old: Mapping[str, Any], new: Mapping[str, Any], prefix: str = "") -> list[str]:
    diffs = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            diffs += _differences(a, b, f"{prefix}{key}.")
        elif a != b:
            diffs.append(f"{prefix}{key}: {json.dumps(a)} there, {json.dumps(b)} now")
    return diffs


def _input_differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """What tells two inputs apart: the sha256 of the file's bytes (or of the validated rows
    for in-memory data); the file names are shown beside it. The same bytes under another
    name or path are the same input: a data file moved or renamed still resumes its run.
    Hashes are shortened to 12 hex digits."""
    diffs = []
    for key in ("sha256", "rows_sha256"):
        a, b = old.get(key), new.get(key)
        if a != b:
            a, b = (x[:12] if isinstance(x, str) else x for x in (a, b))
            diffs.append(f"input.{key}: {json.dumps(a)} there, {json.dumps(b)} now")
    if diffs and old.get("file") != new.get("file"):
        names = (json.dumps(old.get("file")), json.dumps(new.get("file")))
        diffs.insert(0, f"input.file: {names[0]} there, {names[1]} now")
    return diffs


def _claimed(manifest: Path) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The fingerprint and input of the run.json there; None when it cannot be read."""
    try:
        doc = json.loads(manifest.read_text(encoding="utf-8"))
        old_fp, old_input = doc.get("fingerprint") or {}, doc.get("input") or {}
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(old_fp, dict) or not isinstance(old_input, dict):
        return None
    return old_fp, old_input


def prepare_out(
    out: str | Path,
    fp: Mapping[str, Any],
    *,
    overwrite: bool = False,
    input_: Mapping[str, Any] | None = None,
    data: Any = None,
) -> Path:
    """Check ``out`` before any work and claim it with a run.json marked ``running``.

    Raises OutputError when ``out`` is a file, cannot be created or written, or holds a run
    whose settings or input (``input_``: file name and sha256, see ``input_facts``) differ,
    unless ``overwrite``: a resume must score the same rows, or scores.jsonl would silently
    hold another dataset's run. A run.json recording no input (older versions) is not
    checked against it. ``data``: the input, when a path (``_not_the_input``).
    """
    if not isinstance(out, (str, os.PathLike)) or not str(out).strip():
        # a number was pathlib's TypeError; "" is ".": the run was written into the cwd
        raise OutputError(f"out takes a directory path (str or pathlib.Path), not {out!r}")
    path = _not_the_input(_not_a_file(out), data)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(
            f"--out {path} cannot be created ({exc.strerror or exc}): give a writable directory"
        ) from None
    lock_out(path)  # a run writing there now refuses this one (out_lock), --overwrite or not
    try:
        if not overwrite:
            _check_claimed(path, fp, input_)
        marker: dict[str, Any] = {"schema": SCHEMA, "status": "running", "fingerprint": dict(fp)}
        if input_ is not None:
            marker["input"] = dict(input_)
        write_json(marker, path / MANIFEST)
    except OSError as exc:
        release_out(path)
        raise OutputError(
            f"--out {path} is not writable ({exc.strerror or exc}): give a writable directory"
        ) from None
    except BaseException:  # refused (another run's settings or input): nothing claimed
        release_out(path)
        raise
    return path


def check_out(
    out: str | Path,
    fp: Mapping[str, Any],
    *,
    overwrite: bool = False,
    input_: Mapping[str, Any] | None = None,
    data: Any = None,
) -> None:
    """``prepare_out``'s refusals, read only: for a dry run, which must refuse what the run
    would (a file in the way, the input itself, a directory that cannot be made, a run of
    other settings or input) and create, claim or change nothing."""
    path = _not_the_input(_not_a_file(out), data)
    if path.is_dir():
        if not overwrite:
            _check_claimed(path, fp, input_)
        return
    parent = next(p for p in path.absolute().parents if p.exists())
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(
            f"--out {path} cannot be created ({parent} is not a writable directory): give a "
            "writable directory"
        )


def _not_a_file(out: str | Path) -> Path:
    path = Path(out).expanduser()
    if said := stat_problem(path):  # a 256-byte name: an error naming it, not a traceback
        raise OutputError(f"--out {path} cannot be created ({said})")
    if path.exists() and not path.is_dir():
        raise OutputError(
            f"--out {path} exists and is a file: give a directory (scores.jsonl, "
            "summary.json and run.json are written into it)"
        )
    return path


OUTPUTS = ("scores.jsonl", "summary.json", MANIFEST)  # what a run writes into --out


def _not_the_input(path: Path, data: Any) -> Path:
    """``path`` unless a file a run writes there is the input file ``data`` itself.

    Why: ``evaluate runs/x/scores.jsonl -o runs/x`` (re-scoring a run's rows in place) or
    ``evaluate data/scores.jsonl -o data`` read the input and then replaced it with the
    scores, and the user's data was gone; ``--overwrite`` replaces a run, never the input,
    so it is refused with or without it."""
    if not isinstance(data, (str, os.PathLike)):
        return path
    for name in OUTPUTS:
        try:
            same = os.path.samefile(path / name, data)
        except OSError:  # not there (yet): nothing to replace
            continue
        if same:
            raise OutputError(
                f"--out {path} would replace the input {data}: {name} is written there; "
                "give another directory (or copy or rename the input first)"
            )
    return path


def _check_claimed(path: Path, fp: Mapping[str, Any], input_: Mapping[str, Any] | None) -> None:
    """OutputError when ``path`` holds a run.json of other settings or input (or unreadable)."""
    manifest = path / MANIFEST
    if not manifest.is_file():
        return
    claimed = _claimed(manifest)
    if claimed is None:
        diffs, what = ["run.json is unreadable"], "settings"
    else:
        diffs = _differences(claimed[0], dict(fp))
        inputs = _input_differences(claimed[1], input_) if input_ and claimed[1] else []
        what = " and ".join(w for w, d in (("input", inputs), ("settings", diffs)) if d)
        diffs = inputs + diffs
    if diffs:
        raise OutputError(
            f"--out {path} holds a run with other {what} ({'; '.join(diffs[:3])}"
            f"{'; ...' if len(diffs) > 3 else ''}): re-run with --overwrite to replace it "
            "(API: overwrite=True), or choose another --out"
        )


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
        "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
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
