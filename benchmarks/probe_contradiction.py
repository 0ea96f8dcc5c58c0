"""Probe (2026-11-27): does asking the judge "Does the context contradict the statement?"
give a signal that "Supported by the context?" does not? Aimed at SciFact, whose contradicting
claims copy their abstract's words.

Runs ``faithfulness_visible.py`` with the fast faithfulness task line replaced by the
contradiction question (the shared system message unchanged), so each claim's "judge" score is
P(yes = contradicted). Compare its rows with a normal run's on the same claims.

    python benchmarks/probe_contradiction.py --sets scifact --scifact-n 20 --cache DIR \
        --embedder none --out benchmarks/results/probe_contradiction_scifact40.json

Result (SciFact, first 20 SUPPORT + 20 CONTRADICT claims, embedded 1.5B judge): P(contradicted)
ranks the SUPPORT claims *higher* (AUROC 0.653 with SUPPORT as the positive class) and
correlates 0.98 with P(supported) on the same claims (AUROC 0.648): the small judge answers
the statement check whatever the task line asks, so the question adds nothing. Not built.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ragmeter.metrics.faithfulness as faithfulness

TASK = (
    "Statement: <data>{statement}</data>\n"
    "Does the context contradict the statement? Answer yes or no."
)
_load = faithfulness.load_prompts
OUT_NAME = "probe_contradiction.json"


def _patched(family: str) -> dict:
    prompts = _load(family)
    if family == "faithfulness":
        prompts = {**prompts, "fast": {**prompts["fast"], "task": TASK}}
    return prompts


if __name__ == "__main__":
    if not any(a == "--out" or a.startswith("--out=") for a in sys.argv[1:]):
        # never faithfulness_visible.py's own default: that file holds the shipped prompt's run
        sys.argv += ["--out", str(Path(__file__).resolve().parent / "results" / OUT_NAME)]
    faithfulness.load_prompts = _patched
    import faithfulness_visible

    faithfulness_visible.main()
