"""Where a benchmark writes its JSON, and what the JSON says about the run that made it.

Why this exists: the docs cite files under ``benchmarks/results/`` as the evidence for every
speed and quality claim. A quick check run with a small size must not silently replace one of
them (each script's default ``--out`` is the cited file), and a result is only evidence when
it can be traced to the machine, the commit and the date that produced it. Each script calls
``check_out`` right after parsing its arguments, before any expensive work, so a refusal
costs nothing; ``require`` turns a missing data set into one line naming the path instead of
a traceback from deep inside a loader.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def add_out(parser: argparse.ArgumentParser, default: Path | None) -> None:
    """``--out`` (where the JSON goes) and ``--force`` (replace an existing file)."""
    parser.add_argument(
        "--out",
        type=Path,
        default=default,
        help="where the JSON result is written; its folder is created"
        + (f" (default: {_shown(default)})" if default is not None else ""),
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace --out if it exists (without it the run refuses before doing any work)",
    )


def check_out(path: Path | None, force: bool) -> None:
    """Stop before any work when ``path`` exists and ``--force`` was not given."""
    if path is not None and path.exists() and not force:
        raise SystemExit(f"error: {path} exists; pass --force to replace it, or give another --out")


def require(path: Path, what: str) -> None:
    """Stop with one line naming ``path`` when a data set or file is missing."""
    if not path.exists():
        raise SystemExit(f"error: {what} not found: {path}")


def provenance() -> dict[str, Any]:
    """The machine, the code and the time of this run, so a result can be traced."""
    return {
        "date_utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "git_commit": _git("rev-parse", "HEAD"),
        "git_dirty": bool(_git("status", "--porcelain", "--untracked-files=no")),
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count(),
        # the one name for it across scripts (their own fields say load_1m, load_average_1m...)
        "load_avg_1min": round(os.getloadavg()[0], 2),
        "machine": platform.machine(),
        "python": platform.python_version(),
        # the commit above is this checkout's; the code measured is the ragmeter imported,
        # which is another tree's when PYTHONPATH does not point here (a git worktree)
        "ragmeter_src": _ragmeter_src(),
    }


def write_json(path: Path, data: dict[str, Any], indent: int = 1) -> None:
    """Write ``data`` plus a ``provenance`` block, creating the folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {**data, "provenance": {**provenance(), **data.get("provenance", {})}}
    path.write_text(
        json.dumps(record, indent=indent, ensure_ascii=False, default=str) + "\n",
        encoding="utf-8",
    )


def _ragmeter_src() -> str | None:
    spec = importlib.util.find_spec("ragmeter")  # the imported one, or the one that would be
    return str(Path(spec.origin).resolve().parent) if spec and spec.origin else None


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO))
    except ValueError:
        return str(path)


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], cwd=REPO, capture_output=True, text=True, timeout=10, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip()


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
