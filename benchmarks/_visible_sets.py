"""The visible faithfulness sets as rows (question, contexts, answer, metadata with label,
item, variant, pair): read by faithfulness_visible.py and the probes built on it. Kept apart
so that the benchmark itself stays a small module; the sets are described in its docstring."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from _record import require
from faithfulness_scifact import DEFAULT_DATA, QUESTION, load_claims

ROOT = Path(__file__).resolve().parent
DATA = ROOT / "data"
WIKIEVAL = ROOT.parent.parent / "shared" / "datasets" / "wikieval" / "wikieval.jsonl"


def load_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


SETS = "qa,dialogue,chat,wikiqa,polar,distractor,scifact"


def load_set(name: str, scifact_n: int) -> list[dict]:
    """Rows with question, contexts, answer, label, item, variant, pair (the right variant)."""
    if name == "wikiqa":
        return wikiqa_rows()
    if name == "polar":
        return polar_rows()
    if name == "distractor":
        return distractor_rows()
    if name == "scifact":
        require(DEFAULT_DATA / "corpus.jsonl", "SciFact (set scifact)")
        return [
            {
                "question_id": f"scifact-{cid}",
                "question": QUESTION,
                "contexts": [abstract],
                "answer": claim,
                "metadata": {"label": int(lab == "SUPPORT"), "item": cid, "variant": lab},
            }
            for cid, lab, claim, abstract in load_claims(DEFAULT_DATA, scifact_n)
        ]
    files = {"qa": "qa_perturbed.jsonl", "dialogue": "dialogue.jsonl", "chat": "chat.jsonl"}
    if name not in files:
        raise SystemExit(f"error: unknown set {name!r}; the sets are {SETS}")
    rows = load_jsonl(DATA / files[name])
    if name == "dialogue":
        for r in rows:
            if r["metadata"]["label"] == 0:
                r["metadata"]["pair"] = "grounded"
    return rows


def wikiqa_rows() -> list[dict]:
    """data/items_wikiqa.py's questions and answers over their WikiEval row's context_v1 (read
    from ../shared, not copied here); the wrong answer is paired with the right one."""
    sys.path.insert(0, str(DATA))
    from items_wikiqa import WIKIQA_ITEMS

    if not WIKIEVAL.exists():
        raise SystemExit(f"the wikiqa set needs WikiEval: {WIKIEVAL} does not exist")
    wiki = [json.loads(line) for line in WIKIEVAL.read_text(encoding="utf-8").splitlines()]
    rows = []
    for n, (row, question, right, wrong) in enumerate(WIKIQA_ITEMS, start=1):
        for variant, answer, label in (("right", right, 1), ("wrong", wrong, 0)):
            rows.append(
                {
                    "question_id": f"wq{n:02d}-{variant}",
                    "question": question,
                    "contexts": list(wiki[row]["context_v1"]),
                    "answer": answer,
                    "metadata": {
                        "item": f"wq{n:02d}",
                        "variant": variant,
                        "label": label,
                        "pair": "right" if label == 0 else None,
                        "short": label == 1,
                    },
                }
            )
    return rows


def distractor_rows() -> list[dict]:
    """data/items_distractor.py's questions over their WikiEval row's context_v1: a short and a
    sentence answer, right and wrong; each wrong answer is paired with the right one of its form."""
    sys.path.insert(0, str(DATA))
    from items_distractor import DISTRACTOR_ITEMS

    if not WIKIEVAL.exists():
        raise SystemExit(f"the distractor set needs WikiEval: {WIKIEVAL} does not exist")
    wiki = [json.loads(line) for line in WIKIEVAL.read_text(encoding="utf-8").splitlines()]
    rows = []
    for n, item in enumerate(DISTRACTOR_ITEMS, start=1):
        row, question, right_short, wrong_short, right_sentence, wrong_sentence = item[:6]
        answers = (
            ("right-short", right_short, 1, None),
            ("wrong-short", wrong_short, 0, "right-short"),
            ("right-sentence", right_sentence, 1, None),
            ("wrong-sentence", wrong_sentence, 0, "right-sentence"),
        )
        for variant, answer, label, pair in answers:
            rows.append(
                {
                    "question_id": f"dx{n:02d}-{variant}",
                    "question": question,
                    "contexts": list(wiki[row]["context_v1"]),
                    "answer": answer,
                    "metadata": {
                        "item": f"dx{n:02d}",
                        "variant": variant,
                        "label": label,
                        "pair": pair,
                        "short": variant == "right-short",
                    },
                }
            )
    return rows


def polar_rows() -> list[dict]:
    """data/items_polar.py's yes/no questions; the wrong answer is paired with the right one."""
    sys.path.insert(0, str(DATA))
    from items_polar import POLAR_ITEMS

    rows = []
    for n, (question, passages, right, wrong) in enumerate(POLAR_ITEMS, start=1):
        for variant, answer, label in (("right", right, 1), ("wrong", wrong, 0)):
            rows.append(
                {
                    "question_id": f"yn{n:02d}-{variant}",
                    "question": question,
                    "contexts": list(passages),
                    "answer": answer,
                    "metadata": {
                        "item": f"yn{n:02d}",
                        "variant": variant,
                        "label": label,
                        "pair": "right" if label == 0 else None,
                        "short": label == 1,
                    },
                }
            )
    return rows
