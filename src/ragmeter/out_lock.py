"""One run at a time in an output directory: an exclusive lock on ``--out`` itself, held from
the claim of the directory (``manifest.prepare_out``) until the run ends (``crash_recorded``).

Why: two runs started into the same ``--out`` (two terminals, two CI jobs) both passed the
resume check, both wrote ``scores.jsonl.partial`` (the second truncating the first's) and both
exited 0 with run.json ``complete`` over a ``scores.jsonl`` of torn, interleaved lines. The
second run is now refused before any work. The lock is the kernel's (``flock`` on the
directory, no lock file left behind, as ``backends/_model_files.assembly_lock`` does): a run
killed with SIGKILL or by a power loss holds nothing, so the same command resumes at once.
Where directory locks are unavailable (Windows, some network file systems) runs go unlocked,
as before.
"""

from __future__ import annotations

import os
from pathlib import Path

from ragmeter.errors import OutputError

_HELD: dict[str, int] = {}  # realpath of a locked --out -> the descriptor holding its lock


def lock_out(path: Path) -> None:
    """Hold ``path`` (an existing directory) for this process until ``release_out``; an
    OutputError when another process holds it. Re-entrant within one process: a run that
    claims a directory this process already holds keeps that lock."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): unlocked
        return
    key = os.path.realpath(path)
    if key in _HELD:
        return
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # a directory that cannot be opened (no read permission): unlocked
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise OutputError(
            f"--out {path} is in use: another run is writing its scores there now (run.json "
            "says 'running'); wait for it to end, or choose another --out"
        ) from None
    except OSError:  # the file system has no directory locks: unlocked, as before
        os.close(fd)
        return
    _HELD[key] = fd


def release_out(path: Path | str) -> None:
    """Let another run into ``path`` (closing the descriptor releases the lock)."""
    fd = _HELD.pop(os.path.realpath(path), None)
    if fd is not None:
        os.close(fd)
