import json, time, sys
from llama_cpp import Llama
p = open('/tmp/ragmeter_model_path.txt').read().strip()
t=time.time()
llm = Llama(model_path=p, n_ctx=4096, n_threads=2, n_batch=512, logits_all=False, verbose=False)
print('load', time.time()-t)
rows=[json.loads(l) for l in open('/work/shared/datasets/wikieval/wikieval.jsonl')]
ctx = rows[4]['context_v1'][0]
toks = llm.tokenize(ctx.encode())
print('chars', len(ctx), 'tokens', len(toks))
for n in (256, 1024, 2048):
    llm.reset()
    t=time.time(); llm.eval(toks[:n]); dt=time.time()-t
    print(n, 'tok', dt, n/dt, 'tok/s')
# suffix after prefix: eval 30 extra tokens
llm.reset(); llm.eval(toks[:1024]);
t=time.time(); llm.eval(toks[1024:1054]); print('30 suffix', time.time()-t)
# total tokens in all contexts
tot=sum(len(llm.tokenize(r['context_v1'][0].encode())) for r in rows)
tot2=sum(len(llm.tokenize('\n'.join(r['context_v2']).encode())) for r in rows)
print('v1 tokens', tot, 'v2 tokens', tot2)
