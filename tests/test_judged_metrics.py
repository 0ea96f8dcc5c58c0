"""Arithmetic of the judged metrics on scripted judge replies, undefined and failure cases."""

from __future__ import annotations

import numpy as np
import pytest

from judged_fakes import HashEmbedder, ScriptedJudge, statement_in
from ragmeter.metrics.context import chunk_indices, estimate_tokens
from ragmeter.metrics.faithfulness import faithfulness
from ragmeter.metrics.reference import (
    answer_correctness,
    average_precision,
    context_precision,
    context_recall,
)
from ragmeter.metrics.registry import get_metric
from ragmeter.metrics.relevance import (
    answer_relevance,
    candidates,
    context_relevance,
    match_sentences,
)
from ragmeter.metrics.support import load_calibration
from ragmeter.protocols import Resources
from ragmeter.sample import Sample

CTX = (
    "Paris is the capital of France. It has about two million inhabitants. "
    "The Seine flows through the city. Paris hosted the 2024 Olympics."
)


def sample(**kw) -> Sample:
    base = dict(
        question="What is the capital of France?",
        question_id="q1",
        answer="Paris is the capital. It is in Germany. It hosted the Olympics.",
        contexts=[CTX],
    )
    base.update(kw)
    return Sample(**base)


def res(judge=None, modes=None, **opts) -> Resources:
    return Resources(judge=judge, embedder=HashEmbedder(), options={"modes": modes or {}, **opts})


def verdict_by_statement(table: dict[str, float]):
    return lambda text: table[statement_in(text)]


# ---- faithfulness --------------------------------------------------------------------------


async def test_faithfulness_fast_is_mean_p_supported_with_evidence():
    table = {"Paris is the capital.": 0.9, "It is in Germany.": 0.2, "It hosted the Olympics.": 0.7}
    judge = ScriptedJudge(verdict_by_statement(table))
    s = await faithfulness(sample(), res(judge))
    assert s.status == "ok"
    supported = [e["p_supported"] for e in s.details["statement_evidence"]]
    assert s.value == pytest.approx(sum(supported) / 3, abs=1e-4)
    assert s.details["judge_only"] == pytest.approx((0.9 + 0.2 + 0.7) / 3)
    assert s.details["statements"] == list(table)
    assert s.details["verdicts"] == ["yes" if p >= 0.5 else "no" for p in supported]
    assert s.details["hard_score"] == pytest.approx(2 / 3)
    assert s.details["judge"]["calls"] == 3


async def test_faithfulness_fast_prompts_share_the_context_prefix():
    judge = ScriptedJudge(lambda t: 1.0)
    await faithfulness(sample(), res(judge))
    users = [m[-1]["content"] for _, m in judge.log]
    systems = {m[0]["content"] for _, m in judge.log}
    assert len(systems) == 1
    prefix = users[0].split("Statement:")[0]
    assert prefix.startswith("Context:\n<data>\n[1] Paris is the capital of France.")
    assert all(u.startswith(prefix) for u in users)


async def test_faithfulness_chunks_long_context_and_takes_best_chunk():
    ctx = " ".join(f"Fact number {i} is true." for i in range(40))
    judge = ScriptedJudge(lambda t: 0.9 if "[40]" in t else 0.1)
    s = await faithfulness(
        sample(answer="Fact number 39 is true.", contexts=[ctx]),
        res(judge, max_context_tokens=60, evidence_k=0, faithfulness_combine="judge"),
    )
    assert s.details["chunks"] > 1
    assert s.value == pytest.approx(0.9)
    assert len(judge.log) == s.details["chunks"]


async def test_faithfulness_generate_counts_supported_statements():
    def script(text, schema):
        if schema.__name__ == "Statements":
            return {"statements": ["Paris is the capital of France.", "Paris is in Germany."]}
        return {
            "verdicts": [
                {"reason": "stated", "verdict": "yes"},
                {"reason": "not stated", "verdict": "no"},
            ]
        }

    s = await faithfulness(
        sample(), res(ScriptedJudge(script=script), {"faithfulness": "generate"})
    )
    assert s.value == 0.5
    assert s.details["reasons"] == ["stated", "not stated"]
    assert s.details["verdicts"] == ["yes", "no"]


async def test_faithfulness_generate_verdict_count_mismatch_fails():
    def script(text, schema):
        if schema.__name__ == "Statements":
            return {"statements": ["A.", "B."]}
        return {"verdicts": [{"reason": "r", "verdict": "yes"}]}

    s = await faithfulness(
        sample(), res(ScriptedJudge(script=script), {"faithfulness": "generate"})
    )
    assert s.status == "failed" and "1 verdicts for 2 statements" in s.reason


@pytest.mark.parametrize("mode", ["fast", "generate"])
async def test_faithfulness_undefined_cases_carry_reasons(mode):
    judge = ScriptedJudge(lambda t: 1.0, lambda t, s: {"statements": []})
    r = res(judge, {"faithfulness": mode})
    empty = await faithfulness(sample(answer="  "), r)
    no_ctx = await faithfulness(sample(contexts=[]), r)
    assert empty.status == "undefined" and "empty answer" in empty.reason
    assert no_ctx.status == "undefined" and "no contexts" in no_ctx.reason
    if mode == "generate":
        none = await faithfulness(sample(answer="It is a secret."), r)
        assert none.status == "undefined" and "no statements" in none.reason
    else:
        none = await faithfulness(sample(answer="..."), r)
        assert none.status == "undefined"
    for s in (empty, no_ctx, none):
        assert s.value is None


async def test_judge_error_becomes_failed_score_with_the_error():
    judge = ScriptedJudge(lambda t: 1.0, fail_on="Germany")
    s = await faithfulness(sample(), res(judge))
    assert s.status == "failed" and "scripted failure" in s.reason and s.value is None


async def test_missing_judge_and_bad_mode_fail_with_advice():
    s = await faithfulness(sample(), Resources())
    assert s.status == "failed" and "no judge configured" in s.reason
    s = await faithfulness(sample(), res(ScriptedJudge(), {"faithfulness": "turbo"}))
    assert s.status == "failed" and "unknown mode" in s.reason


# ---- answer relevance ----------------------------------------------------------------------


async def test_answer_relevance_fast_is_p_yes():
    s = await answer_relevance(sample(), res(ScriptedJudge(lambda t: 0.8)))
    assert s.details["p_yes"] == pytest.approx(0.8) and s.details["mode"] == "fast"
    cal = load_calibration("answer_relevance_calibration")  # the fitted, versioned mapping
    assert s.value == pytest.approx(cal.p_supported(0.8, 1.0))  # the answer relates to q
    assert s.details["calibration"] == cal.version


async def test_answer_relevance_generate_is_mean_cosine():
    emb = HashEmbedder()
    qs = ["What is the capital of France?", "Which city hosted the Olympics?"]

    def script(text, schema):
        return {"questions": qs, "noncommittal": False}

    s = await answer_relevance(
        sample(),
        res(ScriptedJudge(script=script), {"answer_relevance": "generate"}, answer_relevance_n=2),
    )
    q = emb.vec("What is the capital of France?")
    expected = (float(q @ emb.vec(qs[0])) + float(q @ emb.vec(qs[1]))) / 2
    assert s.value == pytest.approx(expected)
    assert s.details["similarities"][0] == pytest.approx(1.0)
    assert s.details["questions"] == qs


async def test_answer_relevance_noncommittal_scores_zero():
    script = lambda t, s: {"questions": ["What is the capital?"], "noncommittal": True}  # noqa: E731
    s = await answer_relevance(
        sample(answer="I am not sure."),
        res(ScriptedJudge(script=script), {"answer_relevance": "generate"}),
    )
    assert s.value == 0.0 and s.details["noncommittal"] is True


async def test_answer_relevance_generate_without_embedder_fails_clearly():
    r = Resources(judge=ScriptedJudge(), options={"modes": {"answer_relevance": "generate"}})
    s = await answer_relevance(sample(), r)
    assert s.status == "failed" and "embedder" in s.reason


async def test_answer_relevance_empty_answer_undefined():
    s = await answer_relevance(sample(answer=""), res(ScriptedJudge()))
    assert s.status == "undefined" and s.reason


# ---- context relevance ---------------------------------------------------------------------


def sentence_in(text: str) -> str:
    line = text.split("Sentence: ")[1].split("\n")[0]
    return line.removeprefix("<data>").removesuffix("</data>")


async def test_context_relevance_fast_expected_share_of_needed_sentences():
    table = {
        "Paris is the capital of France.": 0.9,
        "It has about two million inhabitants.": 0.2,
        "The Seine flows through the city.": 0.1,
        "Paris hosted the 2024 Olympics.": 0.6,
    }
    judge = ScriptedJudge(lambda t: table[sentence_in(t)])
    q = "How many inhabitants has Paris, capital of France on the Seine; which Olympics?"
    s = await context_relevance(sample(question=q), res(judge))
    assert s.value == pytest.approx(sum(table.values()) / 4)
    assert s.details["kept_sentences"] == [
        "Paris is the capital of France.",
        "Paris hosted the 2024 Olympics.",
    ]
    assert s.details["hard_score"] == 0.5 and s.details["total_sentences"] == 4
    users = [m[-1]["content"] for _, m in judge.log]
    prefix = users[0].split("Sentence:")[0]
    assert all(u.startswith(prefix) for u in users)  # one shared [context][question] prefix


async def test_context_relevance_fast_judges_only_candidates():
    ctx = " ".join(f"Filler sentence number {i} is about a capital's weather." for i in range(20))
    ctx += " Paris is the capital of France."
    judge = ScriptedJudge(lambda t: 1.0 if "France" in sentence_in(t) else 0.0)
    s = await context_relevance(sample(contexts=[ctx]), res(judge, context_relevance_candidates=3))
    assert len(judge.log) == 3 and 21 in s.details["candidates"]
    assert s.value == pytest.approx(1 / 21)
    everything = ScriptedJudge(lambda t: 0.0)
    await context_relevance(sample(contexts=[ctx]), res(everything, context_relevance_candidates=0))
    assert len(everything.log) == 21


def test_candidates_prefer_question_words():
    sents = ["The weather is nice.", "France has Paris as capital.", "Cats sleep a lot."]
    assert candidates("What is the capital of France?", sents, 1) == [1]
    assert candidates("anything", sents, 5) == [0, 1, 2]


async def test_context_relevance_generate_matches_back_and_drops_paraphrases():
    extracted = [
        "Paris is the capital of France.",
        "The capital city has a river called the Seine running in it.",
    ]
    judge = ScriptedJudge(script=lambda t, s: {"sentences": extracted})
    s = await context_relevance(sample(), res(judge, {"context_relevance": "generate"}))
    assert s.value == pytest.approx(1 / 4)
    assert s.details["unmatched"] == [extracted[1]]


def test_match_sentences_splits_joined_extractions():
    real = ["Paris is the capital of France.", "The Seine flows through the city.", "Other."]
    m, u = match_sentences(
        ["Paris is the capital of France. The Seine flows through the city."], real, [0, 1, 2]
    )
    assert m == {0, 1} and u == []


async def test_context_relevance_insufficient_information_scores_zero():
    judge = ScriptedJudge(script=lambda t, s: {"sentences": []})
    s = await context_relevance(sample(), res(judge, {"context_relevance": "generate"}))
    assert s.value == 0.0 and s.status == "ok"


async def test_context_relevance_no_contexts_undefined():
    s = await context_relevance(sample(contexts=[""]), res(ScriptedJudge()))
    assert s.status == "undefined" and "no contexts" in s.reason


# ---- reference-based -----------------------------------------------------------------------


def test_average_precision_matches_hand_computation():
    assert average_precision([True, False, True]) == pytest.approx((1 + 2 / 3) / 2)
    assert average_precision([False, True]) == pytest.approx(0.5)
    assert average_precision([False, False]) == 0.0


async def test_context_precision_per_chunk_verdicts():
    ctxs = ["Paris is the capital of France.", "Bananas are yellow.", "France's capital: Paris."]
    judge = ScriptedJudge(lambda t: 0.9 if "Paris" in t.split("Question:")[0] else 0.1)
    s = await context_precision(sample(contexts=ctxs, reference_answers=["Paris"]), res(judge))
    assert s.details["verdicts"] == ["yes", "no", "yes"]
    assert s.value == pytest.approx((1 + 2 / 3) / 2)


async def test_context_precision_without_reference_is_undefined():
    s = await context_precision(sample(), res(ScriptedJudge()))
    assert s.status == "undefined" and "reference" in s.reason


async def test_context_recall_fast_mean_over_reference_sentences():
    table = {"Paris is the capital of France.": 1.0, "Berlin is large.": 0.0}
    judge = ScriptedJudge(verdict_by_statement(table))
    s = await context_recall(sample(reference_answers=[" ".join(table)]), res(judge))
    assert s.value == pytest.approx(0.5)
    assert s.details["reference_sentences"] == list(table)


async def test_context_recall_generate():
    judge = ScriptedJudge(
        script=lambda t, s: {
            "sentences": [{"reason": "r", "attributed": "yes"}, {"reason": "r", "attributed": "no"}]
        }
    )
    s = await context_recall(
        sample(reference_answers=["Paris is big. Lyon is small."]),
        res(judge, {"context_recall": "generate"}),
    )
    assert s.value == 0.5


async def test_answer_correctness_generate_f1_and_blend():
    judge = ScriptedJudge(script=lambda t, s: {"TP": ["a"], "FP": ["b"], "FN": ["c", "d"]})
    smp = sample(reference_answers=["Paris is the capital of France."])
    only_f1 = await answer_correctness(
        smp, Resources(judge=judge, options={"modes": {"answer_correctness": "generate"}})
    )
    assert only_f1.value == pytest.approx(1 / (1 + 1.5))
    assert only_f1.details["similarity"] is None
    blended = await answer_correctness(smp, res(judge, {"answer_correctness": "generate"}))
    emb = HashEmbedder()
    sim = float(emb.vec(smp.answer) @ emb.vec(smp.reference_answers[0]))
    assert blended.details["similarity"] == pytest.approx(sim, abs=1e-4)
    assert blended.value == pytest.approx(0.75 * (1 / 2.5) + 0.25 * sim)


async def test_answer_correctness_fast_soft_counts():
    def covered(t: str) -> float:  # yes iff the statement's text occurs in the other text
        text = t.split("Text: ")[1].split("\n\nStatement:")[0]
        return 1.0 if statement_in(t).rstrip(".") in text else 0.0

    smp = sample(
        answer="Paris is the capital. Lyon is big.",
        reference_answers=["Paris is the capital. It is on the Seine."],
    )
    s = await answer_correctness(smp, Resources(judge=ScriptedJudge(covered)))
    # answer statements vs the reference: 1 supported (TP), 1 not (FP);
    # reference statements vs the answer: 1 present, 1 missing (FN). F1 = 1 / (1 + 1).
    assert (s.details["tp"], s.details["fp"], s.details["fn"]) == (1, 1, 1)
    assert s.value == pytest.approx(0.5)


# ---- registry and chunking -----------------------------------------------------------------


def test_registered_with_needs():
    from ragmeter.plan import needs_of

    faith, ar = get_metric("faithfulness"), get_metric("answer_relevance")
    assert faith.needs_in("fast") == {"judge"}
    assert faith.uses_in("fast") == {"embedder"}  # optional: evidence selection
    assert faith.uses_in("generate") == frozenset()
    assert needs_of([faith]) == {"judge", "embedder"}  # built when it can be
    # answer_relevance needs an embedder only in generate mode (cosine of generated questions)
    assert ar.needs_in("fast") == {"judge"}
    assert ar.needs_in("generate") == {"judge", "embedder"}
    assert needs_of([ar], {"modes": {"answer_relevance": "generate"}}) == {"judge", "embedder"}
    assert not get_metric("answer_reward").default


def test_chunking_is_prefix_stable_and_bounded():
    items = [f"Sentence {i} " * 5 for i in range(30)]
    a = chunk_indices(items, 100)
    b = chunk_indices([*items, "extra sentence"], 100)
    assert a[0] == b[0] and sum(len(c) for c in a) == 30
    assert all(len(c) >= 1 for c in a)
    # every chunk but an oversized single item stays within the budget (+4 tokens per item)
    for chunk in a:
        used = sum(estimate_tokens(items[i]) + 4 for i in chunk)
        assert used <= 100 or len(chunk) == 1
    assert [i for c in a for i in c] == list(range(30))  # in order, each item once


# ---- evidence selection (fast faithfulness) --------------------------------------------------

WEATHER = [
    f"On {day} the weather in {city} was {kind}."
    for day, city, kind in [
        ("Monday", "Oslo", "rainy"),
        ("Tuesday", "Lima", "sunny"),
        ("Wednesday", "Cairo", "hot"),
        ("Thursday", "Quito", "mild"),
        ("Friday", "Hanoi", "humid"),
        ("Saturday", "Perth", "windy"),
    ]
]
TOWER = "The Eiffel Tower was completed in 1889."
BRIDGE = "The Golden Gate Bridge opened in 1937."


class FailingEmbedder:
    name = "failing:test"

    async def embed(self, texts):  # type: ignore[no-untyped-def]
        from ragmeter.protocols import JudgeReply

        return JudgeReply(value=None, error="embedder down")


def evidence_sample(answer: str) -> Sample:
    ctx = " ".join([*WEATHER[:3], TOWER, *WEATHER[3:], BRIDGE])
    return sample(question="When was the tower completed?", answer=answer, contexts=[ctx])


@pytest.mark.parametrize("embedder", ["hash", None])
async def test_faithfulness_fast_shows_the_judge_only_the_evidence(embedder):
    judge = ScriptedJudge(lambda t: 0.8)
    r = Resources(
        judge=judge,
        embedder=HashEmbedder(dim=4096) if embedder else None,
        options={"evidence_k": 1, "faithfulness_combine": "judge"},
    )
    s = await faithfulness(evidence_sample(f"{BRIDGE} {TOWER}"), r)
    assert s.status == "ok" and s.value == pytest.approx(0.8)
    ev = s.details["evidence"]
    assert ev["method"] == ("embedding" if embedder else "lexical")
    assert ev["sentences"] == [4, 8] and ev["of"] == 8  # text order, global numbers
    for _, messages in judge.log:
        context = messages[-1]["content"].split("Question:")[0]
        assert "[4] The Eiffel Tower" in context and "[8] The Golden Gate" in context
        assert "weather" not in context


async def test_faithfulness_evidence_falls_back_to_word_overlap_when_the_embedder_fails():
    r = Resources(
        judge=ScriptedJudge(lambda t: 1.0), embedder=FailingEmbedder(), options={"evidence_k": 1}
    )
    s = await faithfulness(evidence_sample(TOWER), r)
    assert s.status == "ok"
    assert s.details["evidence"]["method"] == "lexical"
    assert s.details["evidence"]["sentences"] == [4]
    assert "embedder down" in s.details["evidence"]["note"]


async def test_faithfulness_evidence_k_zero_or_short_context_shows_everything():
    judge = ScriptedJudge(lambda t: 1.0)
    s = await faithfulness(evidence_sample(TOWER), res(judge, evidence_k=0))
    assert s.details["evidence"]["method"] == "all"
    assert s.details["evidence"]["sentences"] == list(range(1, 9))
    short = await faithfulness(sample(), res(ScriptedJudge(lambda t: 1.0), evidence_k=10))
    assert short.details["evidence"] == {"method": "all", "sentences": [1, 2, 3, 4], "of": 4}


async def test_faithfulness_evidence_survives_an_embedder_returning_too_few_vectors():
    class ShortEmbedder:
        name = "short:test"

        async def embed(self, texts):  # type: ignore[no-untyped-def]
            from ragmeter.protocols import JudgeReply

            return JudgeReply(value=np.ones((2, 4)))

    r = Resources(
        judge=ScriptedJudge(lambda t: 1.0), embedder=ShortEmbedder(), options={"evidence_k": 1}
    )
    s = await faithfulness(evidence_sample(TOWER), r)
    assert s.status == "ok" and s.details["evidence"]["method"] == "lexical"
    assert "2 vectors back" in s.details["evidence"]["note"]


async def test_markdown_contexts_have_the_sentences_of_their_prose():
    """Layout is not a sentence: a list-formatted document is judged, and counted, as its prose
    (before, "1." and "## History" were sentences in context relevance's denominator)."""
    table = {
        "Paris is the capital of France.": 0.9,
        "It has about two million inhabitants.": 0.2,
        "The Seine flows through the city.": 0.1,
        "Paris hosted the 2024 Olympics.": 0.6,
    }
    markdown = (
        "## Paris\n\n**Key facts:**\n1. **Paris** is the capital of France.\n"
        "2. It has about two million inhabitants.\n\n### History\n- The Seine flows through "
        "the city.\n- Paris hosted the *2024* Olympics."
    )
    q = "How many inhabitants has Paris, capital of France on the Seine; which Olympics?"
    scores = []
    for ctx in (CTX, markdown):
        judge = ScriptedJudge(lambda t: table[sentence_in(t)])
        scores.append(await context_relevance(sample(question=q, contexts=[ctx]), res(judge)))
    assert scores[1].value == pytest.approx(scores[0].value)
    assert scores[1].details["total_sentences"] == 4
