import time, json
from llama_cpp import Llama
llm = Llama(model_path=open('/tmp/ragmeter_model_path.txt').read().strip(), n_ctx=4096, n_threads=2, n_batch=512, verbose=False)
rows=[json.loads(l) for l in open('/work/shared/datasets/wikieval/wikieval.jsonl')]
toks = llm.tokenize(rows[4]['context_v1'][0].encode())
llm.eval(toks[:1024])
for i in range(5):
    llm.n_tokens = 1024
    t=time.time(); llm.eval(toks[1024:1054]); print('30 suffix', round(time.time()-t,2), flush=True)
for i in range(3):
    llm.n_tokens = 1000
    t=time.time(); llm.eval(toks[1000:1200]); print('200 suffix', round(time.time()-t,2), flush=True)
