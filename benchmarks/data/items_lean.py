"""Lean answers: direct answers that repeat no content word of their question.

Why: people answer "What is the tallest waterfall?" with "Angel Falls, 979 metres high", and
"Why are sunsets red?" with how light crosses the atmosphere, not by restating the question.
answer_relevance's relation gate (an injection backstop) asked for a word shared with the
question, so such answers scored 0 (issue 12, found in the demo on 2026-11-28). These rows
were written before the gate was changed and committed before any measurement on them.

- LEAN_QA: for the first 20 items of items_qa.py (their questions and passages), a correct,
  direct answer sharing no content stem with the question (``support.stems``).
- WHY_ITEMS: six why / how questions with a short passage each and such an answer.

answer_relevance_lean.jsonl (make_visible_sets.py) holds each lean answer (label 1) and, as
its off-topic counterpart, the lean answer of another item (label 0).
"""

from __future__ import annotations

LEAN_QA = {
    "qa01": "The Waikato, at the north-eastern corner.",
    "qa02": "Seven of them, the tallest rising 343 metres above the base.",
    "qa03": "In November 2014, ten years after Rosetta's launch.",
    "qa04": "Warsaw, though she later worked in Paris.",
    "qa05": "Roughly 2,900, along with some 900 islands.",
    "qa06": "On 6 May 1994, by Queen Elizabeth II and President Mitterrand.",
    "qa07": "ALMA, a radio observatory placed there for the dry, thin air.",
    "qa08": "5,895 metres above sea level, the summit of Kilimanjaro.",
    "qa09": "In July 1903, organised by the newspaper L'Auto.",
    "qa10": "Alexander Fleming, in 1928 at St Mary's Hospital in London.",
    "qa11": "Eight, over a line 9,289 kilometres long.",
    "qa12": "On 15 January 2001, founded by Jimmy Wales and Larry Sanger.",
    "qa13": "Into the Black Sea, via a delta in Romania and Ukraine.",
    "qa14": "206 in total; a newborn starts with about 270.",
    "qa15": "On 9 November 1989, after 28 years of division.",
    "qa16": "MoMA in New York, where it has hung since 1941.",
    "qa17": "Four, mounted under the wings.",
    "qa18": "In December 1993, by a servicing mission.",
    "qa19": "Jean-Francois Champollion, in 1822, working from its Greek text.",
    "qa20": "674, a climb most visitors take at their own pace.",
}

# (id, question, passage, lean answer)
WHY_ITEMS = [
    (
        "why01",
        "Why do leaves change colour in autumn?",
        "In autumn, trees stop producing chlorophyll as days shorten and temperatures drop. As "
        "the green pigment breaks down, yellow and orange carotenoids that were present all "
        "along become visible. Some species also make red anthocyanins at this time.",
        "Shorter days make trees stop producing chlorophyll, so the green fades and the yellow "
        "and orange carotenoids show through.",
    ),
    (
        "why02",
        "Why does ice float on water?",
        "When water freezes, its molecules lock into a hexagonal lattice that holds them further "
        "apart than in the liquid. Ice is therefore about nine percent less dense than liquid "
        "water. Objects less dense than the liquid around them are pushed up by buoyancy.",
        "Freezing locks the molecules into an open lattice, which makes the solid about nine "
        "percent less dense than the liquid.",
    ),
    (
        "why03",
        "How do bees tell each other where flowers are?",
        "Honeybee foragers that find a good food source return to the hive and perform a "
        "waggle dance. The angle of the dance relative to vertical shows the direction of the "
        "food relative to the sun, and the length of the waggle run signals the distance.",
        "A forager performs a waggle dance in the hive: its angle gives the direction relative "
        "to the sun and its length the distance.",
    ),
    (
        "why04",
        "Why did the Titanic sink?",
        "RMS Titanic struck an iceberg in the North Atlantic on the night of 14 April 1912. The "
        "collision opened five of her watertight compartments to the sea, one more than she "
        "could survive. She sank less than three hours later.",
        "An iceberg strike opened five watertight compartments to the sea, one more than the "
        "ship could survive.",
    ),
    (
        "why05",
        "How does a vaccine protect against disease?",
        "A vaccine exposes the immune system to a harmless form or part of a pathogen. The body "
        "responds by producing antibodies and memory cells. If the real pathogen arrives later, "
        "these memory cells recognise it and mount a fast response.",
        "It shows the immune system a harmless piece of the pathogen, so memory cells are ready "
        "to respond quickly to a real infection.",
    ),
    (
        "why06",
        "Why do we have leap years?",
        "A solar year lasts about 365.2422 days. Adding one day every four years keeps the "
        "calendar aligned with the seasons, and the Gregorian rule skips three such days every "
        "400 years to correct the remaining error.",
        "The Earth takes about 365.24 days to orbit the Sun, so an extra day every fourth "
        "February keeps the calendar in step with the seasons.",
    ),
]


def lean_rows() -> list[dict]:
    """Lean direct answers (items_lean.py, label 1), each also given to the next item as its
    off-topic answer (label 0); a lean answer sharing a content stem with its question is a
    mistake in the data and stops the build."""
    from items_qa import QA_ITEMS

    from ragmeter.metrics.support import stems

    qa = {iid: (q, ctx) for iid, _k, ctx, q, *_ in QA_ITEMS[:20]}
    items = [(i, *qa[i], a) for i, a in LEAN_QA.items()] + [tuple(w) for w in WHY_ITEMS]
    rows = []
    for n, (iid, q, ctx, lean) in enumerate(items):
        assert not stems(q) & stems(lean), (iid, stems(q) & stems(lean))
        other = items[(n + 1) % len(items)][3]
        for variant, answer, label in (("lean", lean, 1), ("lean_off_topic", other, 0)):
            rows.append(
                {
                    "question_id": f"{iid}-{variant}",
                    "question": q,
                    "contexts": [ctx],
                    "answer": answer,
                    "metadata": {"item": iid, "variant": variant, "label": label},
                }
            )
    return rows
