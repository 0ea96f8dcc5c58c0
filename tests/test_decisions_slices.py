"""compare --by when the slice column is in one run only, or differs between the runs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from tests.conftest import make_row

import ragmeter
from ragmeter.compare import compare
from ragmeter.errors import DataError


def _exact_p(d: np.ndarray) -> float:
    obs = d.mean()
    means = np.array([(d * s).mean() for s in itertools.product((1, -1), repeat=len(d))])
    tails = (np.mean(means >= obs - 1e-12), np.mean(means <= obs + 1e-12))
    return float(min(1.0, 2 * min(tails)))


def _topic(i: int) -> str:
    return "rail" if i % 2 else "bus"


def _runs(topic_in: str):
    """A and B over 8 questions; B's answer is wrong on q3, q6; ``topic`` in run A, B or both."""
    rows_a, rows_b = [], []
    for i in range(1, 9):
        meta = {"category": "test", "topic": _topic(i)}
        plain = {"category": "test"}
        rows_a.append(make_row(i, metadata=meta if topic_in in ("a", "both") else plain))
        answer = "Nothing useful here." if i % 3 == 0 else make_row(i)["answer"]
        rows_b.append(make_row(i, answer=answer, metadata=meta if topic_in != "a" else plain))
    a = ragmeter.evaluate(rows_a, "token_f1", n_resamples=100)
    b = ragmeter.evaluate(rows_b, "token_f1", n_resamples=100)
    return a, b


def _expected(a, b) -> dict[str, tuple[float, float]]:
    """Per topic: mean(B - A) and the exact sign-flip p, from the scores themselves."""
    out = {}
    for label in ("bus", "rail"):
        scores = zip(a.samples, a.scores["token_f1"], b.scores["token_f1"], strict=True)
        d = np.array(
            [sb.value - sa.value for s, sa, sb in scores if _topic(int(s.question_id[1:])) == label]
        )
        out[label] = (float(d.mean()), _exact_p(d))
    return out


@pytest.mark.parametrize("topic_in", ["a", "b", "both"])
def test_a_slice_column_in_either_run_slices_the_comparison(topic_in):
    # a column added to the candidate's input only was "no sample has a value in column
    # 'topic'" (exit 2), naming run A
    a, b = _runs(topic_in)
    cmp = compare(a, b, by="topic")
    got = {s.value: (s.delta, s.p_value, s.n) for s in cmp.slices}
    assert set(got) == {"bus", "rail"}
    for label, (delta, p) in _expected(a, b).items():
        assert got[label][0] == pytest.approx(delta)
        assert got[label][1] == pytest.approx(p)
        assert got[label][2] == 4
    assert not any("another value" in w for w in cmp.warnings)


def test_a_column_in_neither_run_names_both():
    a, b = _runs("both")
    with pytest.raises(DataError) as err:
        compare(a, b, by="colour")
    assert "run A (in-memory) and run B (in-memory)" in str(err.value)


def test_labels_that_differ_between_the_runs_are_said_and_a_s_are_used():
    a, b = _runs("both")
    b.samples[0] = b.samples[0].model_copy(update={"metadata": {"topic": "ferry"}})
    cmp = compare(a, b, by="topic")
    assert {s.value for s in cmp.slices} == {"bus", "rail"}
    assert any("1 id(s) have another value in B than in A (e.g. q1)" in w for w in cmp.warnings)
