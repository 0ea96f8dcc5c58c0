"""A streamed run writes the notes a local run writes, worded and ordered alike: contexts
matched by text (counted across batches), samples skipped, a metric without a CI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import ragmeter

METRICS = ["mrr", "token_f1"]


def mixed_ids(n: int = 7) -> list[dict[str, Any]]:
    """Every third row has no ids (its contexts are matched to its reference contexts by
    text); only row 4 has reference answers (token_f1 scores one row and skips the rest)."""
    out = []
    for i in range(n):
        row: dict[str, Any] = {
            "question_id": f"q{i}",
            "question": f"Where was treaty {i} signed?",
            "answer": f"Treaty {i} was signed in Paris.",
            "contexts": [f"Treaty {i} was signed in Paris.", f"Treaty {i} ended a war."],
        }
        if i % 3 == 0:
            row["reference_contexts"] = [f"Treaty {i} was signed in Paris."]
        else:
            row["context_ids"] = [f"d{i}", f"e{i}"]
            row["reference_context_ids"] = [f"d{i}"]
        if i == 4:
            row["reference_answers"] = ["Paris"]
        out.append(row)
    return out


def write_mixed(path: Path) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in mixed_ids()))
    return path


EXPECTED = [
    "mrr: 3 sample(s) had no ids; retrieved contexts were matched to reference contexts by "
    "normalised text",
    "token_f1: no CI from 1 scored sample",
    "token_f1: 6 sample(s) skipped: they lack answer+reference_answers",
]


def notes_of(out: Path) -> list[str]:
    return json.loads((out / "summary.json").read_text())["notes"]


def test_stream_writes_the_local_notes(tmp_path: Path) -> None:
    """Before: a streamed run had no text-matching note and no "no CI" note (the local run
    had both), only the skipped one."""
    data = write_mixed(tmp_path / "in.jsonl")
    local = ragmeter.evaluate(str(data), METRICS, n_resamples=50, out=tmp_path / "local")
    streamed = ragmeter.evaluate(
        str(data), METRICS, n_resamples=50, out=tmp_path / "st", executor="stream", batch_size=2
    )
    assert sorted(local.notes) == sorted(EXPECTED)  # the file gives each kind of note
    assert streamed.notes == local.notes
    assert notes_of(tmp_path / "st") == notes_of(tmp_path / "local") == local.notes


def test_rows_with_ids_are_not_noted(tmp_path: Path) -> None:
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in mixed_ids() if "context_ids" in r))
    streamed = ragmeter.evaluate(str(data), ["mrr"], out=tmp_path / "st", executor="stream")
    local = ragmeter.evaluate(str(data), ["mrr"], out=tmp_path / "local")
    assert streamed.notes == local.notes == []
