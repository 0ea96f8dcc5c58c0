"""Which samples of two runs pair for a metric, and why the others are left out.

A pair is a question id whose score is ``ok`` in both runs; only pairs enter the delta, the
CI and the test. The ids left out are counted by why (``exclusion_counts``): failed in A,
failed in B, not applicable (undefined or skipped, neither failed), and, apart, the samples
A scored and B did not, whatever B's status: the scores B lost. Why count those: a sample B
left undefined (or failed, while A failed as many others) dropped out of the pairs without
a trace, so B could lose its score on many samples and the regression gate never saw it.

``Pairing`` and ``PairedColumn`` do this with arrays over the paired ids, which ``compare``
uses: dicts of question id -> value, built four times per metric and walked id by id, took
10 s of a million-pair comparison of 5 metrics (and their dicts, lists and sets ~1 GB).
``values_of``, ``failed_ids``, ``collect`` and ``exclusion_counts`` keep the same rules
one id at a time (``Comparison.pairs`` and the tests use them).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from ragmeter.metrics.column import FAILED, OK, STATUSES, ScoreColumn
from ragmeter.runs import Run


@dataclass(frozen=True)
class PairedColumn:
    """One metric over the paired ids: each run's value (NaN where its score is not ok) and
    whether it failed, id by id in the ids' order."""

    a: np.ndarray
    b: np.ndarray
    failed_a: np.ndarray
    failed_b: np.ndarray

    @property
    def ok(self) -> np.ndarray:
        """The ids scored in both runs: the pairs."""
        return ~np.isnan(self.a) & ~np.isnan(self.b)

    def counts(self, once: np.ndarray | None) -> dict[str, int]:
        """``exclusion_counts``' numbers; ``once`` marks each distinct id once (None: all are)."""
        keep = slice(None) if once is None else once
        a_ok, b_ok = ~np.isnan(self.a[keep]), ~np.isnan(self.b[keep])
        fa, fb = self.failed_a[keep], self.failed_b[keep]
        lost = a_ok & ~b_ok
        return {
            "failed_a": int(fa.sum()),
            "failed_b": int(fb.sum()),
            "not_applicable": int((~(a_ok & b_ok) & ~fa & ~fb).sum()),
            "lost_b": int(lost.sum()),
            "lost_b_failed": int((lost & fb).sum()),
        }


class Pairing:
    """Where each paired id sits in run A and in run B (its last sample, as ``values_of``
    keeps the last), computed once for every metric and slice."""

    def __init__(self, a: Run, b: Run, ids: list[str]) -> None:
        self.runs = (a, b)
        self.ids = ids
        self.where = tuple(_positions(r, ids) for r in (a, b))
        distinct = dict.fromkeys(ids)  # an id twice in A is counted once, as sets count it
        self.once: np.ndarray | None = None
        if len(distinct) != len(ids):
            seen: set[str] = set()
            self.once = np.array([not (q in seen or seen.add(q)) for q in ids], dtype=bool)

    def column(self, metric: str) -> PairedColumn:
        (va, fa), (vb, fb) = (
            (v[w], f[w])
            for (v, f), w in zip((_arrays(r, metric) for r in self.runs), self.where, strict=True)
        )
        return PairedColumn(va, vb, fa, fb)

    def groups(self, label_of: dict[str, str]) -> list[tuple[str, np.ndarray]]:
        """(label, positions in ``ids`` of its ids, in order), labels in order of first id."""
        codes: dict[str, int] = {}
        code = np.array([codes.setdefault(label_of[q], len(codes)) for q in self.ids])
        order = np.argsort(code, kind="stable")
        cuts = np.flatnonzero(np.diff(code[order])) + 1
        return list(zip(codes, np.split(order, cuts), strict=True))


def _positions(run: Run, ids: list[str]) -> np.ndarray:
    index = {s.question_id: i for i, s in enumerate(run.result.samples)}
    return np.fromiter((index[q] for q in ids), dtype=np.int64, count=len(ids))


def _arrays(run: Run, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """(values, failed) of a metric over a run's samples: NaN where the score is not ok."""
    column = run.result.scores[metric]
    if isinstance(column, ScoreColumn):  # an ok value is finite (a NaN one is failed)
        return np.where(column.status == OK, column.values, np.nan), column.status == FAILED
    status = np.array([STATUSES.index(sc.status) for sc in column], dtype=np.int8)
    values = [sc.value if sc.status == "ok" and sc.value is not None else np.nan for sc in column]
    return np.asarray(values, dtype=float), status == FAILED


def values_of(run: Run, metric: str) -> dict[str, float | None]:
    """question_id -> the metric's value, None where its score is not ``ok``. A ScoreColumn
    (what evaluate and load_run give) is read from its arrays, as ``aggregate`` reads it:
    building a Score per row made compare of two 200,000-sample runs 3x slower."""
    res = run.result
    column = res.scores[metric]
    if isinstance(column, ScoreColumn):  # an ok value is finite (a NaN one is failed)
        values = np.where(column.status == OK, column.values, np.nan).tolist()
        pairs = zip(res.samples, values, strict=True)
        return {s.question_id: (None if v != v else v) for s, v in pairs}
    return {
        s.question_id: (sc.value if sc.status == "ok" else None)
        for s, sc in zip(res.samples, res.scores[metric], strict=True)
    }


def failed_ids(run: Run, metric: str) -> set[str]:
    """The question ids whose score of ``metric`` failed in ``run``."""
    res = run.result
    column = res.scores[metric]
    if isinstance(column, ScoreColumn):
        failed = (column.status == FAILED).tolist()
        return {s.question_id for s, f in zip(res.samples, failed, strict=True) if f}
    return {
        s.question_id
        for s, sc in zip(res.samples, res.scores[metric], strict=True)
        if sc.status == "failed"
    }


def collect(
    ids: list[str], va: dict[str, float | None], vb: dict[str, float | None]
) -> tuple[list[float], list[float]]:
    """The paired values, A's and B's, over ``ids`` scored in both runs (in ``ids``' order)."""
    xs, ys = [], []
    for q in ids:
        x, y = va.get(q), vb.get(q)
        if x is not None and y is not None:
            xs.append(x)
            ys.append(y)
    return xs, ys


def exclusion_counts(a: Run, b: Run, metric: str, ids: list[str]) -> dict[str, int]:
    """Over the paired ids: ``failed_a``, ``failed_b`` and ``not_applicable`` (why pairs were
    left out; a pair failed in both counts in both), ``lost_b`` (A scored, B did not) and
    ``lost_b_failed`` (of those, failed in B), as ``MetricDelta`` holds them."""
    va, vb = values_of(a, metric), values_of(b, metric)
    fa, fb = (failed_ids(r, metric) & set(ids) for r in (a, b))
    left_out = {q for q in ids if va.get(q) is None or vb.get(q) is None}
    lost = {q for q in ids if va.get(q) is not None and vb.get(q) is None}
    return {
        "failed_a": len(fa),
        "failed_b": len(fb),
        "not_applicable": len(left_out - fa - fb),
        "lost_b": len(lost),
        "lost_b_failed": len(lost & fb),
    }


def _question(text: str) -> str:
    """A question as compared: whitespace runs made one space (a re-wrapped line is the
    same question)."""
    return " ".join(text.split())


def _quoted(text: str) -> str:
    """The question in quotes as written (a backslash stays one), cut to 60 characters; only
    a control character is escaped, so it cannot act on the terminal."""
    text = text if len(text) <= 60 else text[:57] + "..."
    return "'" + "".join(c if c.isprintable() else repr(c)[1:-1] for c in text) + "'"


def question_mismatch(a: Run, b: Run, ids: list[str]) -> str | None:
    """A warning when paired ids hold another question in B than in A, else None.

    Why: samples pair by question_id alone, so two runs of different inputs that number
    their rows alike (q1, q2, ...) were compared question by question without a word, and
    a "better" or "worse" verdict then measured the change of data, not of the pipeline.
    An empty question (a run written before scores.jsonl kept it) is not compared.
    """
    raw_a = {s.question_id: s.question for s in a.result.samples}
    raw_b = {s.question_id: s.question for s in b.result.samples}
    # the same text is the same question: only texts that differ are normalised (all of
    # them were, a third of a million-pair compare's own time)
    maybe = [q for q in ids if raw_a.get(q) != raw_b.get(q)]
    qa = {q: _question(raw_a[q]) for q in maybe if raw_a.get(q) is not None}
    qb = {q: _question(raw_b[q]) for q in maybe if raw_b.get(q) is not None}
    differ = [q for q in maybe if qa.get(q) and qb.get(q) and qa[q] != qb[q]]
    if not differ:
        return None
    first = differ[0]
    return (
        f"{len(differ)} of the {len(ids)} paired ids have another question in B than in A "
        f"(e.g. {first}: {_quoted(qa[first])} in A, {_quoted(qb[first])} in B): were both "
        "runs made on the same input? Their deltas compare different questions"
    )


IN_MEMORY = next(f.default for f in fields(Run) if f.name == "source")  # "in-memory result"


def same_run(a: Run, b: Run) -> str | None:
    """Why B is A itself, or None. Why say it: every delta is then 0 by construction, so a
    CI gate comparing main with main (a wrong path, a stale copy) passes and proves nothing."""
    same = "every delta is 0 by construction: compare two runs"
    if a.result is b.result:
        return f"A and B are the same result: {same}"
    with contextlib.suppress(OSError, ValueError):
        if IN_MEMORY not in (a.source, b.source) and Path(a.source).samefile(b.source):
            return f"A and B are the same run directory ({a.source}): {same}"
    # A copied run directory (cp -r) keeps its run.json. Not asked of results in memory: two
    # small evaluate() calls in one second had the same start, end and wall time to the
    # millisecond, and were called a copy (their questions then went unchecked).
    keys = ("started_at", "finished_at", "wall_s", "fingerprint", "input")
    on_disk = all(Path(r.source).is_dir() for r in (a, b))  # "run A (in-memory)" is not
    if (
        on_disk
        and a.manifest.get("started_at")
        and all(a.manifest.get(k) == b.manifest.get(k) for k in keys)
    ):
        said = "the same input, settings, start, end and wall time"
        return f"B looks like a copy of A (run.json: {said}): {same}"
    return None
