"""meta-eval and the pytest tools refuse what evaluate refuses, before any work, in their own
terms; ``assert_scores(on="each")`` does what its docstring says about undefined scores.

Before: meta-eval built (loaded) its judge and embedder first and reported a missing one only
then; the plugin's missing-key error named the CLI's --api-key-env and --base-url, which the
plugin does not have; a scripted ``Evaluator`` given a metric needing a scorer failed every
score; ``assert_scores(on="each")`` failed on undefined scores while its docstring said it
gated "every scored sample"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import judged_rows, make_row
from typer.testing import CliRunner

import ragmeter
import ragmeter.meta_eval
from ragmeter.cli import app
from ragmeter.errors import ConfigError, DataError
from ragmeter.testing import Evaluator, assert_scores

pytest_plugins = ("pytester",)
runner = CliRunner()
WIKIEVAL_ROW = {
    "question": "When did the bridge open?",
    "answer": "The bridge opened in 1937.",
    "ungrounded_answer": "The bridge opened in 1950.",
    "poor_answer": "It is a bridge.",
    "context_v1": ["The bridge opened in 1937. It is orange."],
    "context_v2": ["The bridge opened in 1937. It is orange.", "Rivers flow."],
    "source": "Bridge",
}


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def wikieval(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A one-row WikiEval file; building models or scoring pairs fails the test."""

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("models were built before the settings were checked")

    monkeypatch.setattr("ragmeter.meta_eval._api.build_resources", forbidden)
    path = tmp_path / "wikieval.jsonl"
    path.write_text(json.dumps(WIKIEVAL_ROW) + "\n")
    return path


# ---- 5. meta-eval refuses up front, as evaluate does ------------------------------------------


@pytest.mark.parametrize(
    "extra, said",
    [
        (["--judge", "none"], "meta-eval needs a judge (its RAGAS metrics are judged), and there"),
        (["--judge", "gguf:/nonexistent/x.gguf"], "the GGUF file /nonexistent/x.gguf does not"),
        (["--base-url", "http://h/v1"], "--base-url (base_url) http://h/v1 is given, but the"),
        (
            ["--embedder", "none", "--baselines", "embedding_cosine"],
            "the embedding_cosine baseline needs an embedder, and there is no embedder "
            "available: --embedder none (embedder='none') was given",
        ),
        (
            ["--judge", "openai:m", "--base-url", "http://127.0.0.1:9/v1", "--baselines",
             "perplexity"],
            "the perplexity baseline needs a scorer, and there is no scorer available",
        ),
    ],
)  # fmt: skip
def test_meta_eval_refuses_before_building_models(
    wikieval: Path, extra: list[str], said: str
) -> None:
    args = ["meta-eval", "wikieval", "--data", str(wikieval), "--cache", "off", *extra]
    res = runner.invoke(app, args)
    text = _flat(res.output)
    assert res.exit_code == 2, text
    assert said in text


def test_meta_eval_library_raises_a_config_error(wikieval: Path) -> None:
    settings = ragmeter.Settings(judge="none", cache="off")
    with pytest.raises(ConfigError, match="meta-eval needs a judge"):
        ragmeter.meta_eval.run("wikieval", wikieval, settings=settings)


# ---- 6. the pytest plugin and Evaluator ------------------------------------------------------


def _plugin_run(pytester: Any, monkeypatch: pytest.MonkeyPatch, *args: str) -> Any:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv("RAGMETER_JUDGE", raising=False)
    pytester.makepyfile("def test_x(ragmeter_evaluator):\n    pass\n")
    return pytester.runpytest_inprocess(
        "-p", "ragmeter.testing.plugin", "-p", "no:cacheprovider", *args
    )


def test_plugin_missing_key_names_the_plugins_options(pytester, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    res = _plugin_run(pytester, monkeypatch, "--ragmeter-judge", "openai:gpt-4o-mini")
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    err = _flat(res.stderr.str())
    assert "OPENAI_API_KEY is not set" in err and "--ragmeter-judge / RAGMETER_JUDGE" in err
    assert "--api-key-env" not in err and "--base-url" not in err


def test_plugin_named_judge_that_cannot_be_had(pytester, monkeypatch) -> None:
    res = _plugin_run(pytester, monkeypatch, "--ragmeter-judge", "gguf:/nonexistent/x.gguf")
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    err = _flat(res.stderr.str())
    assert "the judge 'gguf:/nonexistent/x.gguf' was asked for" in err
    assert "--ragmeter-judge none" in err and " --judge" not in err


def test_evaluator_default_judge_is_not_a_named_one(monkeypatch: pytest.MonkeyPatch) -> None:
    from ragmeter import availability

    real = availability._found
    monkeypatch.setattr(availability, "_found", lambda m: m != "llama_cpp" and real(m))
    assert Evaluator().judge == "local" and "judge" not in Evaluator().settings().model_fields_set
    rows = [make_row(1), make_row(2)]
    result = Evaluator(options={"cache": "off"}).evaluate(rows, n_resamples=10)
    assert "faithfulness" not in result.metrics and "mrr" in result.metrics
    with pytest.raises(ConfigError, match="the judge 'local' was asked for"):
        Evaluator(judge="local", options={"cache": "off"}).evaluate(rows, n_resamples=10)


@pytest.mark.parametrize(
    "metric, need", [("context_relevance_perplexity", "a scorer"), ("answer_reward", "a reward")]
)
def test_a_scripted_evaluator_refuses_a_metric_it_cannot_score(metric: str, need: str) -> None:
    with pytest.raises(DataError) as info:
        Evaluator(judge="scripted").evaluate([make_row(1)], [metric, "mrr"], n_resamples=10)
    text = str(info.value)
    assert f"'{metric}' needs {need}" in text and "Evaluator(judge='scripted')" in text


# ---- assert_scores(on="each") and undefined scores ----------------------------------------------


def test_each_fails_on_an_undefined_score_unless_allowed() -> None:
    result = Evaluator(judge="scripted").evaluate(judged_rows(), ["faithfulness"])
    undefined = result.aggregates["faithfulness"].n_undefined
    assert undefined == 1
    with pytest.raises(AssertionError) as info:
        assert_scores(result, faithfulness=0.4, on="each")
    msg = str(info.value)
    assert "0 sample(s) below 0.4, 1 unscored: 1 undefined" in msg
    assert "q7  undefined: no contexts" in msg
    assert_scores(result, faithfulness=0.4, on="each", allow_undefined=True)
    with pytest.raises(AssertionError) as info:  # the low ones still fail it
        assert_scores(result, faithfulness=0.9, on="each", allow_undefined=True)
    assert "undefined" not in str(info.value)
    with pytest.raises(ValueError, match="allow_undefined applies to on='each' only"):
        assert_scores(result, faithfulness=0.4, allow_undefined=True)


def test_each_with_no_value_at_all_fails_even_when_undefined_is_allowed() -> None:
    rows = [make_row(i, contexts=[], context_ids=[]) for i in (1, 2)]
    result = Evaluator(judge="scripted").evaluate(rows, ["faithfulness"], n_resamples=10)
    assert result.aggregates["faithfulness"].n_ok == 0
    with pytest.raises(AssertionError, match=r"no value: 0 of 2 samples scored"):
        assert_scores(result, faithfulness=0.1, on="each", allow_undefined=True)
