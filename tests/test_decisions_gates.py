"""Gates that decided the wrong way: a metric B did not compute, a lower-is-better metric."""

from __future__ import annotations

import json

import pytest
from tests.conftest import make_row
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app
from ragmeter.compare import compare
from ragmeter.gates import fail_on_regression


def _rows(n: int = 6) -> list[dict]:
    return [make_row(i) for i in range(1, n + 1)]


def test_a_metric_b_did_not_compute_fails_the_gate_unless_left_out_with_metrics():
    # a CI job whose evaluate ran without the judge drops faithfulness & co. from B: the
    # comparison only warned "only in A, not compared" and the gate passed
    a = ragmeter.evaluate(_rows(), "token_f1,mrr", n_resamples=100)
    b = ragmeter.evaluate(_rows(), "token_f1", n_resamples=100)
    cmp = compare(a, b)
    assert cmp.lost_metrics == ["mrr"]
    failures = fail_on_regression(cmp)
    assert [f.metric for f in failures] == ["mrr"]
    assert "computed in A, not in B" in str(failures[0])
    assert "**Not computed in B**: mrr" in cmp.to_markdown()
    assert json.loads(cmp.to_json())["lost_metrics"] == ["mrr"]
    assert fail_on_regression(compare(a, b, metrics=["token_f1"])) == []
    assert fail_on_regression(compare(b, a)) == []  # a metric B added is no regression


def test_cli_gate_names_the_metric_b_lost(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in _rows()))
    runner = CliRunner()
    for name, metrics in (("a", "token_f1,mrr"), ("b", "token_f1")):
        out = runner.invoke(app, ["evaluate", str(data), "-m", metrics, "-o", str(tmp_path / name)])
        assert out.exit_code == 0, out.output
    args = ["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--fail-on-regression"]
    res = runner.invoke(app, args)
    assert res.exit_code == 1
    assert "gate failed: mrr: computed in A, not in B" in res.output
    assert runner.invoke(app, [*args, "-m", "token_f1"]).exit_code == 0


def test_a_gate_on_a_lower_is_better_metric_is_refused_not_inverted():
    # a plugin metric where lower is better: --fail-under / assert_scores failed the runs
    # below the threshold, i.e. the better ones, and passed the worse
    from ragmeter.errors import DataError
    from ragmeter.metrics import registry
    from ragmeter.metrics.base import Metric, Score
    from ragmeter.testing import assert_scores

    name = "test_error_rate"
    if name not in registry._FIXED:
        registry.register(
            Metric(
                name=name,
                description="test-only: share of wrong answers, lower is better",
                requires=(("answer",),),
                compute=lambda sample: Score.ok(0.05),
                default=False,
                direction="lower",
            )
        )
    good = ragmeter.evaluate(_rows(), name, n_resamples=100)
    assert good.aggregates[name].mean == pytest.approx(0.05)
    with pytest.raises(DataError, match="lower-is-better"):
        assert_scores(good, {name: 0.1})
    res = CliRunner().invoke(
        app, ["evaluate", "nope.jsonl", "-m", name, "--fail-under", f"{name}=0.1"]
    )
    assert res.exit_code == 2 and "lower-is-better" in res.output
