"""Layout is not content: markdown headings, labels, list markers, emphasis and lead-ins are
not claims, so a list is judged as the same sentences in prose are."""

from __future__ import annotations

import pytest

from ragmeter.metrics.claims import claims_of
from ragmeter.metrics.layout import (
    answer_label,
    is_lead_in,
    is_list_number,
    plain_text,
    without_list_number,
)

Q = "What should I know about Rome?"
PROSE = "Rome is the capital of Italy. It was founded in 753 BC. It has 2.8 million people."
LAYOUTS = [
    "Here are the details:\n\n1. Rome is the capital of Italy.\n2. It was founded in 753 BC.\n"
    "3. It has 2.8 million people.",
    "Here are the details: 1. Rome is the capital of Italy. 2. It was founded in 753 BC. "
    "3. It has 2.8 million people.",
    "## Overview\n\nRome is the capital of Italy.\n\n### History\n- It was founded in 753 BC.\n"
    "- It has 2.8 million people.",
    "**Key facts:**\n* **Rome** is the capital of Italy.\n* It was *founded* in 753 BC.\n"
    "* It has 2.8 million people",
    "1) Rome is the capital of Italy\n2) It was founded in 753 BC\n3) It has 2.8 million people",
    "a. Rome is the capital of Italy.\nb. It was founded in 753 BC.\nc. It has 2.8 million people.",
    "The main points are as follows:\n\u2022 Rome is the capital of Italy.\n"
    "\u2022 It was founded in 753 BC.\n\u2022 It has 2.8 million people.",
]


@pytest.mark.parametrize("answer", LAYOUTS)
def test_a_list_is_judged_as_the_same_sentences_in_prose(answer: str) -> None:
    assert claims_of(Q, answer).judged == claims_of(Q, PROSE).judged


def test_what_layout_removes_is_listed_with_why() -> None:
    dropped = claims_of(Q, LAYOUTS[2]).dropped
    assert {d["text"] for d in dropped} == {"## Overview", "### History"}
    assert all(d["why"] == "a heading asserts nothing" for d in dropped)
    # a list on one line: its markers are layout (metrics/inline_list.py), the lead-in listed
    whys = {d["why"] for d in claims_of(Q, LAYOUTS[1]).dropped}
    assert whys == {"a lead-in to what follows asserts nothing"}
    # a lone number left by a list flattened without its "1.": listed
    flattened = "Rome is the capital of Italy. 2. It was founded in 753 BC."
    assert claims_of(Q, flattened).dropped == [
        {"text": "2.", "why": "a list number asserts nothing"}
    ]
    assert claims_of(Q, LAYOUTS[3]).dropped == [
        {"text": "**Key facts:**", "why": "a label asserts nothing"}
    ]


@pytest.mark.parametrize(
    ("answer", "judged"),
    [
        # a number that is the whole answer is a claim, not a list number
        ("2.", ["Rome has 2 airports."]),
        # a line ending in a colon that asserts something is kept
        ("Rome has two airports:\n- Fiumicino\n- Ciampino", None),
        # a label stays part of the claim it heads on the same line
        (
            "- **Capital:** Rome is the capital of Italy.",
            ["Capital: Rome is the capital of Italy."],
        ),
        # not list markers: a negative number, a lower-case abbreviation, arithmetic
        ("-5 degrees is the record low.", ["-5 degrees is the record low."]),
        ("e. coli lives in the gut.", ["e. coli lives in the gut."]),
        ("5 * 3 = 15 and *Roma* is its name.", ["5 * 3 = 15 and Roma is its name."]),
        # an acronym spelled out in parentheses is part of the sentence, not a sentence
        (
            "The JUICE (JUpiter ICy moons Explorer) orbiter studies Ganymede.",
            ["The JUICE (JUpiter ICy moons Explorer) orbiter studies Ganymede."],
        ),
    ],
)
def test_layout_patterns_stay_narrow(answer: str, judged: list[str] | None) -> None:
    got = claims_of("How many airports does Rome have?", answer)
    if judged is None:
        assert got.judged[0] == "Rome has two airports."
        assert got.dropped == []
    else:
        assert got.judged == judged


def test_a_parenthesised_sentence_is_still_split_off() -> None:
    got = claims_of(Q, "Rome is old (it was founded in 753 BC) and big. (It is also very large.)")
    assert got.judged == [
        "Rome is old (it was founded in 753 BC) and big.",
        "It is also very large.",
    ]


def test_helpers() -> None:
    assert is_list_number("2.") and is_list_number("(3)") and is_list_number("b)")
    assert not is_list_number("2.5") and not is_list_number("Two.")
    assert without_list_number("Here are the details: 1.") == "Here are the details:"
    assert without_list_number("It scored 1.") == "It scored 1."
    assert is_lead_in("Here's what I found:") and is_lead_in("Its exports include the following:")
    assert not is_lead_in("Here are the details.")  # no colon: not announcing a list
    assert not is_lead_in("Rome has two airports:")
    plain = plain_text("# Title\n  - nested item\n\ntext")
    assert plain.text == "nested item\n\ntext"
    assert plain.dropped == [{"text": "# Title", "why": "a heading asserts nothing"}]


def test_short_answer_evidence_is_chosen_for_the_claim_about_the_question() -> None:
    got = claims_of("How many people were killed in the shooting?", "Seven")
    assert got.queries == ["How many people were killed in the shooting? Seven"]
    assert claims_of(Q, PROSE).queries == claims_of(Q, PROSE).original


def test_code_blocks_are_left_as_they_are() -> None:
    text = "It is set so:\n```python\n# set the grader\n- x = 1\n```\n## Notes"
    plain = plain_text(text)
    assert plain.text == "It is set so:\n```python\n# set the grader\n- x = 1\n```"
    assert plain.dropped == [{"text": "## Notes", "why": "a heading asserts nothing"}]
    inline = plain_text("Krakow ```python\n# grader settings\n```")
    assert inline.text == "Krakow ```python\n# grader settings\n```" and inline.dropped == []


def test_a_table_row_is_the_sentence_it_states() -> None:
    table = (
        "Here is a comparison:\n\n| Country | **Capital** | Population |\n|---|:---:|---:|\n"
        "| Italy | Rome | 59 million |\n| France | Paris | |\n\nBoth are in Europe."
    )
    assert claims_of("What are the capitals of Italy and France?", table).judged == [
        "Country is Italy; Capital is Rome; Population is 59 million.",
        "Country is France; Capital is Paris.",
        "Both are in Europe.",
    ]
    # pipes without a rule line under the first row are not a table
    assert plain_text("a | b\nnot a rule").text == "a | b\nnot a rule"
    assert plain_text("A | B\n--- | ---\nx | y").text == "A is x; B is y."


def test_inline_code_keeps_its_underscores_and_stars() -> None:
    assert plain_text("Call `__init__` or `a*b*c`, **then** run.").text == (
        "Call `__init__` or `a*b*c`, then run."
    )


def test_every_wikieval_answer_as_markdown_has_its_prose_claims() -> None:
    """The layouts of benchmarks/faithfulness_layout.py, over all 150 WikiEval answers: the
    judge is sent exactly what the prose sends (no model needed to check that)."""
    import importlib.util
    import json
    from pathlib import Path

    from needs import missing

    bench_path = Path(__file__).resolve().parents[1] / "benchmarks" / "faithfulness_layout.py"
    spec = importlib.util.spec_from_file_location("faithfulness_layout", bench_path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    if not bench.WIKIEVAL.is_file():
        missing(f"WikiEval is not beside the checkout ({bench.WIKIEVAL})")
    rows = [json.loads(line) for line in bench.WIKIEVAL.read_text().splitlines() if line.strip()]
    checked = 0
    for n, row in enumerate(rows):
        for key in ("answer", "ungrounded_answer", "poor_answer"):
            prose = claims_of(row["question"], row[key])
            for layout in range(3):
                marked = claims_of(row["question"], bench.render(row[key], n + layout))
                assert marked.judged == prose.judged, (n, key, layout)
                checked += 1
    assert checked == 3 * 3 * len(rows) >= 450


@pytest.mark.parametrize(
    "labelled",
    ["Answer: Rome", "A: Rome.", "Final answer: Rome", "**Answer:** Rome", "Assistant: Rome."],
)
def test_the_label_an_answer_opens_with_is_no_part_of_its_claim(labelled: str) -> None:
    # every grounded answer of WikiEval opens with "Answer:" (50 of 50; 1 of 50 ungrounded)
    q = "What is the capital of Italy?"
    got = claims_of(q, labelled)
    assert got.judged == claims_of(q, "Rome").judged
    assert {"why": "a label asserts nothing"}.items() <= got.dropped[0].items()
    long = claims_of(q, "Answer: Rome is the capital of Italy.")
    assert long.judged == ["Rome is the capital of Italy."]


@pytest.mark.parametrize(
    "text", ["Answering machines: Rome has many.", "A Roman city: Rome.", "Airport codes: FCO"]
)
def test_other_openings_ending_in_a_colon_are_not_answer_labels(text: str) -> None:
    assert answer_label(text).text == text and answer_label(text).dropped == []
