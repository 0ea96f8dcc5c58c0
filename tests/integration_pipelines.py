"""Tiny real pipelines for the integration tests, built from the libraries' own fakes.

LangChain: an LCEL retrieval chain over an InMemoryVectorStore with DeterministicFakeEmbedding
and a FakeListLLM. LlamaIndex: a VectorStoreIndex with MockEmbedding and a MockLLM. No model,
no network: the libraries' code runs as a user's would.
"""

from __future__ import annotations

from typing import Any

from needs import require_module

FACTS = [
    ("paris", "Paris is the capital of France. It lies on the Seine."),
    ("berlin", "Berlin is the capital of Germany. It lies on the Spree."),
    ("madrid", "Madrid is the capital of Spain. It lies on the Manzanares."),
]
QUESTIONS = [
    {
        "question": "What is the capital of France?",
        "question_id": "fr",
        "reference_answers": ["Paris"],
        "reference_context_ids": ["paris"],
    },
    {
        "question": "What is the capital of Germany?",
        "question_id": "de",
        "reference_answers": ["Berlin"],
        "reference_context_ids": ["berlin"],
    },
]
# The first answer is grounded in the facts; the second is invented.
ANSWERS = ["Paris is the capital of France.", "Germany has no capital; it is ruled from Mars."]


def langchain_chain(k: int = 2) -> Any:
    """{"context": retriever | join, "question": passthrough} | prompt | FakeListLLM | str."""
    require_module("langchain_core")
    from langchain_core.documents import Document
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from langchain_core.language_models.fake import FakeListLLM
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import PromptTemplate
    from langchain_core.runnables import RunnableLambda, RunnablePassthrough
    from langchain_core.vectorstores import InMemoryVectorStore

    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
    # The id also in metadata: OpenInference's LangChain instrumentation records a
    # document's metadata but not Document.id.
    docs = [Document(page_content=t, id=i, metadata={"id": i}) for i, t in FACTS]
    store.add_documents(docs)
    retriever = store.as_retriever(search_kwargs={"k": k})
    join = RunnableLambda(lambda docs: "\n".join(d.page_content for d in docs))
    prompt = PromptTemplate.from_template("Context:\n{context}\n\nQuestion: {question}\nAnswer:")
    llm = FakeListLLM(responses=list(ANSWERS))
    return (
        {"context": retriever | join, "question": RunnablePassthrough()}
        | prompt
        | llm
        | StrOutputParser()
    )


def llamaindex_engine(k: int = 2, streaming: bool = False) -> Any:
    """VectorStoreIndex (MockEmbedding) -> query engine with MockLLM, top-k retrieval
    (``streaming``: the engine returns a StreamingResponse)."""
    require_module("llama_index.core")
    from llama_index.core import Document, VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding
    from llama_index.core.llms import MockLLM

    index = VectorStoreIndex.from_documents(
        [Document(text=text, id_=doc_id) for doc_id, text in FACTS],
        embed_model=MockEmbedding(embed_dim=8),
    )
    return index.as_query_engine(llm=MockLLM(max_tokens=8), similarity_top_k=k, streaming=streaming)
