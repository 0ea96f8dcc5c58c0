"""A reply to a yes/no question that only says yes or no ("Absolutely!", "Yes, it is.", "Of
course not.") is the claim that the answer is yes or no; to a wh-question such a reply claims
nothing (metrics/polar.py, metrics/claims.py)."""

from __future__ import annotations

import pytest

from judged_fakes import ScriptedJudge, statement_in
from ragmeter.metrics.claims import claims_of
from ragmeter.metrics.faithfulness import faithfulness
from ragmeter.metrics.polar import bare_yes_no, question_kind, reply_polarity
from ragmeter.metrics.support import lexical_support
from ragmeter.protocols import Resources
from ragmeter.sample import Sample

POLAR = "Is Rome the capital of Italy?"
WH = "What is the capital of Italy?"
CTX = "Rome is the capital of Italy. Milan is the largest city of Lombardy."


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        (POLAR, "polar"),
        ("Were both Mozart and Haydn born in Vienna?", "polar"),
        ("Isn't Rome the capital?", "polar"),
        ("And did it rain?", "polar"),
        ("Rome is the capital of Italy, isn't it?", "polar"),
        ("Rome is the capital, right?", "polar"),
        (WH, "wh"),
        ("In which year was the tower completed?", "wh"),
        ("Name the capital of Italy.", "wh"),
        ("Is it Rome or Milan?", None),  # an alternative question: neither yes nor no
        ("Tell me about Rome.", None),
        ("Island nations of Europe?", None),
        ("", None),
    ],
)
def test_question_kind(question, kind):
    assert question_kind(question) == kind


@pytest.mark.parametrize(
    ("reply", "polarity"),
    [
        ("Absolutely!", "yes"),
        ("Certainly.", "yes"),
        ("That's right.", "yes"),
        ("Yes, it is.", "yes"),
        ("They were.", "yes"),
        ("Of course not.", "no"),
        ("Absolutely not!", "no"),
        ("No, they weren\u2019t.", "no"),
        ("It doesn't.", "no"),
        ("Not really.", "no"),
        ("Yes.", "yes"),
        ("no", "no"),
        # content of its own: not a bare reply
        ("Yes, Rome is.", None),
        ("Maybe.", None),
        ("It depends.", None),
        ("I think so.", None),
        ("It is 5.", None),
        ("Yes and no.", None),
        ("Is it?", None),
        ("It.", None),
    ],
)
def test_reply_polarity(reply, polarity):
    assert reply_polarity(reply) == polarity


def test_bare_yes_no_is_only_yes_or_no_words():
    assert bare_yes_no("Yes.") and bare_yes_no("no") and bare_yes_no("Yeah!")
    assert not bare_yes_no("Absolutely!") and not bare_yes_no("Yes, it is.")


@pytest.mark.parametrize(
    ("answer", "judged"),
    [
        ("Absolutely!", ["yes"]),
        ("Certainly!", ["yes"]),  # was dropped as a courtesy: a yes without a claim
        ("Yes, it is.", ["yes"]),  # was judged alone: "Yes, it is."
        ("It is.", ["yes"]),
        ("No, it isn't.", ["no"]),
        ("Absolutely not.", ["no"]),
        ("Absolutely, it is.", ["yes"]),
        ("Yes.", ["Yes"]),  # a bare yes or no is judged as written, case and all
        ("no", ["no"]),
    ],
)
def test_a_reply_to_a_yes_no_question_is_its_yes_or_no(answer, judged):
    c = claims_of(POLAR, answer)
    assert c.judged == [f'The answer to "{POLAR}" is {j}.' for j in judged]
    assert c.original and c.original[0].rstrip(".!") in answer  # shown as written


def test_before_the_answer_s_sentences_a_clause_is_its_yes_and_assent_a_courtesy():
    c = claims_of(POLAR, "Yes, it is. It has been the capital since 1871.")
    assert c.judged == [f'The answer to "{POLAR}" is yes.', "It has been the capital since 1871."]
    c = claims_of(POLAR, "Of course not! Milan is not the capital.")
    assert c.judged == [f'The answer to "{POLAR}" is no.', "Milan is not the capital."]
    for courtesy in ("Certainly!", "Absolutely!", "Sure."):
        c = claims_of(POLAR, f"{courtesy} Yes, Rome has been the capital since 1871.")
        assert c.judged == ["Yes, Rome has been the capital since 1871."], courtesy
        assert c.dropped == [{"text": courtesy, "why": "asserts nothing"}]


@pytest.mark.parametrize(
    "answer",
    ["Yes! The capital is Rome.", "Absolutely! The capital is Rome.", "Sure. The capital is Rome."],
)
def test_a_yes_or_no_does_not_answer_a_wh_question(answer):
    c = claims_of(WH, answer)
    assert c.judged == ["The capital is Rome."]
    assert c.dropped and c.dropped[0]["text"].rstrip(".!") in ("Yes", "Absolutely", "Sure")


def test_a_lone_yes_to_a_wh_question_makes_no_claim():
    assert claims_of(WH, "Yes.").judged == []
    assert claims_of(WH, "Absolutely!").judged == []


def test_in_a_chat_the_yes_before_the_reply_stays_a_discourse_marker():
    chat = "User: I went to Rome last May.\nAssistant: Lovely!\nUser: Is Rome the capital of Italy?"
    c = claims_of(chat, "Absolutely! It has been since 1871.")
    assert c.judged == ["It has been since 1871."]
    about_you = "User: hi\nAssistant: hello\nUser: Do you like Rome?"
    assert claims_of(about_you, "Absolutely!").judged == []


def test_other_questions_keep_what_they_had():
    request = "Tell me about Rome."
    assert claims_of(request, "Certainly!").judged == []
    assert claims_of(request, "Yes.").judged == [f'The answer to "{request}" is Yes.']


@pytest.mark.parametrize(
    ("answer", "judged"),
    [
        ("Rome, of course.", "Rome is the capital of Italy."),
        ("The capital is Rome, naturally!", "The capital is Rome."),
        ("Rome, obviously.", "Rome is the capital of Italy."),
    ],
)
def test_a_closing_courtesy_is_no_part_of_the_claim(answer, judged):
    c = claims_of(WH, answer)
    assert c.judged == [judged]
    assert c.dropped[0]["why"] == "asserts nothing"


def test_a_capitalised_word_after_a_frame_is_no_closing_courtesy():
    c = claims_of(POLAR, "Based on the provided documents, Definitely.")
    assert c.judged == [f'The answer to "{POLAR}" is yes.']  # the frame unwrapped, then a yes


def test_a_yes_no_reply_has_the_lexical_support_of_the_question_s_proposition():
    sentences = [s + "." for s in CTX.rstrip(".").split(". ")]
    for reply in ("Absolutely!", "Certainly.", "Yes, it is.", "yes"):
        assert lexical_support(reply, POLAR, sentences, sentences) == 1.0, reply
    # before: the word "absolutely" was looked up, and is in no passage
    assert lexical_support("Absolutely wrong", POLAR, sentences, sentences) == 0.0


async def test_faithfulness_scores_a_certainly_to_a_yes_no_question():
    judge = ScriptedJudge(lambda t: 0.9 if statement_in(t).endswith(" is yes.") else 0.1)
    s = Sample(question=POLAR, question_id="q", answer="Certainly!", contexts=[CTX])
    f = await faithfulness(s, Resources(judge=judge))
    assert f.status == "ok" and f.value > 0.8
    ev = f.details["statement_evidence"][0]
    assert ev["statement"] == "Certainly!" and ev["lexical"] == 1.0
    assert ev["judged_as"] == f'The answer to "{POLAR}" is yes.'


def test_every_polar_answer_as_chat_assistants_write_it_is_its_yes_or_no():
    """benchmarks/_rewrites.polar_reply: the visible polar set's right answers as "Absolutely!",
    "No, they weren't.", "Certainly.", "It wasn't." each claim the answer as written does."""
    import sys
    from pathlib import Path

    bench = Path(__file__).resolve().parents[1] / "benchmarks"
    sys.path.insert(0, str(bench))
    import _rewrites as rw
    from faithfulness_visible import load_set

    rows = load_set("polar", 60)
    item = {k: n for n, k in enumerate(dict.fromkeys(rw.item_of(r) for r in rows))}
    changed = 0
    for r in rows:
        x = rw.polar_reply(r, item[rw.item_of(r)])
        if x is r:
            continue
        changed += 1
        plain = r["answer"].strip().rstrip(".").lower()
        assert claims_of(x["question"], x["answer"]).judged == [
            f'The answer to "{r["question"]}" is {plain}.'
        ], x["answer"]
    assert changed == 20
