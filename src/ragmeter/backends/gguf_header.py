"""Whether a file can be a GGUF model, judged from its first 24 bytes.

Why: ``--judge gguf:PATH`` was checked up front only for a file being there, so a wrong or
damaged one (an HTML error page or a Git LFS pointer saved as .gguf, a truncated or empty
download, an old GGML file) passed, and failed when llama.cpp loaded it: after validation
and planning, as the failure of every judged score. Its header says most of this at the cost
of one small read, whatever the file's size; the file is never read whole nor hashed here
(models are gigabytes). A header that looks right does not prove the rest is whole: the
load still finds that out.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

MAGIC = b"GGUF"
# The versions llama.cpp reads: version 1 was dropped in 2023, 3 is the current one.
VERSIONS = (2, 3)
# magic (4 bytes), version (uint32), tensor count and metadata count (uint64 each)
HEADER_BYTES = 24

# What a file that is not GGUF often is, by its first bytes, and what to do about it.
_GUESSES: tuple[tuple[tuple[bytes, ...], str, str], ...] = (
    (
        (b"<!DO", b"<!do", b"<htm", b"<HTM", b"<?xm", b"<hea"),
        "an HTML page? a download that saved an error or login page",
        "download the model again",
    ),
    (
        (b"vers",),
        "a Git LFS pointer? the model itself was not fetched",
        "`git lfs pull`, or download the model",
    ),
    (
        (b"lmgg", b"fmgg", b"tjgg", b"algg"),
        "an old GGML file, which llama.cpp no longer reads",
        "convert the model to GGUF",
    ),
    ((b"PK\x03\x04",), "a zip archive, such as a PyTorch checkpoint", "convert the model to GGUF"),
)


def gguf_problem(path: Path) -> str | None:
    """What makes the file at ``path`` no GGUF model llama.cpp reads, as words that follow
    "it" ("is empty (0 bytes)", "starts with b'<!DO' (an HTML page? ...), not b'GGUF'"), or
    None when its header looks right: the magic ``GGUF``, a version llama.cpp reads (2 or 3,
    in this machine's byte order) and the length of a whole header."""
    try:
        size = path.stat().st_size
        with path.open("rb") as f:
            head = f.read(HEADER_BYTES)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if not head:
        return "is empty (0 bytes): a download that failed? download the model again"
    if head[:4] != MAGIC:
        said = f"starts with {head[:4]!r}"
        for starts, what, fix in _GUESSES:
            if head.startswith(starts):
                return f"{said} ({what}), not {MAGIC!r} as a GGUF model does: {fix}"
        return f"{said}, not {MAGIC!r} as a GGUF model does"
    if len(head) < HEADER_BYTES:
        return (
            f"is {size} bytes long, shorter than a GGUF header ({HEADER_BYTES} bytes): a "
            "download cut short? download the model again"
        )
    (version,) = struct.unpack("=I", head[4:8])  # llama.cpp reads its machine's byte order
    if version in VERSIONS:
        return None
    other = "big" if sys.byteorder == "little" else "little"
    if (swapped := struct.unpack("<I" if other == "little" else ">I", head[4:8])[0]) in VERSIONS:
        return (
            f"is a {other}-endian GGUF file (version {swapped}), which llama.cpp does not read "
            f"on this {sys.byteorder}-endian machine: give a {sys.byteorder}-endian GGUF file"
        )
    return (
        f"is GGUF version {version}, which llama.cpp does not read (it reads versions "
        f"{' and '.join(map(str, VERSIONS))}): convert the model again with a recent llama.cpp"
    )
