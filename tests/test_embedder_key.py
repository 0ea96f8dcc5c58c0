"""A key given in Python (``Settings(api_key=...)``) reaches the OpenAI embedder as it reaches
the judge. Before, the embedder read only the environment variable: a Python user's key never
reached it (answer_relevance in generate mode was left out for "no embedder"), and the dry
run, which estimates as if the key were set, left the metric out too."""

from __future__ import annotations

from fake_server import FakeOpenAIServer
from ragmeter import Settings, dry_run, evaluate
from test_engine_runner import rows

KEY = "sk-python-only-key-5678"


def _settings(url: str) -> Settings:
    return Settings(
        judge="openai:m",
        base_url=url,
        embedder="openai:e",
        api_key=KEY,
        api_key_env="RAGMETER_TEST_UNSET",
        cache="off",
        preflight=False,
        modes={"answer_relevance": "generate"},
    )


def test_a_python_key_reaches_the_openai_embedder() -> None:
    committal = '{"questions": ["What is fact number 1?"], "noncommittal": false}'
    with FakeOpenAIServer(script=lambda body: committal) as srv:
        result = evaluate(rows(2), ["answer_relevance"], settings=_settings(srv.url))
        embedded = srv.by_path["/v1/embeddings"]
        headers = set(srv.auth_headers)
    assert [s.status for s in result.scores["answer_relevance"]] == ["ok", "ok"]
    assert embedded > 0 and headers == {f"Bearer {KEY}"}


def test_the_dry_run_without_a_key_counts_the_openai_embedder() -> None:
    """It estimates as if the key were set; the embedder got no stand-in key, so the metric
    was left out for "no embedder"."""
    settings = Settings(
        judge="openai:gpt-4o-mini",
        embedder="openai:text-embedding-3-small",
        api_key_env="RAGMETER_TEST_UNSET",
        cache="off",
        modes={"answer_relevance": "generate"},
    )
    estimate = dry_run(rows(2), ["answer_relevance"], settings=settings)
    assert estimate["key_missing"] and "answer_relevance" in estimate["per_metric"]
    assert estimate["per_backend"]["openai:text-embedding-3-small"]["calls"] == 2
