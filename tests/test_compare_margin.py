"""compare's non-inferiority margins (``--max-drop`` / ``max_drop=``), its bounded repr, and
analytic p-values that never underflow to 0.

Why: ``--fail-on-regression`` fails only on a significant drop; on 30 samples a real drop
is often not significant and passed the gate. A margin fails unless the paired CI shows B is
not worse than A by more than DELTA.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from tests.conftest import EXAMPLES
from typer.testing import CliRunner

import ragmeter
from ragmeter import Metric, Score
from ragmeter.cli import app
from ragmeter.metrics import registry

runner = CliRunner()
RUNS = EXAMPLES / "compare" / "runs"
BASE, RERANKED = str(RUNS / "baseline"), str(RUNS / "reranked")

# 30 pairs: 6 drop by 0.3, 4 rise by 0.15, 20 tie: mean -0.04, far from significant
SMALL_DROP = [-0.3] * 6 + [0.15] * 4 + [0.0] * 20
# 30 pairs: one up and one down by 0.01: B is A to within 0.01
STEADY = [0.01, -0.01] + [0.0] * 28
# 30 pairs: 5 fall by 0.5: for a lower-is-better metric, a clear improvement
FALLS = [-0.5] * 5 + [0.0] * 25


def _metric(name: str, direction: str, value_range: tuple[float, float] | None) -> Metric:
    return Metric(
        name=name,
        description="the answer read as a number",
        requires=(("answer",),),
        compute=lambda s: Score.ok(float(s.answer)),
        direction=direction,
        value_range=value_range,
    )


@pytest.fixture(autouse=True)
def _metrics() -> Iterator[None]:
    """mg_score: higher is better, in [0, 1]; mg_cost: lower is better, unbounded;
    mg_share: neither direction is better."""
    made = {
        "mg_score": _metric("mg_score", "higher", (0.0, 1.0)),
        "mg_cost": _metric("mg_cost", "lower", None),
        "mg_share": _metric("mg_share", "none", (0.0, 1.0)),
    }
    for metric in made.values():
        ragmeter.register_metric(metric)
    yield
    for name in made:
        registry._FIXED.pop(name, None)
        registry._GIVEN.pop(name, None)


def _runs(tmp_path: Path, deltas: list[float], metric: str = "mg_score") -> tuple[str, str]:
    """Runs A (every value 0.5) and B (0.5 + delta) of one metric, written to disk."""
    out = []
    for side, shift in (("a", [0.0] * len(deltas)), ("b", deltas)):
        rows = [
            {"question_id": f"q{i}", "question": "Q?", "answer": repr(0.5 + s)}
            for i, s in enumerate(shift)
        ]
        ragmeter.evaluate(rows, [metric], out=tmp_path / side, n_resamples=0)
        out.append(str(tmp_path / side))
    return out[0], out[1]


def _gate_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("gate failed:")]


def test_a_small_drop_not_significant_passes_the_regression_gate_but_fails_the_margin(
    tmp_path: Path,
) -> None:
    a, b = _runs(tmp_path, SMALL_DROP)
    m = ragmeter.compare(a, b).metric("mg_score")
    assert not m.worse(0.05) and m.ci_low is not None and m.ci_low < -0.02
    assert runner.invoke(app, ["compare", a, b, "--fail-on-regression"]).exit_code == 0
    res = runner.invoke(
        app, ["compare", a, b, "--fail-on-regression", "--max-drop", "mg_score=0.02"]
    )
    assert res.exit_code == 1, res.output
    (line,) = _gate_lines(res.output)
    assert line.startswith(f"gate failed: mg_score: B may be worse than A by up to {-m.ci_low:.3f}")
    assert f"(95% CI of B-A [{m.ci_low:+.3f}, {m.ci_high:+.3f}]); allowed drop 0.02" in line


def test_a_margin_passes_just_past_the_ci_and_fails_just_inside_it(tmp_path: Path) -> None:
    a, b = _runs(tmp_path, SMALL_DROP)
    low = ragmeter.compare(a, b).metric("mg_score").ci_low
    wide = ragmeter.compare(a, b, max_drop={"mg_score": -low + 0.001}).margins
    narrow = ragmeter.compare(a, b, max_drop={"mg_score": -low - 0.001}).margins
    assert [g.passed for g in wide] == [True] and [g.passed for g in narrow] == [False]
    assert wide[0].bound == low and wide[0].worst_drop == -low


def test_a_steady_b_passes_its_margin_exit_0(tmp_path: Path) -> None:
    a, b = _runs(tmp_path, STEADY)
    res = runner.invoke(app, ["compare", a, b, "--max-drop", "mg_score=0.05"])
    assert res.exit_code == 0, res.output
    assert "margin met: mg_score: B is worse than A by at most" in res.output
    assert not _gate_lines(res.output)


def test_a_lower_is_better_metric_is_held_by_its_ci_high(tmp_path: Path) -> None:
    a, b = _runs(tmp_path / "down", FALLS, "mg_cost")  # cost fell: better, wide CI
    (fell,) = ragmeter.compare(a, b, max_drop={"mg_cost": 0.02}).margins
    assert fell.direction == "lower" and fell.passed and fell.bound is not None
    assert fell.bound <= 0.02  # ci_high, though ci_low is far below -0.02
    assert ragmeter.compare(a, b).metric("mg_cost").ci_low < -0.02
    a, b = _runs(tmp_path / "up", [-x for x in SMALL_DROP], "mg_cost")  # cost rose
    res = runner.invoke(app, ["compare", a, b, "--max-drop", "mg_cost=0.02"])
    assert res.exit_code == 1, res.output
    (line,) = _gate_lines(res.output)
    assert "mg_cost: B may be worse than A by up to" in line
    assert line.endswith("allowed rise (lower is better) 0.02")


def test_no_ci_fails_the_margin_saying_why(tmp_path: Path) -> None:
    a, b = _runs(tmp_path, [0.0])  # one pair: no CI
    res = runner.invoke(app, ["compare", a, b, "--max-drop", "mg_score=0.5"])
    assert res.exit_code == 1, res.output
    assert _gate_lines(res.output) == [
        "gate failed: mg_score: cannot show non-inferiority (1 pair: too few for a CI or a "
        "test); allowed drop 0.5"
    ]


def test_regression_and_margin_failures_are_both_listed() -> None:
    res = runner.invoke(
        app, ["compare", RERANKED, BASE, "--fail-on-regression", "--max-drop", "token_f1=0.05"]
    )
    assert res.exit_code == 1
    lines = _gate_lines(res.output)
    assert [x.split(":")[1].strip() for x in lines] == ["mrr", "ndcg@10", "token_f1"]
    assert "token_f1: B may be worse than A by up to 0.095" in lines[-1]


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("mg_score=-0.1", "mg_score=-0.1: DELTA must be >= 0"),
        ("mg_score=nan", "mg_score=nan: DELTA must be a finite number"),
        ("mg_score=inf", "mg_score=inf: DELTA must be a finite number"),
        ("mg_score=abc", "mg_score=abc: DELTA is not a number"),
        ("mg_score", "'mg_score' is not METRIC=DELTA"),
        ("=0.1", "'=0.1' is not METRIC=DELTA"),
        (" , ", "names no margin"),
        ("mg_score=0.1,mg_score=0.2", "mg_score is given twice"),
    ],
)
def test_a_bad_spec_exits_2_in_one_line_before_any_run_is_read(
    tmp_path: Path, spec: str, said: str
) -> None:
    missing = str(tmp_path / "no-such-run")  # not read: the option is refused first
    res = runner.invoke(app, ["compare", missing, missing, "--max-drop", spec])
    assert res.exit_code == 2
    (line,) = [x for x in res.output.splitlines() if x.strip()]
    assert line.startswith("error: --max-drop: ") and said in line


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("faithfulness=0.02", "metric(s) not compared in both runs: faithfulness (compared: mrr"),
        ("mrr=1", "mrr=1 allows any change over its range [0, 1]: it can never fail"),
    ],
)
def test_a_metric_not_compared_or_a_margin_that_cannot_fail_exits_2(spec: str, said: str) -> None:
    res = runner.invoke(app, ["compare", BASE, RERANKED, "--max-drop", spec])
    assert res.exit_code == 2
    (line,) = [x for x in res.output.splitlines() if x.strip()]
    assert line.startswith("error: max_drop (--max-drop): ") and said in line


def test_a_metric_with_no_better_direction_is_refused(tmp_path: Path) -> None:
    a, b = _runs(tmp_path, SMALL_DROP, "mg_share")
    with pytest.raises(ValueError, match="mg_share has no better direction"):
        ragmeter.compare(a, b, max_drop={"mg_share": 0.1})


def test_python_errors_come_before_the_statistics(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    compare_module = importlib.import_module("ragmeter.compare")  # the function shadows it

    def no_work(*args: object, **kwargs: object) -> None:
        raise AssertionError("statistics computed before max_drop was checked")

    monkeypatch.setattr(compare_module, "paired_stats_many", no_work)
    for bad, said in (
        ({}, "names no margin"),
        ("", "'' names no margin"),
        ({"mrr": -0.01}, "DELTA must be >= 0"),
        ({"mrr": True}, "DELTA is not a number"),
        ({"nope": 0.1}, "not compared in both runs: nope"),
        (0.1, "give a dict"),
    ):
        with pytest.raises(ValueError, match=said):
            ragmeter.compare(BASE, RERANKED, max_drop=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not compared in both runs: ndcg@10"):
        ragmeter.compare(BASE, RERANKED, metrics=["mrr"], max_drop={"ndcg@10": 0.1})


def test_json_markdown_and_to_dict_record_each_margin(tmp_path: Path) -> None:
    md = tmp_path / "comment.md"
    args = ["compare", RERANKED, BASE, "--max-drop", "mrr=0.05", "--max-drop", "token_f1=0.2"]
    res = runner.invoke(app, [*args, "-f", "json", "--markdown", str(md)])
    assert res.exit_code == 1
    data = json.loads(res.stdout)
    mrr, f1 = data["margins"]
    assert (mrr["metric"], mrr["max_drop"], mrr["passed"]) == ("mrr", 0.05, False)
    assert (f1["metric"], f1["max_drop"], f1["passed"]) == ("token_f1", 0.2, True)
    by_name = {m["metric"]: m for m in data["metrics"]}
    assert mrr["bound"] == by_name["mrr"]["ci_low"] and mrr["direction"] == "higher"
    assert mrr["reason"].startswith("mrr: B may be worse than A by up to 0.274")
    text = md.read_text()
    assert "**Margin FAILED**: mrr: B may be worse than A by up to 0.274" in text
    assert "**Margin met**: token_f1: B is worse than A by at most 0.095" in text
    assert ragmeter.compare(BASE, RERANKED).to_dict()["margins"] == []


def test_repr_is_short_and_names_each_metric() -> None:
    text = repr(ragmeter.compare(BASE, RERANKED))  # was both runs whole: every sample
    assert len(text) < 1000 and len(text.splitlines()) == 4
    assert text.startswith("Comparison(A='baseline', B='reranked', n_paired=36, confidence=0.95")
    assert "  mrr: delta +0.163 CI [+0.065, +0.274] (n=36)" in text
    margins = repr(ragmeter.compare(BASE, RERANKED, max_drop={"mrr": 0.05}))
    assert margins.endswith("  margins: 1 met, 0 failed)")


def test_analytic_p_values_never_underflow_to_zero() -> None:
    from ragmeter.stats import _sign_flip_bound, normal_p, paired_p_value

    d = np.full(2000, -0.1)  # z = sqrt(2000) = 44.7: erfc and exp both underflow
    assert normal_p(d) > 0 and _sign_flip_bound(d) > 0
    p = paired_p_value([0.5] * 2000, [0.4] * 2000)  # random sign patterns, bounded
    assert 0 < p < 1e-300


def test_a_drop_of_exactly_delta_passes_despite_float_noise(tmp_path: Path) -> None:
    a, b = _runs(tmp_path, [-0.02] * 30)  # 0.48 - 0.5 = -0.020000000000000018
    (margin,) = ragmeter.compare(a, b, max_drop={"mg_score": 0.02}).margins
    assert margin.bound is not None and margin.bound < -0.02 and margin.passed


def test_legend_and_margin_lines_are_one_line_each_off_a_terminal() -> None:
    """In a CI log (no terminal) rich broke the legend and each ``margin met:`` line at 80
    columns ("...; allowed" / "drop 0.05"): each is now one line, whole."""
    res = runner.invoke(
        app,
        ["compare", BASE, RERANKED, "--max-drop", "token_f1=0.02,mrr=0.05"],
        env={"COLUMNS": "80"},
    )
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    legend = [line for line in lines if line.strip().startswith("delta = mean(B")]
    assert len(legend) == 1 and "not significant at 0.05." in legend[0]
    met = [line for line in lines if line.startswith("margin met:")]
    assert len(met) == 2 and all("allowed drop" in line for line in met)
