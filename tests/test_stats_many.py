"""compare --by computes the slices' CIs and p-values at once, giving bit for bit the numbers
of the one-slice-at-a-time path (scipy's bootstrap and permutation test, same seeds), without
a scipy call per slice; and a long slice table is printed without rich's layout, the same
lines. Before, `compare A B --by user` over 4,000 slices of 5 took 17 s of CPU: two scipy
calls per slice, then 4 s laying out the table."""

from __future__ import annotations

import io
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rich.console import Console

import ragmeter
from ragmeter.compare import compare
from ragmeter.compare_pairs import values_of
from ragmeter.stats import paired_delta_ci, paired_p_value


def _samples(seed: int, count: int) -> list[tuple[list[float], list[float]]]:
    """Paired samples of sizes around the exact/random switch (2^n against the
    permutations), on a coarse grid (many ties, many null values equal to the observed),
    uniform, and one-sided flips."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        n = int(rng.choice([2, 3, 4, 5, 7, 8, 9, 10, 12, 13, 14, 17, 30, 64]))
        if k % 3 == 0:
            a, b = rng.integers(0, 5, n) / 4, rng.integers(0, 5, n) / 4
        elif k % 3 == 1:
            a, b = rng.random(n), rng.random(n)
        else:
            a = np.full(n, 0.5)
            b = a + rng.choice([-0.1, 0.1, 0.0], n)
        out.append((a.tolist(), b.tolist()))
    return out


@pytest.mark.parametrize(
    "confidence, n_resamples, permutations",
    [(0.95, 500, None), (0.9, 301, 999), (0.99, 2000, 64)],
)
def test_many_at_once_equal_one_at_a_time_bit_for_bit(
    confidence: float, n_resamples: int, permutations: int | None
) -> None:
    from ragmeter.stats_many import paired_stats_many

    samples = _samples(int(confidence * 100), 60)
    seeds = [zlib.crc32(f"m/{i}".encode()) for i in range(len(samples))]
    got = paired_stats_many(
        samples, seeds, confidence=confidence, n_resamples=n_resamples, permutations=permutations
    )
    want = [
        (
            *paired_delta_ci(a, b, confidence=confidence, n_resamples=n_resamples, seed=s),
            paired_p_value(a, b, n_resamples=permutations, seed=s),
        )
        for (a, b), s in zip(samples, seeds, strict=True)
    ]
    assert got == want


def _run(tmp: Path, name: str, values: list[float], users: list[str]) -> Path:
    rows = [
        {
            "question_id": f"q{i}",
            "question": "q",
            "answer": "a",
            "reference_answers": ["a"],
            "metadata": {"user": u},
        }
        for i, u in enumerate(users)
    ]
    result = ragmeter.evaluate(rows, ["token_f1"], n_resamples=20)
    for score, v in zip(result.scores["token_f1"], values, strict=True):
        score.value, score.status = v, "ok"
    out = tmp / name
    result.write(out)
    return out


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(7)
    sizes = [1, 2, 3, 5, 5, 8, 13, 14, 20] * 4  # one pair: no CI; 14+: random patterns
    users = [f"u{k}" for k, n in enumerate(sizes) for _ in range(n)]
    a = (rng.integers(0, 9, len(users)) / 8).tolist()
    b = (rng.integers(0, 9, len(users)) / 8).tolist()
    return _run(tmp_path, "a", a, users), _run(tmp_path, "b", b, users)


def test_compare_slices_equal_the_per_slice_statistics_without_scipy_per_slice(
    runs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import scipy.stats

    calls: list[str] = []
    for name in ("bootstrap", "permutation_test"):
        real = getattr(scipy.stats, name)

        def counted(*args: Any, _real: Any = real, _name: str = name, **kw: Any) -> Any:
            calls.append(_name)
            return _real(*args, **kw)

        monkeypatch.setattr(scipy.stats, name, counted)
    cmp = compare(*runs, by="user", n_resamples=300)
    assert calls == []  # before: two calls per slice
    monkeypatch.undo()
    values = {side: values_of(run, "token_f1") for side, run in (("a", cmp.a), ("b", cmp.b))}
    users = {s.question_id: s.metadata["user"] for s in cmp.a.result.samples}
    assert len(cmp.slices) == 36
    for cell in cmp.slices:
        ids = [q for q in cmp.ids if users[q] == cell.value]
        xs, ys = [values["a"][q] for q in ids], [values["b"][q] for q in ids]
        if len(ids) < 2:
            assert cell.ci_low is None and cell.p_value is None and cell.note
            continue
        seed = zlib.crc32(f"token_f1/{cell.value}".encode())
        want_ci = paired_delta_ci(xs, ys, n_resamples=300, seed=seed)
        assert (cell.ci_low, cell.ci_high) == want_ci
        assert cell.p_value == paired_p_value(xs, ys, seed=seed)


def test_a_long_slice_table_prints_rich_lines_without_rich_layout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rich import box
    from rich.table import Table

    from ragmeter.cli import compare as cli_compare

    def table() -> Table:
        t = Table(title="slices by user (sorted)", box=box.SIMPLE_HEAD, padding=(0, 0))
        for h in ("metric", "slice", "n", "CI", ""):
            left = h in ("metric", "slice", "")
            t.add_column(h, justify="left" if left else "right", no_wrap=not left)
        for i in range(600):
            label = ["u1", "ünïcødé-用户", "[bold]x[/bold]", "a:smile:b", "\\[y]"][i % 5] + str(i)
            t.add_row("faithfulness", label, str(i), f"[{-i / 1000:+.3f}, +0.500]", "small")
        return t

    expected = io.StringIO()  # rich's own layout, as wide as it needs (print_table before)
    wide = Console(file=io.StringIO()).measure(
        table(), options=Console().options.update_width(10_000)
    )
    Console(file=expected, width=max(80, wide.maximum)).print(table())
    got = io.StringIO()
    monkeypatch.setattr(cli_compare, "console", Console(file=got))

    def no_layout(*args: Any, **kw: Any) -> Any:
        raise AssertionError("rich laid out the long table")

    monkeypatch.setattr(Table, "__rich_console__", no_layout)
    monkeypatch.setattr(Table, "__rich_measure__", no_layout)
    cli_compare.print_table(table())
    assert got.getvalue() == expected.getvalue()
