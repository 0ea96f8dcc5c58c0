"""Score a LangChain retrieval chain with ragmeter (runs offline: LangChain's own fakes).

    pip install 'ragmeter[langchain]'
    python examples/integrations/langchain_chain.py

Swap the fakes for your embeddings, vector store and chat model; the capture is the same.
"""

from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake import FakeListLLM
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import PromptTemplate
from langchain_core.runnables import RunnableLambda, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore

import ragmeter
from ragmeter.integrations import langchain as rl

FACTS = {
    "paris": "Paris is the capital of France. It lies on the Seine.",
    "berlin": "Berlin is the capital of Germany. It lies on the Spree.",
    "madrid": "Madrid is the capital of Spain. It lies on the Manzanares.",
}
store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
store.add_documents([Document(page_content=text, id=key) for key, text in FACTS.items()])
retriever = store.as_retriever(search_kwargs={"k": 2})
prompt = PromptTemplate.from_template("Context:\n{context}\n\nQuestion: {question}\nAnswer:")
llm = FakeListLLM(responses=["Paris is the capital of France.", "Berlin, on the Spree."])
join = RunnableLambda(lambda docs: "\n".join(d.page_content for d in docs))
chain = (
    {"context": retriever | join, "question": RunnablePassthrough()}
    | prompt
    | llm
    | StrOutputParser()
)

questions = [
    {"question": "What is the capital of France?", "question_id": "fr",
     "reference_answers": ["Paris"], "reference_context_ids": ["paris"]},
    {"question": "What is the capital of Germany?", "question_id": "de",
     "reference_answers": ["Berlin"], "reference_context_ids": ["berlin"]},
]  # fmt: skip
samples = rl.collect(chain, questions)  # question, documents (+ ids), answer per call
for s in samples:
    print(s.question_id, s.context_ids, repr(s.answer))
# No judge needed for these; add "faithfulness" etc. to score with the embedded judge.
result = ragmeter.evaluate(samples, ["k_precision", "token_f1", "mrr", "recall@5"])
for name, agg in result.aggregates.items():
    print(f"{name:12s} {agg.mean:.3f}  [{agg.ci_low:.3f}, {agg.ci_high:.3f}]")
