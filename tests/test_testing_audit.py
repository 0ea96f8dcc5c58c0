"""Audit of ragmeter inside a user's pytest suite: what a demanding team met, each a test
that failed before its fix."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ragmeter.errors import DataError
from ragmeter.testing import Evaluator, ScriptedJudge, assert_scores

pytest_plugins = ("pytester",)

ROW = {
    "question_id": "taupo",
    "question": "Which river drains Lake Taupo?",
    "contexts": ["The Waikato River drains Lake Taupo."],
    "answer": "The Waikato River drains Lake Taupo.",
    "reference_answers": ["The Waikato River."],
}


def test_a_sample_listed_below_the_bar_shows_a_value_below_it():
    """Was: "taupo  1.000" listed under "samples below 1.0" (faithfulness 0.9999999)."""
    result = Evaluator(judge="scripted").evaluate([ROW], ["faithfulness"], n_resamples=10)
    value = result.scores["faithfulness"][0].value
    assert value is not None and 0.999 < value < 1.0  # the case: rounds to 1.000
    with pytest.raises(AssertionError) as err:
        assert_scores(result, faithfulness=1.0, on="each")
    msg = str(err.value)
    assert "1.000" not in msg
    assert "taupo  0.9999999  'Which river drains Lake Taupo?'" in msg
    invented = {**ROW, "answer": "Penguins invented jazz in Paris."}
    low = Evaluator(judge="scripted").evaluate([invented], ["faithfulness"], n_resamples=10)
    with pytest.raises(AssertionError, match=r"taupo  0\.000  "):  # 3 decimals stay the rule
        assert_scores(low, faithfulness=0.5, on="each")


def test_an_async_test_awaits_the_evaluator_on_its_own_loop():
    """Was: AttributeError, 'Evaluator' object has no attribute 'aevaluate'."""
    evaluator = Evaluator(judge="scripted")

    async def a_test() -> Any:
        return await evaluator.aevaluate([ROW], ["faithfulness", "token_f1"], n_resamples=10)

    result = asyncio.run(a_test())
    same = evaluator.evaluate([ROW], ["faithfulness", "token_f1"], n_resamples=10)
    assert result.metrics == same.metrics == ["faithfulness", "token_f1"]
    for name in result.metrics:
        assert result.aggregates[name].mean == same.aggregates[name].mean is not None


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"options": {"cahce": "off"}}, "cahce"),
        ({"embedder": "bogus"}, "bogus"),
    ],
)
def test_a_scripted_evaluator_checks_its_settings_as_a_spec_one(kwargs, named):
    """Was: accepted in silence with judge='scripted' (RAGMETER_JUDGE=scripted in CI), a
    DataError only once the real judge was named."""
    with pytest.raises(DataError, match="Evaluator options") as err:
        Evaluator(judge="scripted", **kwargs)
    assert named in str(err.value)
    with pytest.raises(DataError, match=named):
        Evaluator(judge="openai:m", **kwargs)


def test_an_unscored_sample_is_listed_with_its_question():
    """Was: "q2  undefined: no contexts: ..." naming the sample by id only, where a sample
    below the bar was listed with its (shortened) question."""
    no_contexts = {**ROW, "question_id": "empty", "question": "Where does the " + "x " * 60}
    no_contexts["contexts"] = []
    result = Evaluator(judge="scripted").evaluate([ROW, no_contexts], ["faithfulness"])
    with pytest.raises(AssertionError) as err:
        assert_scores(result, faithfulness=0.5, on="each")
    line = next(x for x in str(err.value).splitlines() if "empty  undefined: " in x)
    assert line.endswith("against  'Where does the x x x x x x x x x x x x x x x x x …'")
    assert len(line) < 160


@pytest.fixture
def _suite(pytester, monkeypatch):  # type: ignore[no-untyped-def]
    """A user's suite run in-process with the plugin as ``-p`` (autoload off: the entry point
    would register it twice), the scripted judge from the environment."""
    import ragmeter.testing.plugin  # noqa: F401  (imported in the outer session, as the others)

    Evaluator(judge="scripted").evaluate([ROW], ["faithfulness"], n_resamples=10)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    for name in ("RAGMETER_EMBEDDER", "RAGMETER_CACHE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RAGMETER_JUDGE", "scripted")
    return pytester


def test_an_async_test_awaits_the_fixture_and_a_bad_embedder_stops_the_session(_suite):
    """Was: AttributeError in the async test, and ``--ragmeter-embedder bogus`` accepted with
    the scripted judge (the session ran; the same suite with a real judge stopped)."""
    _suite.makepyfile(
        f"""
        import pytest

        @pytest.mark.asyncio
        async def test_gate(ragmeter_evaluator):
            result = await ragmeter_evaluator.aevaluate([{ROW!r}], ["faithfulness"])
            assert result.aggregates["faithfulness"].n_ok == 1
        """
    )
    _suite.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    args = (
        "-p",
        "ragmeter.testing.plugin",
        "-p",
        "pytest_asyncio.plugin",
        "-p",
        "no:cacheprovider",
    )
    _suite.runpytest_inprocess(*args).assert_outcomes(passed=1)
    res = _suite.runpytest_inprocess(*args, "--ragmeter-embedder", "bogus")
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    assert "ragmeter plugin options ($RAGMETER_JUDGE='scripted', --ragmeter-embedder='bogus')" in (
        res.stderr.str()
    )


def test_a_scripted_judge_with_a_verdict_of_its_own_is_not_named_overlap():
    """Was: results of ``ScriptedJudge(lambda p: 1.0)`` recorded the judge "scripted:overlap"."""
    always = Evaluator(judge=ScriptedJudge(lambda _prompt: 1.0)).evaluate([ROW], ["faithfulness"])
    assert always.config["settings"]["judge"] == always.usage["judge"] == "scripted:custom"
    overlap = Evaluator(judge="scripted").evaluate([ROW], ["faithfulness"])
    assert overlap.config["settings"]["judge"] == "scripted:overlap"
    assert ScriptedJudge(lambda _prompt: 1.0, name="mine").name == "mine"
