"""Shared fixtures: a few valid rows and the bundled example files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
# The metrics that need no model, with the default k: tests name them so that no judge runs.
LEXICAL = [
    "k_precision",
    "token_recall",
    "token_precision",
    "token_f1",
    "exact_match",
    "mrr",
    "map",
    "unitxt_map",
    "ndcg@10",
    "precision@5",
    "recall@5",
    "hit@5",
]


def make_row(i: int = 1, **overrides: Any) -> dict[str, Any]:
    """A complete, valid sample as a plain dict; keyword arguments replace fields."""
    row: dict[str, Any] = {
        "question_id": f"q{i}",
        "question": f"What is fact number {i}?",
        "contexts": [f"Fact {i} is that the sky is blue.", "Grass is green."],
        "context_ids": [f"d{i}", "d-grass"],
        "answer": f"Fact {i} is that the sky is blue.",
        "reference_answers": ["The sky is blue."],
        "reference_contexts": [f"Fact {i} is that the sky is blue."],
        "reference_context_ids": [f"d{i}"],
        "is_answerable": True,
        "metadata": {"category": "test"},
    }
    row.update(overrides)
    return {k: v for k, v in row.items() if v is not None}


@pytest.fixture(autouse=True)
def _no_ambient_openai_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's OPENAI_BASE_URL (or OPENAI_API_BASE, which LiteLLM reads) would re-point
    every openai:MODEL judge the tests build (Settings follow it, as the openai client does);
    tests that need it set it themselves."""
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_BASE", raising=False)


@pytest.fixture
def rows() -> list[dict[str, Any]]:
    return [make_row(i) for i in range(1, 4)]


@pytest.fixture
def example_jsonl() -> Path:
    return EXAMPLES / "rag_turns.jsonl"


@pytest.fixture
def example_csv() -> Path:
    return EXAMPLES / "ragas_columns.csv"


@pytest.fixture(scope="session")
def embedded_judge():
    """The real embedded judge, loaded once for the whole run.

    Skipped only outside CI when llama.cpp or the model packages are missing; in CI
    (CI=true, where `make test` installs them) a missing model is a failure, not a skip.
    """
    from needs import missing, require_module
    from ragmeter.backends import model_store
    from ragmeter.errors import ModelNotAvailable

    require_module("llama_cpp")
    from ragmeter.backends.llamacpp import LocalJudge

    model = model_store.DEFAULT_MODEL
    try:
        model_store.find_parts(model)
    except ModelNotAvailable as exc:
        if not model_store.is_verified(model, model_store.model_path(model)):
            missing(str(exc))
    judge = LocalJudge(n_ctx=2048)
    judge.load()
    yield judge
    judge.close()


def judged_rows(n: int = 6, lie: str = "The moon is made of cheese.") -> list[dict[str, Any]]:
    """Rows whose answers hold one supported and (odd rows) one invented statement."""
    rows = []
    for i in range(1, n + 1):
        answer = f"Fact {i} is that the sky is blue." + (f" {lie}" if i % 2 else "")
        rows.append(make_row(i, answer=answer, topic="odd" if i % 2 else "even"))
    rows.append(make_row(n + 1, contexts=[""], context_ids=["d-empty"], topic="even"))
    return rows
