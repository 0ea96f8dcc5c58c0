"""The digest of a user's metric's code, recorded in run.json as ``code_sha256``.

Why: a custom metric's ``version`` is its author's to bump, and authors forget. Two runs of a
metric whose code changed between them, version unchanged, were compared as the same
measurement; ``compare`` now says "manifests differ in code" for that metric (the
comparability rules), as it does for a built-in's version or prompt file.

What is hashed: the source text of the functions the metric was registered with
(``compute``, ``acompute``, ``compute_batch``; for a template, the factory that builds it),
as ``inspect.getsource`` gives it. Code those functions call is not covered: bump ``version``
when a definition changes. None when no source can be had (a function built at run time, a
C extension, code typed into a REPL); built-in metrics record none (their ``version`` is
kept by this project, with tests). Whitespace at line ends does not count.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable, Iterable
from typing import Any


def _source(fn: Any) -> str | None:
    target = inspect.unwrap(fn) if callable(fn) else fn
    if not (inspect.isfunction(target) or inspect.ismethod(target)):
        target = type(target)  # a callable object: its class's code
    try:
        text = inspect.getsource(target)
    except (OSError, TypeError):
        return None
    return "\n".join(line.rstrip() for line in text.splitlines())


def code_sha256(functions: Iterable[Callable[..., Any] | None]) -> str | None:
    """sha256 of the sources of ``functions`` (None entries skipped), or None when any given
    function has no source to read (a partial digest would call changed code unchanged)."""
    parts = []
    for fn in functions:
        if fn is None:
            continue
        text = _source(fn)
        if text is None:
            return None
        parts.append(text)
    if not parts:
        return None
    return hashlib.sha256("\n\0\n".join(parts).encode("utf-8")).hexdigest()
