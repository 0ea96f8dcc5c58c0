"""The Hugging Face scorer and reward model are cached and accounted as the judge is.

Before, ``_add_hf_models`` put the raw models into the resources: a re-run with the same
``--cache`` recomputed every reward and every perplexity, the run's usage said nothing of
their calls, and a dry run of ``context_relevance_perplexity`` with ``scorer_model`` failed
inside its stand-in (which expected a CachedScorer) and counted no call. Tiny models saved in
tmp_path; nothing is downloaded.
"""

from __future__ import annotations

import pytest

from needs import require_module
from ragmeter.backends.hf import HFRewardModel, HFScorer
from ragmeter.config import Settings
from ragmeter.dry_run import estimate
from ragmeter.engine import Accountant, CallCache
from ragmeter.errors import ConfigError
from ragmeter.metrics.registry import get_metric
from ragmeter.runner import evaluate
from ragmeter.sample import Sample
from tiny_hf import build_gpt2, build_reward, build_t5

require_module("transformers")  # ragmeter imports no transformers at import time

LONG = " ".join(["paris is the capital of france ."] * 40)  # 280 tokens; gpt2 here takes 128
ROWS = [
    {
        "question_id": "q1",
        "question": "what is the capital of france ?",
        "answer": "paris is the capital .",
        "contexts": ["paris is the capital of france .", "we are the world ."],
    },
    {
        "question_id": "q2",
        "question": "who are we ?",
        "answer": "we are the world .",
        "contexts": ["we are the world .", LONG],
    },
    {
        "question_id": "q3",
        "question": "is paris good ?",
        "answer": "yes , paris is good .",
        "contexts": ["paris is good ."],
    },
]
N_CONTEXTS = sum(len(r["contexts"]) for r in ROWS)


@pytest.fixture(scope="module")
def models(tmp_path_factory):  # type: ignore[no-untyped-def]
    base = tmp_path_factory.mktemp("hfc")
    return {
        "rm": build_reward(base / "rm"),
        "t5": build_t5(base / "t5"),
        "gpt2": build_gpt2(base / "gpt2"),
    }


def _counting(monkeypatch, cls, method):  # type: ignore[no-untyped-def]
    calls = []
    real = getattr(cls, method)

    def counted(self, *args):  # type: ignore[no-untyped-def]
        calls.append(args)
        return real(self, *args)

    monkeypatch.setattr(cls, method, counted)
    return calls


def _run(metric, options, cache):  # type: ignore[no-untyped-def]
    settings = Settings(judge="none", cache=str(cache), options=options)
    return evaluate(ROWS, [metric], settings=settings, n_resamples=10)


def test_a_rerun_with_the_cache_never_calls_the_reward_model(models, tmp_path, monkeypatch):
    calls = _counting(monkeypatch, HFRewardModel, "_logit")
    first = _run("answer_reward", {"reward_model": str(models["rm"])}, tmp_path / "c")
    assert len(calls) == len(ROWS)
    second = _run("answer_reward", {"reward_model": str(models["rm"])}, tmp_path / "c")
    assert len(calls) == len(ROWS)  # no new call: every reward came from the cache
    a, b = first.scores["answer_reward"], second.scores["answer_reward"]
    assert [s.status for s in a] == ["ok"] * len(ROWS)
    assert [s.value for s in a] == [s.value for s in b]  # bit-identical, not approx
    assert [s.details["logit"] for s in a] == [s.details["logit"] for s in b]
    assert second.usage["per_metric"]["answer_reward"]["calls"] == 0
    assert second.usage["per_metric"]["answer_reward"]["cache_hits"] == len(ROWS)


@pytest.mark.parametrize("kind", ["t5", "gpt2"])
def test_a_rerun_with_the_cache_never_calls_the_scorer(models, tmp_path, monkeypatch, kind):
    calls = _counting(monkeypatch, HFScorer, "_score")
    options = {"scorer_model": str(models[kind])}
    first = _run("context_relevance_perplexity", options, tmp_path / "c")
    assert len(calls) == N_CONTEXTS
    second = _run("context_relevance_perplexity", options, tmp_path / "c")
    assert len(calls) == N_CONTEXTS
    a = first.scores["context_relevance_perplexity"]
    b = second.scores["context_relevance_perplexity"]
    assert [s.status for s in a] == ["ok"] * len(ROWS)
    assert [s.value for s in a] == [s.value for s in b]
    # the contexts the model cut are still listed (gpt2 reads 128 positions)
    cut = [s.details["truncated_contexts"] for s in a]
    assert cut == [s.details["truncated_contexts"] for s in b]
    assert cut[1] == ([1] if kind == "gpt2" else [])
    usage = second.usage["per_metric"]["context_relevance_perplexity"]
    assert usage["calls"] == 0 and usage["cache_hits"] == N_CONTEXTS


@pytest.mark.parametrize(
    ("metric", "option", "model", "calls"),
    [
        ("answer_reward", "reward_model", "rm", len(ROWS)),
        ("context_relevance_perplexity", "scorer_model", "t5", N_CONTEXTS),
    ],
)
def test_the_models_calls_and_tokens_are_in_the_usage(
    models, tmp_path, metric, option, model, calls
):
    result = _run(metric, {option: str(models[model])}, tmp_path / "c")
    usage = result.usage
    assert usage["calls"] == calls and usage["prompt_tokens"] > 0
    assert usage["per_metric"][metric]["calls"] == calls
    (backend,) = usage["per_backend"]
    assert backend.startswith(f"hf:{model}+")
    assert usage["per_backend"][backend]["calls"] == calls
    assert usage["cost_usd"] == 0.0  # a model on this machine costs nothing: not "unknown"
    first = result.scores[metric][0].details["judge_usage"]
    assert first["calls"] >= 1 and first["prompt_tokens"] > 0


def test_a_failed_reward_is_not_cached(models, tmp_path, monkeypatch):
    def broken(self, question, answer):  # type: ignore[no-untyped-def]
        raise RuntimeError("out of memory")

    with monkeypatch.context() as m:
        m.setattr(HFRewardModel, "_logit", broken)
        failed = _run("answer_reward", {"reward_model": str(models["rm"])}, tmp_path / "c")
    assert {s.status for s in failed.scores["answer_reward"]} == {"failed"}
    assert failed.usage["failures"] == len(ROWS)
    calls = _counting(monkeypatch, HFRewardModel, "_logit")
    again = _run("answer_reward", {"reward_model": str(models["rm"])}, tmp_path / "c")
    assert len(calls) == len(ROWS)
    assert {s.status for s in again.scores["answer_reward"]} == {"ok"}


async def test_a_damaged_stored_reward_is_asked_again(models, tmp_path):
    from ragmeter.engine.scorer import CachedRewardModel

    cache = CallCache(tmp_path / "c")
    model = CachedRewardModel(HFRewardModel(models["rm"]), cache=cache)
    key = model.key("q", "a")
    cache.put(key, kind="reward", backend=model.name, prompt_version=None, ok=True, value="x")
    reply = await model.score("q", "a")
    assert reply.ok and not reply.cached and isinstance(reply.value, float)
    cache.close()


def test_dry_run_counts_the_scorer_without_loading_it(models, tmp_path, monkeypatch):
    loads = _counting(monkeypatch, HFScorer, "load")
    settings = Settings(judge="none", cache=None, options={"scorer_model": str(models["t5"])})
    samples = [Sample(**r) for r in ROWS]
    est = _await(estimate([get_metric("context_relevance_perplexity")], samples, settings))
    assert est["per_metric"]["context_relevance_perplexity"]["calls"] == N_CONTEXTS
    assert loads == []


async def test_dry_run_reward_stand_in_counts_calls_and_cache_hits(models, tmp_path):
    from ragmeter.engine.dryrun import DryRunRewardModel
    from ragmeter.engine.scorer import CachedRewardModel

    cache = CallCache(tmp_path / "c")
    real = CachedRewardModel(HFRewardModel(models["rm"]), cache=cache)
    await real.score("q", "stored answer")
    acc = Accountant()
    dry = DryRunRewardModel(real, acc)
    for answer in ("stored answer", "new answer", "another"):
        reply = await dry.score("q", answer)
        assert reply.ok and 0.0 <= reply.value <= 1.0
    assert acc.total.calls == 2 and acc.total.cache_hits == 1
    assert acc.total.prompt_tokens > 0
    cache.close()


def test_a_dry_run_with_a_stored_cache_does_not_abort(models, tmp_path):
    """The reward model reached a dry run as the resources built it, with the cache opened
    read only: storing a reward there must not end the dry run."""
    options = {"reward_model": str(models["rm"])}
    _run("answer_reward", options, tmp_path / "c")  # the store exists now
    settings = Settings(judge="none", cache=str(tmp_path / "c"), options=options)
    samples = [Sample(**r) for r in ROWS] + [Sample(question="new ?", question_id="n", answer="x")]
    est = _await(estimate([get_metric("answer_reward")], samples, settings))
    assert est["skipped"] == {"answer_reward": 0}


@pytest.mark.parametrize(
    ("device", "said"),
    [("nonsense", "not a torch device"), ("cuda", "no cuda device"), ("cuda:0", "no cuda device")],
)
def test_a_device_torch_cannot_use_is_refused_in_the_settings(device, said):
    import torch

    if torch.cuda.is_available():  # pragma: no cover - this machine has no GPU
        pytest.fail("the refusal paths are tested on a machine without CUDA")
    with pytest.raises(ConfigError) as err:
        Settings(options={"hf_device": device, "reward_model": "/m"})
    said_ = str(err.value)
    assert "options.hf_device" in said_ and said in said_.lower() and repr(device) in said_
    assert "\n" not in said_


def test_the_device_option_reaches_the_models_and_their_cache_keys(models, monkeypatch):
    import ragmeter.metric_options as mo
    from ragmeter.resources import build_resources

    monkeypatch.setattr(mo, "device_problem", lambda device: None)  # as on a GPU machine
    options = {"reward_model": str(models["rm"]), "scorer_model": str(models["t5"])}
    on = {}
    for device in ("cpu", "cuda:1"):
        settings = Settings(judge="none", options={**options, "hf_device": device})
        res = build_resources(settings, {"reward_model", "scorer"}).resources
        assert res.reward_model.inner.device == res.scorer.inner.device == device
        on[device] = (res.reward_model.key("q", "a"), res.scorer.key("p", "t", prompt_version="v"))
    assert on["cpu"][0] != on["cuda:1"][0] and on["cpu"][1] != on["cuda:1"][1]


def _await(coro):  # type: ignore[no-untyped-def]
    import asyncio

    return asyncio.run(coro)


def test_dry_run_of_answer_reward_counts_without_loading_the_model(models, tmp_path, monkeypatch):
    """Before, the dry run handed the real reward model to the metric: it loaded the weights,
    scored every answer and counted nothing. Now one call a sample is counted (a stored one
    as a cache hit) and the model is never loaded."""
    options = {"reward_model": str(models["rm"])}
    _run("answer_reward", options, tmp_path / "c")  # the three rows are in the cache
    loads = _counting(monkeypatch, HFRewardModel, "load")
    settings = Settings(judge="none", cache=str(tmp_path / "c"), options=options)
    samples = [Sample(**r) for r in ROWS] + [Sample(question="new ?", question_id="n", answer="x")]
    est = _await(estimate([get_metric("answer_reward")], samples, settings))
    used = est["per_metric"]["answer_reward"]
    assert (used["calls"], used["cache_hits"]) == (1, 3), used
    assert loads == []
