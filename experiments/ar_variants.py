"""Scratch: answer relevance variants on all 50 WikiEval pairs (P(yes) vs question likelihood)."""
import asyncio, json, math, time
from ragmeter.judges.base import Resources
from ragmeter.judges.llamacpp import LocalJudge
from ragmeter.meta_eval import wikieval_pairs
from ragmeter.metrics.relevance import answer_relevance
pairs = [p for p in wikieval_pairs("/work/shared/datasets/wikieval/wikieval.jsonl") if p.dimension == "answer_relevance"]
judge = LocalJudge(n_threads=2); judge.load()
res = Resources(judge=judge)
async def lik(s):
    prompt = judge.format_chat([{"role": "user", "content": f"Generate a question for the given answer.\nanswer: {s.answer}"}])
    r = await judge.target_logprobs(prompt, s.question, prompt_version="x")
    return math.exp(sum(r.value.logprobs) / len(r.value.logprobs))
async def main():
    out = []
    t = time.time()
    for p in pairs:
        a = await answer_relevance(p.preferred, res); b = await answer_relevance(p.other, res)
        la = await lik(p.preferred); lb = await lik(p.other)
        out.append((a.value, b.value, la, lb))
        print(p.pair_id, round(a.value,3), round(b.value,3), round(la,4), round(lb,4), f"{time.time()-t:.0f}s", flush=True)
    agree = lambda i, j: sum(1 if o[i] > o[j] else 0.5 if o[i] == o[j] else 0 for o in out) / len(out)
    print("p_yes", agree(0, 1), "likelihood", agree(2, 3))
    comb = sum(1 if (o[0]*o[2]) > (o[1]*o[3]) else 0 for o in out) / len(out)
    print("product", comb, judge.stats.as_dict())
    json.dump(out, open("/tmp/ar_variants.json", "w"))
asyncio.run(main())
