"""ragmeter: measure the quality of Retrieval-Augmented Generation pipelines."""

from ragmeter.compare import Comparison, compare
from ragmeter.errors import DataError, MetricError, Problem, RagmeterError, UnpairedRunsError
from ragmeter.io import load
from ragmeter.metrics.base import Metric, Score
from ragmeter.metrics.registry import get_metric, list_metrics
from ragmeter.reporting import report
from ragmeter.result import Aggregate, EvaluationResult
from ragmeter.runner import aevaluate, evaluate
from ragmeter.runs import Run, load_run
from ragmeter.sample import Sample

__version__ = "0.1.0"

__all__ = [
    "Aggregate",
    "Comparison",
    "DataError",
    "EvaluationResult",
    "Metric",
    "MetricError",
    "Problem",
    "RagmeterError",
    "Run",
    "Sample",
    "Score",
    "UnpairedRunsError",
    "aevaluate",
    "compare",
    "evaluate",
    "get_metric",
    "list_metrics",
    "load",
    "load_run",
    "report",
]
