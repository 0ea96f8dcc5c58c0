"""NOT COMPARABLE is decided on the compared metrics: their versions and modes, and the
judge / embedder only for a metric that asks one. Real run directories: lexical runs, and
judged runs against tests/fake_server.py (a real OpenAI-API server)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import make_row

import ragmeter
from fake_server import FakeOpenAIServer
from ragmeter.compare import compare
from ragmeter.config import Settings

ROWS = [make_row(i) for i in range(1, 6)]
NOT_COMPARABLE = "NOT COMPARABLE"


def _judged(srv: FakeOpenAIServer, cache: Path, **changes: object) -> Settings:
    base = {
        "judge": "openai:judge-1",
        "base_url": srv.url,
        "api_key_env": "RM_CMP_UNSET",
        "embedder": "none",
        "cache": str(cache),
        "preflight": False,
    }
    return Settings(**{**base, **changes})


@pytest.fixture(scope="module")
def judged(tmp_path_factory) -> dict[str, Path]:
    """answer_relevance (judged) + token_f1 (lexical), scored into run directories by
    judges that differ in one way each; "a" and "same" differ only in what cannot change a
    score (concurrency, time-out, retries, cache directory)."""
    root = tmp_path_factory.mktemp("judged")
    metrics = ["answer_relevance", "token_f1"]
    out: dict[str, Path] = {}
    with FakeOpenAIServer() as srv, FakeOpenAIServer() as other:
        variants = {
            "a": _judged(srv, root / "c1"),
            "same": _judged(srv, root / "c2", concurrency=2, timeout=30.0, max_retries=1),
            "model": _judged(srv, root / "c1", judge="openai:judge-2"),
            "url": _judged(other, root / "c1"),
            # generate needs an embedder (refused before any work without one): the server's
            "mode": _judged(
                srv, root / "c1", modes={"answer_relevance": "generate"}, embedder="openai:e"
            ),
        }
        for name, settings in variants.items():
            ragmeter.evaluate(ROWS, metrics, settings=settings, out=root / name, n_resamples=50)
            out[name] = root / name
    return out


def _not_comparable(warnings: list[str]) -> list[str]:
    return [w for w in warnings if NOT_COMPARABLE in w or w.startswith("manifests differ")]


def test_judged_runs_scored_alike_are_comparable(judged):
    warnings = compare(judged["a"], judged["same"]).warnings
    assert _not_comparable(warnings) == [], warnings


@pytest.mark.parametrize(
    ("variant", "said"),
    [
        ("model", 'judge.model for answer_relevance: "judge-1" vs "judge-2"'),
        ("url", "judge.base_url for answer_relevance: "),
        ("mode", 'mode for answer_relevance: "fast" vs "generate"'),
    ],
)
def test_a_judged_metric_with_another_judge_or_mode_is_not_comparable(judged, variant, said):
    warnings = compare(judged["a"], judged[variant]).warnings
    flagged = _not_comparable(warnings)
    assert flagged and flagged[0].startswith(NOT_COMPARABLE), warnings
    assert any(said in w for w in flagged), warnings
    assert not any("token_f1" in w for w in flagged)  # a lexical metric asks no judge
    # comparing only the lexical metric, the judge cannot matter
    only_f1 = compare(judged["a"], judged[variant], metrics=["token_f1"]).warnings
    assert _not_comparable(only_f1) == [], only_f1


def test_runs_differing_only_in_the_metrics_they_ran_or_an_unused_judge_are_comparable(
    tmp_path,
):
    """The user's case: one run with --judge none, the other with the local judge, and one
    more metric; only lexical metrics are compared."""
    ragmeter.evaluate(ROWS, ["mrr", "token_f1"], out=tmp_path / "a", n_resamples=50)
    ragmeter.evaluate(
        ROWS,
        ["mrr", "token_f1", "ndcg@10"],
        settings=Settings(judge="none", embedder="none", concurrency=3),
        out=tmp_path / "b",
        n_resamples=50,
    )
    warnings = compare(tmp_path / "a", tmp_path / "b").warnings
    assert _not_comparable(warnings) == [], warnings
    assert "only in b, not compared: ndcg@10" in warnings  # said, but not as a difference


def test_another_metric_definition_or_prompt_version_is_not_comparable(tmp_path):
    for name in ("a", "b"):
        ragmeter.evaluate(ROWS, ["mrr", "token_f1"], out=tmp_path / name, n_resamples=50)
    manifest = tmp_path / "b" / "run.json"
    doc = json.loads(manifest.read_text())
    doc["metrics"][1]["version"] = "0"  # token_f1 under an older definition
    doc["metrics"][0]["prompts"] = {"x.json": {"version": "x-2", "sha256": "ab" * 32}}
    manifest.write_text(json.dumps(doc))
    flagged = _not_comparable(compare(tmp_path / "a", tmp_path / "b").warnings)
    assert 'manifests differ in version for token_f1: "1" vs "0"' in flagged
    assert any(w.startswith("manifests differ in prompts.x.json for mrr") for w in flagged)
    assert _not_comparable(compare(tmp_path / "a", tmp_path / "b", metrics=["mrr"]).warnings)


def test_runs_without_run_json_are_judged_on_their_settings_per_metric():
    """Older runs: summary.json's settings only; the registry says which metrics ask a judge."""
    a = ragmeter.evaluate(ROWS, ["token_f1"], n_resamples=50)
    b = ragmeter.evaluate(ROWS, ["token_f1"], n_resamples=50)
    for result, judge in ((a, "local"), (b, "openai:gpt-4o")):
        result.manifest = {}
        result.config["settings"] = {"judge": judge, "modes": {"faithfulness": "fast"}}
    assert _not_comparable(compare(a, b).warnings) == []  # token_f1 asks no judge
    for result in (a, b):  # the same runs, as if they had scored faithfulness too
        result.metrics.append("faithfulness")
        result.scores["faithfulness"] = list(result.scores["token_f1"])
        result.aggregates["faithfulness"] = result.aggregates["token_f1"]
    flagged = _not_comparable(compare(a, b).warnings)
    assert flagged[0].startswith(NOT_COMPARABLE)
    assert 'settings.judge for faithfulness: "local" vs "openai:gpt-4o"' in flagged[1]
    assert not any("modes" in w or "token_f1" in w for w in flagged)
