"""What a test needs from outside the repository, and what happens when it is missing.

Outside CI a missing optional dependency, model or dataset skips the test with the reason.
Where ``CI`` is set (``make test`` installs the test extra and ../shared sits beside the
checkout), the same absence is a failure: CI never passes by skipping.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

IN_CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def missing(reason: str) -> None:
    """Skip with ``reason``, or fail with it under CI."""
    if IN_CI:
        pytest.fail(f"{reason} (CI is set, so this is a failure, not a skip)")
    pytest.skip(reason, allow_module_level=True)  # at import time too: no session stopped


def require_module(name: str) -> ModuleType:
    """Import ``name``; when it is not installed, ``missing`` says so."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        missing(f"{name} is not installed ({exc}); `make test` installs it")
        raise  # unreachable: missing() skips or fails
