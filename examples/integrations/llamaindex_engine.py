"""Score a LlamaIndex query engine with ragmeter (runs offline: LlamaIndex's mock models).

    pip install 'ragmeter[llamaindex]'
    python examples/integrations/llamaindex_engine.py

With MockLLM the answers are filler ("text text ..."), so answer metrics score low; the
retrieval metrics are real. Use your own LLM and embedding model for real numbers.
"""

from llama_index.core import Document, VectorStoreIndex
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import MockLLM

import ragmeter
from ragmeter.integrations import llamaindex as rli

FACTS = {
    "paris": "Paris is the capital of France. It lies on the Seine.",
    "berlin": "Berlin is the capital of Germany. It lies on the Spree.",
    "madrid": "Madrid is the capital of Spain. It lies on the Manzanares.",
}
index = VectorStoreIndex.from_documents(
    [Document(text=text, id_=key) for key, text in FACTS.items()],
    embed_model=MockEmbedding(embed_dim=8),
)
engine = index.as_query_engine(llm=MockLLM(max_tokens=8), similarity_top_k=2)
questions = [
    {"question": "What is the capital of France?", "reference_context_ids": ["paris"]},
    {"question": "What is the capital of Germany?", "reference_context_ids": ["berlin"]},
]
# ids of the source documents (ref_doc_id) so that they match the references
samples = rli.collect(engine, questions, id_source="ref_doc_id")
for s in samples:
    print(s.question_id, s.context_ids, s.metadata["context_scores"], repr(s.answer))
result = ragmeter.evaluate(samples, ["k_precision", "mrr", "recall@5"])
for name, agg in result.aggregates.items():
    print(f"{name:12s} {agg.mean:.3f}")
