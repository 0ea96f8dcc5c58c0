"""What the judge saw and said for one (sample, metric), shaped for the report.

The metrics keep their evidence in ``Score.details``; this turns the known shapes into
tables a reader can check:

- per-item verdicts (faithfulness: the answer's statements; context_recall: the reference's
  sentences) with P(yes), the hard verdict and the judge's reason when it gave one;
- the numbered context sentences (numbering as the judge saw it: every context split into
  sentences, numbered from 1 across contexts), marked when the metric used them as evidence
  (faithfulness) or judged them needed (context_relevance), with their P(yes);
- anything else as plain key/value rows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ragmeter.sample import Sample
from ragmeter.text import split_sentences

# Bookkeeping, not evidence.
HIDDEN = {"judge", "judge_usage", "mode", "chunks"}
ITEM_LISTS = ("statements", "reference_sentences")


@dataclass
class Item:
    text: str
    verdict: str | None = None
    p_yes: float | None = None
    reason: str | None = None


@dataclass
class ContextLine:
    number: int
    text: str
    marked: bool = False
    p_yes: float | None = None
    context: int = 0  # which retrieved context (0-based) the sentence comes from


@dataclass
class Evidence:
    items_label: str | None = None
    items: list[Item] = field(default_factory=list)
    sentences_label: str | None = None
    sentences: list[ContextLine] = field(default_factory=list)
    other: list[tuple[str, str]] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.items or self.sentences or self.other)


def context_lines(contexts: list[str] | None) -> list[ContextLine]:
    """Every context sentence, numbered from 1 across contexts in rank order."""
    lines: list[ContextLine] = []
    for ci, ctx in enumerate(contexts or []):
        for s in split_sentences(ctx or ""):
            lines.append(ContextLine(len(lines) + 1, s, context=ci))
    return lines


def _at(seq: Any, i: int) -> Any:
    return seq[i] if isinstance(seq, list) and i < len(seq) else None


def _items(details: dict[str, Any]) -> tuple[str | None, list[Item]]:
    for key in ITEM_LISTS:
        texts = details.get(key)
        if isinstance(texts, list) and texts:
            probs = details.get("p_yes")
            items = [
                Item(
                    str(t),
                    _at(details.get("verdicts"), i),
                    _at(probs, i) if isinstance(probs, list) else None,
                    _at(details.get("reasons"), i) or None,
                )
                for i, t in enumerate(texts)
            ]
            label = "answer statements" if key == "statements" else "reference sentences"
            return label, items
    return None, []


def _marked_sentences(
    details: dict[str, Any], sample: Sample
) -> tuple[str | None, list[ContextLine]]:
    lines = context_lines(sample.contexts)
    if not lines:
        return None, []
    evidence = details.get("evidence")
    if isinstance(evidence, dict) and isinstance(evidence.get("sentences"), list):
        chosen = {int(n) for n in evidence["sentences"]}
        for line in lines:
            line.marked = line.number in chosen
        how = evidence.get("method", "")
        return f"context sentences shown to the judge as evidence ({how})", lines
    if isinstance(details.get("kept_numbers"), list):
        kept = {int(n) for n in details["kept_numbers"]}
        probs = details.get("p_yes") if isinstance(details.get("p_yes"), dict) else {}
        for line in lines:
            line.marked = line.number in kept
            p = probs.get(str(line.number), probs.get(line.number))  # type: ignore[call-overload]
            line.p_yes = None if p is None else float(p)
        return "context sentences (marked: judged needed to answer the question)", lines
    return None, []


def _plain(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, str):
        return value
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 400 else text[:397] + "..."


def evidence_of(details: dict[str, Any] | None, sample: Sample) -> Evidence:
    """The report's view of one Score's details (empty when the metric keeps none)."""
    details = details or {}
    out = Evidence()
    out.items_label, out.items = _items(details)
    out.sentences_label, out.sentences = _marked_sentences(details, sample)
    used = set(ITEM_LISTS) | {"verdicts", "reasons", "evidence", "kept_numbers", "kept_sentences"}
    if out.items or out.sentences:
        used.add("p_yes")
    for key, value in details.items():
        if key in HIDDEN or key in used:
            continue
        out.other.append((key, _plain(value)))
    return out
