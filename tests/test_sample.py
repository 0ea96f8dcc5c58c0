"""The Sample model and the column names of ragas (v1 and current) and Unitxt."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from tests.conftest import make_row

from ragmeter.errors import DataError
from ragmeter.sample import Sample, validate_records


def test_valid_row_becomes_a_frozen_sample():
    (sample,) = validate_records([make_row(1)])
    assert sample.question_id == "q1"
    assert sample.context_ids == ["d1", "d-grass"]
    assert sample.metadata == {"category": "test"}
    assert sample.has("contexts") and not Sample(question="x", question_id="x").has("contexts")
    with pytest.raises(ValidationError):
        sample.question = "changed"  # type: ignore[misc]


def test_question_id_is_generated_stably_when_missing():
    row = make_row(1, question_id=None)
    first = validate_records([row])[0].question_id
    assert first == validate_records([row])[0].question_id
    assert first.startswith("q00001-")
    two = validate_records([make_row(1, question_id=None), make_row(2, question_id=None)])
    assert len({s.question_id for s in two}) == 2


def test_integer_ids_are_accepted_as_strings():
    (sample,) = validate_records(
        [make_row(1, question_id=7, context_ids=[1, 2], reference_context_ids=[1])]
    )
    assert sample.question_id == "7"
    assert sample.context_ids == ["1", "2"] and sample.reference_context_ids == ["1"]


def test_ragas_current_column_names():
    row = {
        "user_input": "Why is the sky blue?",
        "retrieved_contexts": ["Rayleigh scattering."],
        "retrieved_context_ids": ["d1"],
        "response": "Rayleigh scattering.",
        "reference": "Because of Rayleigh scattering.",  # one string -> a list of one
        "reference_contexts": ["Rayleigh scattering."],
        "reference_context_ids": ["d1"],
    }
    (s,) = validate_records([row])
    assert s.question == "Why is the sky blue?"
    assert s.contexts == ["Rayleigh scattering."] and s.context_ids == ["d1"]
    assert s.answer == "Rayleigh scattering."
    assert s.reference_answers == ["Because of Rayleigh scattering."]
    assert s.reference_contexts == ["Rayleigh scattering."] and s.reference_context_ids == ["d1"]


def test_ragas_v1_column_names():
    base = {"question": "Q?", "answer": "A.", "contexts": ["C."]}
    (one,) = validate_records([{**base, "ground_truth": "A."}])
    (many,) = validate_records([{**base, "ground_truths": ["A.", "An A."]}])
    assert one.reference_answers == ["A."]
    assert many.reference_answers == ["A.", "An A."]
    assert one.answer == "A." and one.contexts == ["C."]


def test_unitxt_column_names():
    row = {
        "question": "Q?",
        "question_id": "u1",
        "metadata_field": "finance",  # Unitxt: one string
        "contexts": ["C1.", "C2."],
        "contexts_id": ["c1", "c2"],  # sic, as in Unitxt's task definition
        "answer": "A.",
        "reference_answers": ["A."],
        "reference_contexts": ["C1."],
        "reference_context_ids": ["c1"],
        "is_answerable_label": True,
    }
    (s,) = validate_records([row])
    assert s.context_ids == ["c1", "c2"]
    assert s.metadata == {"metadata_field": "finance"}
    assert s.is_answerable is True
    (d,) = validate_records([{**row, "metadata_field": {"category": "x"}}])
    assert d.metadata == {"category": "x"}


def test_unknown_columns_go_to_metadata():
    (s,) = validate_records([make_row(1, latency_ms=120, metadata={"category": "hr"})])
    assert s.metadata == {"latency_ms": 120, "category": "hr"}


def test_alias_and_field_with_equal_values_are_fine_but_differing_ones_are_not():
    row = make_row(1, user_input=make_row(1)["question"])
    assert validate_records([row])[0].question == row["question"]
    with pytest.raises(DataError) as err:
        validate_records([make_row(1, user_input="something else")])
    (p,) = err.value.problems
    assert (p.row, p.field) == (1, "user_input") and "'question'" in p.message


def test_nan_cells_count_as_missing():
    (s,) = validate_records([make_row(1, answer=float("nan"), reference_answers=None)])
    assert s.answer is None and s.reference_answers is None
