"""What both meta-eval runs share (pairwise ``_api.run`` and the labels' ``_labels_api``):
the ``--out`` check, names given as a string or a list, the lines a run cut short ends
with, and the time profile.

Why a module of its own: ``_api.run`` hands ``dataset="labels"`` to ``_labels_api``, which
needs these; kept in ``_api`` they made an import cycle.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragmeter.config import Settings
from ragmeter.errors import OutputError


def check_out(out: str | Path, data: str | Path | None = None) -> Path:
    """The JSON file ``--out`` names, checked before any work (as ``report`` checks its
    HTML file): finding after an hour of judge calls that it cannot be written lost them.

    A directory, or a path ending in a separator, is refused rather than given a file name
    of our choosing: the command then writes exactly the file the user named. Writability
    is probed with a temporary file in the nearest existing directory (a permission check
    alone is wrong for root and for /proc-like file systems). OutputError says why.

    ``data``, the dataset file read, is refused as ``--out``: the JSON was written over it
    (``-o wikieval.jsonl``), and the human labels were gone, as evaluate refuses an --out
    holding its input.
    """
    text = str(out)
    path = Path(out).expanduser()
    source = Path(data).expanduser() if data is not None else None
    if source is not None and path.exists() and source.exists() and path.samefile(source):
        raise OutputError(
            f"--out {text} is the dataset file read (--data {data}): give another file"
        )
    if path.is_dir() or text.endswith(("/", os.sep)):
        raise OutputError(
            f"--out {text} is a directory: give the JSON file to write, "
            f"e.g. {path / 'meta_eval.json'}"
        )
    existing = path.parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise OutputError(f"--out {path} cannot be created: {existing} is a file, not a directory")
    try:
        if path.exists():
            with path.open("a", encoding="utf-8"):
                pass
        else:
            fd, probe = tempfile.mkstemp(prefix=".ragmeter-meta-eval-", dir=existing)
            os.close(fd)
            os.unlink(probe)
    except OSError as exc:
        raise OutputError(
            f"--out {path} cannot be written ({exc.strerror or exc}): give a writable file path"
        ) from None
    return path


def _names(value: str | Sequence[str] | None) -> list[str] | None:
    """A list of names given as a sequence, or as one string read as the CLI reads it,
    comma-separated. Why: ``dimensions="faithfulness"`` was read letter by letter, and was
    refused as "unknown dimension(s) ['f', 'a', 'i', ...]"."""
    if value is None:
        return None
    return value.split(",") if isinstance(value, str) else list(value)


def _kept(s: Settings) -> str:
    """Where the judge's answers of a run cut short are, so the same command resumes."""
    if not s.cache:
        return "The cache is off, so nothing computed was kept"
    return (
        f"Every judge answer received is kept in the cache ({s.cache}): run the same command "
        "again to resume"
    )


def _interrupted(s: Settings, done: int, n_rows: int) -> str:
    """The line a Ctrl-C ends with (the CLI prints it, exit 130). Why: it said only
    "interrupted", neither how far it got nor that the cache keeps the judge's answers, so a
    user re-ran with ``--cache off`` or gave up an hour of calls as lost."""
    judged = min(done, n_rows)
    where = f"{judged} of {n_rows} rows scored by the judged metrics"
    if done > n_rows:
        where += f", {done - n_rows} of {n_rows} by the baselines"
    return f"interrupted: {where}, no result written. {_kept(s)}"


def _profile(
    wall: float, build_s: float, judge: dict[str, float] | None, embedder: Any
) -> dict[str, Any]:
    """Where the time went (issue 14): building the models (the local judge loads here,
    outside ``total_wall_s``), the local judge's worker split into prompt decoding after
    prefix reuse, generation, reading logits and the rest (tokenising, Python), the
    embedder, and what is left of the wall time (scheduling, metrics' own work)."""
    inner_e = getattr(embedder, "inner", None)
    embed_s = float(getattr(inner_e, "busy_s", 0.0))
    out: dict[str, Any] = {"build_resources_s": round(build_s, 2), "embed_s": round(embed_s, 2)}
    out["embedded_texts"] = getattr(inner_e, "texts", None)
    busy = 0.0
    if judge:
        busy = float(judge.get("busy_s", 0.0))
        parts = {k: float(judge.get(k, 0.0)) for k in ("decode_s", "generate_s", "logits_s")}
        out.update({f"judge_{k}": round(v, 2) for k, v in parts.items()})
        out["judge_other_s"] = round(busy - sum(parts.values()), 2)
        out["judge_busy_s"] = round(busy, 2)
        evaluated = float(judge.get("prompt_tokens_evaluated", 0.0))
        if parts["decode_s"] > 0:
            out["decode_tokens_per_s"] = round(evaluated / parts["decode_s"], 1)
    out["rest_of_wall_s"] = round(wall - busy - embed_s, 2)
    return out


def _stats(inner: Any) -> dict[str, float]:
    stats = getattr(inner, "stats", None)
    return dict(stats.as_dict()) if stats is not None and hasattr(stats, "as_dict") else {}
