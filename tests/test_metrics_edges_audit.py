"""The non-LLM metrics at their edges: what a demanding user feeds them (audit 2026-11-27).

Each test failed before its fix: a short answer that names "the Unknown Soldier" counted as
a refusal; a custom metric's Score was written as a string, a value beside a non-ok status
or without a reason; a custom definition that could never run was accepted.
"""

from __future__ import annotations

import fractions
import json
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import ragmeter
from ragmeter import Metric, MetricError, Score
from ragmeter.cli import app
from ragmeter.metrics import overlap_kernel, registry
from ragmeter.metrics.lexical import (
    exact_match,
    k_precision,
    k_precision_union,
    token_f1,
    token_precision,
    token_recall,
)
from ragmeter.metrics.refusal import declines
from ragmeter.metrics.retrieval import (
    average_precision,
    hit_at_k,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
    unitxt_reciprocal_rank,
)
from ragmeter.runs import RECORD_KEYS
from ragmeter.sample import Sample

_ROWS = [{"question": "q", "answer": "a b c"}, {"question": "q2", "answer": "d"}]


# --- refusals ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "The Unknown Soldier is buried at Arlington.",
        "The composer is unknown to most people, but the context names Bach as the author.",
        "Was it unanswerable? No: it is 42.",
    ],
)
def test_an_answer_that_merely_uses_the_word_unknown_does_not_decline(answer: str) -> None:
    """Before, any "unknown" in a short answer was a refusal: refusal_rate 1, faithfulness
    not applicable and answer_relevance 0 (noncommittal) for an answer that makes claims."""
    assert declines(answer) is None


@pytest.mark.parametrize(
    "answer",
    [
        "Unknown.",
        "The cause is unknown.",
        "It's unknown",
        "The date is unknown from the provided context.",
        "This question is unanswerable based on the documents.",
    ],
)
def test_unknown_as_the_answers_verdict_still_declines(answer: str) -> None:
    assert declines(answer) is not None


@pytest.mark.parametrize(
    "answer",
    [
        "The policy does not cover flood damage.",
        "The museum does not provide free entry on Sundays.",
        "The warranty doesn't include batteries.",
        "The law does not mention penalties; fines are set by regulation.",
        "The vaccine is not available to children under 5.",
        "Tickets are not provided to members; they must buy them at the door.",
        "Photos aren't given to visitors.",
        "The patient had no information about her diagnosis until 2019.",
        "The report contains no data on Asia.",
    ],
)
def test_a_negative_answer_about_the_world_does_not_decline(answer: str) -> None:
    """Before, each of these answers to a yes/no question was a refusal: faithfulness not
    applicable (its claim never checked) and answer_relevance 0 (noncommittal)."""
    assert declines(answer) is None


@pytest.mark.parametrize(
    "answer",
    [
        "The context does not say.",
        "The provided passages don't mention the date.",
        "The text provided does not specify the year.",
        "The retrieved context doesn't include that information.",
        "It doesn't say.",
        "They do not mention it.",
        "Does not say.",
        "The date is not mentioned.",
        "The information is not available.",
        "This is not given in the context.",
        "The date isn't provided in the documents.",
        "There is no information about the date.",
        "There\u2019s no data on this.",
        "No information.",
        "I have no information on that.",
        "The context contains no information about his death.",
    ],
)
def test_the_same_phrases_about_the_documents_still_decline(answer: str) -> None:
    assert declines(answer) is not None


@pytest.mark.parametrize(
    "answer", ["I'm not sure.", "I\u2019m not sure.", "I'm not certain.", "I'm unable to say."]
)
def test_the_contracted_first_person_refusals_decline(answer: str) -> None:
    """Before, "I am not sure." declined and "I'm not sure." did not: the pattern's "'m"
    alternative wanted a space after "I", which no text has once rejoined."""
    assert declines(answer) is not None


def test_refusal_rate_of_a_claim_with_unknown_is_zero() -> None:
    rows = [{"question": "Who is buried at Arlington?", "answer": "The Unknown Soldier."}]
    result = ragmeter.evaluate(rows, ["refusal_rate"])
    assert result.to_pandas()["refusal_rate"].tolist() == [0.0]


# --- a custom metric's results -------------------------------------------------------------


@pytest.fixture(autouse=True)
def _unregister() -> Iterator[None]:
    """The metrics a test registers (names starting audit_) are removed after it."""
    yield
    for name in [n for n in registry._FIXED if n.startswith("audit_")]:
        registry._FIXED.pop(name, None)
        registry._GIVEN.pop(name, None)


def _run(
    name: str, compute: Callable[[object], object], tmp_path: Path
) -> tuple[ragmeter.EvaluationResult, dict[str, object]]:
    ragmeter.register_metric(
        Metric(name=name, description="d", requires=(("answer",),), compute=compute)  # type: ignore[arg-type]
    )
    result = ragmeter.evaluate(_ROWS, [name])
    result.write(tmp_path)
    first = json.loads((tmp_path / "scores.jsonl").read_text().splitlines()[0])
    return result, first


@pytest.mark.parametrize(
    "value",
    [fractions.Fraction(1, 3), np.float32(0.25), np.int64(1), True],
    ids=["fraction", "float32", "int64", "bool"],
)
def test_a_custom_ok_value_of_another_number_type_is_written_as_a_number(
    value: object, tmp_path: Path
) -> None:
    """Before, scores.jsonl held "1/3", "0.25", "1" (strings) or true for these values."""
    name = f"audit_num_{type(value).__name__}"
    _result, first = _run(name, lambda s: Score(value), tmp_path)  # type: ignore[arg-type]
    assert type(first[name]) is float
    assert first[name] == pytest.approx(float(value))  # type: ignore[arg-type]


def test_a_custom_undefined_score_with_a_value_writes_no_value(tmp_path: Path) -> None:
    """Before, the 0.5 of an undefined Score was written as the row's value (and shown by
    to_pandas) although no mean counted it."""
    result, first = _run("audit_undef_value", lambda s: Score(0.5, "undefined", "n/a"), tmp_path)
    assert first["audit_undef_value"] is None
    assert result.to_pandas()["audit_undef_value"].isna().all()
    assert first["reasons"]["audit_undef_value"] == "n/a"


@pytest.mark.parametrize("reason", [None, "", 123])
def test_a_custom_failed_score_always_has_a_reason_in_words(reason: object, tmp_path: Path) -> None:
    """Before, scores.jsonl said reason "" (None, "") or 123 (a number) for these."""
    name = f"audit_noreason_{type(reason).__name__}_{bool(reason)}"
    result, first = _run(name, lambda s: Score(None, "failed", reason), tmp_path)  # type: ignore[arg-type]
    written = first["reasons"][name]
    assert isinstance(written, str) and written
    if reason is None or reason == "":
        assert written == f"{name} returned status 'failed' without a reason"
    assert all(isinstance(f["reason"], str) and f["reason"] for f in result.failures())


def test_a_custom_value_beyond_any_float_is_said_not_finite() -> None:
    """Before: "internal error: OverflowError: int too large to convert to float"."""
    ragmeter.register_metric(
        Metric(
            name="audit_huge",
            description="d",
            requires=(("answer",),),
            compute=lambda s: Score(10**400),
        )
    )
    result = ragmeter.evaluate(_ROWS, ["audit_huge"])
    reasons = {f["reason"] for f in result.failures()}
    assert reasons == {"the metric computed a non-finite value (inf), which is no score"}


# --- a custom metric's definition ----------------------------------------------------------


def test_a_value_range_given_as_text_is_refused_when_made() -> None:
    """Before, (0, "1") was accepted and every sample then failed: "internal error:
    TypeError: '<=' not supported between instances of 'float' and 'str'"."""
    with pytest.raises(MetricError, match=r"value_range \(0, '1'\): give \(low, high\) as numbers"):
        Metric(
            name="audit_range",
            description="d",
            requires=(("answer",),),
            compute=lambda s: Score.ok(1.0),
            value_range=(0, "1"),  # type: ignore[arg-type]
        )


@pytest.mark.parametrize(
    ("attr", "fn", "wanted"),
    [
        ("compute", lambda: Score.ok(1.0), r"compute must take \(sample\)"),
        ("compute", lambda s, extra: Score.ok(1.0), r"compute must take \(sample\)"),
        ("acompute", lambda s: Score.ok(1.0), r"acompute must take \(sample, resources\)"),
    ],
)
def test_a_function_that_cannot_take_its_arguments_is_refused_when_made(
    attr: str, fn: object, wanted: str
) -> None:
    """Before, such a metric registered, then failed every sample with "internal error:
    TypeError: <lambda>() takes 0 positional arguments but 1 was given"."""
    with pytest.raises(MetricError, match=wanted):
        Metric(name="audit_arity", description="d", requires=(("answer",),), **{attr: fn})  # type: ignore[arg-type]


def test_functions_with_defaults_or_varargs_are_accepted() -> None:
    def compute(sample: object, scale: float = 1.0) -> Score:
        return Score.ok(scale)

    Metric(name="audit_ok1", description="d", requires=(("answer",),), compute=compute)
    Metric(name="audit_ok2", description="d", requires=(("answer",),), compute=lambda *a: None)


# --- retrieval metric names ----------------------------------------------------------------


def test_a_k_with_leading_zeros_is_refused_naming_the_spelling_that_works(
    tmp_path: Path,
) -> None:
    """Before, -m ndcg@010 ran as ndcg@10, so --fail-under ndcg@010=0.9 beside it was refused
    as "'ndcg@010' is gated but not among the metrics run"."""
    data = tmp_path / "r.jsonl"
    data.write_text(
        '{"question": "q", "context_ids": ["a", "b"], "reference_context_ids": ["b"]}\n'
    )
    with pytest.raises(MetricError, match=r"'ndcg@010': write k without leading zeros, as ndcg@10"):
        registry.get_metric("ndcg@010")
    out = CliRunner().invoke(
        app, ["evaluate", str(data), "-m", "ndcg@010", "--fail-under", "ndcg@010=0.5"]
    )
    assert out.exit_code == 2
    assert "write k without leading zeros, as ndcg@10" in out.output
    assert "not among the metrics run" not in out.output


@pytest.mark.parametrize("n_rows", [1, 300], ids=["one-row", "many-rows"])
def test_a_decomposed_context_matches_the_same_reference_text_composed(n_rows: int) -> None:
    """Before, "café" saved decomposed (NFD, as macOS and some PDF extractions give it) was
    another string than the reference's composed "café": mrr, map and recall@5 were 0 for a
    pipeline that retrieved the reference context second."""
    composed = unicodedata.normalize("NFC", "Le café de Flore ouvre à Paris.")
    decomposed = unicodedata.normalize("NFD", composed)
    assert composed != decomposed
    row = {"contexts": ["Other text.", decomposed], "reference_contexts": [composed]}
    rows = [{"question": f"q{i}", **row} for i in range(n_rows)]
    frame = ragmeter.evaluate(rows, ["mrr", "map", "recall@5"]).to_pandas()
    assert set(frame["mrr"]) == {0.5}
    assert set(frame["map"]) == {0.5}
    assert set(frame["recall@5"]) == {1.0}


# --- a custom metric's name ----------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(RECORD_KEYS))
def test_a_custom_metric_named_like_a_record_field_is_refused(name: str) -> None:
    """Before, a metric named "answer" (or "question_id", "status", ...) registered and its
    value replaced the sample's in every scores.jsonl record: the answer was lost and a
    question_id of 0.25 broke resume and compare."""
    metric = Metric(name=name, description="d", requires=(("answer",),), compute=lambda s: None)
    with pytest.raises(MetricError, match=rf"metric '{name}': the name is a field of every"):
        ragmeter.register_metric(metric)
    assert name not in registry._FIXED


def test_the_reserved_names_are_the_keys_a_run_reads_as_no_metric() -> None:
    assert registry.RECORD_KEYS == RECORD_KEYS


def test_a_blank_reference_id_is_no_relevant_item() -> None:
    """Before, an empty reference id (a blank CSV cell) matched the pipeline's chunk without an
    id: [""] against ["a", "b", ""] gave mrr 1/3 for a row with no relevant id, and ["a", ""]
    counted two relevant items (map 0.83 for a perfect ranking). As by text, blanks are no
    relevant item; Unitxt's metrics keep Unitxt's arithmetic."""
    rows = [
        {"question": "q1", "context_ids": ["a", "b", ""], "reference_context_ids": ["a", ""]},
        {"question": "q2", "context_ids": ["a", "b", ""], "reference_context_ids": ["", " "]},
    ]
    result = ragmeter.evaluate(rows, ["mrr", "map", "unitxt_map"])
    frame = result.to_pandas()
    assert frame["map"].tolist()[0] == 1.0
    assert frame["mrr"].isna().tolist() == [False, True]
    assert result.scores["map"][0].details["blank_reference_ids"] == 1
    second = result.scores["mrr"][1]
    assert second.status == "undefined"
    assert second.reason == "every reference id is blank (empty or spaces): relevance is undefined"
    assert frame["unitxt_map"].tolist() == [pytest.approx(5 / 6), pytest.approx(1 / 3)]


def test_a_large_batch_counts_blank_ids_for_unitxt_only() -> None:
    """The compiled path (a batch of MIN_SAMPLES rows, numba installed) gives every row what
    the per-sample path gives: Unitxt's metrics count the blank id, TREC's do not."""
    rows = [
        Sample(
            question_id=f"q{i}",
            question="q",
            context_ids=["a", ""],
            reference_context_ids=["", "a"] if i % 2 else [""],
        )
        for i in range(overlap_kernel.MIN_SAMPLES)
    ]
    for name in ("unitxt_mrr", "unitxt_map", "mrr", "map"):
        metric = registry.get_metric(name)
        column = metric.compute_batch(rows, {})  # type: ignore[misc]
        for i in (0, 1):
            one, batch = metric.compute(rows[i]), column[i]  # type: ignore[misc]
            assert (one.status, one.value, one.reason) == (batch.status, batch.value, batch.reason)
    assert registry.get_metric("unitxt_mrr").compute(rows[0]).value == 0.5  # type: ignore[misc]
    assert registry.get_metric("mrr").compute(rows[0]).status == "undefined"  # type: ignore[misc]


@pytest.mark.parametrize("k", [0, -1, 2.5, True, "3"])
@pytest.mark.parametrize("fn", [precision_at_k, recall_at_k, ndcg_at_k, hit_at_k])
def test_the_python_functions_refuse_a_k_that_is_no_cut_off(
    fn: Callable[..., float], k: object
) -> None:
    """Before: P@0 and nDCG@0 raised ZeroDivisionError, P@-1 gave -0.0, k=2.5 and k=True
    were taken as given, k="3" was a TypeError about '<='."""
    with pytest.raises(ValueError, match=rf"k must be a positive integer, not {k!r}"):
        fn(["a", "b"], {"b"}, k)


@pytest.mark.parametrize("fn", [reciprocal_rank, average_precision, unitxt_reciprocal_rank])
def test_the_python_functions_refuse_a_single_string_of_ids(fn: Callable[..., float]) -> None:
    """Before, reciprocal_rank(["a", "doc"], "doc") was 1.0: "doc" was read as d, o, c."""
    with pytest.raises(TypeError, match="relevant must be a collection of ids, not a single"):
        fn(["a", "doc"], "doc")
    with pytest.raises(TypeError, match="retrieved must be a collection of ids, not a single"):
        fn("ab", ["b"])
    assert fn(["a", "doc"], ["doc"]) == 0.5


# --- the lexical functions -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("fn", "what"),
    [
        (k_precision, "contexts"),
        (k_precision_union, "contexts"),
        (token_recall, "references"),
        (token_precision, "references"),
        (token_f1, "references"),
        (exact_match, "references"),
    ],
)
def test_the_lexical_functions_refuse_a_single_string_of_texts(
    fn: Callable[[str, list[str]], Score], what: str
) -> None:
    """Before, k_precision("Paris is big", "Paris is big") was 0.0 (ok): the string was read
    as one text per character."""
    with pytest.raises(TypeError, match=rf"{what} must be a list of texts, not a single string"):
        fn("Paris is big", "Paris is big")  # type: ignore[arg-type]
    assert fn("Paris is big", ["Paris is big"]).value == 1.0
