"""Generate mode asks the judge for exactly one verdict per statement (and one attribution per
reference sentence) in the JSON schema itself.

Before: the schema said "a list of verdicts" and the prompt's worked example lists three, so
the embedded judge (grammar-constrained by that schema) gave 3 verdicts for an answer of one
statement and generate-mode faithfulness failed ("judge gave 3 verdicts for 1 statements") on
short answers; measured on benchmarks/data/injection.jsonl's first base with the embedded
1.5B judge, on the code before and after the data marks alike. Now the schema carries
``minItems`` = ``maxItems`` = n, which llama.cpp's grammar and servers' json_schema mode follow.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from judged_fakes import ScriptedJudge
from ragmeter.metrics.faithfulness import Verdicts, faithfulness
from ragmeter.metrics.judging import exactly
from ragmeter.metrics.reference import context_recall
from ragmeter.protocols import Resources
from ragmeter.sample import Sample


class _Schemas(ScriptedJudge):
    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.schemas: dict[str, dict[str, Any]] = {}

    async def structured(self, messages, schema, *, prompt_version, max_tokens=512):  # type: ignore[no-untyped-def]
        self.schemas[schema.__name__] = schema.model_json_schema()
        return await super().structured(
            messages, schema, prompt_version=prompt_version, max_tokens=max_tokens
        )


def _script(n_statements: int) -> Any:
    def reply(text: str, schema: type) -> Any:
        if schema.__name__ == "Statements":
            # the answer's own statement (no name or number it lacks: the writer check keeps it)
            return {"statements": ["The Eiffel Tower is in Paris."] * n_statements}
        if schema.__name__ == "Verdicts":
            return {"verdicts": [{"reason": "r", "verdict": "yes"}] * n_statements}
        if schema.__name__ == "Attributions":
            return {"sentences": [{"reason": "r", "attributed": "yes"}] * 2}
        raise AssertionError(schema.__name__)

    return reply


def _sample() -> Sample:
    return Sample(
        question_id="q",
        question="Where is the Eiffel Tower?",
        contexts=["The Eiffel Tower is in Paris. It opened in 1889."],
        answer="It is in Paris.",
        reference_answers=["It is in Paris. It opened in 1889."],
    )


@pytest.mark.parametrize("n", [1, 2, 5])
def test_the_verdicts_schema_asks_for_one_verdict_per_statement(n: int) -> None:
    judge = _Schemas(script=_script(n))
    res = Resources(judge=judge, options={"mode": "generate"})
    score = asyncio.run(faithfulness(_sample(), res))
    assert score.status == "ok" and score.value == 1.0, score
    items = judge.schemas["Verdicts"]["properties"]["verdicts"]
    assert (items.get("minItems"), items.get("maxItems")) == (n, n), items


def test_the_attributions_schema_asks_for_one_per_reference_sentence() -> None:
    judge = _Schemas(script=_script(1), verdict=lambda _t: 0.9)
    res = Resources(judge=judge, options={"mode": "generate"})
    score = asyncio.run(context_recall(_sample(), res))
    assert score.status == "ok" and score.value == 1.0, score
    items = judge.schemas["Attributions"]["properties"]["sentences"]
    assert (items.get("minItems"), items.get("maxItems")) == (2, 2), items


def test_a_judge_that_ignores_the_schema_still_fails_clearly() -> None:
    """The count is still checked: a server that ignores json_schema gets the same message."""

    def three(text: str, schema: type) -> Any:
        if schema.__name__ == "Statements":
            return {"statements": ["The Eiffel Tower is in Paris."]}
        return {"verdicts": [{"reason": "r", "verdict": "yes"}] * 3}

    res = Resources(judge=_Schemas(script=three), options={"mode": "generate"})
    score = asyncio.run(faithfulness(_sample(), res))
    assert score.status == "failed" and "3 verdicts for 1 statements" in (score.reason or "")


def test_one_class_per_count_and_the_schema_is_otherwise_unchanged() -> None:
    assert exactly(Verdicts, "verdicts", 3) is exactly(Verdicts, "verdicts", 3)
    counted = exactly(Verdicts, "verdicts", 3).model_json_schema()
    counted["properties"]["verdicts"].pop("minItems")
    counted["properties"]["verdicts"].pop("maxItems")
    assert json.dumps(counted, sort_keys=True) == json.dumps(
        Verdicts.model_json_schema(), sort_keys=True
    )
    # validation is not stricter: the caller's count check names what went wrong
    assert (
        len(
            exactly(Verdicts, "verdicts", 1)
            .model_validate({"verdicts": [{"reason": "r", "verdict": "no"}] * 2})
            .verdicts
        )
        == 2
    )


@pytest.mark.parametrize("n", [1, 3, 4])
def test_answer_relevance_asks_for_its_n_questions(n: int) -> None:
    """RAGAS generates n questions (``answer_relevance_n``, default 3); the schema said only "a
    list", so the judge wrote as many as the worked example has."""
    from judged_fakes import HashEmbedder
    from ragmeter.metrics.relevance import answer_relevance

    def reply(text: str, schema: type) -> Any:
        return {"questions": ["Where is the Eiffel Tower?"] * n, "noncommittal": False}

    judge = _Schemas(script=reply)
    res = Resources(
        judge=judge,
        embedder=HashEmbedder(),
        options={"mode": "generate", "answer_relevance_n": n},
    )
    score = asyncio.run(answer_relevance(_sample(), res))
    assert score.status == "ok", score
    items = judge.schemas["GeneratedQuestions"]["properties"]["questions"]
    assert (items.get("minItems"), items.get("maxItems")) == (n, n), items
