"""One place that imports an integration's library, or says in one line what to install."""

from __future__ import annotations

import importlib
from types import ModuleType

from ragmeter.errors import IntegrationUnavailable

# The distribution each extra brings, for the message (module name -> what pip installs).
EXTRAS = {
    "langchain": "langchain-core",
    "llamaindex": "llama-index-core",
    "otel": "openinference-semantic-conventions, opentelemetry-sdk",
    "mlflow": "mlflow",
}


def require(module: str, extra: str) -> ModuleType:
    """Import ``module``; when it is missing raise IntegrationUnavailable naming the extra.

    Called inside entry points, never at import time, so ``import ragmeter`` (and importing
    an integration module) works without any extra installed.
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise IntegrationUnavailable(
            f"{module} is not installed: pip install 'ragmeter[{extra}]' (brings {EXTRAS[extra]})"
        ) from None
