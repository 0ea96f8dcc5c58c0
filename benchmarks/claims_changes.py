"""Which answers of the visible sets get other claims than at a git revision? No judge calls.

Why: a change to the claim splitter (``metrics/claims.py``) changes faithfulness only on the
answers whose claims it changes; every other answer sends the judge the same statements and
keeps its score. This script lists those answers per set, so a change can be re-measured where
it acts (and the other sets' results shown to stand) without re-running hours of judge calls.

Sets: qa, dialogue, chat, wikiqa, polar, scifact (60 + 60 claims), wikieval (the three answers
of each row), answer_relevance, refusals, injection (benchmarks/data).

    .venv/bin/python benchmarks/claims_changes.py --rev HEAD [--sets qa,dialogue] [--show 5]

Ends with ``RESULT <set>_changed=N ...``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from faithfulness_visible import DATA, load_jsonl, load_set  # noqa: E402
from ragmeter.metrics.claims import claims_of  # noqa: E402

SETS = "qa,dialogue,chat,wikiqa,polar,scifact,wikieval,answer_relevance,refusals,injection"
WIKIEVAL = ROOT.parent.parent / "shared" / "datasets" / "wikieval" / "wikieval.jsonl"


def claims_at(rev: str):  # type: ignore[no-untyped-def]
    """``claims_of`` as it was at ``rev``."""
    source = subprocess.run(
        ["git", "show", f"{rev}:src/ragmeter/metrics/claims.py"],
        cwd=ROOT.parent,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "claims_at_rev.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("claims_at_rev", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["claims_at_rev"] = module
    spec.loader.exec_module(module)
    return module.claims_of


def rows_of(name: str) -> list[dict]:
    if name in ("qa", "dialogue", "chat", "wikiqa", "polar", "scifact"):
        return load_set(name, 60)
    if name == "wikieval":
        out = []
        for line in WIKIEVAL.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            for key in ("answer", "ungrounded_answer", "poor_answer"):
                if r.get(key):
                    out.append({"question_id": key, "question": r["question"], "answer": r[key]})
        return out
    return load_jsonl(DATA / f"{name}.jsonl")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rev", default="HEAD", help="the git revision to compare with")
    ap.add_argument("--sets", default=SETS)
    ap.add_argument("--show", type=int, default=3, help="changed answers printed per set")
    args = ap.parse_args()
    before = claims_at(args.rev)
    counts = {}
    print(f"{'set':<18}{'answers':>8}{'changed':>9}")
    for name in args.sets.split(","):
        rows = rows_of(name)
        changed = []
        for r in rows:
            a = before(r["question"], r["answer"] or "")
            b = claims_of(r["question"], r["answer"] or "")
            if (a.judged, a.original) != (b.judged, b.original):
                changed.append((r["question_id"], a.judged, b.judged))
        counts[name] = len(changed)
        print(f"{name:<18}{len(rows):>8}{len(changed):>9}")
        for qid, a, b in changed[: args.show]:
            print(f"    {qid}\n      before {a}\n      now    {b}")
    print("RESULT " + " ".join(f"{k}_changed={v}" for k, v in counts.items()))


if __name__ == "__main__":
    main()
