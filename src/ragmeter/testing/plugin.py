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
import re
from collections.abc import Iterator
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


OPTIONS = (
    ("--ragmeter-judge", "RAGMETER_JUDGE"),
    ("--ragmeter-embedder", "RAGMETER_EMBEDDER"),
    ("--ragmeter-cache", "RAGMETER_CACHE"),
)


def _option(config: pytest.Config, name: str, env: str) -> str | None:
    value = config.getoption(name)
    return value if value is not None else os.environ.get(env) or None


def _evaluator(config: pytest.Config) -> Any:
    from ragmeter.testing.evaluator import Evaluator

    judge, embedder, cache = (_option(config, name, env) for name, env in OPTIONS)
    named = {"judge": judge} if judge else {}  # else the default judge, not a named one
    return Evaluator(**named, embedder=embedder, options={"cache": cache} if cache else {})


# The CLI's options in a message, as the plugin spells them; the others it has not.
_PLUGIN_SPELLING = re.compile(r"(?<![\w-])--(judge|embedder|cache)\b")


def _plugin_words(message: str) -> str:
    """A library message in the plugin's terms: ``--judge`` is ``--ragmeter-judge`` here."""
    return _PLUGIN_SPELLING.sub(r"--ragmeter-\1", message)


def _key_problem(settings: Any) -> str | None:
    """The missing key of a judge the options named, in the plugin's terms. Why not the
    CLI's message: it said to use --api-key-env or --base-url, which the plugin does not
    have; the fixture reads the variable below, and OPENAI_BASE_URL, from the environment."""
    from ragmeter.availability import missing_key

    variable = missing_key(settings)
    if variable is None:
        return None
    return (
        f"no API key for the judge {settings.judge!r}: the environment variable {variable} is "
        "not set where pytest starts: set it (or OPENAI_BASE_URL, for a server of your own "
        "that needs none), or choose another judge with --ragmeter-judge / RAGMETER_JUDGE"
    )


def pytest_configure(config: pytest.Config) -> None:
    """Options given are checked now, once, as a usage error naming where each came from:
    not as the same traceback in every test that asks for the fixture. That includes what the
    CLI checks before any work (exit 2): the API key of a judge named by the options (the
    fixture reads it from the environment), a named judge that can be had, and a cache that
    opens, said with the plugin's option names. Not on --collect-only: an IDE discovering
    tests may lack the key."""
    given = [
        f"{name}={value!r}" if config.getoption(name) is not None else f"${env}={value!r}"
        for name, env in OPTIONS
        if (value := _option(config, name, env)) is not None
    ]
    if not given or config.getoption("help", False) or config.getoption("version", False):
        return  # nothing asked: stay lazy (this module loads in every session)
    from ragmeter.errors import UsageError

    try:
        evaluator = _evaluator(config)
        if not evaluator.scripted and not config.getoption("collectonly", False):
            from ragmeter.errors import ConfigError
            from ragmeter.runner import check_before_work

            settings = evaluator.settings()
            if (why := _key_problem(settings)) is not None:
                raise ConfigError(why)
            check_before_work(settings, None)
    except UsageError as exc:
        raise pytest.UsageError(
            f"ragmeter plugin options ({', '.join(given)}): {_plugin_words(str(exc))}\n"
            "(--ragmeter-judge also "
            "takes 'scripted', the word-overlap judge for offline unit tests; the fixture's "
            "judge reads its key, and OPENAI_BASE_URL, from the environment pytest starts in)"
        ) from None


@pytest.fixture(scope="session")
def ragmeter_evaluator(pytestconfig: pytest.Config) -> Iterator[Any]:
    """An ``Evaluator`` configured from the command line or the environment, one per session:
    an in-process judge is loaded by the first test that evaluates and kept for the others,
    then released when the session ends."""
    evaluator = _evaluator(pytestconfig)
    try:
        yield evaluator
    finally:
        evaluator.close()


@pytest.fixture
def assert_scores() -> Any:
    """``ragmeter.testing.assert_scores``, as a fixture for tests that prefer injection."""
    from ragmeter.testing.asserts import assert_scores as check

    return check
