"""The ``--out`` guard: ``prepare_out`` runs before any work and claims the directory;
``check_out`` makes the same refusals read only (a dry run).

Refused: a path that is a file, a symbolic link to nothing, the input itself, a directory
that cannot be created or written, one holding a run of other settings or input, and one
holding files a run writes (scores.jsonl, summary.json, scores.jsonl.partial) that no
run.json there claims. ``overwrite=True`` replaces a run or such files (never the input):
they are removed when run.json ``running`` claims the directory, before any scoring. A
matching run is a resume: the cache answers it. Moved out of ``manifest`` (which re-exports
it) to keep each module to one job and 400 lines.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ragmeter.errors import OutputError
from ragmeter.io import stat_problem, write_json
from ragmeter.out_lock import lock_out, release_out

MANIFEST = "run.json"
SCHEMA = "ragmeter.run/1"
OUTPUTS = ("scores.jsonl", "summary.json", MANIFEST)  # what a run writes into --out
# What a run replaces in --out besides run.json: the stream and Ray executors write
# scores.jsonl.partial batch by batch, then rename it to scores.jsonl.
WRITTEN = ("scores.jsonl", "summary.json", "scores.jsonl.partial")


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


def _claimed(manifest: Path) -> tuple[dict[str, Any], dict[str, Any]] | str | None:
    """The fingerprint and input of the run.json there; None when it cannot be read; the
    reason it is no run this version can resume when it is not one (``_foreign``)."""
    try:
        doc = json.loads(manifest.read_text(encoding="utf-8"))
        if said := _foreign(doc):
            return said
        old_fp, old_input = doc.get("fingerprint") or {}, doc.get("input") or {}
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(old_fp, dict) or not isinstance(old_input, dict):
        return None
    return old_fp, old_input


def _foreign(doc: Any) -> str | None:
    """Why the run.json ``doc`` is no run of this version, or None.

    Why: a run.json of another tool (a common name) was refused as "a run with other settings
    (bootstrap_seed: null there, ...)", every setting listed as missing; one of a newer
    ragmeter was the same, or, with a matching fingerprint, resumed and rewritten in the old
    schema. Every run.json ragmeter writes says ``"schema": "ragmeter.run/1"``."""
    schema = doc.get("schema") if isinstance(doc, dict) else None
    if schema == SCHEMA:
        return None
    if isinstance(schema, str) and schema.startswith("ragmeter.run/"):
        return (
            f"a run.json of another ragmeter version (schema {json.dumps(schema)}; this "
            f"version reads {SCHEMA}): resume it with that version"
        )
    return 'a run.json ragmeter did not write (no "schema": "ragmeter.run/1" in it)'


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
    hold another dataset's run. With ``overwrite`` the replaced run's result files are
    removed once claimed (``_clear_replaced``). A run.json recording no input (older
    versions) is not checked against it. ``data``: the input, when a path (``_not_the_input``).
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
        _no_directory_in_the_way(path)
        marker: dict[str, Any] = {"schema": SCHEMA, "status": "running", "fingerprint": dict(fp)}
        if input_ is not None:
            marker["input"] = dict(input_)
        write_json(marker, path / MANIFEST)
        if overwrite:
            _clear_replaced(path)
    except OSError as exc:
        release_out(path)
        raise OutputError(
            f"--out {path} is not writable ({exc.strerror or exc}): give a writable directory"
        ) from None
    except BaseException:  # refused (another run's settings or input): nothing claimed
        release_out(path)
        raise
    return path


def _no_directory_in_the_way(path: Path) -> None:
    """OutputError when a file a run writes (``WRITTEN``) is a directory there, before the
    claim: it could be neither replaced nor written, and the run would fail at its end."""
    for name in WRITTEN:
        if (path / name).is_dir() and not (path / name).is_symlink():
            raise OutputError(
                f"--out {path} holds a directory named {name}, where a run writes that file: "
                "move it, or choose another --out"
            )


def _clear_replaced(path: Path) -> None:
    """Remove the replaced run's result files (``WRITTEN``) once run.json says ``running``.

    Why: ``--overwrite`` left the old run's summary.json and scores.jsonl beside the new
    run.json until the new run wrote its own; read half-way (a CI step, ``compare``,
    ``load_run``), or after the new run crashed or was stopped, DIR showed the old scores as
    this run's, and a stale scores.jsonl.partial was named as the rows this run scored. Now a
    run that does not finish leaves a run.json saying so and no numbers. Only these names go
    (a symbolic link is removed, not what it points to); any other file is left."""
    for name in WRITTEN:
        if os.path.lexists(path / name):
            (path / name).unlink()


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
    if link := _dangling_link(path):
        raise OutputError(
            f"--out {path} cannot be created: {link[0]} is a symbolic link to {link[1]}, which "
            "does not exist (or is a loop of links); create it, remove the link, or give "
            "another --out"
        )
    if said := stat_problem(path):  # a 256-byte name: an error naming it, not a traceback
        raise OutputError(f"--out {path} cannot be created ({said})")
    if path.exists() and not path.is_dir():
        raise OutputError(
            f"--out {path} exists and is a file: give a directory (scores.jsonl, "
            "summary.json and run.json are written into it)"
        )
    return path


def _dangling_link(path: Path) -> tuple[Path, str] | None:
    """The first of ``path`` and its parents that is a symbolic link to nothing (or a loop),
    with its target as written. Why: ``mkdir`` said only ``cannot be created (File exists)``
    of it, naming neither the link nor where it points."""
    for link in (path, *path.parents):
        try:
            if link.is_symlink() and not link.exists():  # exists() is False for a loop too
                return link, os.readlink(link)
        except OSError:  # a name that cannot be looked up: stat_problem says why
            return None
    return None


def _not_the_input(path: Path, data: Any) -> Path:
    """``path`` unless a file a run writes there is the input file ``data`` itself.

    Why: ``evaluate runs/x/scores.jsonl -o runs/x`` (re-scoring a run's rows in place) or
    ``evaluate data/scores.jsonl -o data`` read the input and then replaced it with the
    scores, and the user's data was gone; ``--overwrite`` replaces a run, never the input,
    so it is refused with or without it."""
    if not isinstance(data, (str, os.PathLike)):
        return path
    for name in (*OUTPUTS, *WRITTEN):
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
        _none_unclaimed(path)
        return
    claimed = _claimed(manifest)
    if isinstance(claimed, str):
        raise OutputError(
            f"--out {path} holds {claimed}; re-run with --overwrite to replace it (API: "
            "overwrite=True), or choose another --out"
        )
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


def _none_unclaimed(path: Path) -> None:
    """OutputError when ``path``, holding no run.json, holds a file a run would replace
    (``WRITTEN``); any other file (a README, the user's own data) is left beside the run.

    Why: ``evaluate data.jsonl -o DIR`` silently replaced a ``summary.json`` or
    ``scores.jsonl`` of the user's own there. Every run claims its directory with run.json
    before it writes anything else (``prepare_out``), so such files are not a run's to
    resume: a crashed or interrupted run left run.json beside its scores.jsonl.partial.
    Directories written before run.json existed (early 0.1.0 development builds, scores.jsonl
    and summary.json only) are refused too: ``--overwrite`` replaces them."""
    found = [name for name in WRITTEN if os.path.lexists(path / name)]
    if found:
        them = "it" if len(found) == 1 else "them"
        raise OutputError(
            f"--out {path} holds {', '.join(found)} but no run.json: not a ragmeter run to "
            f"resume, and a run would replace {them}; re-run with --overwrite to replace "
            f"{them} (API: overwrite=True), or choose another --out"
        )
