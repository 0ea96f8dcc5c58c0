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


def _litellm_route(model: str) -> tuple[str | None, str | None]:
    """``(provider, endpoint)`` as LiteLLM's own ``get_llm_provider`` resolves them (the
    endpoint: the provider's ``*_API_BASE`` variable or default, for the providers it
    resolves there), or ``(None, None)`` when LiteLLM is not installed or refuses the model.
    Its third element, the API key it found, is dropped here unread: never copied anywhere."""
    try:
        import litellm
    except ImportError:
        return None, None
    try:
        route = litellm.get_llm_provider(model)
    except Exception:  # an unknown model: LiteLLM refuses the call itself, saying why
        return None, None
    base = route[3] if len(route) > 3 else None
    return str(route[1]), (base.strip() or None) if isinstance(base, str) else None


def litellm_provider(model: str) -> str | None:
    """The provider LiteLLM sends ``model`` to: the ``provider/`` prefix when it names an
    OpenAI route, else LiteLLM's own ``get_llm_provider`` (when LiteLLM is installed), else
    the prefix; None when it cannot be told (a bare name without LiteLLM installed)."""
    prefix, sep, _ = model.partition("/")
    if sep and prefix in LITELLM_OPENAI_PROVIDERS:
        return prefix  # no import: LiteLLM routes these prefixes to OpenAI's client
    provider = _litellm_route(model)[0]
    return provider or (prefix if sep else None)


def _checked(url: str, option: str) -> str:
    reject_credentials(url, option)
    reject_query(url, option)
    reject_unusable(url, option)
    return url


# The variables LiteLLM's completion reads, in its order, for the providers whose variables
# break the ``$<PROVIDER>_API_BASE`` rule (read in LiteLLM 1.110.2: litellm/main.py's
# ``_complete_anthropic``, ``_complete_vertex_ai``, ``_complete_watsonx_text``, ...,
# llms/watsonx/common_utils.py, llms/huggingface/chat/transformation.py's
# ``_api_base_from_env``), each read there as an explicit api_base is. Why: two runs against
# two proxies chosen by ``$ANTHROPIC_BASE_URL`` (or two Hugging Face endpoints chosen by
# ``$HF_API_BASE``) shared one cache identity.
_ANTHROPIC = ("ANTHROPIC_API_BASE", "ANTHROPIC_BASE_URL")
_WATSONX = ("WATSONX_API_BASE", "WATSONX_URL", "WX_URL", "WML_URL")
LITELLM_PROVIDER_BASE_ENVS: dict[str, tuple[str, ...]] = {
    "anthropic": _ANTHROPIC,
    "anthropic_text": _ANTHROPIC,
    "azure_text": ("AZURE_API_BASE",),
    "huggingface": ("HF_API_BASE", "HUGGINGFACE_API_BASE"),
    "vertex_ai": ("VERTEXAI_API_BASE",),
    "vertex_ai_beta": ("GEMINI_API_BASE",),
    "watsonx": _WATSONX,
    "watsonx_text": _WATSONX,
}


def provider_base_envs(provider: str) -> tuple[str, ...]:
    """The variables LiteLLM reads, in order, for ``provider``'s endpoint when neither
    ``api_base`` nor ``get_llm_provider`` gives one: ``LITELLM_PROVIDER_BASE_ENVS``, else
    ``$<PROVIDER>_API_BASE`` (a ``_chat`` route's without it: ``ollama_chat`` reads
    ``$OLLAMA_API_BASE``)."""
    if provider in LITELLM_PROVIDER_BASE_ENVS:
        return LITELLM_PROVIDER_BASE_ENVS[provider]
    return (f"{provider.removesuffix('_chat').upper()}_API_BASE",)


def _provider_base_url(provider: str, resolved: str | None) -> str | None:
    """The endpoint LiteLLM calls for a provider other than OpenAI's routes when no api_base
    is given: ``resolved``, the one ``get_llm_provider`` found (``$OLLAMA_API_BASE``,
    ``$HOSTED_VLLM_API_BASE``, ``$LM_STUDIO_API_BASE``, ... else the provider's default),
    else the first set of the variables LiteLLM reads at call time for the others
    (``provider_base_envs``: ``AZURE_API_BASE``, ``ANTHROPIC_API_BASE`` then
    ``ANTHROPIC_BASE_URL``, ``VERTEXAI_API_BASE``, ...), else None. Why: two runs against two
    Ollama servers chosen by variable shared one cache identity, so the second was answered
    from the first server's verdicts. A URL from a variable is checked as a given one is,
    and refused naming the variable, never its value."""
    if resolved:
        for name, value in sorted(os.environ.items()):
            named = name.upper().endswith(("_API_BASE", "_BASE_URL"))
            if value.strip() == resolved and (named or name in provider_base_envs(provider)):
                return _checked(resolved, name)
        source = f"the endpoint LiteLLM resolves for {provider}"
        reject_credentials(resolved, source)  # never stored or shown, wherever it came from
        reject_query(resolved, source)
        return resolved  # LiteLLM's own default for the provider: its form is LiteLLM's
    for name in provider_base_envs(provider):
        env = os.environ.get(name, "").strip()
        if env:
            return _checked(env, name)
    return None


def litellm_base_url(model: str, explicit: str | None) -> str | None:
    """The endpoint a LiteLLM judge's calls go to, which ragmeter then passes as
    ``api_base``: ``explicit``, else ``litellm.api_base`` (module-wide, any provider; read
    only when LiteLLM is already imported), else for a model LiteLLM sends to OpenAI the
    first of ``LITELLM_OPENAI_BASE_ENVS`` that is set (else None: OpenAI's API), for another
    provider the endpoint LiteLLM resolves for it (``_provider_base_url``; None: none known).
    Why: LiteLLM reads these itself at each call, so run.json and the cache said nothing of
    a judge that a variable sent elsewhere."""
    if explicit:
        return explicit
    module_wide = getattr(sys.modules.get("litellm"), "api_base", None)
    if isinstance(module_wide, str) and module_wide.strip():
        return module_wide.strip()
    prefix, sep, _ = model.partition("/")
    if not (sep and prefix in LITELLM_OPENAI_PROVIDERS):  # else no import, as in the above
        provider, resolved = _litellm_route(model)  # once: LiteLLM prints on an unknown model
        if provider is None:
            return None  # LiteLLM missing (the backend refuses) or the model unknown to it
        if provider not in LITELLM_OPENAI_PROVIDERS:
            return _provider_base_url(provider, resolved)
    for name in LITELLM_OPENAI_BASE_ENVS:
        env = os.environ.get(name, "").strip()
        if env:
            return _checked(env, name)
    return None
