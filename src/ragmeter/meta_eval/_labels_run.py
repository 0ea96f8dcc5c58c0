"""Scoring the user's labelled rows: each sample once per scorer of a dimension it is
labelled for, then AUROC (with its bootstrap CI), Brier, ECE, reliability and accuracy at
0.5 against the labels.

As in the pairwise meta-eval (``_run``): a score that FAILED is left out and counted
(``n_failed``, the first reason kept, exit 1): a broken judge is no evidence either way; a
score without a value by definition (undefined, skipped) is left out and counted
(``n_undefined``): the metric does not apply to that row. Judge usage is counted as
``_run`` counts it (``_Session``), so the table and RESULT line mean what wikieval's mean.
Rankers (GPT Ranking) compare two answers: labels have no pairs, so they are not scorers
here (``label_scorers``).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragmeter import _repr
from ragmeter.errors import DataError, Problem
from ragmeter.meta_eval._labels import LabelledSample, accuracy, auroc, auroc_ci
from ragmeter.meta_eval._run import ScorerResult, _brief, _judge_stats, _Session
from ragmeter.meta_eval._scorers import DEFAULT_BASELINES, PairScorer, build_scorers
from ragmeter.metrics.base import Score
from ragmeter.protocols import Resources

RANKERS = ("gpt_ranking",)
DEFAULT_LABEL_BASELINES = tuple(b for b in DEFAULT_BASELINES if b not in RANKERS)


def label_scorers(
    baselines: Sequence[str] | None, dims: Sequence[str]
) -> tuple[list[str], list[PairScorer]]:
    """(baselines run, scorers of ``dims``): the judged metric and the per-sample baselines.
    ``None``: wikieval's default set without the rankers. A ranker asked for by name is
    refused (DataError): it would be left out without a word."""
    wanted = list(DEFAULT_LABEL_BASELINES) if baselines is None else list(baselines)
    rankers = [b for b in wanted if b in RANKERS]
    if rankers:
        raise DataError(
            [
                Problem(
                    None,
                    "baselines",
                    f"{', '.join(rankers)} ranks two answers against each other and labels "
                    "have no pairs: leave it out of --baselines",
                )
            ]
        )
    scorers = [sc for sc in build_scorers(wanted) if sc.dimension in dims and sc.rank is None]
    return wanted, scorers


def fit_inputs(item: LabelledSample, score: Score) -> dict[str, Any]:
    """What ``--fit-calibration`` (``_fit_calibration``) needs of a faithfulness row: each
    claim's P(yes), lexical support and missing names/numbers, the variant and prompt version
    that made them, and a digest of the contexts (folds are grouped by it). Empty for other
    scores. Why kept in the row: the brief (``_run._brief``) dropped ``statement_evidence``,
    so the fit had no input, and a stored ``--out`` could not be refitted without a judge."""
    evidence = score.details.get("statement_evidence")
    if not isinstance(evidence, list) or not evidence:
        return {}
    contexts = json.dumps(list(item.sample.contexts or []), ensure_ascii=False)
    return {
        "combine": score.details.get("combine"),
        "prompt_version": score.details.get("prompt_version"),
        "contexts_sha256": hashlib.sha256(contexts.encode("utf-8")).hexdigest()[:16],
        "statement_evidence": [
            {k: e.get(k) for k in ("p_yes", "lexical", "missing_specific")}
            for e in evidence
            if isinstance(e, dict)
        ],
    }


@dataclass
class LabelResult(ScorerResult):
    """One scorer of one dimension against the labels (usage fields: ``ScorerResult``)."""

    n_labelled: int = 0  # rows labelled for the dimension (scored or not)
    n_positive: int = 0
    n_undefined: int = 0  # rows whose score has no value by definition: left out
    scored: list[tuple[float, int]] = field(default_factory=list)  # (score, label)
    rows: list[dict[str, Any]] = field(default_factory=list)

    def add(self, item: LabelledSample, score: Score, used: Any) -> None:
        """One labelled row's score: counted, and kept for the statistics when it has a
        finite value."""
        label = item.labels[self.dimension]
        self.n_labelled += 1
        self.n_positive += label
        if not self.add_failure(score) and score.value is None:
            self.n_undefined += 1
        elif score.value is not None:
            self.scored.append((float(score.value), label))
            if 0.0 <= score.value <= 1.0:
                self.labelled.append((float(score.value), label))
        brief = _brief(score, used)
        self.rows.append(
            {"row": item.row, "id": item.sample.question_id, "label": label, **brief}
            | fit_inputs(item, score)
        )

    def __repr__(self) -> str:
        """One line: the dataclass default printed every labelled row."""
        return (
            f"LabelResult({_repr.cell(self.name)!r}, {_repr.cell(self.dimension)}, "
            f"{_repr.cell(self.kind)}: AUROC {_repr.num(self.auroc)}, {self.n_labelled} "
            f"labelled ({self.n_positive} positive), {self.n_failed} failed)"
        )

    @property
    def auroc(self) -> float | None:
        """AUROC of the scored rows; None when they hold one class only (or none)."""
        return auroc(*zip(*self.scored, strict=True)) if self.scored else None

    def auroc_ci(self) -> tuple[float, float] | None:
        return auroc_ci(*zip(*self.scored, strict=True)) if self.scored else None

    def accuracy(self) -> float | None:
        """Share of scored rows where ``score >= 0.5`` matches the label."""
        return accuracy(*zip(*self.scored, strict=True)) if self.scored else None

    def as_dict(self, with_pairs: bool = True) -> dict[str, Any]:
        usage = super().as_dict(with_pairs=False)
        for key in ("agreement", "n_pairs", "n_counted", "n_missing"):
            usage.pop(key)
        ci = self.auroc_ci()
        out = {
            "name": self.name,
            "dimension": self.dimension,
            "kind": self.kind,
            "n_labelled": self.n_labelled,
            "n_positive": self.n_positive,
            "n_scored": len(self.scored),
            "n_undefined": self.n_undefined,
            "n_failed": self.n_failed,
            "first_failure": self.first_failure,
            "auroc": self.auroc,
            "auroc_ci95": list(ci) if ci else None,
            "accuracy_at_0_5": self.accuracy(),
            **usage,
        }
        if with_pairs:
            out["rows"] = self.rows
        return out


async def score_labels(
    items: Sequence[LabelledSample],
    scorers: Sequence[PairScorer],
    resources: Resources,
    *,
    progress: Callable[[str], None] | None = None,
) -> list[LabelResult]:
    """Every labelled row by every scorer of a dimension it is labelled for; judged metrics
    first (row by row, their calls on one context back to back), then the baselines."""
    results = {s.name: LabelResult(s.name, s.dimension, s.kind) for s in scorers}
    session = _Session(resources, dict(results))
    stats = _judge_stats(getattr(resources, "judge", None))

    def work_done() -> int | None:
        if stats is None or not hasattr(stats, "prompt_tokens_evaluated"):
            return None
        return int(stats.prompt_tokens_evaluated) + int(stats.completion_tokens)

    for kind in ("ragas", "baseline"):
        for i, item in enumerate(items):
            for sc in (s for s in scorers if s.kind == kind and s.dimension in item.labels):
                res = results[sc.name]
                t0, w0 = time.perf_counter(), work_done()
                score, used = await session.score(sc, item.sample)
                res.add(item, score, used)
                res.wall_s += time.perf_counter() - t0
                w1 = work_done()
                if w0 is not None and w1 is not None:
                    res.computed_tokens = (res.computed_tokens or 0) + w1 - w0
            if progress is not None:
                progress(f"{kind}: {i + 1}/{len(items)} rows")
    return list(results.values())
