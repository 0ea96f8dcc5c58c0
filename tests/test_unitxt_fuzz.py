"""Differential fuzz: every Unitxt-named metric equals the real unitxt package on any row.

tests/test_unitxt_crosscheck.py compares on rows built from a fixed vocabulary; here hypothesis
builds the rows from the characters where lexical definitions part ways when done loosely
(unicode case folding that changes length, non-ASCII punctuation and whitespace, combining
marks, articles in every casing, digits, very long tokens, empty and whitespace-only text) and
the id lists where ranking definitions do (duplicates, empty lists, integer ids, ids with
whitespace or blank). Each row is scored by unitxt 1.26.10's catalog metrics, fed as its RAG
catalog entries feed them, and by ragmeter on the per-sample path and on both batch paths
(Python and compiled), and must be equal within 1e-9; where unitxt raises, ragmeter must say
``undefined``.

One difference is deliberate and documented (docs/metric-reference.md,
benchmarks/unitxt_crosscheck.py): ragmeter reads ids as strings, so on a row mixing integer
and string ids ragmeter matches ``2`` with ``"2"`` where unitxt does not. On such rows unitxt
is given the ids as ragmeter reads them, and
``test_mixed_id_types_are_the_documented_difference`` pins the difference.
"""

from __future__ import annotations

import math
import string
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ragmeter
from needs import require_module
from ragmeter.metrics import overlap_kernel
from ragmeter.metrics.registry import resolve
from ragmeter.scheduler import _compute_each, compute_all


@pytest.fixture(autouse=True, scope="module")
def _unitxt_installed() -> None:
    """Each test needs unitxt: skipped with the reason without it, failed under CI. Asked here,
    not at import: a module-level skip without ``allow_module_level`` stops the collection."""
    require_module("unitxt")


# ragmeter metric -> (unitxt catalog metric, score key, what unitxt's references are)
PAIRS = {
    "k_precision": ("metrics.token_overlap", "precision", "contexts"),
    "token_recall": ("metrics.token_overlap", "recall", "reference_answers"),
    "unitxt_mrr": ("metrics.mrr", "mrr", "ids"),
    "unitxt_map": ("metrics.map", "map", "ids"),
}
PATHS = ("evaluate", "per_sample", "batch_python", "batch_compiled")

_PIECES = [
    # articles in every casing, glued to punctuation, and words that contain them
    "a", "an", "the", "The", "THE", "A", "An", "aN", "thé", "theatre", "an't", "a_b", "the-end",
    # ASCII punctuation (removed by SQuAD normalisation) and non-ASCII (kept)
    *string.punctuation, "’", "‘", "“", "”", "—", "–", "…", "¿", "¡", "«", "»", "·", "、", "。",
    # digits, ASCII and not
    "0", "1", "42", "1,000", "3.14", "٣", "²", "½", "Ⅻ",
    # case folding that changes length or meaning
    "İ", "ß", "ẞ", "ﬁ", "ǅ", "Σ", "ΟΔΟΣ", "ς", "K", "Å",
    # combining marks, zero-width and bidi characters
    "e\u0301", "\u0301", "\u200b", "\u200d", "\u200e", "\ufeff",
    # whitespace that str.split() splits on, and one it does not
    " ", "  ", "\t", "\n", "\r\n", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0", "\u2003",
    "\u2028", "\u3000", "\u180e",
    # NUL, characters outside the BMP (one changes case), surrogate-free emoji
    "\x00", "𝐀", "😀", "\U00010400", "the\U00010400", "a😀",
    # what an LLM answer carries: citations, reasoning tags, fences, markdown
    "[1]", "[^2]", "<think>", "</think>", "```", "**", "Answer:", "Sources:", "\n- ",
    # plain words and CJK
    "paris", "Paris", "PARIS", "cat", "東京", "café", "naïve",
]  # fmt: skip

_piece = st.sampled_from(_PIECES)
_long_token = st.integers(200, 3000).map(lambda n: "x" * n)


def _texts(words: list[str]) -> st.SearchStrategy[str]:
    """Texts drawn mostly from the row's own few words, so that answer, contexts and references
    share tokens (and near-twins: "ς" and "Σ", "ß" and "ss") as often as not."""
    own = st.sampled_from(words)
    spaced = st.lists(st.one_of(own, own, own, _piece), min_size=1, max_size=12).map(" ".join)
    return st.one_of(
        spaced,
        spaced,
        spaced,
        st.lists(st.one_of(own, own, _piece, _long_token), max_size=12).map("".join),
        st.text(max_size=40),
        st.sampled_from(["", " ", "\t\n", "\xa0", "the a an", "!!!"]),
    )


_word = st.one_of(_piece, st.text(max_size=4))
# Spellings that one normalisation merges and another keeps apart (casefold, NFC/NFKC, final
# sigma, articles glued to punctuation or non-ASCII letters): each row gets one pair.
_TWINS = [
    ("ß", "ss"), ("ẞ", "SS"), ("ς", "Σ"), ("ΟΔΟΣ", "οδοσ"), ("ﬁ", "fi"), ("İ", "i\u0307"),
    ("K", "k"), ("Å", "å"), ("e\u0301", "é"), ("ǅ", "ǆ"), ("½", "1/2"), ("²", "2"),
    ("don’t", "dont"), ("the’s", "s"), ("aé", "é"), ("the\u0301", "\u0301"), ("a_b", "ab"),
    ("\xa0the\xa0", "the"), ("x" * 300, "X" * 300), ("東京", "東京\u200b"),
]  # fmt: skip

_str_id = st.one_of(
    st.sampled_from(["A", "B", "C", "a", " A", "A ", "A\t", "", " ", "1", "01", "1 "]),
    st.text(max_size=4),
)
_int_id = st.integers(-2, 3)


def _ids(kind: st.SearchStrategy[Any]) -> st.SearchStrategy[list[Any]]:
    return st.lists(kind, max_size=7)


@st.composite
def rows(draw: st.DrawFn) -> dict[str, Any]:
    """One RAG row; its two id lists of one type (strings or integers) or mixed."""
    kind = draw(st.sampled_from(["str", "int", "mixed"]))
    id_of = {"str": _str_id, "int": _int_id, "mixed": st.one_of(_str_id, _int_id)}[kind]
    context_ids = draw(_ids(id_of))
    text = _texts([*draw(st.sampled_from(_TWINS)), *draw(st.lists(_word, max_size=4))])
    row: dict[str, Any] = {
        "question": "q?",
        "answer": draw(text),
        "contexts": draw(st.lists(text, min_size=len(context_ids), max_size=len(context_ids))),
        "context_ids": context_ids,
        "reference_answers": draw(st.lists(text, max_size=3)),
        "reference_context_ids": draw(_ids(id_of)),
    }
    return row


def _unitxt_values(batch: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """unitxt's value per row and metric; ``None`` where unitxt raises (nothing to compare)."""
    from unitxt.artifact import fetch_artifact

    out: dict[str, list[Any]] = {}
    for name, (artifact, key, refs) in PAIRS.items():
        metric, _ = fetch_artifact(artifact)
        values: list[Any] = []
        for row in batch:
            if refs == "ids":
                retrieved, relevant = row["context_ids"], row["reference_context_ids"]
                if _mixed(row):  # the documented difference: ragmeter reads ids as strings
                    retrieved, relevant = [str(i) for i in retrieved], [str(i) for i in relevant]
                references, prediction = [list(relevant)], list(retrieved)
            else:
                references, prediction = list(row[refs]), row["answer"]
            try:
                values.append(metric.compute(references, prediction, {})[key])
            except ValueError:  # max() of an empty list: no contexts / no reference answers
                values.append(None)
        out[name] = values
    return out


def _mixed(row: dict[str, Any]) -> bool:
    kinds = {type(i) for i in row["context_ids"] + row["reference_context_ids"]}
    return len(kinds) > 1


def _ours(batch: list[dict[str, Any]], path: str) -> dict[str, list[Any]]:
    records = [{**r, "question_id": f"q{i}"} for i, r in enumerate(batch)]
    if path == "evaluate":  # the public API, as a user calls it
        result = ragmeter.evaluate(records, list(PAIRS), n_resamples=0)
        return {
            n: [s.value if s.status == "ok" else s.status for s in result.scores[n]] for n in PAIRS
        }
    samples = ragmeter.load(records)
    metrics = resolve(list(PAIRS))
    if path == "per_sample":
        got = _compute_each(metrics, samples)
    else:
        saved = overlap_kernel.MIN_SAMPLES, overlap_kernel.available
        try:
            if path == "batch_compiled":
                overlap_kernel.MIN_SAMPLES = 0
            else:
                overlap_kernel.available = lambda: False  # type: ignore[assignment]
            got = {n: list(c) for n, c in compute_all(metrics, samples).items()}
        finally:
            overlap_kernel.MIN_SAMPLES, overlap_kernel.available = saved  # type: ignore[misc]
    return {n: [s.value if s.status == "ok" else s.status for s in col] for n, col in got.items()}


def _same(theirs: Any, ours: Any) -> bool:
    if theirs is None:
        return ours == "undefined"
    if not isinstance(ours, float):
        return False
    if math.isnan(float(theirs)):
        return math.isnan(ours)
    return abs(float(theirs) - ours) <= 1e-9


def _check(batch: list[dict[str, Any]]) -> None:
    theirs = _unitxt_values(batch)
    for path in PATHS:
        if path == "batch_compiled" and not overlap_kernel.available():
            continue  # numba is the `fast` extra; the two other paths still run
        ours = _ours(batch, path)
        for name in PAIRS:
            for i, (u, r) in enumerate(zip(theirs[name], ours[name], strict=True)):
                assert _same(u, r), (
                    f"{name} on {path}: unitxt {u!r}, ragmeter {r!r}, row {batch[i]!r}"
                )


@settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(rows(), min_size=1, max_size=6))
def test_unitxt_named_metrics_equal_unitxt_on_fuzzed_rows(batch):
    _check(batch)


def test_fuzz_covers_every_metric_named_after_unitxt():
    """A new Unitxt-named metric must join PAIRS (model-based ones are checked by anchors)."""
    from ragmeter.metrics.registry import _FIXED

    claims = {
        name
        for name, m in _FIXED.items()
        if "unitxt" in (name + m.description).lower() and "not unitxt" not in m.description.lower()
    }
    assert claims - {"context_relevance_perplexity", "answer_reward"} == set(PAIRS)


def test_mixed_id_types_are_the_documented_difference():
    """ragmeter reads ids as strings: [1, 2] against ["2"] finds 2 at rank 2 (unitxt: 0)."""
    row = {"question": "q?", "context_ids": [1, 2], "reference_context_ids": ["2"]}
    row |= {"answer": "x", "contexts": ["x", "y"], "reference_answers": ["x"]}
    from unitxt.artifact import fetch_artifact

    mrr, _ = fetch_artifact("metrics.mrr")
    assert mrr.compute([row["reference_context_ids"]], row["context_ids"], {})["mrr"] == 0
    assert _ours([row], "per_sample")["unitxt_mrr"] == [0.5]


@settings(max_examples=300, derandomize=True, deadline=None, database=None)
@given(rows())
def test_public_functions_named_after_unitxt_equal_unitxt(row):
    """The functions a user imports (``ragmeter.metrics.lexical.k_precision``, ...) take ids
    as given, whatever their type, so they equal unitxt even on rows mixing types."""
    from unitxt.artifact import fetch_artifact

    from ragmeter.metrics.lexical import k_precision, token_recall
    from ragmeter.metrics.retrieval import unitxt_average_precision, unitxt_reciprocal_rank

    ours = {
        "k_precision": k_precision(row["answer"], row["contexts"]),
        "token_recall": token_recall(row["answer"], row["reference_answers"]),
    }
    for name, score in ours.items():
        artifact, key, refs = PAIRS[name]
        metric, _ = fetch_artifact(artifact)
        try:
            theirs = metric.compute(list(row[refs]), row["answer"], {})[key]
        except ValueError:
            theirs = None
        got = score.value if score.status == "ok" else score.status
        assert _same(theirs, got), (name, theirs, got, row)
    retrieved, relevant = row["context_ids"], row["reference_context_ids"]
    for name, fn in (
        ("unitxt_mrr", unitxt_reciprocal_rank),
        ("unitxt_map", unitxt_average_precision),
    ):
        metric, _ = fetch_artifact(PAIRS[name][0])
        theirs = metric.compute([list(relevant)], list(retrieved), {})[PAIRS[name][1]]
        assert _same(theirs, fn(retrieved, relevant)), (name, theirs, row)


@pytest.mark.parametrize("module", ["test_unitxt_crosscheck.py", "test_unitxt_fuzz.py"])
@pytest.mark.parametrize("ci", ["", "1"])
def test_missing_unitxt_skips_with_the_reason_or_fails_under_ci(module, ci, tmp_path):
    """Without unitxt the cross-checks skip, saying why, and under CI fail; before, the
    cross-check's import-time skip was a collection error that interrupted the whole run."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    tests = Path(__file__).parent
    runner = tmp_path / "run.py"
    runner.write_text(
        "import sys, pytest\n"
        "sys.modules['unitxt'] = None  # as if not installed\n"
        "args = ['-q', '-rs', '--tb=line', '-p', 'no:cacheprovider']\n"
        f"sys.exit(pytest.main([*args, {str(tests / module)!r}]))\n"
    )
    env = {**os.environ, "CI": ci}
    done = subprocess.run(
        [sys.executable, str(runner)], capture_output=True, text=True, env=env, cwd=tests.parent
    )
    out = done.stdout + done.stderr
    assert "error during collection" not in out and "outside of a test" not in out, out
    assert "unitxt is not installed" in out, out
    if ci:
        assert done.returncode != 0 and "CI is set, so this is a failure" in out, out
    else:
        assert done.returncode == 0 and " skipped" in out and "passed" not in out, out
