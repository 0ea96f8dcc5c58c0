"""ragmeter: measure the quality of Retrieval-Augmented Generation pipelines."""

from ragmeter.errors import DataError, MetricError, Problem, RagmeterError
from ragmeter.io import load
from ragmeter.metrics.base import Metric, Score
from ragmeter.metrics.registry import get_metric, list_metrics
from ragmeter.result import Aggregate, EvaluationResult
from ragmeter.runner import aevaluate, evaluate
from ragmeter.sample import Sample

__version__ = "0.1.0"

__all__ = [
    "Aggregate",
    "DataError",
    "EvaluationResult",
    "Metric",
    "MetricError",
    "Problem",
    "RagmeterError",
    "Sample",
    "Score",
    "aevaluate",
    "evaluate",
    "get_metric",
    "list_metrics",
    "load",
]
