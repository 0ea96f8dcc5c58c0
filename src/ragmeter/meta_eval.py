"""Meta-evaluation: how often a metric agrees with human pairwise preferences.

A dataset adapter yields ``PreferencePair``s: (dimension, preferred sample, other sample).
Each scorer of that dimension scores both sides; agreement is the share of pairs where the
preferred side scores strictly higher, a tie counting one half. A side without a value (failed
or undefined) makes the pair a tie, and is counted and shown. WikiEval is the first adapter;
another pairwise set only needs a function returning pairs.

Calls run one after another in a prefix-friendly order: pairs are grouped by source row and,
within a row, every scorer's calls on one context are sent back to back, so a local judge
evaluates each context (and its longer variant) about once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from ragmeter.errors import DataError, Problem
from ragmeter.judges.base import Resources
from ragmeter.metrics._judging import Calls, JudgeFailed, Unavailable, judge_of
from ragmeter.metrics.base import Score
from ragmeter.prompts import load_prompts
from ragmeter.sample import Sample

DIMENSIONS = ("faithfulness", "answer_relevance", "context_relevance")

# RAGAS paper (Es et al. 2023), Table 1, gpt-3.5-turbo-16k on WikiEval.
PAPER_TABLE1 = {
    "RAGAs": {"faithfulness": 0.95, "answer_relevance": 0.78, "context_relevance": 0.70},
    "GPT Score": {"faithfulness": 0.72, "answer_relevance": 0.52, "context_relevance": 0.63},
    "GPT Ranking": {"faithfulness": 0.54, "answer_relevance": 0.40, "context_relevance": 0.52},
}


@dataclass(frozen=True)
class PreferencePair:
    pair_id: str
    group: str  # source row: pairs of one group share texts, so they run together
    dimension: str
    preferred: Sample
    other: Sample


# ---- dataset adapters --------------------------------------------------------------------------


def _strip(text: str, prefix: str) -> str:
    text = (text or "").strip()
    return text[len(prefix) :].strip() if text.startswith(prefix) else text


def wikieval_pairs(path: str | Path) -> list[PreferencePair]:
    """WikiEval (RAGAS paper section 4): 50 rows, three pairs each."""
    path = Path(path)
    if not path.is_file():
        raise DataError([Problem(None, "data", f"file not found: {path}")])
    pairs: list[PreferencePair] = []
    problems: list[Problem] = []
    needed = ("question", "answer", "ungrounded_answer", "poor_answer", "context_v1", "context_v2")
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(Problem(i, None, f"not JSON: {exc}"))
            continue
        missing = [k for k in needed if not row.get(k)]
        if missing:
            problems.extend(Problem(i, k, "missing or empty") for k in missing)
            continue
        q = _strip(row["question"], "Question:")
        qid = f"wikieval-{i}"

        def sample(
            answer: str, contexts: list[str], side: str, q: str = q, qid: str = qid
        ) -> Sample:
            return Sample(
                question=q,
                question_id=f"{qid}-{side}",
                answer=_strip(answer, "Answer:"),
                contexts=list(contexts),
            )

        v1, v2 = list(row["context_v1"]), list(row["context_v2"])
        pairs += [
            PreferencePair(
                f"{qid}-faithfulness",
                qid,
                "faithfulness",
                sample(row["answer"], v1, "answer"),
                sample(row["ungrounded_answer"], v1, "ungrounded"),
            ),
            PreferencePair(
                f"{qid}-context_relevance",
                qid,
                "context_relevance",
                sample(row["answer"], v1, "answer"),
                sample(row["answer"], v2, "context_v2"),
            ),
            PreferencePair(
                f"{qid}-answer_relevance",
                qid,
                "answer_relevance",
                sample(row["answer"], v1, "answer"),
                sample(row["poor_answer"], v1, "poor"),
            ),
        ]
    if problems:
        raise DataError(problems, source=str(path))
    return pairs


DATASETS: dict[str, Callable[[str | Path], list[PreferencePair]]] = {"wikieval": wikieval_pairs}


# ---- scorers -----------------------------------------------------------------------------------

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
        except (JudgeFailed, Unavailable) as exc:
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
        except (JudgeFailed, Unavailable) as exc:
            return 0.5, Score.failed(str(exc), judge=calls.details())
        p_pref = probs["2" if flip else "1"]
        win = 1.0 if p_pref > 0.5 else 0.0 if p_pref < 0.5 else 0.5
        return win, Score.ok(p_pref, flipped=flip, judge=calls.details())

    return run


def k_precision_scorer() -> ScoreFn:
    from ragmeter.metrics.lexical import k_precision

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
        v = np.asarray(reply.value, dtype=np.float64)
        v = v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
        return Score.ok(float(v[0] @ v[1]))

    return run


def metric_scorer(name: str) -> ScoreFn:
    from ragmeter.metrics.registry import get_metric

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
BASELINES = ("k_precision", "embedding_cosine", "gpt_score", "gpt_ranking", "perplexity")


def build_scorers(
    baselines: Sequence[str] = ("k_precision", "embedding_cosine", "gpt_score", "gpt_ranking"),
) -> list[PairScorer]:
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


# ---- running -----------------------------------------------------------------------------------


@dataclass
class ScorerResult:
    name: str
    dimension: str
    kind: str
    outcomes: list[float] = field(default_factory=list)  # 1 / 0.5 / 0 per pair
    pairs: list[dict[str, Any]] = field(default_factory=list)
    n_missing: int = 0  # pairs where a side had no value (counted as ties)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    n_samples: int = 0  # samples (or pairs, for rankers) scored with the judge
    wall_s: float = 0.0
    # tokens the local judge actually processed: prompt tokens evaluated after prefix reuse
    # plus generated tokens (None for judges that do not report it)
    computed_tokens: int | None = None

    @property
    def agreement(self) -> float | None:
        return float(np.mean(self.outcomes)) if self.outcomes else None

    def tokens_per_sample(self) -> float | None:
        if not self.n_samples:
            return None
        return (self.prompt_tokens + self.completion_tokens) / self.n_samples

    def as_dict(self, with_pairs: bool = True) -> dict[str, Any]:
        out = {
            "name": self.name,
            "dimension": self.dimension,
            "kind": self.kind,
            "agreement": self.agreement,
            "n_pairs": len(self.outcomes),
            "n_missing": self.n_missing,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "scored_items": self.n_samples,
            "judge_tokens_per_item": self.tokens_per_sample(),
            "computed_tokens": self.computed_tokens,
            "computed_tokens_per_item": (
                self.computed_tokens / self.n_samples
                if self.computed_tokens and self.n_samples
                else None
            ),
            "wall_s": round(self.wall_s, 2),
        }
        if with_pairs:
            out["pairs"] = self.pairs
        return out


def _judge_stats(judge: Any) -> Any:
    """The local judge's work counters under any engine wrappers (None for remote judges)."""
    for _ in range(5):
        attrs = getattr(judge, "__dict__", {})
        if attrs.get("stats") is not None:
            return attrs["stats"]
        judge = attrs.get("inner")
    return None


def outcome(preferred: Score, other: Score) -> float:
    if preferred.value is None or other.value is None:
        return 0.5
    if preferred.value > other.value:
        return 1.0
    return 0.0 if preferred.value < other.value else 0.5


def _tokens(score: Score) -> tuple[int, int]:
    j = score.details.get("judge") or {}
    return int(j.get("prompt_tokens", 0)), int(j.get("completion_tokens", 0))


def _brief(score: Score) -> dict[str, Any]:
    out: dict[str, Any] = {"value": score.value, "status": score.status}
    pt, ct = _tokens(score)
    if pt or ct:
        out["judge_tokens"] = pt + ct
    if score.reason:
        out["reason"] = score.reason
    for key in (
        "mode",
        "statements",
        "p_yes",
        "verdicts",
        "kept_numbers",
        "total_sentences",
        "questions",
        "flipped",
    ):
        if key in score.details:
            out[key] = score.details[key]
    return out


async def run_meta_eval(
    pairs: Sequence[PreferencePair],
    scorers: Sequence[PairScorer],
    resources: Resources,
    *,
    progress: Callable[[str], None] | None = None,
) -> list[ScorerResult]:
    """Score every pair with every scorer of its dimension; see the module doc for the order."""
    results = {s.name: ScorerResult(s.name, s.dimension, s.kind) for s in scorers}
    groups: dict[str, list[PreferencePair]] = {}
    for p in pairs:
        groups.setdefault(p.group, []).append(p)
    memo: dict[tuple[str, str], Score] = {}
    stats = _judge_stats(getattr(resources, "judge", None))

    def work_done() -> int | None:
        if stats is None or not hasattr(stats, "prompt_tokens_evaluated"):
            return None
        return int(stats.prompt_tokens_evaluated) + int(stats.completion_tokens)

    async def score(sc: PairScorer, sample: Sample) -> Score:
        key = (sc.name, sample.model_dump_json(exclude={"question_id"}))
        if key not in memo:
            memo[key] = await sc.score(sample, resources)  # type: ignore[misc]
            res = results[sc.name]
            pt, ct = _tokens(memo[key])
            res.prompt_tokens += pt
            res.completion_tokens += ct
            res.n_samples += 1
        return memo[key]

    # RAGAS metrics first (their wall time is the one the target is about), then baselines.
    for kind in ("ragas", "baseline"):
        for gi, members in enumerate(groups.values()):
            for sc in (s for s in scorers if s.kind == kind):
                for pair in (p for p in members if p.dimension == sc.dimension):
                    res = results[sc.name]
                    t0, w0 = time.perf_counter(), work_done()
                    if sc.rank is not None:
                        win, detail = await sc.rank(pair, resources)
                        pt, ct = _tokens(detail)
                        res.prompt_tokens += pt
                        res.completion_tokens += ct
                        res.n_samples += 1
                        res.n_missing += int(detail.value is None)
                        res.outcomes.append(win)
                        res.pairs.append(
                            {"pair": pair.pair_id, "outcome": win, "ranking": _brief(detail)}
                        )
                    else:
                        a = await score(sc, pair.preferred)
                        b = await score(sc, pair.other)
                        res.n_missing += int(a.value is None or b.value is None)
                        win = outcome(a, b)
                        res.outcomes.append(win)
                        res.pairs.append(
                            {
                                "pair": pair.pair_id,
                                "outcome": win,
                                "preferred": _brief(a),
                                "other": _brief(b),
                            }
                        )
                    res.wall_s += time.perf_counter() - t0
                    w1 = work_done()
                    if w0 is not None and w1 is not None:
                        res.computed_tokens = (res.computed_tokens or 0) + w1 - w0
            if progress is not None:
                progress(f"{kind}: {gi + 1}/{len(groups)} rows")
    return list(results.values())
