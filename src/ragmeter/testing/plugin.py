"""The pytest plugin (entry point ``pytest11: ragmeter``): fixtures to gate RAG quality in tests.

Fixtures: ``ragmeter_evaluator`` (session-wide ``Evaluator``) and ``assert_scores``.
The judge comes from ``--ragmeter-judge`` or the environment variable ``RAGMETER_JUDGE``,
by default ``local`` (the embedded judge); ``scripted`` selects the word-overlap
``ScriptedJudge`` for fast, offline unit tests. ``--ragmeter-embedder`` /
``RAGMETER_EMBEDDER`` and ``--ragmeter-cache`` / ``RAGMETER_CACHE`` likewise. Imports stay
lazy: pytest loads this module in every session of an environment with ragmeter installed.
"""

from __future__ import annotations

import os
from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ragmeter", "ragmeter RAG evaluation")
    group.addoption(
        "--ragmeter-judge",
        default=None,
        help="judge for the ragmeter_evaluator fixture: local (default), scripted, "
        "openai:MODEL, litellm:MODEL, gguf:PATH (env RAGMETER_JUDGE)",
    )
    group.addoption(
        "--ragmeter-embedder",
        default=None,
        help="embedder: local, st:PATH, openai:MODEL, none (env RAGMETER_EMBEDDER)",
    )
    group.addoption(
        "--ragmeter-cache",
        default=None,
        help="cache directory for judge calls, or off (env RAGMETER_CACHE)",
    )


def _option(config: pytest.Config, name: str, env: str) -> str | None:
    value = config.getoption(name)
    return value if value is not None else os.environ.get(env) or None


@pytest.fixture(scope="session")
def ragmeter_evaluator(pytestconfig: pytest.Config) -> Any:
    """An ``Evaluator`` configured from the command line or the environment."""
    from ragmeter.testing.evaluator import Evaluator

    judge = _option(pytestconfig, "--ragmeter-judge", "RAGMETER_JUDGE") or "local"
    embedder = _option(pytestconfig, "--ragmeter-embedder", "RAGMETER_EMBEDDER")
    cache = _option(pytestconfig, "--ragmeter-cache", "RAGMETER_CACHE")
    return Evaluator(judge=judge, embedder=embedder, options={"cache": cache} if cache else {})


@pytest.fixture
def assert_scores() -> Any:
    """``ragmeter.testing.assert_scores``, as a fixture for tests that prefer injection."""
    from ragmeter.testing.asserts import assert_scores as check

    return check
