"""Helpers for testing RAG pipelines with ragmeter: an evaluator, a scripted judge, a gate.

The pytest plugin (``ragmeter.testing.plugin``, registered by entry point) provides the
``ragmeter_evaluator`` and ``assert_scores`` fixtures. Its import runs this file first, in
every pytest session of an environment with ragmeter installed: so the names below are
imported on first use (PEP 562), not here; eagerly they pulled in most of the package.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers and IDEs see; at run time __getattr__ below
    from ragmeter.testing.asserts import assert_scores, offending_samples
    from ragmeter.testing.evaluator import Evaluator
    from ragmeter.testing.judge import HashEmbedder, ScriptedJudge, overlap_verdict

# public name -> the module that defines it
_EXPORTS = {
    "assert_scores": "ragmeter.testing.asserts",
    "offending_samples": "ragmeter.testing.asserts",
    "Evaluator": "ragmeter.testing.evaluator",
    "HashEmbedder": "ragmeter.testing.judge",
    "ScriptedJudge": "ragmeter.testing.judge",
    "overlap_verdict": "ragmeter.testing.judge",
}

__all__ = [
    "Evaluator",
    "HashEmbedder",
    "ScriptedJudge",
    "assert_scores",
    "offending_samples",
    "overlap_verdict",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
