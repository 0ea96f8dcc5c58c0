"""Lexical metrics and the text normalisation under them: hand-computed values."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragmeter.metrics.lexical import (
    exact_match,
    k_precision,
    k_precision_union,
    support,
    token_f1,
    token_precision,
    token_recall,
)
from ragmeter.sample import Sample
from ragmeter.text import detokenize, normalize_answer, split_sentences, tokens

# --- text ------------------------------------------------------------------------------


def test_normalize_answer_is_squad():
    # lower, strip ASCII punctuation, drop a/an/the, collapse whitespace
    assert normalize_answer("  The Cat's  hat, an apple!\n") == "cats hat apple"
    assert tokens("The Cat's  hat, an apple!") == ["cats", "hat", "apple"]
    # typographic apostrophe is not ASCII punctuation: kept, and "the" before it is a word
    assert tokens("the’s") == normalize_answer("the’s").split() == ["’s"]


# Text with articles, ASCII punctuation, unicode letters, marks, digits and odd whitespace.
_pieces = st.sampled_from(
    [
        "the",
        "The",
        "a",
        "An",
        "an",
        "A.",
        "'s",
        "’",
        "-",
        "_",
        "é",
        "İ",
        "ß",
        "Σ",
        "ς",
        "ǅ",
        "١",
        "x",
        "\u00a0",
        "\u2003",
        "\x1c",
        "\n",
        " ",
        "theé",
        "a’b",
        "·",
        "don't",
        "e-mail",
        "ﬁ",
    ]
)
_texts = st.one_of(st.text(), st.lists(st.one_of(_pieces, st.text(max_size=3))).map("".join))


@settings(max_examples=400, deadline=None)
@given(_texts)
def test_tokens_equal_normalize_answer_split(text):
    assert tokens(text) == normalize_answer(text).split()


def _reference_k_precision(answer: str, contexts: list[str], per_context: bool) -> float | None:
    """Straight from the definition, with SQuAD's normalize_answer and Counter.

    per_context: Unitxt's (max over contexts, 0 for an answer with no tokens); else the union
    (None for an answer with no tokens).
    """
    ans = Counter(normalize_answer(answer).split())
    if per_context:
        n = max(sum((ans & Counter(normalize_answer(c).split())).values()) for c in contexts)
        return n / sum(ans.values()) if n else 0.0
    if not ans:
        return None
    union = Counter()
    for c in contexts:
        union += Counter(normalize_answer(c).split())
    return sum((ans & union).values()) / sum(ans.values())


@settings(max_examples=300, deadline=None)
@given(_texts, st.lists(_texts, min_size=1, max_size=4), st.booleans())
def test_k_precision_matches_definition(answer, contexts, per_context):
    expected = _reference_k_precision(answer, contexts, per_context)
    score = (k_precision if per_context else k_precision_union)(answer, contexts)
    if expected is None:
        assert score.status == "undefined"
    else:
        assert score.status == "ok"
        assert score.value == pytest.approx(expected, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(_texts, st.lists(_texts, min_size=1, max_size=4))
def test_support_counts_each_context_and_the_union(answer, contexts):
    sup = support(answer, contexts)
    ans = Counter(normalize_answer(answer).split())
    union = Counter()
    for i, c in enumerate(contexts):
        ctx = Counter(normalize_answer(c).split())
        union += ctx
        assert sup.per_context[i] == sum((ans & ctx).values())
    assert sup.union == sum((ans & union).values())
    assert sup.answer_tokens == sum(ans.values())


def test_split_sentences_keeps_abbreviations_and_decimals():
    text = "Dr. Smith measured 3.14 units. He was pleased! Was it e.g. luck?\nNo."
    assert split_sentences(text) == [
        "Dr. Smith measured 3.14 units.",
        "He was pleased!",
        "Was it e.g. luck?",
        "No.",
    ]
    assert split_sentences("   ") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # paragraphs pasted without a space (405 such joins in WikiEval's texts)
        (
            "It was published in the 19th century.First for Women is a magazine in the "
            "USA.The magazine was started in 1989.",
            [
                "It was published in the 19th century.",
                "First for Women is a magazine in the USA.",
                "The magazine was started in 1989.",
            ],
        ),
        ("He lived (1844-1846).Later, he moved.", ["He lived (1844-1846).", "Later, he moved."]),
        ("It ended.Then it's over.", ["It ended.", "Then it's over."]),
        # not sentence ends
        ("It runs on ASP.NET and Node.js today.", ["It runs on ASP.NET and Node.js today."]),
        ("J.R.R.Tolkien wrote it.", ["J.R.R.Tolkien wrote it."]),
        ("Visit www.Amazon.com for more.", ["Visit www.Amazon.com for more."]),
        ("Use e.g.The first one.", ["Use e.g.The first one."]),
        ("We met Mr.Smith today.", ["We met Mr.Smith today."]),
        (
            "It began at 10:14 a.m. CDT, said T.O. Daniel.",
            ["It began at 10:14 a.m. CDT, said T.O. Daniel."],
        ),
        ("It is done.Ok", ["It is done.Ok"]),
    ],
)
def test_split_sentences_glued_without_a_space(text, expected):
    assert split_sentences(text) == expected
    assert all(p in text for p in split_sentences(text))  # each piece as written


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # written without capitals: punctuation alone marks the ends
        (
            "i adore paris! the tower went up in 1889. have you booked a visit?",
            ["i adore paris!", "the tower went up in 1889.", "have you booked a visit?"],
        ),
        # tokenized as dialogue corpora write it: a mark standing alone ends a sentence
        ("Cheddar ! it originated in somerset .", ["Cheddar !", "it originated in somerset ."]),
        ("yes , it is . it was built in 1889 .", ["yes , it is .", "it was built in 1889 ."]),
        # still guarded: abbreviations in caseless text, an ellipsis, cased prose
        ("i went there e.g. to rome. it was fun", ["i went there e.g. to rome.", "it was fun"]),
        ("it costs approx. five dollars", ["it costs approx. five dollars"]),
        ("wait ... so it was red", ["wait ... so it was red"]),
        ("The U.S. economy grew. it said so.", ["The U.S. economy grew. it said so."]),
        ("It costs approx. five dollars.", ["It costs approx. five dollars."]),
    ],
)
def test_split_sentences_without_capitals_or_tokenized(text, expected):
    assert split_sentences(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("i do n't know .", "i don't know."),
        ("it 's in paris , france !", "it's in paris, france!"),
        ("they ca n't ( ever ) go", "they can't (ever) go"),
        ("up 5 % ; then", "up 5%; then"),
        # prose stays as written
        ("He said 'sure', then left. Yes!", "He said 'sure', then left. Yes!"),
        ("Rock 'n' roll (1950s) - a genre.", "Rock 'n' roll (1950s) - a genre."),
    ],
)
def test_detokenize_rejoins_clitics_and_marks(text, expected):
    assert detokenize(text) == expected


# --- K-Precision ---------------------------------------------------------------------


def test_k_precision_union_versus_best_context():
    # T(answer) = [cat, sat, on, mat] (articles and punctuation dropped), |T| = 4.
    # Union of contexts: [cat, sat, on, mat] covers all 4 -> 4/4 = 1.0.
    # Per context (Unitxt): "A cat sat." covers cat, sat -> 2/4; "On a mat!" covers 2/4.
    answer, contexts = "The cat sat on the mat.", ["A cat sat.", "On a mat!"]
    union = k_precision_union(answer, contexts)
    assert union.value == 1.0
    assert union.details == {"answer_tokens": 4, "supported_tokens": 4}
    best = k_precision(answer, contexts)
    assert best.value == 0.5
    assert best.details == {"answer_tokens": 4, "supported_tokens": 2, "best_context": 0}


def test_k_precision_counts_multisets():
    # T(answer) = [yes, yes, no]; context has one "yes": min(2, 1) = 1 supported -> 1/3.
    assert k_precision("Yes, yes, no.", ["yes maybe"]).value == pytest.approx(1 / 3)
    assert k_precision_union("Yes, yes, no.", ["yes maybe"]).value == pytest.approx(1 / 3)
    # Two "yes" across two contexts: the union supports both -> 2/3; each context one -> 1/3.
    assert k_precision_union("Yes, yes, no.", ["yes", "Yes!"]).value == pytest.approx(2 / 3)
    assert k_precision("Yes, yes, no.", ["yes", "Yes!"]).value == pytest.approx(1 / 3)
    # "yes yes" adjacent in one context: both occurrences found -> 2/3.
    assert k_precision("Yes, yes, no.", ["yes yes"]).value == pytest.approx(2 / 3)


def test_k_precision_edge_cases():
    # An answer with no tokens: Unitxt scores 0 (and says so); the union variant is undefined.
    empty = k_precision("The!", ["anything"])
    assert empty.status == "ok" and empty.value == 0.0 and "no tokens" in empty.details["note"]
    undefined = k_precision_union("The!", ["anything"])
    assert undefined.status == "undefined" and "no tokens" in undefined.reason
    # No contexts at all: Unitxt raises (max of nothing), so undefined; the union supports none.
    none = k_precision("Paris", [])
    assert none.status == "undefined" and "no contexts" in none.reason
    union_none = k_precision_union("Paris", [])
    assert union_none.value == 0.0 and union_none.details["note"] == "no contexts"
    # Empty context strings support nothing.
    assert k_precision("Paris", ["", ""]).value == 0.0
    # Non-alphanumeric answer token (typographic apostrophe) takes the exact path.
    assert k_precision("l’eau claire", ["de l’eau"]).value == 0.5
    # A context holding NUL (the separator of the one-pass normalisation) is still exact.
    # ("paris\x00" is one token, not "paris"): only "rome" is supported, in either metric.
    assert k_precision_union("paris rome", ["paris\x00", "rome"]).value == 0.5
    assert k_precision("paris rome", ["paris\x00", "rome"]).value == 0.5


def test_k_precision_metric_shares_one_pass_per_sample():
    from ragmeter.metrics.registry import get_metric

    sample = Sample(
        question="q",
        question_id="q",
        answer="The cat sat on the mat.",
        contexts=["A cat sat.", "On a mat!"],
    )
    assert get_metric("k_precision").compute(sample).value == 0.5
    assert get_metric("k_precision_union").compute(sample).value == 1.0
    other = sample.model_copy(update={"contexts": ["cat sat on mat"]})
    assert get_metric("k_precision").compute(other).value == 1.0


# --- answer vs reference answers ------------------------------------------------------

ANSWER = "Paris is the capital of France"  # T = [paris, is, capital, of, france], 5 tokens
REFS = ["Capital is Paris", "The French capital is Paris, France"]
# ref 0: T = [capital, is, paris] (3), common 3
# ref 1: T = [french, capital, is, paris, france] (5), common 4


def test_token_recall_is_best_over_references():
    # recall = common / |T(ref)|: ref 0 -> 3/3 = 1.0, ref 1 -> 4/5 = 0.8; max = 1.0
    score = token_recall(ANSWER, REFS)
    assert score.value == 1.0
    assert score.details == {
        "best_reference": 0,
        "common_tokens": 3,
        "answer_tokens": 5,
        "reference_tokens": 3,
    }


def test_token_precision_is_best_over_references():
    # precision = common / |T(answer)|: ref 0 -> 3/5 = 0.6, ref 1 -> 4/5 = 0.8; max = 0.8
    score = token_precision(ANSWER, REFS)
    assert score.value == pytest.approx(0.8)
    assert score.details["best_reference"] == 1


def test_token_f1_is_best_over_references():
    # ref 0: P = 0.6, R = 1.0 -> 2*0.6*1/1.6 = 0.75; ref 1: P = R = 0.8 -> 0.8; max = 0.8
    assert token_f1(ANSWER, REFS).value == pytest.approx(0.8)
    assert token_f1(ANSWER, REFS[:1]).value == pytest.approx(0.75)
    assert token_f1("Berlin", REFS).value == 0.0  # no common token -> 0, not a division


def test_token_metrics_with_empty_inputs():
    # an answer with no tokens: recall 0 (it says nothing), precision undefined
    assert token_recall("", ["Paris"]).value == 0.0
    undefined = token_precision("The.", ["Paris"])
    assert undefined.status == "undefined" and "answer has no tokens" in undefined.reason
    # references with no tokens are ignored; when all are empty the score is undefined
    assert token_recall("Paris", ["the", "Paris"]).value == 1.0
    all_empty = token_f1("Paris", ["the", "!!"])
    assert all_empty.status == "undefined" and "2 reference answer(s)" in all_empty.reason
    # token_recall is Unitxt's: every reference empty -> 0 with a note; no references: undefined
    zero = token_recall("Paris", ["the", "!!"])
    assert (
        zero.status == "ok" and zero.value == 0.0 and "no reference answer" in zero.details["note"]
    )
    assert token_recall("Paris", []).status == "undefined"


def test_exact_match_after_normalisation():
    assert exact_match(ANSWER, REFS).value == 0.0
    hit = exact_match(ANSWER, ["nope", "paris is capital of FRANCE!"])
    assert hit.value == 1.0 and hit.details == {"matched_reference": 1}
    assert exact_match("The answer.", ["answer"]).value == 1.0
