"""ragmeter: measure the quality of Retrieval-Augmented Generation pipelines.

The public face. Everything a user needs is importable from here; the package layout
behind it (docs/architecture.md) follows the data one way: load -> validate -> plan ->
judge/embed -> metric -> aggregate -> result -> compare/report/CLI.
"""

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
from ragmeter.metrics.registry import get_metric, list_metrics
from ragmeter.metrics.registry import register as register_metric
from ragmeter.reporting import report
from ragmeter.result import Aggregate, EvaluationResult
from ragmeter.runner import aevaluate, evaluate
from ragmeter.runs import Run, load_run
from ragmeter.sample import Sample

__version__ = "0.1.0"

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
    "report",
]
