"""Issue 14: a server judge gets a sample's calls at once, the first calls leave before the
whole first wave's CPU work, and the HTTP client's trust store is read once per process."""

from __future__ import annotations

import asyncio
import math

import pytest

from fake_server import FakeOpenAIServer
from ragmeter import evaluate
from ragmeter.backends import openai_compat
from ragmeter.config import Settings
from ragmeter.engine.accounting import Accountant
from ragmeter.errors import JudgeFailed
from ragmeter.metrics.base import Metric, Score
from ragmeter.metrics.judging import each
from ragmeter.resources import Built
from ragmeter.sample import Sample
from ragmeter.scheduler import score_all

SIX = " ".join(f"Fact number {i} is about topic {i}." for i in range(6))


def _sample_of_six_claims() -> list[dict[str, object]]:
    return [
        {
            "question_id": "q1",
            "question": "What are the facts about?",
            "answer": SIX,
            "contexts": [SIX],
        }
    ]


# 0.5 s a reply for the concurrent case: at 50 ms a loaded machine (CI beside benchmarks)
# sent the sixth request after the first reply had come back (max_in_flight 5)
@pytest.mark.parametrize(("concurrency", "in_flight", "latency"), [(8, 6, 0.5), (1, 1, 0.05)])
def test_a_samples_statements_are_in_flight_together_on_a_concurrent_server(
    concurrency: int, in_flight: int, latency: float
) -> None:
    with FakeOpenAIServer(latency=latency, yes_logprob=-0.1) as srv:
        s = Settings(
            judge="openai:m",
            base_url=srv.url,
            cache="off",
            preflight=False,
            concurrency=concurrency,
        )
        result = evaluate(_sample_of_six_claims(), ["faithfulness_judge"], settings=s)
        assert srv.calls == 6
        assert srv.max_in_flight == in_flight
    score = result.scores["faithfulness_judge"][0]
    assert score.status == "ok", score.reason
    # in the statements' order, whatever order the replies came back in
    assert score.details["statements"] == [f"Fact number {i} is about topic {i}." for i in range(6)]
    assert score.details["p_yes"] == [round(math.exp(-0.1), 4)] * 6


def test_context_relevance_asks_about_a_chunks_sentences_together() -> None:
    data = [{**_sample_of_six_claims()[0], "question": "What is fact number 1 to 5 about?"}]
    with FakeOpenAIServer(latency=0.05, yes_logprob=-0.1) as srv:
        s = Settings(judge="openai:m", base_url=srv.url, cache="off", preflight=False)
        result = evaluate(data, ["context_relevance"], settings=s)
        assert srv.calls > 1
        assert srv.max_in_flight == srv.calls
    assert result.scores["context_relevance"][0].status == "ok"


class _Judge:
    def __init__(self, concurrency: int) -> None:
        self.concurrency = concurrency


def test_each_keeps_order_and_one_at_a_time_for_a_one_worker_judge() -> None:
    log: list[str] = []

    def job(n: int, delay: float):  # type: ignore[no-untyped-def]
        async def run() -> int:
            log.append(f"start {n}")
            await asyncio.sleep(delay)
            log.append(f"end {n}")
            return n

        return run

    jobs = [job(0, 0.03), job(1, 0.0), job(2, 0.01)]
    assert asyncio.run(each(_Judge(1), jobs)) == [0, 1, 2]
    assert log == ["start 0", "end 0", "start 1", "end 1", "start 2", "end 2"]
    log.clear()
    assert asyncio.run(each(_Judge(4), jobs)) == [0, 1, 2]  # results in job order
    assert log[:3] == ["start 0", "start 1", "start 2"]


def test_each_lets_the_other_calls_finish_when_one_fails() -> None:
    """The other calls are already at the server, which answers and bills them: they finish
    (and are counted and cached by the engine), then the first failure is raised. Before
    2026-11-27 they were cancelled in flight: billed, but neither counted nor cached."""
    finished: list[int] = []

    async def fails() -> int:
        await asyncio.sleep(0.01)
        raise JudgeFailed("judge error (yes/no verdict): scripted")

    async def slow() -> int:
        await asyncio.sleep(0.2)
        finished.append(1)
        return 1

    async def main() -> None:
        with pytest.raises(JudgeFailed, match="scripted"):
            await each(_Judge(4), [slow, fails, slow])

    asyncio.run(main())
    assert finished == [1, 1]


def test_each_stops_the_calls_when_the_run_is_cancelled() -> None:
    """Ctrl-C or an aborted run still stops every call of the sample."""
    finished: list[int] = []

    async def slow() -> int:
        await asyncio.sleep(5)
        finished.append(1)
        return 1

    async def main() -> None:
        task = asyncio.ensure_future(each(_Judge(4), [slow, slow]))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert finished == []


class _Resources:
    def __init__(self) -> None:
        self.judge = None
        self.options: dict[str, object] = {}


def test_the_first_wave_sends_its_first_calls_before_its_last_jobs_cpu_work() -> None:
    events: list[str] = []

    async def acompute(sample: Sample, resources: object) -> Score:
        events.append(f"cpu {sample.question_id}")  # claims, evidence: synchronous work
        await asyncio.sleep(0)  # stands for the call being handed to the HTTP client
        events.append(f"call {sample.question_id}")
        await asyncio.sleep(0.01)
        return Score.ok(1.0)

    metric = Metric(name="probe", description="probe", requires=(("question",),), acompute=acompute)
    samples = [Sample(question_id=f"s{i}", question="q?") for i in range(6)]
    built = Built(resources=_Resources(), accountant=Accountant(), cache=None)  # type: ignore[arg-type]
    scores = asyncio.run(score_all([metric], samples, built, limit=4, progress=False))
    assert [s.value for s in scores["probe"]] == [1.0] * 6
    # all six ran; the first job's call left before the fourth job of the wave started
    assert events.index("call s0") < events.index("cpu s3")


def test_the_trust_store_is_read_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    openai_compat._ssl_context.cache_clear()
    reads: list[int] = []
    real = openai_compat._HTTPX.create_ssl_context

    def counted(verify=True, **kw):  # type: ignore[no-untyped-def]
        if verify is True:  # a fresh read of the trust store, not a context handed over
            reads.append(1)
        return real(verify=verify, **kw)

    monkeypatch.setattr(openai_compat._HTTPX, "create_ssl_context", counted)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    for _ in range(3):
        openai_compat.make_client("http://127.0.0.1:9/v1", None, 60.0, 8)
    assert len(reads) == 1
    # a different trust store in the environment is honoured, not served from the cache
    monkeypatch.setenv("SSL_CERT_FILE", "/etc/ssl/certs/ca-certificates.crt")
    openai_compat.make_client("http://127.0.0.1:9/v1", None, 60.0, 8)
    assert len(reads) == 2
    openai_compat._ssl_context.cache_clear()


def test_overlapping_runs_restore_the_collector_threshold_once_the_last_ends() -> None:
    import gc

    from ragmeter._perf import relaxed_gc

    before = gc.get_threshold()
    a, b = relaxed_gc(), relaxed_gc()
    a.__enter__()
    b.__enter__()
    assert gc.get_threshold()[0] == max(20_000, before[0])
    a.__exit__(None, None, None)  # the first to end leaves the other's run relaxed
    assert gc.get_threshold()[0] == max(20_000, before[0])
    b.__exit__(None, None, None)
    assert gc.get_threshold() == before


def test_only_the_first_wave_is_staggered() -> None:
    from ragmeter.scheduler import _stagger

    turns: list[int] = []

    async def count(k: int) -> None:
        done = asyncio.ensure_future(_stagger(k, 4))
        n = 0
        while not done.done():
            n += 1
            await asyncio.sleep(0)
        turns.append(n)

    async def main() -> None:
        for k in (0, 3, 4, 50):
            await count(k)

    asyncio.run(main())
    assert turns[0] < turns[1]  # job 3 of the first wave waits its turns
    assert turns[2] == turns[3] == turns[0]  # jobs after the first wave start at once
