"""Embedding calls are counted as they are made: one call per batch of at most 64 texts
(each one HTTP request to the server), and the dry run predicts that count on the same
data. Before, a request of 130 texts was three requests and usage said one call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fake_server import FakeOpenAIServer
from ragmeter import runner
from ragmeter.backends.embedders import OpenAICompatEmbedder
from ragmeter.config import Settings
from ragmeter.dry_run import dry_run
from ragmeter.engine import Accountant, CachedEmbedder, CallCache, RetryPolicy

EMBEDDINGS = "/v1/embeddings"


def _embedder(url: str, acc: Accountant, cache: CallCache | None = None) -> CachedEmbedder:
    inner = OpenAICompatEmbedder("emb", url, api_key_env="RM_EMBED_UNSET")
    return CachedEmbedder(inner, cache=cache, accountant=acc, policy=RetryPolicy(max_retries=0))


async def test_each_batch_sent_is_one_counted_call_with_its_tokens(tmp_path: Path) -> None:
    texts = [f"sentence number {i} says something" for i in range(130)]
    acc = Accountant()
    cache = CallCache(tmp_path)
    with FakeOpenAIServer() as srv:
        emb = _embedder(srv.url, acc, cache)
        reply = await emb.embed([*texts, texts[0]])  # a repeated text is sent once
        assert reply.ok and reply.value.shape[0] == 131
        sent = srv.by_path[EMBEDDINGS]
        billed = sum(len(t.split()) for t in texts)  # what the fake server reports
        again = await emb.embed(texts[:5])  # all from the cache: nothing sent
        assert again.ok and again.cached and srv.by_path[EMBEDDINGS] == sent
    cache.close()
    used = acc.per_backend[emb.name]
    assert sent == 3  # 64 + 64 + 2 texts
    assert (used.calls, used.cache_hits, used.failures) == (3, 1, 0)
    assert used.prompt_tokens == billed


async def test_a_failed_batch_is_one_failed_call_beside_the_others() -> None:
    texts = [f"text {i}" for i in range(70)]

    def last_batch_fails(body: dict[str, Any], n: int) -> str | None:
        return "500" if len(body.get("input", [])) < 64 else None

    acc = Accountant()
    with FakeOpenAIServer(fault_fn=last_batch_fails) as srv:
        reply = await _embedder(srv.url, acc).embed(texts)
        sent = srv.by_path[EMBEDDINGS]
    assert not reply.ok and "500" in (reply.error or "")
    used = acc.total
    assert sent == used.calls == 2 and used.failures == 1
    assert used.prompt_tokens == 64 * 2  # the batch that came back is billed and counted


def _rows(n_rows: int, n_sentences: int) -> list[dict[str, Any]]:
    rows = []
    for r in range(n_rows):
        ctx = " ".join(f"Row {r} fact {i} concerns item {i * 7 + r}." for i in range(n_sentences))
        rows.append(
            {
                "question_id": f"q{r}",
                "question": f"What concerns item {r}?",
                "answer": f"Fact 1 concerns item {7 + r}. Fact 2 concerns item {14 + r}.",
                "contexts": [ctx],
            }
        )
    return rows


def test_the_dry_run_predicts_the_embed_calls_the_run_makes(tmp_path: Path) -> None:
    """Evidence picked by embedding over 70 context sentences: 72 texts a sample, two
    requests each. The estimate, the run's usage and the server agree; before, both said
    one call a sample while the server got two."""
    rows = _rows(3, 70)
    with FakeOpenAIServer() as srv:
        settings = Settings(
            judge="openai:m",
            base_url=srv.url,
            embedder="openai:emb",
            api_key_env="RM_EMBED_UNSET",
            cache="off",
            preflight=False,
            options={"evidence": "embedding"},
        )
        est = dry_run(rows, ["faithfulness"], settings)
        assert srv.calls == 0  # the dry run sent nothing
        real = runner.evaluate(rows, ["faithfulness"], settings=settings).usage
        sent = srv.by_path[EMBEDDINGS]
    (name,) = [b for b in real["per_backend"] if b.startswith("openai:emb")]
    assert sent == 6
    assert est["per_backend"][name]["calls"] == real["per_backend"][name]["calls"] == sent


def test_a_warm_cache_is_predicted_as_no_embed_call(tmp_path: Path) -> None:
    rows = _rows(2, 70)
    with FakeOpenAIServer() as srv:
        settings = Settings(
            judge="openai:m",
            base_url=srv.url,
            embedder="openai:emb",
            api_key_env="RM_EMBED_UNSET",
            cache=str(tmp_path),
            preflight=False,
            options={"evidence": "embedding"},
        )
        runner.evaluate(rows, ["faithfulness"], settings=settings)
        sent = srv.by_path[EMBEDDINGS]
        est = dry_run(rows, ["faithfulness"], settings)
        real = runner.evaluate(rows, ["faithfulness"], settings=settings).usage
        assert srv.by_path[EMBEDDINGS] == sent == 4
    (name,) = [b for b in real["per_backend"] if b.startswith("openai:emb")]
    e, r = est["per_backend"][name], real["per_backend"][name]
    assert (e["calls"], e["cache_hits"]) == (r["calls"], r["cache_hits"]) == (0, 2)
