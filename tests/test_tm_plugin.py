"""The pytest plugin as a user's suite runs it: options checked once before any test, and
the same evaluate() keywords whatever the judge (pytester, in-process)."""

from __future__ import annotations

import pytest
from tests.conftest import EXAMPLES, make_row

from ragmeter.errors import ConfigError
from ragmeter.testing import Evaluator

pytest_plugins = ("pytester",)


@pytest.fixture(autouse=True)
def _preloaded():  # type: ignore[no-untyped-def]
    """Import in the outer session what the in-process runs use (see test_testing_plugin)."""
    import ragmeter.testing.plugin  # noqa: F401
    from ragmeter.metrics.registry import list_metrics

    list_metrics()
    Evaluator(judge="scripted").evaluate([make_row(1)], ["mrr", "faithfulness"], n_resamples=10)


def _suite(pytester, monkeypatch, n_tests: int = 3):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    for name in ("RAGMETER_JUDGE", "RAGMETER_EMBEDDER", "RAGMETER_CACHE"):
        monkeypatch.delenv(name, raising=False)
    body = "".join(f"def test_{i}(ragmeter_evaluator):\n    pass\n\n" for i in range(n_tests))
    pytester.makepyfile(test_suite=body + "def test_plain():\n    pass\n")


def test_a_bad_judge_from_the_environment_stops_the_session_once(pytester, monkeypatch):
    """Was: every test using the fixture errored with the same DataError traceback into
    config.py, naming neither RAGMETER_JUDGE nor the plugin-only 'scripted'."""
    _suite(pytester, monkeypatch)
    monkeypatch.setenv("RAGMETER_JUDGE", "scriptd")
    res = pytester.runpytest_inprocess("-p", "ragmeter.testing.plugin", "-p", "no:cacheprovider")
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    err = res.stderr.str()
    assert "ragmeter plugin options ($RAGMETER_JUDGE='scriptd')" in err
    assert "not 'scriptd'" in err and "'scripted'" in err
    assert "config.py" not in res.stdout.str() + err  # no traceback into ragmeter


def test_a_bad_option_on_the_command_line_is_named_as_given(pytester, monkeypatch):
    _suite(pytester, monkeypatch)
    res = pytester.runpytest_inprocess(
        "-p", "ragmeter.testing.plugin", "-p", "no:cacheprovider",
        "--ragmeter-judge", "openai:m", "--ragmeter-embedder", "bogus",
    )  # fmt: skip
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    err = res.stderr.str()
    assert "--ragmeter-judge='openai:m', --ragmeter-embedder='bogus'" in err
    assert "embedder" in err and "'bogus'" in err


def test_no_option_given_keeps_the_plugin_lazy_and_help_works(pytester, monkeypatch):
    _suite(pytester, monkeypatch, n_tests=0)
    res = pytester.runpytest_inprocess("-p", "ragmeter.testing.plugin", "-p", "no:cacheprovider")
    res.assert_outcomes(passed=1)
    monkeypatch.setenv("RAGMETER_JUDGE", "bogus")  # --help must still show the options
    res = pytester.runpytest_inprocess("-p", "ragmeter.testing.plugin", "--help")
    assert res.ret == 0 and "--ragmeter-judge" in res.stdout.str()


def test_scripted_judge_takes_the_keywords_a_spec_judge_takes():
    """Was: TypeError '_evaluate_direct() got an unexpected keyword argument' for format=
    and progress=, and a numpy error after scoring for a bad confidence."""
    data = EXAMPLES / "compare" / "baseline.jsonl"
    scripted = Evaluator(judge="scripted")
    result = scripted.evaluate(data, ["mrr", "faithfulness"], format="jsonl", progress=True)
    assert result.aggregates["mrr"].n_ok == 36
    with pytest.raises(ConfigError, match="confidence must be between 0 and 1"):
        scripted.evaluate(data, ["faithfulness"], confidence=2.0)
    with pytest.raises(ConfigError, match=r"Evaluator\(judge='scripted'\).evaluate\(out=...\)"):
        scripted.evaluate(data, ["faithfulness"], out="never-written")


def test_a_named_judge_without_its_key_stops_the_session_once(pytester, monkeypatch):
    """Was: every test that evaluated failed with the same ConfigError traceback into
    runner.py and resources.py; the CLI refuses the same judge before any work (exit 2)."""
    _suite(pytester, monkeypatch)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    args = ("-p", "ragmeter.testing.plugin", "-p", "no:cacheprovider")
    res = pytester.runpytest_inprocess(*args, "--ragmeter-judge", "openai:gpt-4o-mini")
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    err = res.stderr.str()
    assert "ragmeter plugin options (--ragmeter-judge='openai:gpt-4o-mini')" in err
    assert "OPENAI_API_KEY is not set" in err
    assert "resources.py" not in res.stdout.str() + err
    # collecting (an IDE discovering tests) needs no key
    res = pytester.runpytest_inprocess(*args, "--ragmeter-judge=openai:m", "--collect-only")
    assert res.ret == pytest.ExitCode.OK
    # with the key in the environment, the session runs
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used-0123456789")
    pytester.runpytest_inprocess(*args, "--ragmeter-judge", "openai:m").assert_outcomes(passed=4)


def test_a_cache_that_cannot_open_stops_the_session_once(pytester, monkeypatch, tmp_path):
    _suite(pytester, monkeypatch)
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    monkeypatch.setenv("RAGMETER_CACHE", str(blocker / "cache"))
    res = pytester.runpytest_inprocess("-p", "ragmeter.testing.plugin", "-p", "no:cacheprovider")
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    assert f"$RAGMETER_CACHE='{blocker / 'cache'}'" in res.stderr.str()
    assert "cannot be opened" in res.stderr.str()
