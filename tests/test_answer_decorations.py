"""What a chat answer adds around its claims is not a claim: markdown links and images,
footnote definitions, sentences that only point to a source, emoji, full-width punctuation
(metrics/citations.py, metrics/layout.py)."""

from __future__ import annotations

import pytest

from ragmeter.metrics.citations import is_pointer, strip_citations
from ragmeter.metrics.claims import claims_of
from ragmeter.metrics.layout import plain_text

Q = "What is the capital of Italy?"
POLAR = "Is Rome the capital of Italy?"
PLAIN = "Rome is the capital of Italy. It has been the capital since 1871."
SHORT = "Rome is the capital of Italy."  # the short answer put back into Q (wh_claim.py)


@pytest.mark.parametrize(
    ("answer", "whys"),
    [
        (
            "[Rome](https://en.wikipedia.org/wiki/Rome) is the capital of Italy. It has been "
            'the capital since [1871](https://x.org/1871 "the year").',
            set(),
        ),
        (
            "Rome is the capital of Italy ([source](https://x.org)). It has been the capital "
            "since 1871 [2](https://x.org/2).",
            {"a citation marker points to a source"},
        ),
        (
            "Rome is the capital of Italy.[^1] It has been the capital since 1871.[^note]\n\n"
            "[^1]: Wikipedia, the Rome article.\n[^note]: Britannica.",
            {"a citation marker points to a source", "a footnote names a source"},
        ),
        (
            "![Map of Italy](https://x.org/italy.png)\nRome is the capital of Italy. It has "
            "been the capital since 1871.",
            {"an image is not a claim"},
        ),
        (
            "Rome is the capital of Italy. It has been the capital since 1871. See "
            "https://en.wikipedia.org/wiki/Rome for more.",
            {"points to a source"},
        ),
        (
            "Rome is the capital of Italy. It has been the capital since 1871. For more "
            "information, visit the official website.",
            {"points to a source"},
        ),
        (
            "Rome is the capital of Italy. It has been the capital since 1871. Read more "
            "[here](https://x.org).",
            {"a citation marker points to a source", "points to a source"},
        ),
        (
            "\u2705 Rome is the capital of Italy \U0001f1ee\U0001f1f9. It has been the capital "
            "since 1871 \U0001f3db\ufe0f.",
            set(),
        ),
    ],
)
def test_an_answer_with_links_sources_and_emoji_has_the_claims_of_its_prose(answer, whys):
    got = claims_of(Q, answer)
    assert got.judged == claims_of(Q, PLAIN).judged
    assert {d["why"] for d in got.dropped} == whys


@pytest.mark.parametrize(
    "answer",
    ["\u2705 Rome", "Rome \U0001f1ee\U0001f1f9", "Rome\u3002", "Rome\uff01", "**Rome** \U0001f60a"],
)
def test_a_short_answer_with_emoji_or_full_width_stops_is_the_short_answer(answer):
    assert claims_of(Q, answer).judged == [SHORT]


def test_a_closing_pleasantry_with_an_emoji_asserts_nothing():
    got = claims_of(Q, "Rome is the capital. Hope this helps! \U0001f60a")
    assert got.judged == ["Rome is the capital."]
    assert got.dropped == [{"text": "Hope this helps!", "why": "asserts nothing"}]


def test_keycap_digits_are_list_numbers():
    got = claims_of("Which are the two largest cities?", "1\ufe0f\u20e3 Rome 2\ufe0f\u20e3 Milan")
    assert [c.rsplit(" is ", 1)[1] for c in got.judged] == ["Rome.", "Milan."]


@pytest.mark.parametrize(
    "sentence",
    [
        "See https://en.wikipedia.org/wiki/Rome for more.",
        "For more information, visit the official website.",
        "Please refer to the documentation.",
        "You can find more details at www.example.org.",
        "Check it out.",
    ],
)
def test_pointing_sentences(sentence):
    assert is_pointer(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Visit Rome in spring.",  # a word about the world
        "The docs are at https://docs.example.org.",  # says where the docs are: a claim
        "More than half of the site is a museum.",  # no pointing verb
        "https://example.org",
        "See the Colosseum.",
    ],
)
def test_sentences_that_say_something_are_not_pointers(sentence):
    assert not is_pointer(sentence)


def test_urls_and_links_in_code_stay():
    text = "Run `curl [x](http://localhost)` to check."
    assert strip_citations(text).text == text


def test_contexts_keep_their_emoji():
    """Evidence is read as written; only an answer's decoration goes."""
    text = "\u2705 Rome is the capital."
    assert plain_text(text).text == text
    assert plain_text(text, answer=True).text == "Rome is the capital."


@pytest.mark.parametrize(
    "talk",
    [
        "I hope this information is helpful.",
        "Hope that helps!",
        "Please let me know if you have any other questions.",
        "Feel free to reach out with more questions!",
        "Do not hesitate to contact me.",
        "If you need more details, just ask.",
        "Happy to help!",
        "I'm always glad to assist further.",
        "Have a great day!",
        "Cheers!",
        "Good luck with your exam!",
        "Enjoy your trip!",
        "Disclaimer: I am an AI and may make mistakes.",
        "As an AI, I cannot browse the internet.",
        "Note: This information may be outdated.",
    ],
)
def test_an_assistants_talk_to_the_user_is_no_claim(talk):
    got = claims_of(Q, f"{PLAIN} {talk}")
    assert got.judged == claims_of(Q, PLAIN).judged
    assert got.dropped and got.dropped[-1]["text"] == talk


@pytest.mark.parametrize(
    "claim",
    [
        "As an AI language model, I cannot browse the internet, but Rome is the capital.",
        "Feel free to bring your own towels; the pool provides none.",
        "Hope is a town in Arkansas.",
        "Enjoy free entry on Sundays.",
        "The best time to visit is spring.",
    ],
)
def test_sentences_that_only_look_like_talk_stay_claims(claim):
    assert claims_of(Q, claim).original == [claim]


@pytest.mark.parametrize(
    ("question", "answer", "short"),
    [
        (POLAR, "Certainly! yes. I hope this helps!", "yes"),  # no break before lower case
        (Q, "Sure, Rome.", "Rome"),
        (Q, "Certainly! 206. I hope this helps!", "206"),  # an answer, not a list's number
        (POLAR, "Great question! No. Read more [here](https://x.org).", "No"),  # "No." ends it
    ],
)
def test_a_short_answer_inside_courtesies_is_the_answer(question, answer, short):
    assert claims_of(question, answer).judged == claims_of(question, short).judged


def test_a_lone_small_number_between_sentences_is_still_a_list_number():
    got = claims_of(Q, "Rome is the capital of Italy. 2. It was founded in 753 BC.")
    assert got.judged == ["Rome is the capital of Italy.", "It was founded in 753 BC."]


def test_no_before_a_number_is_still_an_abbreviation():
    from ragmeter.text import split_sentences

    assert split_sentences("He lived at No. 10 Downing Street. It is old.") == [
        "He lived at No. 10 Downing Street.",
        "It is old.",
    ]
    assert split_sentences("The answer is no. The museum is closed.") == [
        "The answer is no.",
        "The museum is closed.",
    ]


@pytest.mark.parametrize(
    "remark",
    [
        "(Note: the context does not mention its population.)",
        "However, the provided documents do not say when it became the capital.",
        "There is no information about its population.",
        "Its population is not mentioned in the context.",
        "I could not find its population in the sources.",
    ],
)
def test_what_the_context_lacks_is_no_claim_beside_claims(remark):
    got = claims_of(Q, f"{PLAIN} {remark}")
    assert got.judged == claims_of(Q, PLAIN).judged
    assert got.dropped[-1]["why"] == "says what the context lacks"


def test_claims_with_a_negation_about_the_world_stay():
    answer = "The museum does not include the annex. The annex is not mentioned in its guide."
    assert claims_of(Q, answer).original == [
        "The museum does not include the annex.",
        "The annex is not mentioned in its guide.",
    ]


@pytest.mark.parametrize(
    "courtesy", ["Sure thing!", "Thanks for your question.", "Thank you for asking!", "No problem!"]
)
def test_courtesies_are_no_claims(courtesy):
    assert claims_of(Q, f"{courtesy} {PLAIN}").judged == claims_of(Q, PLAIN).judged
    assert claims_of(Q, f"{PLAIN} {courtesy}").judged == claims_of(Q, PLAIN).judged


def test_a_pointer_or_talk_glued_after_an_initial_still_goes():
    """ "... A and E. Read more." is one piece to the splitter ("E." may be an initial)."""
    got = claims_of(Q, "It is tuned to G, D, A and E. Read more.")
    assert got.judged == ["It is tuned to G, D, A and E."]
    got = claims_of(Q, "It is tuned to G, D, A and E. Have a great day!")
    assert got.judged == ["It is tuned to G, D, A and E."]
    assert claims_of(Q, "It was led by J. Robert Oppenheimer.").judged == [
        "It was led by J. Robert Oppenheimer."
    ]


@pytest.mark.parametrize(
    "answer",
    [
        "**Answer:** Rome\n**Explanation:** Rome is the capital of Italy.",
        "Answer: Rome\nReasoning: The passage says that Rome is the capital of Italy.",
        'Rome\n\nEvidence: "Rome is the capital of Italy."',
        "Rome\nRationale: Rome is the capital of Italy.\nConfidence: high",
        "Rome (confidence: 95%)\nExplanation: Rome is the capital of Italy.",
    ],
)
def test_a_structured_answers_sections_are_its_claims_without_labels(answer):
    got = claims_of(Q, answer)
    assert got.judged == [SHORT, "Rome is the capital of Italy."]
    whys = {d["why"] for d in got.dropped}
    assert whys <= {"a label asserts nothing", "the answer's confidence in itself asserts nothing"}


def test_confidence_is_no_claim_but_a_sentence_about_confidence_is():
    assert claims_of(Q, "Rome\n**Confidence:** 0.9").judged == [SHORT]
    kept = "The confidence interval was wide."
    assert claims_of(Q, kept).judged == [kept]


def test_a_quotation_is_judged_as_its_words():
    assert claims_of(Q, "\u201cRome is the capital of Italy.\u201d").judged == [
        "Rome is the capital of Italy."
    ]
    assert claims_of(Q, 'He said "Rome" twice.').judged == ['He said "Rome" twice.']


@pytest.mark.parametrize(
    "quoted", ["\u201cno\u201d", '"27"', "\u201cJ. Robert Oppenheimer led it.\u201d"]
)
def test_a_whole_answer_in_quotation_marks_is_the_answer(quoted):
    assert claims_of(Q, quoted).judged == claims_of(Q, quoted[1:-1]).judged


def test_a_quoted_answer_of_several_sentences_is_its_sentences():
    answer = "The Amazon! It carries more water than any other river in the world."
    assert claims_of(Q, f"\u201c{answer}\u201d").judged == claims_of(Q, answer).judged


@pytest.mark.parametrize(
    "label", ["**Long answer:**", "Background:", "More details:", "Additional information:"]
)
def test_more_section_labels_go(label):
    got = claims_of(Q, f"**Short answer:** Rome\n\n{label} Rome is the capital of Italy.")
    assert got.judged == [SHORT, "Rome is the capital of Italy."]


def test_a_label_before_a_fragment_on_a_later_line_stays_a_key_and_value():
    got = claims_of(Q, "Rome.\nDetails: closed Mondays")
    assert got.judged == [SHORT, "Details is closed Mondays."]
