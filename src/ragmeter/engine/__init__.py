"""The engine: what stands between metrics and models.

Cached, retried, time-limited and accounted calls (``CachedJudge``, ``CachedEmbedder``,
``CachedScorer``), the SQLite call cache, the retry policy, token and cost accounting, and
the dry-run stand-ins. It knows nothing of metrics and builds no backend.
"""

from ragmeter.engine.accounting import CALL_TAG, Accountant, PriceTable
from ragmeter.engine.cache import CallCache
from ragmeter.engine.embedder import CachedEmbedder
from ragmeter.engine.judge import CachedJudge
from ragmeter.engine.parsing import option_probs_from_top, parse_structured
from ragmeter.engine.retry import RetryPolicy
from ragmeter.engine.scorer import CachedScorer

__all__ = [
    "CALL_TAG",
    "Accountant",
    "CachedEmbedder",
    "CachedJudge",
    "CachedScorer",
    "CallCache",
    "PriceTable",
    "RetryPolicy",
    "option_probs_from_top",
    "parse_structured",
]
