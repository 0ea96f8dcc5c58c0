"""Which server a remote judge's calls go to when no base URL is given, resolved the way
the client that makes them resolves it.

Why here, once: the openai SDK and LiteLLM read their environment variables themselves when
a call is made, so run.json and the cache identity named OpenAI's API (or nothing) for calls
that went elsewhere. Settings and the backends resolve the URL with these functions and hand
it to the client explicitly, so the server recorded is the server used. A URL from the
environment is checked as a given one is: no credentials, no query.
"""

from __future__ import annotations

import os
import sys

from ragmeter.redact import reject_credentials, reject_query, reject_unusable

BASE_URL_ENV = "OPENAI_BASE_URL"  # what the openai client follows when no base URL is given


def openai_base_url(explicit: str | None) -> str | None:
    """``explicit``, else ``$OPENAI_BASE_URL`` (set, not empty), else None (OpenAI's API): the
    openai SDK's precedence. Why: the SDK reads the variable only when a client is built,
    so run.json and the cache keyed as api.openai.com calls that went elsewhere."""
    if explicit:
        return explicit
    env = os.environ.get(BASE_URL_ENV, "").strip()
    if not env:
        return None
    reject_credentials(env, BASE_URL_ENV)
    reject_query(env, BASE_URL_ENV)
    reject_unusable(env, BASE_URL_ENV)
    return env


# The variables LiteLLM reads, in its order, for a model it sends to OpenAI's API when no
# api_base is given (litellm/main.py: api_base, litellm.api_base, $OPENAI_BASE_URL,
# $OPENAI_API_BASE, https://api.openai.com/v1); other providers read their own variables.
LITELLM_OPENAI_BASE_ENVS = ("OPENAI_BASE_URL", "OPENAI_API_BASE")
LITELLM_OPENAI_PROVIDERS = ("openai", "text-completion-openai", "custom_openai")


def litellm_provider(model: str) -> str | None:
    """The provider LiteLLM sends ``model`` to: the ``provider/`` prefix when it names an
    OpenAI route, else LiteLLM's own ``get_llm_provider`` (when LiteLLM is installed), else
    the prefix; None when it cannot be told (a bare name without LiteLLM installed)."""
    prefix, sep, _ = model.partition("/")
    if sep and prefix in LITELLM_OPENAI_PROVIDERS:
        return prefix  # no import: LiteLLM routes these prefixes to OpenAI's client
    try:
        import litellm
    except ImportError:
        return prefix if sep else None
    try:
        return str(litellm.get_llm_provider(model)[1])
    except Exception:  # an unknown model: LiteLLM refuses the call itself, saying why
        return prefix if sep else None


def litellm_base_url(model: str, explicit: str | None) -> str | None:
    """The endpoint a LiteLLM judge's calls go to, which ragmeter then passes as
    ``api_base``: ``explicit``, else ``litellm.api_base`` (module-wide, any provider; read
    only when LiteLLM is already imported), else for a model LiteLLM sends to OpenAI the
    first of ``LITELLM_OPENAI_BASE_ENVS`` that is set, else None (OpenAI's API for those,
    the provider's own default for others): LiteLLM's precedence. Why: LiteLLM reads them
    itself at each call, so run.json and the cache said nothing of a judge that
    $OPENAI_BASE_URL sent elsewhere."""
    if explicit:
        return explicit
    module_wide = getattr(sys.modules.get("litellm"), "api_base", None)
    if isinstance(module_wide, str) and module_wide.strip():
        return module_wide.strip()
    if litellm_provider(model) not in LITELLM_OPENAI_PROVIDERS:
        return None
    for name in LITELLM_OPENAI_BASE_ENVS:
        env = os.environ.get(name, "").strip()
        if env:
            reject_credentials(env, name)
            reject_query(env, name)
            reject_unusable(env, name)
            return env
    return None
