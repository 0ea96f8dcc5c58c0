"""Every metric's stated formula and worked numbers are the code's.

Why: ``ragmeter metrics`` and the docstrings are how a user learns what a number means. Each
worked number a docstring gives is recomputed here by running the metric on that example (the
judged ones with a scripted judge giving the example's verdicts), and the text is checked to
hold it, so text and code cannot drift apart again. The lexical metrics are checked against a
from-scratch SQuAD implementation, the retrieval ones against trec_eval (pytrec_eval).
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter

import numpy as np
import pytest

from needs import require_module
from ragmeter.metrics import lexical, ranking, refusal
from ragmeter.metrics import perplexity as perplexity_mod
from ragmeter.metrics import reference as reference_mod
from ragmeter.metrics import relevance as relevance_mod
from ragmeter.metrics.faithfulness import JUDGE_METRIC
from ragmeter.metrics.faithfulness import METRIC as FAITHFULNESS
from ragmeter.metrics.perplexity import context_relevance_perplexity
from ragmeter.metrics.reference import answer_correctness, average_precision, context_precision
from ragmeter.metrics.registry import get_metric, list_metrics
from ragmeter.metrics.relevance import context_relevance
from ragmeter.metrics.support import load_calibration
from ragmeter.protocols import JudgeReply, Resources, TokenLogprobs
from ragmeter.sample import Sample
from ragmeter.testing import ScriptedJudge

pytrec_eval = require_module("pytrec_eval")


def _doc(obj: object) -> str:
    """The docstring with its line breaks and indentation folded to single spaces."""
    return " ".join((obj.__doc__ or "").split())


def _states(obj: object, *pieces: str) -> None:
    text = _doc(obj)
    for piece in pieces:
        assert piece in text, f"{getattr(obj, '__name__', obj)} no longer states {piece!r}"


# ---- lexical: worked numbers, and a from-scratch SQuAD implementation ----------------------


def test_lexical_worked_numbers_are_the_codes():
    cat, cat_ctx = "The cat sat on the mat.", ["A cat sat.", "On a mat!"]
    assert lexical.k_precision(cat, cat_ctx).value == 0.5
    _states(lexical.k_precision, "each context supports 2 of 4 tokens, so 0.5")
    assert lexical.k_precision_union(cat, cat_ctx).value == 1.0
    assert lexical.k_precision_union("cat cat cat", ["cat", "cat cat"]).value == 1.0
    assert lexical.k_precision("cat cat cat", ["cat", "cat cat"]).value == pytest.approx(2 / 3)
    _states(
        lexical.k_precision_union,
        "so 4/4 = 1.0",
        '"cat cat cat" against ["cat", "cat cat"] is 3/3 = 1.0 (``k_precision`` 2/3)',
    )
    refs = ["Capital is Paris", "The French capital is Paris, France"]
    got = lexical.token_recall("Paris is the capital of France", refs)
    assert got.value == 1.0
    assert lexical.token_recall("Paris is the capital of France", refs[1:]).value == 0.8
    _states(lexical.token_recall, "3/3 = 1.0 and 4/5 = 0.8, so 1.0")
    answer, refs = "The capital is Paris", ["Paris", "Paris is the capital of France"]
    assert lexical.token_precision(answer, refs[:1]).value == pytest.approx(1 / 3)
    assert lexical.token_precision(answer, refs).value == 1.0
    _states(lexical.token_precision, "1/3 and 3/3, so 1.0")
    assert lexical.token_f1(answer, refs[:1]).value == pytest.approx(0.5)
    assert lexical.token_f1(answer, refs).value == pytest.approx(0.75)
    _states(lexical.token_f1, "F1 = 0.5", "F1 = 0.75; so 0.75")
    assert lexical.exact_match("The Paris!", ["paris", "Rome"]).value == 1.0
    assert lexical.exact_match("Paris, France", ["paris"]).value == 0.0
    _states(lexical.exact_match, 'both normalise to "paris", so 1.0', "0.0 (no partial credit)")


def test_lexical_edge_cases_the_texts_state():
    # token_precision: an answer without tokens is undefined, a reference without tokens passed over
    assert lexical.token_precision("the a", ["Paris"]).status == "undefined"
    assert lexical.token_precision("Paris", ["...", "Paris"]).value == 1.0
    assert lexical.token_precision("Paris", ["..."]).status == "undefined"
    # token_f1: no shared token (an empty answer too) is 0
    assert lexical.token_f1("the", ["Paris"]).value == 0.0
    assert lexical.token_f1("Rome", ["Paris"]).value == 0.0
    # k_precision_union: 0 with no contexts, undefined for an answer without tokens
    assert lexical.k_precision_union("Paris", []).value == 0.0
    assert lexical.k_precision_union("the", ["Paris"]).status == "undefined"


def _norm(text: str) -> str:  # SQuAD v1.1 normalize_answer, written out again
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def _common(a: list[str], b: list[str]) -> int:
    return sum((Counter(a) & Counter(b)).values())


HAND_CASES = [
    ("The cat sat on the mat.", ["A cat sat.", "On a mat!"]),
    ("Café au lait — l’été!", ["cafe au lait", "Café, l’été"]),
    ("Élan's «quote» naïve", ["élan’s naïve", "ELAN'S quote"]),
    ("x-ray, x ray", ["xray", "x ray"]),
    ("cat cat cat", ["cat", "cat cat"]),
    ("Ünïcödé 東京 2024", ["東京 2024!", "unicode"]),
]


@pytest.mark.parametrize(("answer", "texts"), HAND_CASES)
def test_lexical_formulas_match_a_from_scratch_implementation(answer, texts):
    a = _norm(answer).split()
    toks = [_norm(t).split() for t in texts]
    assert lexical.k_precision(answer, texts).value == pytest.approx(
        max(_common(a, t) for t in toks) / len(a)
    )
    assert lexical.k_precision_union(answer, texts).value == pytest.approx(
        _common(a, _norm(" ".join(texts)).split()) / len(a)
    )
    assert lexical.token_recall(answer, texts).value == pytest.approx(
        max(_common(a, t) / len(t) for t in toks)
    )
    assert lexical.token_precision(answer, texts).value == pytest.approx(
        max(_common(a, t) for t in toks) / len(a)
    )

    def f1(t: list[str]) -> float:
        c = _common(a, t)
        return 0.0 if not c else 2 * (c / len(a)) * (c / len(t)) / (c / len(a) + c / len(t))

    assert lexical.token_f1(answer, texts).value == pytest.approx(max(f1(t) for t in toks))
    assert lexical.exact_match(answer, texts).value == float(
        any(_norm(answer) == _norm(t) for t in texts)
    )


# ---- retrieval: worked numbers, and trec_eval --------------------------------------------


def test_retrieval_worked_numbers_are_the_codes():
    assert ranking.reciprocal_rank(["d1", "d2", "d3"], {"d2"}) == 0.5
    assert ranking.reciprocal_rank(["d1", "d1", "d2"], {"d2"}) == 0.5
    assert ranking.unitxt_reciprocal_rank(["d1", "d1", "d2"], {"d2"}) == pytest.approx(1 / 3)
    _states(
        ranking.reciprocal_rank, "[d1, d2, d3] against {d2}: 1/2 = 0.5", "[d1, d1, d2] gives 0.5"
    )
    assert round(ranking.average_precision(["a", "b", "c"], {"a", "c", "x"}), 4) == 0.5556
    _states(ranking.average_precision, "(1/1 + 2/3) / 3 = 0.5556")
    assert round(ranking.ndcg_at_k(["a", "b", "c"], {"c", "x"}, 10), 4) == 0.3066
    _states(ranking.ndcg_at_k, "DCG = 1/log2(4) = 0.5, IDCG = 1 + 1/log2(3) = 1.6309", "0.3066")
    assert ranking.precision_at_k(["a", "b", "c"], {"c", "x"}, 2) == 0.0
    assert ranking.precision_at_k(["a", "b", "c"], {"c", "x"}, 5) == 0.2
    _states(ranking.precision_at_k, "P@2 = 0/2 = 0, P@5 = 1/5 = 0.2")
    assert ranking.recall_at_k(["a", "b", "c"], {"c", "x"}, 2) == 0.0
    assert ranking.recall_at_k(["a", "b", "c"], {"c", "x"}, 5) == 0.5
    _states(ranking.recall_at_k, "R@2 = 0, R@5 = 1/2")
    assert ranking.hit_at_k(["a", "b", "c"], {"c"}, 2) == 0.0
    assert ranking.hit_at_k(["a", "b", "c"], {"c"}, 3) == 1.0
    _states(ranking.hit_at_k, "hit@2 = 0, hit@3 = 1")
    assert round(ranking.unitxt_average_precision(["b", "a", "a"], {"a"}), 4) == 0.5833
    assert ranking.average_precision(["b", "a", "a"], {"a"}) == 0.5
    _states(ranking.unitxt_average_precision, "(1/2 + 2/3) / 2 = 0.5833 (TREC AP 1/2)")
    _states(ranking._unitxt_rr, "[B, B, A] vs {A} -> 1/3")
    assert ranking.unitxt_reciprocal_rank(["B", "B", "A"], {"A"}) == pytest.approx(1 / 3)


TREC_CASES = [
    (["d1", "d2", "d3"], {"d2"}),
    (["a", "b", "c", "d", "e", "f", "g"], {"c", "g", "x"}),  # a relevant id never retrieved
    (["a"], {"a", "b", "c"}),  # k larger than the list
    (["x", "y"], {"z"}),  # nothing relevant retrieved
    (["é", "e\u0301", "café"], {"café", "e\u0301"}),  # ids are compared as given
]


@pytest.mark.parametrize(("retrieved", "relevant"), TREC_CASES)
def test_retrieval_formulas_match_trec_eval(retrieved, relevant):
    run = {"q": {d: float(len(retrieved) - i) for i, d in enumerate(retrieved)}}
    measures = {"recip_rank", "map", "ndcg_cut.3,10", "P.3,10", "recall.3,10", "success.1,10"}
    trec = pytrec_eval.RelevanceEvaluator({"q": dict.fromkeys(relevant, 1)}, measures)
    want = trec.evaluate(run)["q"]
    ours = {
        "recip_rank": ranking.reciprocal_rank(retrieved, relevant),
        "map": ranking.average_precision(retrieved, relevant),
        "success_1": ranking.hit_at_k(retrieved, relevant, 1),
        "success_10": ranking.hit_at_k(retrieved, relevant, 10),
    }
    for k in (3, 10):
        ours[f"ndcg_cut_{k}"] = ranking.ndcg_at_k(retrieved, relevant, k)
        ours[f"P_{k}"] = ranking.precision_at_k(retrieved, relevant, k)
        ours[f"recall_{k}"] = ranking.recall_at_k(retrieved, relevant, k)
    for name, value in ours.items():
        assert value == pytest.approx(want[name], abs=1e-12), name


def test_retrieval_formula_lines_state_their_edge_cases():
    assert "fewer are retrieved" in get_metric("precision@5").formula  # P@k divides by k
    assert "(0 if none)" in get_metric("unitxt_map").formula
    assert "(0 if none)" in get_metric("mrr").formula


# ---- judged metrics: formula lines and worked numbers ------------------------------------


def test_faithfulness_formula_has_the_calibrations_missing_term():
    cal = load_calibration()
    # the missing-specific term moves the score: a formula without it is not the code's
    assert cal.w_missing != 0
    assert cal.p_supported(0.3, 0.0, 1.0) != cal.p_supported(0.3, 0.0, 0.0)
    assert "b3 missing" in FAITHFULNESS.formula
    assert "generate: |supported| / |statements|" in JUDGE_METRIC.formula


def test_faithfulness_worked_number_is_the_codes():
    import ragmeter.metrics.faithfulness as faithfulness_mod

    cal = load_calibration()
    stated = (-0.568, 1.684, 0.986, -0.640)
    coefficients = (cal.intercept, cal.w_judge, cal.w_lexical, cal.w_missing)
    assert [round(c, 3) for c in coefficients] == list(stated)
    a, b = cal.p_supported(0.9, 1.0, 0.0), cal.p_supported(0.3, 0.0, 1.0)
    assert (round(a, 3), round(b, 3), round((a + b) / 2, 3)) == (0.984, 0.067, 0.525)
    _states(
        faithfulness_mod,
        "b = (-0.568, 1.684, 0.986, -0.640)",
        "give 0.984 and 0.067, score 0.525 (judge alone 0.60)",
    )


def test_answer_relevance_worked_number_is_the_codes():
    cal = load_calibration("answer_relevance_calibration")
    assert [round(c, 3) for c in (cal.intercept, cal.w_judge, cal.w_lexical)] == [
        0.914,
        1.872,
        1.329,
    ]
    assert round(cal.p_supported(0.9, 1.0), 3) == 0.998
    assert round(cal.p_supported(0.1, 1.0), 3) == 0.134
    _states(relevance_mod, "P(yes) = 0.9 on a related answer gives 0.998, P(yes) = 0.1 gives 0.134")


def _sentence(text: str) -> str:
    line = text.split("Sentence: ")[1].split("\n")[0]
    return line.removeprefix("<data>").removesuffix("</data>")


async def test_context_relevance_worked_number_and_one_verdict_per_sentence():
    table = {
        "Paris is the capital of France.": 0.9,
        "Paris has about two million inhabitants.": 0.6,
        "The Seine flows through Paris.": 0.1,
        "Paris hosted the 2024 Olympics.": 0.0,
    }
    judge = ScriptedJudge(lambda t: table[_sentence(t)])
    sample = Sample(
        question_id="q",
        question="What is Paris, the capital on the Seine with inhabitants and Olympics?",
        contexts=[" ".join(table)],
    )
    s = await context_relevance(sample, Resources(judge=judge))
    assert s.value == pytest.approx(0.4) and s.details["hard_score"] == 0.5
    _states(relevance_mod, "(0.9 + 0.6 + 0.1 + 0) / 4 = 0.4", "2 / 4 = 0.5")
    # fast asks a yes/no per sentence (not for the numbers of the needed sentences)
    assert [kind for kind, _ in judge.log] == ["option_probs"] * 4
    description = get_metric("context_relevance").description
    assert "numbers of sentences" not in description
    assert "verdict per candidate sentence" in description


async def test_context_precision_worked_number_is_the_codes():
    ctxs = ["Paris is the capital.", "Bananas are yellow.", "The capital is Paris."]
    judge = ScriptedJudge(lambda t: 0.9 if "Paris" in t.split("Question:")[0] else 0.1)
    sample = Sample(
        question_id="q", question="Capital?", contexts=ctxs, reference_answers=["Paris"]
    )
    s = await context_precision(sample, Resources(judge=judge))
    assert s.details["verdicts"] == ["yes", "no", "yes"]
    assert round(s.value, 4) == round(average_precision([True, False, True]), 4) == 0.8333
    _states(reference_mod, "verdicts (yes, no, yes) is (1/1 + 2/3) / 2 = 0.8333")
    assert "P(yes) >= 0.5" in get_metric("context_precision").formula


class _FixedEmbedder:
    """Answer and reference embedded at cosine 0.6."""

    name = "fixed"

    async def embed(self, texts):  # type: ignore[no-untyped-def]
        return JudgeReply(value=np.array([[1.0, 0.0], [0.6, 0.8]]))


async def test_answer_correctness_blend_is_normalised_by_the_weights():
    judge = ScriptedJudge(script=lambda _t, _s: {"TP": ["a"], "FP": ["b"], "FN": ["c", "d"]})
    sample = Sample(
        question_id="q",
        question="Capital?",
        answer="Paris is the capital.",
        reference_answers=["Paris is the capital of France."],
    )
    options = {"modes": {"answer_correctness": "generate"}, "answer_correctness_weights": (1, 1)}
    s = await answer_correctness(
        sample, Resources(judge=judge, embedder=_FixedEmbedder(), options=options)
    )
    assert s.details["f1"] == 0.4 and s.details["similarity"] == 0.6
    # (w0 * F1 + w1 * cos) / (w0 + w1) = 0.5; the old text's w0 * F1 + w1 * cos said 1.0
    assert s.value == pytest.approx(0.5)
    _states(
        reference_mod, "F1 = 1 / (1 + 3/2) = 0.4", "weights (1, 1) scores (0.4 + 0.6) / 2 = 0.5"
    )
    formula = get_metric("answer_correctness").formula
    assert "/ (w0 + w1)" in formula and "F1 alone without an embedder" in formula


def test_context_recall_formula_says_fast_is_a_mean_of_p_yes():
    assert "fast: mean P(yes)" in get_metric("context_recall").formula


def test_answer_relevance_description_says_fast_is_calibrated():
    assert "calibrated" in get_metric("answer_relevance").description


class _Scorer:
    name = "fixed"

    def __init__(self, per_context: list[list[float]]) -> None:
        self.per_context = iter(per_context)

    async def target_logprobs(self, prompt, target, *, prompt_version):  # type: ignore[no-untyped-def]
        lps = next(self.per_context)
        return JudgeReply(value=TokenLogprobs(tokens=["t"] * len(lps), logprobs=lps))


async def test_perplexity_worked_number_is_the_codes():
    sample = Sample(question_id="q", question="Who?", contexts=["c1", "c2"])
    scorer = _Scorer([[-0.5, -1.5], [-2.0, -2.0]])
    s = await context_relevance_perplexity(sample, Resources(scorer=scorer))
    assert s.details["per_context"] == [round(math.exp(-1), 6), round(math.exp(-2), 6)]
    assert round(s.value, 4) == 0.3679 and s.details["best_context"] == 0
    _states(perplexity_mod, "exp(-1) = 0.3679 and exp(-2) = 0.1353, so 0.3679")


def test_refusal_worked_number_is_the_codes():
    cells = [refusal.cell(d, False) for d in (True, True, False)]
    cells += [refusal.cell(d, True) for d in (True, False, False, False, False)]
    got = refusal.refusal_confusion(cells)
    assert (got["precision"], got["recall"], got["accuracy"]) == (2 / 3, 2 / 3, 0.75)
    _states(refusal, "precision 2/3, recall 2/3", "accuracy (2 + 4) / 8 = 0.75")


def test_every_listed_metric_states_a_formula_and_a_direction():
    from ragmeter.metrics import registry

    # the built-in ones: other tests in the session register metrics of their own
    for m in (m for m in list_metrics() if m.name in registry._BUILT_IN or "@" in m.name):
        assert m.formula, f"{m.name} lists no formula"
        assert m.direction in ("higher", "lower", "none"), m.name


def test_lexical_descriptions_state_the_edge_cases_the_code_has():
    assert lexical.k_precision("Paris", []).status == "undefined"
    assert "undefined with no contexts" in get_metric("k_precision").description
    assert lexical.token_precision("the", ["Paris"]).status == "undefined"
    assert "undefined for an answer with no tokens" in get_metric("token_precision").description
    assert lexical.token_f1("Rome", ["Paris"]).value == 0.0
    assert "0 when no token is shared" in get_metric("token_f1").description


@pytest.mark.parametrize(
    "call",
    [
        lambda: ranking.reciprocal_rank(["a"], []),
        lambda: ranking.precision_at_k(["a"], [], 5),
        lambda: ranking.hit_at_k(["a"], [], 5),
    ],
    ids=["reciprocal_rank", "precision_at_k", "hit_at_k"],
)
def test_ranking_functions_refuse_an_empty_relevant_set_as_the_others_do(call):
    """reciprocal_rank, precision_at_k and hit_at_k returned 0.0 for an empty relevant set,
    where the metrics are undefined and average_precision, ndcg_at_k and recall_at_k raise: a
    caller averaging them lowered the mean with rows that have no relevance labels."""
    with pytest.raises(ValueError, match="needs at least one relevant id"):
        call()
