"""Usage accounting: prices found for every backend a run calls, and a cost that is unknown
rather than $0 when it cannot be known."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_row

from fake_server import FakeOpenAIServer
from ragmeter import runner
from ragmeter.config import Settings
from ragmeter.dry_run import dry_run
from ragmeter.engine.accounting import Accountant, PriceTable

PRICES = {"m": {"input": 1.0, "output": 2.0}, "e": {"input": 0.5, "output": 0.0}}


def _expected_cost(usage: dict, prices: dict) -> float:  # type: ignore[type-arg]
    """Each backend's tokens at its model's price, the model read from the usage itself."""
    total = 0.0
    for backend, tally in usage["per_backend"].items():
        model = backend.split(":", 1)[1].split("@", 1)[0]
        price = prices[model]
        total += (
            tally["prompt_tokens"] * price["input"] + tally["completion_tokens"] * price["output"]
        )
    return total / 1e6


def test_an_embedder_at_a_base_url_is_priced_in_the_run_and_in_the_estimate(
    tmp_path: Path,
) -> None:
    """`[prices.e]` was never found for `--embedder openai:e` with a base URL (the backend is
    named `openai:e@URL`): cost_usd was null and the dry run said "no price configured"."""
    samples = [make_row(i) for i in range(1, 4)]
    with FakeOpenAIServer() as srv:
        settings = Settings(
            judge="openai:m",
            base_url=srv.url,
            embedder="openai:e",
            cache=str(tmp_path),
            api_key_env="RM_CD_UNSET",
            preflight=False,
            prices=PRICES,
        )
        est = dry_run(samples, ["answer_correctness"], settings)
        usage = runner.evaluate(samples, ["answer_correctness"], settings=settings).usage
    embedders = [b for b in usage["per_backend"] if "@" in b]
    assert embedders and usage["per_backend"][embedders[0]]["prompt_tokens"] > 0
    assert usage["cost_usd"] is not None
    assert abs(usage["cost_usd"] - _expected_cost(usage, PRICES)) < 1e-6
    assert est["cost_usd"] is not None
    assert abs(est["cost_usd"] - _expected_cost(est, PRICES)) < 1e-6


def test_a_model_name_holding_an_at_sign_keeps_its_own_price() -> None:
    table = PriceTable({"claude@2024": (3.0, 15.0), "claude": (1.0, 1.0)})
    assert table.cost("litellm:claude@2024", 1_000_000, 0) == 3.0


def test_calls_to_an_unpriced_model_whose_server_reported_no_tokens_cost_unknown() -> None:
    """A server that sends no `usage` leaves the tokens at 0: the cost of those calls is
    unknown, not $0."""
    acc = Accountant(PriceTable({}))
    acc.record("openai:m")  # one call, no tokens reported
    assert acc.summary()["calls"] == 1
    assert acc.cost_usd() is None
    cached = Accountant(PriceTable({}))
    cached.record("openai:m", cached=True)  # answered from the cache: nothing spent
    assert cached.cost_usd() == 0.0


def test_a_priced_model_whose_server_reported_no_tokens_costs_unknown_not_zero() -> None:
    """A price for the model used to make such calls cost $0.00: their zero tokens were
    priced, though the server never said what it billed."""
    acc = Accountant(PriceTable({"m": (1.0, 2.0)}))
    acc.record("openai:m", prompt_tokens=10, completion_tokens=1)
    assert acc.cost_usd() == round(12 / 1e6, 6)  # every call metered: a cost
    acc.record("openai:m")  # answered, no tokens reported
    assert acc.summary()["unmetered"] == 1
    assert acc.cost_usd() is None
    failed = Accountant(PriceTable({"m": (1.0, 2.0)}))
    failed.record("openai:m", failed=True)  # no answer (a transport failure): nothing billed
    assert failed.summary()["unmetered"] == 0 and failed.cost_usd() == 0.0


def test_a_run_against_a_priced_server_that_sends_no_usage_has_an_unknown_cost(
    tmp_path: Path,
) -> None:
    samples = [make_row(i) for i in range(1, 3)]
    with FakeOpenAIServer(fault_fn=lambda body, n: "badusage") as srv:
        settings = Settings(
            judge="openai:m",
            base_url=srv.url,
            embedder="none",
            cache=None,
            api_key_env="RM_CD_UNSET",
            preflight=False,
            prices=PRICES,
        )
        usage = runner.evaluate(samples, ["faithfulness"], settings=settings).usage
    assert usage["calls"] > 0 and usage["unmetered"] == usage["calls"]
    assert usage["cost_usd"] is None


def test_a_model_run_in_process_that_reports_no_tokens_leaves_the_cost_known() -> None:
    """The local sentence-transformers embedder reports no tokens, so every call of it was
    'unmetered' and made the run's cost unknown (meta-eval with the embedding_cosine
    baseline said cost_usd null beside a local judge, and so did a priced server judge run
    with a local embedder). Models in this process cost nothing whatever they report."""
    acc = Accountant(PriceTable({"m": (1.0, 2.0)}))
    acc.record("local:qwen", prompt_tokens=100, computed_tokens=20)
    acc.record("st:all-MiniLM-L6-v2")  # an embedding: no token counts
    assert acc.summary()["unmetered"] == 1 and acc.cost_usd() == 0.0
    acc.record("openai:m", prompt_tokens=10, completion_tokens=1)
    assert acc.cost_usd() == round(12 / 1e6, 6)  # the server's calls, the embedder's $0
    acc.record("openai:m")  # the server answered without usage: now it is unknown
    assert acc.cost_usd() is None
