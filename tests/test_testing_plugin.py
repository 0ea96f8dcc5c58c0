"""The pytest plugin, the example quality-gate test, assert_scores and the scripted judge."""

from __future__ import annotations

import pytest
from tests.conftest import EXAMPLES, judged_rows, make_row

from ragmeter.errors import DataError
from ragmeter.testing import Evaluator, ScriptedJudge, assert_scores, overlap_verdict

pytest_plugins = ("pytester",)


@pytest.fixture(autouse=True)
def _preloaded():  # type: ignore[no-untyped-def]
    """Import in the outer session what the in-process runs use.

    pytester restores sys.modules after each in-process run; extension modules imported
    inside one (scipy, numpy submodules) and imported again by the next can crash.
    """
    import ragmeter.testing.plugin  # noqa: F401
    from ragmeter.metrics.registry import list_metrics

    list_metrics()
    Evaluator(judge="scripted").evaluate([make_row(1)], ["mrr", "faithfulness"], n_resamples=10)


EXAMPLE_TEST = EXAMPLES / "test_rag_quality.py"


def _run_example(pytester, monkeypatch, data, *args):  # type: ignore[no-untyped-def]
    """Run the example test file in-process with the plugin loaded as `-p`, scripted judge.

    Plugin autoload is off so the entry point (present once ragmeter is reinstalled) cannot
    register the plugin a second time.
    """
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("RAGMETER_EXAMPLE_DATA", str(data))
    pytester.makepyfile(test_rag_quality=EXAMPLE_TEST.read_text())
    return pytester.runpytest_inprocess(
        "-p", "ragmeter.testing.plugin", "-p", "no:cacheprovider", *args
    )


def test_example_passes_on_good_data(pytester, monkeypatch):
    monkeypatch.delenv("RAGMETER_JUDGE", raising=False)
    res = _run_example(
        pytester, monkeypatch, EXAMPLES / "compare" / "reranked.jsonl", "--ragmeter-judge=scripted"
    )
    res.assert_outcomes(passed=1)


def test_example_fails_readably_on_bad_data(pytester, monkeypatch):
    monkeypatch.setenv("RAGMETER_JUDGE", "scripted")  # the environment works as well
    res = _run_example(pytester, monkeypatch, EXAMPLES / "compare" / "baseline.jsonl")
    res.assert_outcomes(failed=1)
    out = res.stdout.str()
    assert "ragmeter: 1 of 3 score gate(s) failed" in out
    assert "mrr: mean 0.573 < 0.7 (n=36)" in out
    assert "samples below 0.7 or unscored (worst first):" in out
    assert "k01  0.000  'Could you tell me which day of the week the rubbish is collected?'" in out


def test_plugin_options_reach_the_evaluator(pytester, monkeypatch):
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("RAGMETER_EMBEDDER", "none")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")  # a named judge needs its key
    pytester.makepyfile(
        """
        def test_config(ragmeter_evaluator):
            assert ragmeter_evaluator.judge == "openai:some-model"
            assert ragmeter_evaluator.embedder == "none"
            assert ragmeter_evaluator.options == {"cache": "off"}
            assert not ragmeter_evaluator.scripted
            assert ragmeter_evaluator.settings().judge == "openai:some-model"
        """
    )
    res = pytester.runpytest_inprocess(
        "-p", "ragmeter.testing.plugin", "--ragmeter-judge", "openai:some-model",
        "--ragmeter-cache", "off",
    )  # fmt: skip
    res.assert_outcomes(passed=1)


def test_default_judge_is_the_embedded_one(pytester, monkeypatch):
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv("RAGMETER_JUDGE", raising=False)
    pytester.makepyfile(
        "def test_j(ragmeter_evaluator):\n    assert ragmeter_evaluator.judge == 'local'\n"
    )
    pytester.runpytest_inprocess("-p", "ragmeter.testing.plugin").assert_outcomes(passed=1)


def test_entry_point_is_declared():
    import tomllib

    from tests.conftest import ROOT

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert data["project"]["entry-points"]["pytest11"] == {"ragmeter": "ragmeter.testing.plugin"}


def test_assert_scores_lists_offending_samples_and_failures():
    rows = judged_rows()
    result = Evaluator(judge="scripted").evaluate(rows, ["faithfulness", "token_f1"])
    assert_scores(result, {"token_f1": 0.1})
    with pytest.raises(AssertionError) as err:
        assert_scores(result, faithfulness=0.99, token_f1=0.1)
    msg = str(err.value)
    assert msg.splitlines()[0] == "ragmeter: 1 of 2 score gate(s) failed"
    assert "faithfulness: mean 0.750 < 0.99 (n=6)" in msg
    assert "q1  0.500  'What is fact number 1?'" in msg
    assert "q7  undefined: no contexts: nothing to check the answer against" in msg
    assert "q2 " not in msg  # fully supported answers are not listed
    with pytest.raises(AssertionError, match=r"3 sample\(s\) below 0\.9, 1 unscored"):
        assert_scores(result, {"faithfulness": 0.9}, on="each")
    with pytest.raises(AssertionError, match="CI lower bound"):
        assert_scores(result, {"faithfulness": 0.74}, on="ci_low")
    with pytest.raises(ValueError):
        assert_scores(result)


def test_scripted_judge_scores_move_the_right_way():
    good = make_row(1, answer="Fact 1 is that the sky is blue.")
    bad = make_row(2, answer="Fact 2 is that the ocean is purple.")
    result = Evaluator(judge="scripted").evaluate([good, bad], ["faithfulness"])
    values = [s.value for s in result.scores["faithfulness"]]
    assert values[0] == pytest.approx(1.0, abs=1e-3) and values[1] < 0.7
    prompt = (
        "Context:\n[1] The sky is blue.\n\nQuestion: q\n\nStatement: The sky is red.\nSupported?"
    )
    assert overlap_verdict(prompt) == pytest.approx(0.5)  # 'sky' found, 'red' not


def test_scripted_judge_failures_become_failed_scores():
    judge = ScriptedJudge(fail_on="Fact 1")
    result = Evaluator(judge=judge).evaluate([make_row(1), make_row(2)], ["faithfulness"])
    statuses = [s.status for s in result.scores["faithfulness"]]
    assert statuses == ["failed", "ok"]
    assert judge.log and judge.log[0][0] == "option_probs"


async def test_evaluator_works_inside_a_running_event_loop():
    result = Evaluator(judge="scripted").evaluate([make_row(1)], ["faithfulness", "token_f1"])
    assert result.scores["faithfulness"][0].value == pytest.approx(1.0, abs=1e-3)
    # a spec judge goes through Settings and the normal runner (here: no judge needed)
    plain = Evaluator(judge="none", options={"cache": "off"}).evaluate([make_row(1)], "token_f1")
    assert plain.aggregates["token_f1"].n_ok == 1 and plain.config["settings"]["judge"] == "none"


def test_evaluator_repr_never_shows_a_key():
    """pytest prints the objects of a failed assert (and fixture locals with -l): the key in
    options must not reach CI logs, and must still reach the settings."""
    key = "sk-LEAK-0123456789abcdef"
    ev = Evaluator(judge="openai:gpt-4o-mini", options={"api_key": key, "cache": "off"})
    assert key not in repr(ev) + str(ev)
    assert "**********" in repr(ev)
    assert ev.settings().api_key is not None
    assert ev.settings().api_key.get_secret_value() == key


def test_evaluator_checks_spec_settings_when_made():
    with pytest.raises(DataError, match="concurrency"):
        Evaluator(judge="none", options={"concurrency": 0})


def test_assert_scores_refuses_what_cannot_gate_before_looking_at_scores():
    result = Evaluator(judge="scripted").evaluate([make_row(1), make_row(2)], ["token_f1"])
    with pytest.raises(
        ValueError, match=r"on must be one of 'mean', 'ci_low', 'each', not 'median'"
    ):
        assert_scores(result, token_f1=0.5, on="median")
    # out of range: would pass or fail for nothing (the CLI's --fail-under refuses it too)
    with pytest.raises(DataError, match=r"token_f1=1.5 is outside token_f1's range \[0, 1\]"):
        assert_scores(result, token_f1=1.5)
    with pytest.raises(DataError, match=r"mrr=-0.1 is outside"):
        assert_scores(result, {"mrr": -0.1})
    assert_scores(result, token_f1=0.0)  # the bounds themselves are fine
    with pytest.raises(AssertionError, match="not computed"):  # unknown names: not a usage error
        assert_scores(result, {"my_custom_metric": 0.5})


def test_assert_scores_failure_shows_the_callers_line_not_its_source(pytester, monkeypatch):
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(
        test_gate="""
from ragmeter.testing import Evaluator, assert_scores

def test_gate():
    rows = [{"question": "q", "answer": "blue sky", "reference_answers": ["red sea"]}]
    result = Evaluator(judge="scripted").evaluate(rows, ["token_f1"])
    assert_scores(result, token_f1=0.9)  # the caller's line
"""
    )
    out = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    out.assert_outcomes(failed=1)
    text = out.stdout.str()
    assert "assert_scores(result, token_f1=0.9)  # the caller's line" in text
    assert "token_f1: mean 0.000 < 0.9" in text
    assert 'raise AssertionError("\\n".join(lines))' not in text  # assert_scores' own source
    assert "asserts.py" not in text


def test_assert_scores_fails_a_metric_whose_scores_failed():
    """Was: a mean over the scores that survived passed, while the run's exit code was 1:
    the judge failing on a sample was hidden by the gate."""
    rows = [make_row(1), make_row(2), make_row(3)]
    result = Evaluator(judge=ScriptedJudge(fail_on="Fact 2")).evaluate(rows, ["faithfulness"])
    assert result.exit_code() == 1
    for on in ("mean", "ci_low", "each"):
        with pytest.raises(AssertionError) as err:
            assert_scores(result, faithfulness=0.5, on=on)
        msg = str(err.value)
        assert "ragmeter: 1 of 1 score gate(s) failed" in msg
        assert "q2  failed: judge error (yes/no verdict): scripted failure" in msg
        if on != "each":
            assert "faithfulness: 1 of 3 scores failed (max_failure_rate 0.0)" in msg
    # a tolerated share, as the CLI's --max-failure-rate
    assert_scores(result, faithfulness=0.5, max_failure_rate=0.34)
    assert_scores(result, faithfulness=0.5, max_failure_rate=0.34, on="each")
    with pytest.raises(AssertionError, match=r"mean 1\.000 < 1\.0.*|1 of 3 scores failed"):
        assert_scores(result, faithfulness=0.5, max_failure_rate=0.3)


def test_assert_scores_refuses_arguments_that_cannot_gate():
    result = Evaluator(judge="scripted").evaluate([make_row(1), make_row(2)], ["token_f1"])
    with pytest.raises(ValueError, match=r"thresholds must be numbers, not token_f1=True"):
        assert_scores(result, token_f1=True)  # float(True) == 1.0: the top of the range
    with pytest.raises(ValueError, match=r"thresholds must be numbers, not token_f1=False"):
        assert_scores(result, {"token_f1": False})
    with pytest.raises(ValueError, match=r"show must be an integer of 0 or more, not -1"):
        assert_scores(result, token_f1=0.5, show=-1)  # was: '... and 3 more' of 2 samples
    with pytest.raises(ValueError, match=r"max_failure_rate must be in \[0, 1\], not 1.5"):
        assert_scores(result, token_f1=0.5, max_failure_rate=1.5)
