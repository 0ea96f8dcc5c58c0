"""Trace a LangChain chain with OpenInference, score the traces, write scores back onto them.

    pip install 'ragmeter[otel,langchain]' openinference-instrumentation-langchain
    python examples/integrations/otel_traces.py            # writes traces.json, traces.scored.json
    ragmeter evaluate traces.json --format otel -m k_precision,faithfulness  # + embedded judge

traces.json is OTLP JSON, as an OpenTelemetry collector's file exporter or a Phoenix export
would give you; traces.scored.json is the same spans with ragmeter.<metric> attributes.
"""

import json
from pathlib import Path

from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake import FakeListLLM
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import PromptTemplate
from langchain_core.runnables import RunnableLambda, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore
from openinference.instrumentation.langchain import LangChainInstrumentor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import ragmeter
from ragmeter.integrations.otel_export import annotate
from ragmeter.integrations.otel_spans import read_spans, to_otlp

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
LangChainInstrumentor().instrument(tracer_provider=provider)

FACTS = {
    "paris": "Paris is the capital of France. It lies on the Seine.",
    "berlin": "Berlin is the capital of Germany. It lies on the Spree.",
}
store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
# OpenInference records a document's metadata (not Document.id): keep the id there too
store.add_documents([Document(page_content=t, id=k, metadata={"id": k}) for k, t in FACTS.items()])
join = RunnableLambda(lambda docs: "\n".join(d.page_content for d in docs))
prompt = PromptTemplate.from_template("{context}\nQuestion: {question}\nAnswer:")
llm = FakeListLLM(responses=["Paris is the capital of France.", "Berlin is on the Spree."])
chain = (
    {
        "context": store.as_retriever(search_kwargs={"k": 1}) | join,
        "question": RunnablePassthrough(),
    }
    | prompt
    | llm
    | StrOutputParser()
)
for q in ["What is the capital of France?", "Which river runs through Berlin?"]:
    chain.invoke(q)

Path("traces.json").write_text(json.dumps(to_otlp(read_spans(exporter.get_finished_spans()))))
result = ragmeter.evaluate("traces.json", ["k_precision"], format="otel")
for s, sc in zip(result.samples, result.scores["k_precision"], strict=True):
    print(s.question_id, repr(s.question), s.context_ids, f"k_precision={sc.value:.3f}")
annotate(result, "traces.json", out="traces.scored.json")
print("wrote traces.json and traces.scored.json (ragmeter.<metric> on each root span)")
