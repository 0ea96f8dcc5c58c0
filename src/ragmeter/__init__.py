"""ragmeter: measure the quality of Retrieval-Augmented Generation pipelines.

The public face. Everything a user needs is importable from here; the package layout
behind it (docs/architecture.md) follows the data one way: load -> validate -> plan ->
judge/embed -> metric -> aggregate -> result -> compare/report/CLI.

The names are imported on first use (PEP 562), not by ``import ragmeter``: pytest loads the
plugin ``ragmeter.testing.plugin`` in every session of an environment where ragmeter is
installed, and importing any ``ragmeter.*`` module runs this file first. Eagerly it pulled in
numpy, pydantic and most of the package (about 0.7 s) before an unrelated test ran.
"""

from __future__ import annotations

import sys
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers and IDEs see; at run time __getattr__ below
    from ragmeter.compare import Comparison, compare
    from ragmeter.config import Settings
    from ragmeter.dry_run import dry_run
    from ragmeter.errors import (  # the whole hierarchy (errors.py): README promises it here
        CallFailed,
        ConfigError,
        DataError,
        EmbedderUnavailable,
        ExecutorUnavailable,
        IntegrationUnavailable,
        JudgeError,
        JudgeFailed,
        JudgeFailing,
        JudgeUnreachable,
        LlamaCppMissing,
        MetricError,
        ModelNotAvailable,
        NoModelOutput,
        OutputError,
        PermanentError,
        PipelineFailed,
        Problem,
        RagmeterError,
        ReportUnavailable,
        ResourceUnavailable,
        RunAborted,
        TransientError,
        UnpairedRunsError,
        UsageError,
    )
    from ragmeter.io import load
    from ragmeter.metrics.base import Metric, Mode, Score
    from ragmeter.metrics.registry import get_metric, list_metrics, register_template
    from ragmeter.metrics.registry import register as register_metric
    from ragmeter.reporting import report
    from ragmeter.result import Aggregate, EvaluationResult
    from ragmeter.runner import aevaluate, evaluate
    from ragmeter.runs import Run, load_run
    from ragmeter.sample import Sample

__version__ = "0.1.0"

# public name -> (module, attribute)
_EXPORTS: dict[str, tuple[str, str]] = {
    "Comparison": ("ragmeter.compare", "Comparison"),
    "compare": ("ragmeter.compare", "compare"),
    "Settings": ("ragmeter.config", "Settings"),
    "dry_run": ("ragmeter.dry_run", "dry_run"),
    "CallFailed": ("ragmeter.errors", "CallFailed"),
    "ConfigError": ("ragmeter.errors", "ConfigError"),
    "DataError": ("ragmeter.errors", "DataError"),
    "EmbedderUnavailable": ("ragmeter.errors", "EmbedderUnavailable"),
    "ExecutorUnavailable": ("ragmeter.errors", "ExecutorUnavailable"),
    "IntegrationUnavailable": ("ragmeter.errors", "IntegrationUnavailable"),
    "JudgeError": ("ragmeter.errors", "JudgeError"),
    "JudgeFailed": ("ragmeter.errors", "JudgeFailed"),
    "JudgeFailing": ("ragmeter.errors", "JudgeFailing"),
    "JudgeUnreachable": ("ragmeter.errors", "JudgeUnreachable"),
    "LlamaCppMissing": ("ragmeter.errors", "LlamaCppMissing"),
    "MetricError": ("ragmeter.errors", "MetricError"),
    "ModelNotAvailable": ("ragmeter.errors", "ModelNotAvailable"),
    "NoModelOutput": ("ragmeter.errors", "NoModelOutput"),
    "OutputError": ("ragmeter.errors", "OutputError"),
    "PermanentError": ("ragmeter.errors", "PermanentError"),
    "PipelineFailed": ("ragmeter.errors", "PipelineFailed"),
    "Problem": ("ragmeter.errors", "Problem"),
    "RagmeterError": ("ragmeter.errors", "RagmeterError"),
    "ReportUnavailable": ("ragmeter.errors", "ReportUnavailable"),
    "ResourceUnavailable": ("ragmeter.errors", "ResourceUnavailable"),
    "RunAborted": ("ragmeter.errors", "RunAborted"),
    "TransientError": ("ragmeter.errors", "TransientError"),
    "UnpairedRunsError": ("ragmeter.errors", "UnpairedRunsError"),
    "UsageError": ("ragmeter.errors", "UsageError"),
    "load": ("ragmeter.io", "load"),
    "Metric": ("ragmeter.metrics.base", "Metric"),
    "Mode": ("ragmeter.metrics.base", "Mode"),
    "Score": ("ragmeter.metrics.base", "Score"),
    "get_metric": ("ragmeter.metrics.registry", "get_metric"),
    "list_metrics": ("ragmeter.metrics.registry", "list_metrics"),
    "register_metric": ("ragmeter.metrics.registry", "register"),
    "register_template": ("ragmeter.metrics.registry", "register_template"),
    "report": ("ragmeter.reporting", "report"),
    "Aggregate": ("ragmeter.result", "Aggregate"),
    "EvaluationResult": ("ragmeter.result", "EvaluationResult"),
    "aevaluate": ("ragmeter.runner", "aevaluate"),
    "evaluate": ("ragmeter.runner", "evaluate"),
    "Run": ("ragmeter.runs", "Run"),
    "load_run": ("ragmeter.runs", "load_run"),
    "Sample": ("ragmeter.sample", "Sample"),
}

__all__ = [
    "Aggregate",
    "CallFailed",
    "Comparison",
    "ConfigError",
    "DataError",
    "EmbedderUnavailable",
    "EvaluationResult",
    "ExecutorUnavailable",
    "IntegrationUnavailable",
    "JudgeError",
    "JudgeFailed",
    "JudgeFailing",
    "JudgeUnreachable",
    "LlamaCppMissing",
    "Metric",
    "MetricError",
    "Mode",
    "ModelNotAvailable",
    "NoModelOutput",
    "OutputError",
    "PermanentError",
    "PipelineFailed",
    "Problem",
    "RagmeterError",
    "ReportUnavailable",
    "ResourceUnavailable",
    "Run",
    "RunAborted",
    "Sample",
    "Score",
    "Settings",
    "TransientError",
    "UnpairedRunsError",
    "UsageError",
    "__version__",
    "aevaluate",
    "compare",
    "dry_run",
    "evaluate",
    "get_metric",
    "list_metrics",
    "load",
    "load_run",
    "register_metric",
    "register_template",
    "report",
]


def __getattr__(name: str) -> Any:
    """``ragmeter.evaluate`` and the others: imported the first time they are asked for."""
    if name not in _EXPORTS:
        # ragmeter.errors, ragmeter.metrics...: bound by the eager imports before, so code
        # that only did `import ragmeter` used them; a submodule is imported when asked for
        if not name.startswith("_"):
            try:
                return import_module(f"{__name__}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{__name__}.{name}":
                    raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attr = _EXPORTS[name]
    value = getattr(import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


class _Package(ModuleType):
    """Keeps ``ragmeter.compare`` and ``ragmeter.dry_run`` the functions. Why: the modules
    of the same name, imported later by anything, would be bound over them by the import
    system (eager imports here used to bind the function last)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, ModuleType) and name in _EXPORTS:
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
