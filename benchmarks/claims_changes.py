"""Which answers of the visible sets get other claims than at a git revision? No judge calls.

Why: a change to the claim splitter (``metrics/claims.py``) changes faithfulness only on the
answers whose claims it changes; every other answer sends the judge the same statements and
keeps its score. This script lists those answers per set, so a change can be re-measured where
it acts (and the other sets' results shown to stand) without re-running hours of judge calls.

Sets: qa, dialogue, chat, wikiqa, polar, distractor, scifact (60 + 60 claims), wikieval (the
three answers of each row), answer_relevance, refusals, injection (benchmarks/data).

    .venv/bin/python benchmarks/claims_changes.py --rev HEAD [--sets qa,dialogue] [--show 5]

Also counted: rows whose contexts split into other sentences (``<set>_contexts_changed``), what
a change to ``text.py``'s sentence splitting acts on. The revision's whole ``src`` tree runs in
a child process, so a change to any module the splitter uses is seen. And rows whose claims
are the same but whose names and numbers absent from the context (``support.missing_specific``,
a feature of the default faithfulness) are not (``<set>_flags_changed``): a change there moves
the default score without any new judge call.

Ends with ``RESULT <set>_changed=N <set>_contexts_changed=N <set>_flags_changed=N ...``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from _record import require  # noqa: E402
from faithfulness_visible import DATA, DEFAULT_DATA, load_jsonl, load_set  # noqa: E402

SETS = (
    "qa,dialogue,chat,wikiqa,polar,distractor,scifact,wikieval,answer_relevance,refusals,injection"
)
WIKIEVAL = ROOT.parent.parent / "shared" / "datasets" / "wikieval" / "wikieval.jsonl"


def claims_at(rev: str, rows: list[dict]) -> list[dict]:
    """Each row's claims and context sentences as ``rev`` makes them: its whole ``src`` tree
    (``git archive``) in a child process, so a change to any module the splitter uses
    (``text.py``'s sentence splitting, say) is seen, not only one to ``claims.py``."""
    tree = Path(tempfile.mkdtemp(prefix="claims_at_rev_"))
    archive = subprocess.run(
        ["git", "archive", rev, "src/ragmeter"], cwd=ROOT.parent, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    out = subprocess.run(
        [sys.executable, __file__, "--emit"],
        input=json.dumps(rows),
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    return json.loads(out)


def made(rows: list[dict]) -> list[dict]:
    """What the importable ragmeter makes of each row: claims, and context sentences."""
    from ragmeter.metrics.claims import claims_of
    from ragmeter.metrics.context import ContextSentences
    from ragmeter.metrics.support import missing_specific

    out = []
    for r in rows:
        c = claims_of(r["question"], r["answer"] or "")
        ctx = ContextSentences.of(r.get("contexts") or [])
        seen = ctx.without_instructions().sentences
        flags = [missing_specific(s, r["question"], seen) for s in c.original]
        out.append(
            {
                "judged": c.judged,
                "original": c.original,
                "sentences": list(ctx.sentences),
                "missing": flags,
            }
        )
    return out


def rows_of(name: str) -> list[dict]:
    if name in ("qa", "dialogue", "chat", "wikiqa", "polar", "distractor", "scifact"):
        return load_set(name, 60)
    if name == "wikieval":
        out = []
        for line in WIKIEVAL.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            for key in ("answer", "ungrounded_answer", "poor_answer"):
                if r.get(key):
                    ctx = r["context_v1"]
                    out.append(
                        {
                            "question_id": key,
                            "question": r["question"],
                            "answer": r[key],
                            "contexts": ctx if isinstance(ctx, list) else [ctx],
                        }
                    )
        return out
    return load_jsonl(DATA / f"{name}.jsonl")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rev", default="HEAD", help="the git revision to compare with")
    ap.add_argument("--sets", default=SETS, help=f"comma-separated, of {SETS}")
    ap.add_argument("--show", type=int, default=3, help="changed answers printed per set")
    ap.add_argument("--emit", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.emit:  # the child of claims_at: rows on stdin, what it makes of them on stdout
        print(json.dumps(made(json.loads(sys.stdin.read()))))
        return
    unknown = sorted(set(args.sets.split(",")) - set(SETS.split(",")))
    if unknown:
        ap.error(f"unknown set(s) {', '.join(unknown)}; choose from {SETS}")
    if "wikieval" in args.sets.split(","):
        require(WIKIEVAL, "WikiEval (set wikieval)")
    if "scifact" in args.sets.split(","):
        require(DEFAULT_DATA / "corpus.jsonl", "SciFact (set scifact)")
    counts: dict[str, int] = {}
    print(
        f"{'set':<18}{'answers':>8}{'claims changed':>16}{'contexts changed':>18}"
        f"{'flags changed':>15}"
    )
    for name in args.sets.split(","):
        rows = [
            {k: r.get(k) for k in ("question_id", "question", "answer", "contexts")}
            for r in rows_of(name)
        ]
        before, now = claims_at(args.rev, rows), made(rows)
        changed = [
            (r["question_id"], a["judged"], b["judged"])
            for r, a, b in zip(rows, before, now, strict=True)
            if (a["judged"], a["original"]) != (b["judged"], b["original"])
        ]
        ctx_changed = sum(
            a["sentences"] != b["sentences"] for a, b in zip(before, now, strict=True)
        )
        flags_changed = sum(
            a.get("missing") != b["missing"]
            for a, b in zip(before, now, strict=True)
            if (a["judged"], a["original"]) == (b["judged"], b["original"])
        )
        counts[name] = len(changed)
        counts[f"{name}_contexts"] = ctx_changed
        counts[f"{name}_flags"] = flags_changed
        print(f"{name:<18}{len(rows):>8}{len(changed):>16}{ctx_changed:>18}{flags_changed:>15}")
        for qid, a, b in changed[: args.show]:
            print(f"    {qid}\n      before {a}\n      now    {b}")
    print(
        "RESULT "
        + " ".join(
            f"{k.rsplit('_', 1)[0]}_{k.rsplit('_', 1)[1]}_changed={v}"
            if k.endswith(("_contexts", "_flags"))
            else f"{k}_changed={v}"
            for k, v in counts.items()
        )
    )


if __name__ == "__main__":
    main()
