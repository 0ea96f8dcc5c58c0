"""An adversarial user's report: large runs, hostile text, degenerate runs, the CLI contract.
Each test failed before the fix it names."""

from __future__ import annotations

from tests.conftest import make_row
from tests.needs import require_module

from ragmeter.testing import Evaluator


def _deps() -> None:
    require_module("jinja2")
    require_module("matplotlib")


def _runs(n: int, metrics: list[str], **b_overrides):  # type: ignore[no-untyped-def]
    ev = Evaluator(judge="scripted")
    a = ev.evaluate([make_row(i) for i in range(n)], metrics, n_resamples=20)
    rows_b = [make_row(i, answer=f"Fact {i} is {'x ' * (i % 7)}.") for i in range(n)]
    return a, ev.evaluate(rows_b, metrics, n_resamples=20)


def test_movers_build_evidence_for_the_listed_samples_only(monkeypatch):
    """Every changed pair had its evidence built, then all but ``worst`` were dropped: 22 of
    the 30 seconds a report of two 30,000-sample runs took."""
    _deps()
    from ragmeter.compare import compare
    from ragmeter.reporting import build

    a, b = _runs(120, ["token_f1"])
    cmp = compare(a, b)
    calls = []
    real = build.evidence_of
    monkeypatch.setattr(build, "evidence_of", lambda d, s: calls.append(1) or real(d, s))
    moved = build.movers(cmp, "token_f1", 3)
    assert sum(len(v) for v in moved.values()) <= 6
    assert len(moved["regressions"]) == 3
    assert len(calls) == 2 * sum(len(v) for v in moved.values())  # A's and B's evidence
