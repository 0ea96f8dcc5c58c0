"""Scratch: RAGAS metrics on WikiEval with the LocalJudge directly (no cache)."""
import asyncio, json, sys, time
from ragmeter.judges.base import Resources
from ragmeter.judges.llamacpp import LocalJudge
from ragmeter.meta_eval import build_scorers, run_meta_eval, wikieval_pairs

modes = dict(a.split("=") for a in sys.argv[2:])
limit = int(sys.argv[1])
pairs = wikieval_pairs("/work/shared/datasets/wikieval/wikieval.jsonl")
groups = sorted({p.group for p in pairs}, key=lambda g: int(g.split("-")[1]))[:limit]
pairs = [p for p in pairs if p.group in groups]
judge = LocalJudge(n_threads=2)
judge.load()
res = Resources(judge=judge, options={"modes": modes})
t = time.time()
out = asyncio.run(run_meta_eval(pairs, build_scorers(()), res, progress=lambda m: print(m, f"{time.time()-t:.0f}s", flush=True)))
for r in out:
    d = r.as_dict(False); print(json.dumps(d))
print("stats", judge.stats.as_dict(), "wall", time.time() - t)
json.dump([r.as_dict() for r in out], open(f"/tmp/exp_{limit}_{'_'.join(modes.values()) or 'default'}.json", "w"), indent=1)
