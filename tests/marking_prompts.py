"""Every prompt the judged metrics build for a sample, in every mode (no model, no network).

For tests/test_marking_audit.py: it runs each judged metric with a recording judge (the
scripted judge of tests/judged_fakes.py) and returns the messages it was sent, so a test can
check where untrusted text landed, and hash the prompts of whole datasets to prove that a change
to the marking leaves ordinary rows byte-identical.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from typing import Any

from judged_fakes import HashEmbedder, ScriptedJudge
from ragmeter.metrics.faithfulness import faithfulness, faithfulness_judge
from ragmeter.metrics.reference import answer_correctness, context_precision, context_recall
from ragmeter.metrics.relevance import answer_relevance, context_relevance
from ragmeter.protocols import Resources
from ragmeter.sample import Sample

METRICS = {
    f.__name__: f
    for f in (
        faithfulness,
        faithfulness_judge,
        answer_relevance,
        context_relevance,
        context_precision,
        context_recall,
        answer_correctness,
    )
}
MODES = ("fast", "generate")
ROOT = Path(__file__).resolve().parent.parent


def _script(echo: str) -> Any:
    """Structured replies: the statements step echoes ``echo`` (a judge copies answer text
    into its statements), every later step fails (its prompt is recorded all the same)."""

    def script(_text: str, schema: type) -> Any:
        if schema.__name__ == "Statements":
            return {"statements": ["The answer says so.", echo]}
        return "scripted: no reply"

    return script


def prompts_of(sample: Sample, echo: str = "") -> dict[tuple[str, str], list[list[dict]]]:
    """(metric, mode) -> the message lists sent to the judge, in order."""
    out: dict[tuple[str, str], list[list[dict]]] = {}
    for mode in MODES:
        for name, fn in METRICS.items():
            judge = ScriptedJudge(verdict=lambda _t: 0.7, script=_script(echo or "Nothing."))
            res = Resources(judge=judge, embedder=HashEmbedder(), options={"mode": mode})
            asyncio.run(fn(sample, res))
            out[(name, mode)] = [messages for _kind, messages in judge.log]
    return out


def digest(samples: list[Sample]) -> str:
    """sha256 of every prompt built for ``samples``, in order."""
    h = hashlib.sha256()
    for s in samples:
        for key, calls in prompts_of(s).items():
            h.update(json.dumps([key, calls], ensure_ascii=False).encode())
    return h.hexdigest()


def dataset(path: str, limit: int | None = None) -> list[Sample]:
    """Rows of a JSONL file as samples; a row without references gets its answer as one (so
    the reference-based metrics build prompts too); WikiEval's columns mapped."""
    out = []
    for i, line in enumerate((ROOT / path).read_text(encoding="utf-8").splitlines()):
        if limit is not None and i >= limit:
            break
        row = json.loads(line)
        if "context_v1" in row:
            row = {
                "question_id": f"wikieval-{i}",
                "question": row["question"],
                "contexts": row["context_v1"],
                "answer": row["poor_answer"],
                "reference_answers": [row["answer"]],
            }
        row = {k: v for k, v in row.items() if k in Sample.model_fields}
        row.setdefault("reference_answers", [row.get("answer") or "none"])
        out.append(Sample(**row))
    return out
