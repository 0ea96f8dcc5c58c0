"""Meta-evaluation: how often a metric agrees with human pairwise preferences.

A dataset adapter yields ``PreferencePair``s: (dimension, preferred sample, other sample).
Each scorer of that dimension scores both sides; agreement is the share of pairs where the
preferred side scores strictly higher, a tie counting one half. A side without a value by
definition (undefined, skipped: the metric does not apply) makes the pair a tie, counted
(``n_missing``) and shown. A pair where a side's score failed is left out of the agreement
and counted (``n_failed``, with the first reason): a failure is no evidence either way, and
the CLI says so on stderr and exits 1. When every pair failed the agreement is None.

``run("labels", path)`` measures the metrics against the user's own per-answer labels
instead (``label_<dimension>`` columns, see ``_labels``): AUROC with a bootstrap CI, Brier,
ECE, accuracy at 0.5 per dimension and scorer (a ``LabelsReport``); ``fit_calibration``
refits faithfulness's calibration to such labels from stored claim features (no judge run),
with cross-validated numbers (``run_labels(..., fit_calibration=OUT)`` does it after a run).

``run`` does it all in one call; the pieces (``select_pairs``, ``build_scorers``,
``run_meta_eval``) are here for callers who bring their own pairs, scorers or resources.
"""

from ragmeter.meta_eval._api import MetaEvalReport, check_out, run, select_pairs
from ragmeter.meta_eval._fit_calibration import FitCalibrationError, fit_calibration
from ragmeter.meta_eval._labels import LABELS_DATASET, LabelledSample, auroc, read_labels
from ragmeter.meta_eval._labels_api import LabelsReport, run_labels
from ragmeter.meta_eval._labels_run import LabelResult
from ragmeter.meta_eval._lexical import LEXICAL_BASELINE, context_overlap, question_overlap
from ragmeter.meta_eval._pairs import (
    DATASETS,
    DIMENSIONS,
    PAPER_TABLE1,
    PreferencePair,
    wikieval_pairs,
)
from ragmeter.meta_eval._run import ScorerResult, outcome, run_meta_eval
from ragmeter.meta_eval._scorers import (
    BASELINES,
    DEFAULT_BASELINES,
    RAGAS_METRICS,
    PairScorer,
    build_scorers,
    embedding_cosine,
    gpt_ranking,
    gpt_score,
    k_precision_scorer,
    metric_scorer,
)

__all__ = [
    "BASELINES",
    "DATASETS",
    "DEFAULT_BASELINES",
    "DIMENSIONS",
    "LABELS_DATASET",
    "LEXICAL_BASELINE",
    "PAPER_TABLE1",
    "RAGAS_METRICS",
    "FitCalibrationError",
    "LabelResult",
    "LabelledSample",
    "LabelsReport",
    "MetaEvalReport",
    "PairScorer",
    "PreferencePair",
    "ScorerResult",
    "auroc",
    "build_scorers",
    "check_out",
    "context_overlap",
    "embedding_cosine",
    "fit_calibration",
    "gpt_ranking",
    "gpt_score",
    "k_precision_scorer",
    "metric_scorer",
    "outcome",
    "question_overlap",
    "read_labels",
    "run",
    "run_labels",
    "run_meta_eval",
    "select_pairs",
    "wikieval_pairs",
]
