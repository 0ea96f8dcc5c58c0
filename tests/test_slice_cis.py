"""evaluate --by computes its slices' bootstrap CIs together (stats_many.mean_cis_many), giving
bit for bit what one ``result.bootstrap_ci`` call per slice gives, with the same seeds. Before,
`evaluate --judge none -m k_precision --by user` over 4,000 slices of 5 made 4,000 calls, a
second of CPU mostly spent in numpy's per-call set-up."""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import pytest
from tests.conftest import make_row

import ragmeter
from ragmeter.result import EvaluationResult, bootstrap_ci
from ragmeter.slices import SliceRow, slice_summary
from ragmeter.stats import mean_of
from ragmeter.stats_many import mean_cis_many


def _samples(seed: int, count: int) -> tuple[list[np.ndarray], list[int]]:
    """Slices of every kind bootstrap_ci tells apart: one value, fewer than 8, many values
    on few distinct numbers (its multinomial draws), many distinct, constant, and large
    enough to be drawn in several blocks."""
    rng = np.random.default_rng(seed)
    samples, seeds = [], []
    for k in range(count):
        n = int(rng.choice([1, 2, 3, 5, 7, 8, 9, 16, 40, 129, 2001, 2500]))
        kind = k % 4
        if kind == 0:
            values = rng.integers(0, 2, n).astype(float)
        elif kind == 1:
            values = rng.random(n)
        elif kind == 2:
            values = rng.integers(0, 5, n) / 4
        else:
            values = np.full(n, 0.3)
        samples.append(values)
        seeds.append(int(rng.integers(0, 2**32)))
    return samples, seeds


@pytest.mark.parametrize("n_resamples, confidence", [(1000, 0.95), (997, 0.8), (2, 0.9), (0, 0.95)])
def test_many_cis_equal_one_call_per_sample(n_resamples: int, confidence: float) -> None:
    samples, seeds = _samples(7, 700)  # more than CI_ROWS: several windows
    many = mean_cis_many(samples, seeds, n_resamples=n_resamples, confidence=confidence)
    one = [
        bootstrap_ci(v, n_resamples=n_resamples, confidence=confidence, seed=s)
        for v, s in zip(samples, seeds, strict=True)
    ]
    assert many == one  # floats compared exactly: bit for bit


def test_many_cis_refuse_what_one_call_refuses() -> None:
    with pytest.raises(ValueError, match="no values"):
        mean_cis_many([[0.5, 0.5], []], [0, 1])
    with pytest.raises(ValueError, match="one seed per sample"):
        mean_cis_many([[0.5]], [])
    assert mean_cis_many([], []) == []


def _per_slice(result: EvaluationResult, by: str, **kw: Any) -> list[SliceRow]:
    """slice_summary as it was: one bootstrap_ci per slice (the reference)."""
    from ragmeter.slices import slice_value

    labels = [slice_value(s, by) for s in result.samples]
    rows: list[SliceRow] = []
    for metric in result.metrics:
        overall = result.aggregates[metric].mean
        groups: dict[str, list[float]] = {label: [] for label in labels}
        for label, sc in zip(labels, result.scores[metric], strict=True):
            if sc.status == "ok" and sc.value is not None:
                groups[label].append(sc.value)
        cells = []
        for label, values in groups.items():
            if not values:
                cells.append(SliceRow(metric, by, label, 0, None, None, None, None, True))
                continue
            arr = np.asarray(values, dtype=float)
            low = high = None
            if len(arr) > 1 and kw["n_resamples"]:  # 0 resamples: no CI, as the overall's
                seed = kw["seed"] ^ zlib.crc32(f"{metric}/{label}".encode())
                low, high = bootstrap_ci(
                    arr, n_resamples=kw["n_resamples"], confidence=kw["confidence"], seed=seed
                )
            mean = mean_of(arr)  # the aggregates' mean: exact for equal values
            effect = None if overall is None else mean - overall
            cells.append(
                SliceRow(metric, by, label, len(arr), mean, low, high, effect, len(arr) < 10)
            )
        cells.sort(key=lambda r: (r.effect is None, -abs(r.effect or 0.0), r.value))
        rows.extend(cells)
    return rows


@pytest.fixture(scope="module")
def sliced() -> EvaluationResult:
    """Slices of 1 to 24 rows; answers of a few kinds (few distinct scores in large slices);
    one slice whose rows are all unscored for exact_match (no reference answers)."""
    rng = np.random.default_rng(3)
    answers = ["Fact {i} is that the sky is blue.", "The sky is blue.", "Grass.", "No idea."]
    rows = []
    i = 0
    for user in range(120):
        for _ in range(int(rng.integers(1, 25))):
            i += 1
            row = make_row(i, answer=answers[int(rng.integers(0, 4))].format(i=i))
            row["metadata"] = {"user": f"u{user}"}
            if user == 5:
                row.pop("reference_answers")
            rows.append(row)
    settings = ragmeter.Settings(judge="none", embedder="none", cache=None)
    return ragmeter.evaluate(rows, ["token_f1", "k_precision"], settings=settings, n_resamples=20)


@pytest.mark.parametrize(
    "kw",
    [
        {"n_resamples": 1000, "confidence": 0.95, "seed": 0},
        {"n_resamples": 200, "confidence": 0.9, "seed": 12345},
        {"n_resamples": 0, "confidence": 0.95, "seed": 1},
    ],
)
def test_slice_summary_is_the_per_slice_path_bit_for_bit(
    sliced: EvaluationResult, kw: dict[str, Any]
) -> None:
    rows = slice_summary(sliced, "user", **kw)
    assert rows == _per_slice(sliced, "user", **kw)
    assert any(r.n == 1 and r.ci_low is None for r in rows)  # one value: still no CI
    assert any(r.n == 0 for r in rows)  # an unscored slice: still listed


def test_slices_take_a_few_quantile_calls_not_one_each(
    sliced: EvaluationResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The work is batched: 2 metrics x 120 slices made 240 np.quantile calls."""
    calls = []
    real = np.quantile

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(np, "quantile", counted)
    slice_summary(sliced, "user")
    assert 0 < len(calls) <= 2
