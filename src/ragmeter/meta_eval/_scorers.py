"""What decides a pair: the RAGAS metric itself, or a baseline (no-model word overlap:
K-Precision, question and context overlap; embedding cosine; the paper's GPT Score and GPT
Ranking on the same judge; perplexity).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from ragmeter.errors import DataError, JudgeFailed, Problem, ResourceUnavailable
from ragmeter.meta_eval._lexical import context_overlap, question_overlap
from ragmeter.meta_eval._pairs import DIMENSIONS, PreferencePair
from ragmeter.metrics.base import Score
from ragmeter.metrics.judging import Calls, judge_of
from ragmeter.metrics.lexical import k_precision
from ragmeter.metrics.registry import get_metric
from ragmeter.prompts import load_prompts
from ragmeter.protocols import Resources
from ragmeter.sample import Sample
from ragmeter.vectors import unit_rows

ScoreFn = Callable[[Sample, Resources], Awaitable[Score]]
RankFn = Callable[[PreferencePair, Resources], Awaitable[tuple[float, Score]]]


@dataclass
class PairScorer:
    """Something that decides pairs of one dimension: a per-sample metric or a pairwise ranker."""

    name: str
    dimension: str
    kind: str  # "ragas" (the judged metric), "baseline"
    score: ScoreFn | None = None
    rank: RankFn | None = None


class Rating(BaseModel):
    score: int = Field(ge=0, le=10)


def _context_text(sample: Sample) -> str:
    return "\n\n".join(sample.contexts or [])


def gpt_score(dimension: str) -> ScoreFn:
    """The paper's GPT Score baseline: a 0-10 rating of one sample for the dimension."""

    async def run(sample: Sample, resources: Resources) -> Score:
        calls = Calls(judge_of(resources))
        prompts = load_prompts("baselines")
        text = prompts["score"][dimension].format(
            context=_context_text(sample), answer=sample.answer or "", question=sample.question
        )
        try:
            got = await calls.structured(
                [{"role": "user", "content": text}],
                Rating,
                version=prompts["version"],
                max_tokens=16,
            )
        except (JudgeFailed, ResourceUnavailable) as exc:
            return Score.failed(str(exc), judge=calls.details())
        return Score.ok(got.score / 10, judge=calls.details())

    return run


def gpt_ranking(dimension: str) -> RankFn:
    """The paper's GPT Ranking baseline: the judge picks the better of two (order alternates)."""

    async def run(pair: PreferencePair, resources: Resources) -> tuple[float, Score]:
        calls = Calls(judge_of(resources))
        prompts = load_prompts("baselines")
        flip = sum(map(ord, pair.pair_id)) % 2 == 1  # preferred shown second in half the pairs
        a, b = (pair.other, pair.preferred) if flip else (pair.preferred, pair.other)
        if dimension == "context_relevance":
            first, second = _context_text(a), _context_text(b)
        else:
            first, second = a.answer or "", b.answer or ""
        text = prompts["rank"][dimension].format(
            context=_context_text(pair.preferred),
            question=pair.preferred.question,
            first=first,
            second=second,
        )
        try:
            probs = await calls.option(
                [{"role": "user", "content": text}], ("1", "2"), version=prompts["version"]
            )
        except (JudgeFailed, ResourceUnavailable) as exc:
            return 0.5, Score.failed(str(exc), judge=calls.details())
        p_pref = probs["2" if flip else "1"]
        win = 1.0 if p_pref > 0.5 else 0.0 if p_pref < 0.5 else 0.5
        return win, Score.ok(p_pref, flipped=flip, judge=calls.details())

    return run


def k_precision_scorer() -> ScoreFn:
    async def run(sample: Sample, resources: Resources) -> Score:
        return k_precision(sample.answer or "", sample.contexts or [])

    return run


def embedding_cosine() -> ScoreFn:
    """Non-LLM answer relevance: cosine of question and answer embeddings."""

    async def run(sample: Sample, resources: Resources) -> Score:
        embedder = getattr(resources, "embedder", None)
        if embedder is None:
            return Score.failed("no embedder configured")
        reply = await embedder.embed([sample.question, sample.answer or ""])
        if not reply.ok or reply.value is None:
            return Score.failed(f"embedder error: {reply.error}")
        v = unit_rows(reply.value)
        return Score.ok(float(v[0] @ v[1]))

    return run


def metric_scorer(name: str) -> ScoreFn:
    metric = get_metric(name)
    assert metric.acompute is not None or metric.compute is not None

    async def run(sample: Sample, resources: Resources) -> Score:
        if metric.acompute is not None:
            return await metric.acompute(sample, resources)
        assert metric.compute is not None
        return metric.compute(sample)

    return run


# In this order within a row: faithfulness and context relevance share the context prefix.
RAGAS_METRICS = {
    "faithfulness": "faithfulness",
    "context_relevance": "context_relevance",
    "answer_relevance": "answer_relevance",
}
BASELINES = (
    "k_precision",
    "question_overlap",
    "context_overlap",
    "embedding_cosine",
    "gpt_score",
    "gpt_ranking",
    "perplexity",
)
DEFAULT_BASELINES = (
    "k_precision",
    "question_overlap",
    "context_overlap",
    "embedding_cosine",
    "gpt_score",
    "gpt_ranking",
)


def build_scorers(baselines: Sequence[str] = DEFAULT_BASELINES) -> list[PairScorer]:
    unknown = [b for b in baselines if b not in BASELINES]
    if unknown:
        raise DataError(
            [
                Problem(
                    None,
                    "baselines",
                    f"unknown baseline(s) {unknown}; known: {', '.join(BASELINES)}",
                )
            ]
        )
    out = [
        PairScorer(f"ragas:{m}", dim, "ragas", score=metric_scorer(m))
        for dim, m in RAGAS_METRICS.items()
    ]
    if "k_precision" in baselines:
        out.append(
            PairScorer("k_precision", "faithfulness", "baseline", score=k_precision_scorer())
        )
    if "question_overlap" in baselines:
        out.append(
            PairScorer("question_overlap", "answer_relevance", "baseline", score=question_overlap())
        )
    if "context_overlap" in baselines:
        out.append(
            PairScorer("context_overlap", "context_relevance", "baseline", score=context_overlap())
        )
    if "embedding_cosine" in baselines:
        out.append(
            PairScorer("embedding_cosine", "answer_relevance", "baseline", score=embedding_cosine())
        )
    if "perplexity" in baselines:
        out.append(
            PairScorer(
                "context_relevance_perplexity",
                "context_relevance",
                "baseline",
                score=metric_scorer("context_relevance_perplexity"),
            )
        )
    for dim in DIMENSIONS:
        if "gpt_score" in baselines:
            out.append(PairScorer(f"gpt_score:{dim}", dim, "baseline", score=gpt_score(dim)))
        if "gpt_ranking" in baselines:
            out.append(PairScorer(f"gpt_ranking:{dim}", dim, "baseline", rank=gpt_ranking(dim)))
    return out
