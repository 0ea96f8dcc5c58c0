import asyncio, time, sys
from ragmeter.judges.base import Resources
from ragmeter.judges.llamacpp import LocalJudge
from ragmeter.meta_eval import wikieval_pairs
from ragmeter.metrics.faithfulness import faithfulness
from ragmeter.metrics.relevance import context_relevance, answer_relevance
row = int(sys.argv[1])
pairs = [p for p in wikieval_pairs("/work/shared/datasets/wikieval/wikieval.jsonl") if p.group == f"wikieval-{row}"]
judge = LocalJudge(n_threads=2); judge.load()
res = Resources(judge=judge)
async def main():
    for fn, dim in [(faithfulness, "faithfulness"), (context_relevance, "context_relevance"), (answer_relevance, "answer_relevance")]:
        p = [x for x in pairs if x.dimension == dim][0]
        for s in (p.preferred, p.other):
            st = dict(judge.stats.as_dict()); t = time.time()
            sc = await fn(s, res)
            d = {k: judge.stats.as_dict()[k] - st[k] for k in st}
            print(dim, round(sc.value, 3), f"{time.time()-t:.1f}s", {k: round(v, 1) for k, v in d.items()}, sc.details.get("kept_numbers"), sc.details.get("total_sentences"), flush=True)
asyncio.run(main())
