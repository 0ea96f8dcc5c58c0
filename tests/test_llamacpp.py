"""The llama.cpp judge: unit tests without a model, then a few end-to-end with the embedded GGUF.

The end-to-end tests (marked local_judge + slow) load Qwen2.5-Coder-1.5B once per module,
assembling it from the chunk packages if needed (~5 s); they are skipped only when
llama-cpp-python or the chunk packages are missing.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import numpy as np
import pytest
from pydantic import BaseModel, Field

from needs import require_module
from ragmeter.backends import model_store
from ragmeter.backends.llama_tokens import _longest_prefix
from ragmeter.backends.llamacpp import LocalJudge
from ragmeter.protocols import Judge, Scorer
from ragmeter.vectors import log_softmax as _log_softmax

PV = "test-v1"


def test_helpers() -> None:
    assert _longest_prefix([1, 2, 3], [1, 2, 4, 5]) == 2
    assert _longest_prefix([], [1]) == 0
    assert _longest_prefix([1, 2], [1, 2]) == 2
    lp = _log_softmax(np.array([1.0, 2.0, 3.0], dtype=np.float32))
    assert np.isclose(np.exp(lp).sum(), 1.0)
    assert np.allclose(lp, np.log(np.exp([1, 2, 3]) / np.exp([1, 2, 3]).sum()))


def test_missing_gguf_path_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(model_store.ModelNotAvailable, match="GGUF file not found"):
        LocalJudge(tmp_path / "nope.gguf")


def test_user_gguf_name_carries_its_sha(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("RAGMETER_HOME", str(tmp_path / "home"))
    f = tmp_path / "my-model.Q4.gguf"
    f.write_bytes(b"GGUF" + (3).to_bytes(4, "little") + bytes(16) + b"not really a model")
    judge = LocalJudge(f)
    sha = model_store.sha256_file(f)
    assert judge.name == f"gguf:my-model.Q4.gguf+{sha[:12]}"
    assert isinstance(judge, Judge) and isinstance(judge, Scorer)
    judge.close()


async def test_broken_gguf_gives_error_replies_not_exceptions(tmp_path: Path, monkeypatch) -> None:
    require_module("llama_cpp")
    monkeypatch.setenv("RAGMETER_HOME", str(tmp_path / "home"))
    f = tmp_path / "broken.gguf"
    f.write_bytes(b"GGUF" + (3).to_bytes(4, "little") + b"\0" * 64)  # a header, no model
    judge = LocalJudge(f)
    reply = await judge.option_probs(
        [{"role": "user", "content": "hi"}], ["yes", "no"], prompt_version=PV
    )
    assert not reply.ok and reply.value is None and reply.error
    judge.close()


async def test_missing_embedded_model_says_how_to_install(tmp_path: Path, monkeypatch) -> None:
    require_module("llama_cpp")
    monkeypatch.setenv("RAGMETER_HOME", str(tmp_path / "home"))

    def nothing(dist: str, version: str) -> Path:
        raise FileNotFoundError(f"package {dist}=={version} is not installed")

    monkeypatch.setattr(model_store, "locate_part", nothing)
    judge = LocalJudge()
    assert judge.name == "local:qwen2.5-coder-1.5b-instruct-q4_k_m"
    with pytest.raises(model_store.ModelNotAvailable, match=r"ragmeter\[local\]"):
        judge.load()
    reply = await judge.structured([{"role": "user", "content": "x"}], _Verdict, prompt_version=PV)
    assert not reply.ok and "ragmeter models install" in (reply.error or "")
    judge.close()


# ---- end to end with the embedded model -------------------------------------------------


class _Verdict(BaseModel):
    reason: str = Field(max_length=400)
    supported: bool


class _Statements(BaseModel):
    statements: list[str]


CONTEXT = (
    "The Eiffel Tower is a wrought-iron lattice tower in Paris, France. It was designed "
    "by Gustave Eiffel's company and completed in 1889 for the World's Fair."
)
SYSTEM = (
    "You are a strict fact checker. Decide whether the statement can be directly inferred "
    "from the context. Answer with one word: yes or no."
)


def _verdict_msgs(statement: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": SYSTEM},
        {
            "role": "user",
            "content": f"Context: {CONTEXT}\n\nStatement: {statement}\n\n"
            "Is the statement supported by the context? "
            "Answer yes or no.",
        },
    ]


@pytest.fixture(scope="module")
def judge(embedded_judge):
    return embedded_judge


@pytest.mark.local_judge
@pytest.mark.slow
async def test_option_probs_separates_supported_from_unsupported(judge: LocalJudge) -> None:
    yes = await judge.option_probs(
        _verdict_msgs("The Eiffel Tower is in Paris."), ["yes", "no"], prompt_version=PV
    )
    no = await judge.option_probs(
        _verdict_msgs("The Eiffel Tower was completed in 1950 in Berlin."),
        ["yes", "no"],
        prompt_version=PV,
    )
    assert yes.ok and no.ok, (yes.error, no.error)
    assert abs(sum(yes.value.values()) - 1) < 1e-9
    assert yes.value["yes"] > 0.5 > no.value["yes"]
    assert yes.usage.prompt_tokens > 50 and yes.usage.completion_tokens == 0
    assert '"option_mass"' in (yes.raw or "")


@pytest.mark.local_judge
@pytest.mark.slow
async def test_shared_prefix_is_reused_and_gives_the_same_answer(judge: LocalJudge) -> None:
    msgs = _verdict_msgs("Gustave Eiffel's company designed the tower.")
    other = _verdict_msgs("The tower is made of wood.")
    first = await judge.option_probs(msgs, ["yes", "no"], prompt_version=PV)
    await judge.option_probs(other, ["yes", "no"], prompt_version=PV)  # move the KV state
    before = judge.stats.prompt_tokens_evaluated
    again = await judge.option_probs(msgs, ["yes", "no"], prompt_version=PV)
    evaluated = judge.stats.prompt_tokens_evaluated - before
    n_prompt = again.usage.prompt_tokens
    assert evaluated < n_prompt / 3, (evaluated, n_prompt)  # only the differing tail
    assert abs(first.value["yes"] - again.value["yes"]) < 0.02


@pytest.mark.local_judge
@pytest.mark.slow
async def test_structured_output_validates_against_the_schema(judge: LocalJudge) -> None:
    msgs = [
        {
            "role": "system",
            "content": "Split the text into short standalone statements. Reply in JSON.",
        },
        {"role": "user", "content": f"Text: {CONTEXT}"},
    ]
    reply = await judge.structured(msgs, _Statements, prompt_version=PV, max_tokens=160)
    assert reply.ok, (reply.error, reply.raw)
    assert isinstance(reply.value, _Statements) and len(reply.value.statements) >= 2
    assert any("1889" in s for s in reply.value.statements)
    assert reply.usage.completion_tokens > 0
    # a schema the reply cannot fit in max_tokens is a recorded failure with the raw text
    cut = await judge.structured(msgs, _Statements, prompt_version=PV, max_tokens=4)
    assert not cut.ok and "max_tokens" in (cut.error or "") and cut.raw is not None


@pytest.mark.local_judge
@pytest.mark.slow
async def test_target_logprobs_match_full_logits(judge: LocalJudge) -> None:
    from llama_cpp import Llama

    prompt = "<|im_start|>user\nWhere is the Eiffel Tower?<|im_end|>\n<|im_start|>assistant\n"
    target = "The Eiffel Tower is in Paris, France."
    reply = await judge.target_logprobs(prompt, target, prompt_version=PV)
    assert reply.ok, reply.error
    assert "".join(reply.value.tokens) == target

    ref = Llama(
        model_path=str(judge.model_path),
        n_ctx=256,
        logits_all=True,
        verbose=False,
        n_threads=judge.n_threads,
    )
    p = ref.tokenize(prompt.encode(), add_bos=True, special=True)
    t = ref.tokenize(target.encode(), add_bos=False, special=False)
    ref.eval(p + t)
    logits = np.asarray(ref.scores[: len(p) + len(t)], dtype=np.float64)
    expected = [float(_log_softmax(logits[len(p) + i - 1])[tok]) for i, tok in enumerate(t)]
    ref.close()
    assert len(reply.value.logprobs) == len(t)
    assert np.allclose(reply.value.logprobs, expected, atol=0.05), (reply.value.logprobs, expected)
    assert reply.value.mean_logprob > -1.5  # a fluent, true answer
    wrong = await judge.target_logprobs(
        prompt, "The Eiffel Tower is in Tokyo, Japan.", prompt_version=PV
    )
    assert wrong.value.mean_logprob < reply.value.mean_logprob


@pytest.mark.local_judge
@pytest.mark.slow
async def test_calls_run_off_the_event_loop_in_order(judge: LocalJudge) -> None:
    ticks = 0
    stop = asyncio.Event()

    async def heartbeat() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            await asyncio.sleep(0.01)

    hb = asyncio.create_task(heartbeat())
    t0 = time.perf_counter()
    replies = await asyncio.gather(
        *(
            judge.option_probs(
                _verdict_msgs(f"The tower was completed in {y}."), ["yes", "no"], prompt_version=PV
            )
            for y in (1889, 1789, 1989, 1889)
        )
    )
    elapsed = time.perf_counter() - t0
    stop.set()
    await hb
    assert all(r.ok for r in replies)
    assert replies[0].value["yes"] > replies[1].value["yes"]
    assert abs(replies[0].value["yes"] - replies[3].value["yes"]) < 0.02
    assert ticks > elapsed / 0.01 * 0.5  # the loop kept ticking while the model worked


@pytest.mark.local_judge
@pytest.mark.slow
async def test_window_overflow_is_an_error_reply(judge: LocalJudge) -> None:
    assert judge.count_tokens("hello world") == 2
    long = "word " * (judge.n_ctx + 10)
    reply = await judge.option_probs(
        [{"role": "user", "content": long}], ["yes", "no"], prompt_version=PV
    )
    assert not reply.ok and "n_ctx" in (reply.error or "")
