"""Generate-mode faithfulness (the RAGAS paper's procedure), and a check on the statements the
judge writes before they are judged.

The judge writes the answer's statements (pronouns resolved), then gives a reason and a verdict
per statement against the context; F = |supported| / |statements|.

Why the check (``writer_statements``): the statement step lets the judge rewrite the answer,
and what it writes is what gets judged. Given "Krakow" plus an evaluator-directed note in a
language the phrase lists do not know (Dutch, Polish, Korean) or a fake earlier verdict, the
embedded judge wrote "Marie Curie was born in Warsaw." (the fact it knew, not the answer's) or
just "Yes", and the wrong answer scored 1.0: 5 of 92 answer-side injections raised an
unfaithful answer over 0.5 (``benchmarks/injection.py --mode generate``, 2026-11-28). Phrase
lists cannot know every language; what does not depend on the form is that the paper's step
must "not add information that the answer does not contain". So:

- a statement holding a name or number that neither the question nor the answer (as the writer
  read it) holds (``support.missing_specific``: "warsaw") was added by the writer. The list is
  then not the answer's: a writer that swapped a fact has usually dropped the original, so
  removing the one statement would leave the answer's own claim unjudged. The answer's own
  claims (fast mode's claim step, ``claims.claims_of``: "Krakow" to "In which city was Marie
  Curie born?" claims "Marie Curie was born in Krakow.") are judged instead, and the details
  say so (``statements_from``, ``writer_statements``, ``writer_added``);
- a statement that asserts nothing about the world (a bare "Yes" to a wh-question, a
  meta-comment on the answer, talk to the user: what ``claims_of`` drops) is not counted; when
  none is left, the answer's own claims are judged.

Worked example: "Krakow" + a Polish note, the writer gives ["Marie Curie was born in Warsaw."]:
"warsaw" is in neither text, so the statements judged are ["Marie Curie was born in Krakow."]
and a context saying she was born in Warsaw gives F = 0/1 = 0 (1.0 before).
A name the writer spells with other accents than the answer ("Kraków" for "Krakow") is the
same name; a name opening the statement is not looked at (as in
``missing_specific``), so "Warsaw is her birthplace." is not caught.
"""

from __future__ import annotations

import unicodedata

from ragmeter.errors import JudgeFailed
from ragmeter.metrics.base import Score
from ragmeter.metrics.claims import claims_of, neutralise
from ragmeter.metrics.context import ContextSentences
from ragmeter.metrics.judging import (
    Calls,
    Statements,
    Verdicts,
    answer_as_read,
    chat,
    exactly,
    numbered,
)
from ragmeter.metrics.support import missing_specific
from ragmeter.sample import Sample


def writer_statements(question: str, read: str, written: list[str]) -> tuple[list[str], dict]:
    """The statements to judge, given those the judge ``written`` from the answer as it
    ``read`` it, and the details that say where they came from (see the module docstring)."""
    q, seen = _plain(question), [_plain(read)]
    added = {s: w for s in written if (w := missing_specific(_plain(s), q, seen))}
    if added:
        own = claims_of(question, read).judged
        return own, {
            "statements_from": "answer claims: the judge's statements added names or numbers "
            "the answer does not hold",
            "writer_statements": written,
            "writer_added": added,
        }
    kept = [s for s in written if claims_of(question, s).judged]
    details: dict = {"statements_from": "judge"}
    if len(kept) < len(written):
        details["dropped_statements"] = [s for s in written if s not in kept]
    if not kept:
        details["statements_from"] = (
            "answer claims: none of the judge's statements asserts anything about the world"
        )
        details["writer_statements"] = written
        return claims_of(question, read).judged, details
    return kept, details


def _plain(text: str) -> str:
    """Letters without accents: "Kraków" and "Krakow" are one name to the check."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


async def generate(
    sample: Sample, calls: Calls, ctx: ContextSentences, chunks: list[list[int]], prompts: dict
) -> Score:
    """Statements written by the judge (checked), then a verdict per statement per chunk."""
    g = prompts["generate"]  # its own version: the fast prompts keep their cache keys
    ver, read = g["version"], answer_as_read(sample.question, sample.answer or "")
    made = await calls.structured(
        chat(
            g["statements_system"],
            g["statements_user"].format(
                question=neutralise(sample.question), answer=neutralise(read)
            ),
            g["statements_examples"],
        ),
        Statements,
        version=ver,
    )
    written = [s.strip() for s in made.statements if s.strip()]
    if not written:
        return Score.undefined(
            "the judge found no statements in the answer", judge=calls.details(), mode="generate"
        )
    statements, origin = writer_statements(sample.question, read, written)
    if not statements:
        return Score.undefined(
            "not applicable: the answer makes no claim about the world",
            judge=calls.details(),
            mode="generate",
            **origin,
        )
    listing, as_data = numbered(statements), neutralise  # statements and context marked
    supported, reasons = [False] * len(statements), [""] * len(statements)
    for chunk in chunks:
        got = await calls.structured(
            chat(
                g["verdicts_system"],
                g["verdicts_user"].format(context=as_data(ctx.render(chunk)), statements=listing),
                g["verdicts_examples"],
            ),
            exactly(Verdicts, "verdicts", len(statements)),
            version=ver,
            max_tokens=80 + 60 * len(statements),
        )
        if len(got.verdicts) != len(statements):
            raise JudgeFailed(
                f"judge gave {len(got.verdicts)} verdicts for {len(statements)} statements"
            )
        for i, v in enumerate(got.verdicts):
            if v.verdict == "yes" and not supported[i]:
                supported[i], reasons[i] = True, v.reason
            elif not supported[i]:
                reasons[i] = v.reason
    return Score.ok(
        sum(supported) / len(statements),
        mode="generate",
        statements=statements,
        verdicts=["yes" if s else "no" for s in supported],
        reasons=reasons,
        chunks=len(chunks),
        judge=calls.details(),
        **origin,
    )
