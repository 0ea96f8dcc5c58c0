"""Meta-evaluation: how often a metric agrees with human pairwise preferences.

A dataset adapter yields ``PreferencePair``s: (dimension, preferred sample, other sample).
Each scorer of that dimension scores both sides; agreement is the share of pairs where the
preferred side scores strictly higher, a tie counting one half. A side without a value by
definition (undefined, skipped: the metric does not apply) makes the pair a tie, counted
(``n_missing``) and shown. A pair where a side's score failed is left out of the agreement
and counted (``n_failed``, with the first reason): a failure is no evidence either way, and
the CLI says so on stderr and exits 1. When every pair failed the agreement is None.

``run`` does it all in one call; the pieces (``select_pairs``, ``build_scorers``,
``run_meta_eval``) are here for callers who bring their own pairs, scorers or resources.
"""

from ragmeter.meta_eval._api import MetaEvalReport, check_out, run, select_pairs
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
    "LEXICAL_BASELINE",
    "PAPER_TABLE1",
    "RAGAS_METRICS",
    "MetaEvalReport",
    "PairScorer",
    "PreferencePair",
    "ScorerResult",
    "build_scorers",
    "check_out",
    "context_overlap",
    "embedding_cosine",
    "gpt_ranking",
    "gpt_score",
    "k_precision_scorer",
    "metric_scorer",
    "outcome",
    "question_overlap",
    "run",
    "run_meta_eval",
    "select_pairs",
    "wikieval_pairs",
]
