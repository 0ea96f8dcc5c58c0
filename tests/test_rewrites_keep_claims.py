"""Every answer of the visible faithfulness sets, rewritten into a form pipelines deliver
(benchmarks/_rewrites.py: cited, framed, after a reasoning trace, wrapped as JSON / HTML /
"The answer is", wrapped as a chat assistant writes, in a structured prompt's sections, a
short answer framed as "It's X."), has
the claims it has as written (and the answer_relevance set's answers: the content that metric
judges). So its score is the plain answer's whatever the form, which the
judged runs in docs/judged-metrics.md measured set by set; a change to the claim splitter that
breaks a form fails here, without a judge call. 697 rows x 7 forms, about 4 s."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from needs import missing
from ragmeter.metrics.claims import claims_of

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

import _rewrites as rw  # noqa: E402

SETS = ("qa", "dialogue", "chat", "wikiqa", "polar", "distractor", "scifact", "answer_relevance")
FORMS = {
    "cited": lambda r, n: {**r, "answer": rw.cited(r["answer"], n)},
    "framed": lambda r, n: {**r, "answer": rw.framed(r["answer"], n)},
    "reasoned": rw.reasoned,
    "wrapped": rw.wrapped,
    "chatty": rw.chatty,
    "structured": rw.structured,
    "it_is": rw.it_is,  # "It's Rome.", "That would be Rome." (short answers to wh-questions)
    "attributed": rw.attributed,  # "..., according to the context.", "I believe ...", hedges
}


def _rows(name: str) -> list[dict]:
    from faithfulness_scifact import DEFAULT_DATA
    from faithfulness_visible import WIKIEVAL, load_set

    if name == "answer_relevance":  # direct, evasive, off-topic and on-topic answers
        lines = (BENCH / "data" / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
        rows = [json.loads(x) for x in lines if x.strip()]
        return [{**r, "metadata": {**r["metadata"], "item": r["question_id"]}} for r in rows]
    if name in ("wikiqa", "distractor") and not WIKIEVAL.exists():
        missing(f"the {name} set needs WikiEval at {WIKIEVAL}")
    if name == "scifact" and not Path(DEFAULT_DATA).exists():
        missing(f"the scifact set needs SciFact at {DEFAULT_DATA}")
    return load_set(name, 60)


@pytest.mark.parametrize("name", SETS)
def test_every_rewritten_answer_has_its_claims_as_written(name):
    rows = _rows(name)
    item = {k: n for n, k in enumerate(dict.fromkeys(rw.item_of(r) for r in rows))}
    broken = []
    for r in rows:
        plain = claims_of(r["question"], r["answer"]).judged
        for form, rewrite in FORMS.items():
            x = rewrite(r, item[rw.item_of(r)])
            if claims_of(x["question"], x["answer"]).judged != plain:
                broken.append((form, r["question_id"], x["answer"][:80]))
    assert not broken, f"{len(broken)} rewritten answers change their claims: {broken[:5]}"
