"""The models a run uses, built from Settings: judge, embedder, scorer, reward model.

Building never raises for a model that cannot be had: the reason is recorded in
``Built.unavailable`` and the metrics that need it fail with that reason. Which resources
could be built, and why not, is answered cheaply before any work by ``ragmeter.availability``
(``available_needs`` is re-exported here).
"""

from __future__ import annotations

import asyncio
import errno
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, overload

from ragmeter.availability import LOCAL_KINDS, missing_key
from ragmeter.availability import available_needs as available_needs  # re-exported
from ragmeter.config import Settings, as_settings
from ragmeter.engine import (
    Accountant,
    CachedEmbedder,
    CachedJudge,
    CachedScorer,
    CallCache,
    PriceTable,
    RetryPolicy,
)
from ragmeter.engine.cache import DB_NAME, read_only_uri
from ragmeter.engine.scorer import CachedRewardModel
from ragmeter.errors import ConfigError
from ragmeter.protocols import Resources
from ragmeter.redact import describe, public_url, register_secret


@dataclass
class Built:
    """Resources for a run, why any could not be built, and what to close afterwards."""

    resources: Resources
    accountant: Accountant
    cache: CallCache | None
    unavailable: dict[str, str] = field(default_factory=dict)
    closers: list[Any] = field(default_factory=list)
    local: bool = False
    facts: dict[str, Any] = field(default_factory=dict)  # judge/embedder, for the manifest

    async def aclose(self) -> None:
        for obj in self.closers:
            try:
                closer = getattr(obj, "aclose", None) or getattr(obj, "close", None)
                if closer is None:
                    continue
                result = closer()
                if asyncio.iscoroutine(result):
                    await result
            except Exception:  # closing must never lose a finished run
                pass
        if self.cache is not None:
            self.cache.close()


def _build_judge(s: Settings) -> Any:
    """The raw judge backend for ``s.judge`` (no model is loaded, no request is sent)."""
    kind, model = s.judge_kind, s.judge_model
    key = s.api_key.get_secret_value() if s.api_key is not None else None
    register_secret(key)
    if kind == "openai":
        from ragmeter.backends.openai_compat import OpenAICompatBackend

        return OpenAICompatBackend(
            model,
            base_url=s.base_url,
            api_key_env=s.api_key_env,
            api_key=key,
            seed=s.seed,
            temperature=s.temperature,
            timeout=s.timeout,
            concurrency=s.concurrency,
            structured_mode=s.structured_mode,
            cache_url=s.cache_url,
        )
    if kind == "litellm":
        from ragmeter.backends.litellm_backend import LiteLLMBackend

        return LiteLLMBackend(
            model,
            base_url=s.base_url,
            api_key_env=s.api_key_env,
            api_key=key,
            seed=s.seed,
            temperature=s.temperature,
            timeout=s.timeout,
            structured_mode="json_schema" if s.structured_mode == "auto" else s.structured_mode,
        )
    if kind in LOCAL_KINDS:
        from ragmeter.backends.llamacpp import LocalJudge

        sizes = {"n_ctx": s.n_ctx, "n_threads": s.n_threads}  # unset: the judge's defaults
        extra: dict[str, Any] = {"seed": s.seed, **{k: v for k, v in sizes.items() if v}}
        if kind == "gguf":
            return LocalJudge(model, **extra)
        return LocalJudge(None, embedded_key=model or None, **extra)
    raise ValueError(f"no judge configured (judge={s.judge!r})")


def judge_facts(inner: Any) -> dict[str, Any]:
    """What a run's manifest records about the judge backend: model, weights' sha256 for
    local files, public base URL, sampling settings. Never a key."""
    facts = getattr(inner, "facts", None)
    if callable(facts):
        return dict(facts())
    out: dict[str, Any] = {"model": getattr(inner, "name", type(inner).__name__)}
    if hasattr(inner, "n_ctx") and hasattr(inner, "model_path"):  # the llama.cpp judge
        from ragmeter.backends import model_store

        embedded = getattr(inner, "_embedded", None)
        if embedded is not None:
            out.update(weights=f"embedded:{embedded.filename}", weights_sha256=embedded.sha256)
        elif inner.model_path is not None:
            out.update(
                weights=inner.model_path.name,
                weights_sha256=model_store.gguf_sha256(inner.model_path),
            )
        out.update(
            kind="local",
            temperature=0.0,
            seed=getattr(inner, "seed", None),
            n_ctx=inner.n_ctx,
            n_threads=getattr(inner, "n_threads", None),
            n_batch=getattr(inner, "n_batch", None),
            kv_align=getattr(inner, "kv_align", None),
            structured_output="grammar",
        )
        return out
    for attr in ("base_url", "temperature", "seed", "structured_mode"):
        if hasattr(inner, attr):
            value = getattr(inner, attr)
            out[attr] = _url_or_none(value) if attr == "base_url" else value
    return out


def _url_or_none(url: str | None) -> str | None:
    return public_url(url) if url else None


def _build_embedder(s: Settings) -> Any:
    from ragmeter.backends.embedders import make_embedder

    spec = "local" if s.embedder in ("local", "default") else s.embedder
    return make_embedder(
        spec,
        base_url=s.embedder_base_url or s.base_url,
        api_key_env=s.api_key_env,
        api_key=s.api_key.get_secret_value() if s.api_key is not None else None,
    )


def build_resources(
    settings: Settings | None,
    needs: set[str],
    *,
    load_local: bool = True,
    judge_pool: Callable[[Settings], Any] | None = None,
    make_cache: bool = True,
) -> Built:
    """Build what ``needs`` asks for; what fails is recorded with its reason, not raised.
    A ``judge_pool``'s in-process judge (executors/judge_pool.py) is borrowed: never closed here.
    ``make_cache=False`` (a dry run) opens the cache read only, and makes none."""
    s = as_settings(settings)
    cache = open_cache(s.cache, create=make_cache) if s.cache else None
    prices = {k: (v.input, v.output) for k, v in s.prices.items()}
    accountant = Accountant(PriceTable(prices))
    local = s.judge_kind in LOCAL_KINDS
    built = Built(Resources(options=_resolved_options(s)), accountant, cache, local=local)
    pooled = judge_pool if local else None
    policy = RetryPolicy(max_retries=s.max_retries)
    if needs & {"judge", "scorer"}:
        if s.judge_kind in ("none", "off"):
            built.unavailable["judge"] = built.unavailable["scorer"] = (
                "no judge configured (--judge none); choose one with --judge"
            )
        else:
            try:
                inner = pooled(s) if pooled is not None else _build_judge(s)
                if load_local and local:
                    inner.load()  # fail now, with install instructions, not once per call
            except Exception as exc:
                reason = f"the judge {s.judge!r} is unavailable: {describe(exc)}"
                built.unavailable["judge"] = built.unavailable["scorer"] = reason
            else:
                if pooled is None:
                    built.closers.append(inner)
                built.facts["judge"] = judge_facts(inner)
                limit = getattr(inner, "max_concurrency", None) or s.concurrency
                built.resources.judge = CachedJudge(
                    inner,
                    cache=cache,
                    policy=policy,
                    timeout=None if local else s.timeout,
                    concurrency=limit,
                    accountant=accountant,
                )
                if hasattr(inner, "target_logprobs"):
                    built.resources.scorer = CachedScorer(
                        inner, cache=cache, concurrency=1, accountant=accountant
                    )
                else:
                    built.unavailable["scorer"] = (
                        f"the judge {s.judge!r} cannot score given continuations (teacher "
                        "forcing needs a local model: --judge local or gguf:PATH)"
                    )
    if "embedder" in needs:
        if s.embedder in ("none", "off"):
            built.unavailable["embedder"] = "no embedder configured (--embedder none)"
        else:
            try:
                inner_e = _build_embedder(s)
            except Exception as exc:
                built.unavailable["embedder"] = (
                    f"the embedder {s.embedder!r} is unavailable: {describe(exc)}"
                )
            else:
                built.closers.append(inner_e)
                built.facts["embedder"] = {
                    "name": getattr(inner_e, "name", s.embedder),
                    "base_url": _url_or_none(getattr(inner_e, "base_url", None)),
                }
                built.resources.embedder = CachedEmbedder(
                    inner_e,
                    cache=cache,
                    policy=policy,
                    timeout=s.timeout,
                    concurrency=s.concurrency,
                    accountant=accountant,
                )
    if free := _add_hf_models(built, needs, s.options, store=make_cache):  # local: no bill
        accountant.prices = PriceTable({**dict.fromkeys(free, (0.0, 0.0)), **prices})
    return built


EVIDENCE_CHOICES = ("auto", "embedding", "lexical")


def _resolved_options(s: Settings) -> dict[str, Any]:
    """The metrics' options with ``evidence`` (auto | embedding | lexical) settled as
    ``evidence_by``: auto picks evidence sentences by idf-weighted word overlap, with any
    judge. Why (docs/judged-metrics.md, "Evidence by embedding or by word overlap"): on the
    visible faithfulness sets embedding evidence was not better where it differs (short right
    answers over long WikiEval contexts: 0.970 AUROC against 0.995, the held-out pattern; wrong
    answers naming the context's other entities: pairwise 0.841 against 0.932; SciFact 0.691
    against 0.684), the calibration was fitted on word-overlap evidence, and a local CPU
    embedder costs time: about 60 sentences/s on 2 shared cores, 90% of a run against a
    remote judge answering in 50 ms (benchmarks/engine.py). ``embedding`` keeps the embedder's
    choice (until 2026-11-26 the default with an in-process judge).
    """
    opts = s.metric_options()
    choice = str(opts.get("evidence", "auto"))
    if choice not in EVIDENCE_CHOICES:
        raise ConfigError(
            f"options.evidence must be one of {', '.join(EVIDENCE_CHOICES)}, not {choice!r}"
        )
    if choice == "auto":
        choice = "lexical"
    opts["evidence_by"] = choice
    # group_verdicts (off | on): a sample's statements in one request, a third of the tokens
    # a server bills. Off by default: on all 50 WikiEval pairs grouped verdicts agree with
    # the humans less (0.86 against 1.00) and are worse calibrated (Brier 0.171 against
    # 0.080): each later verdict leans on the earlier lines (docs/speed.md).
    group = str(opts.get("group_verdicts", "off"))
    if group not in ("on", "off"):
        raise ConfigError(f"options.group_verdicts must be on or off, not {group!r}")
    opts["group_verdicts_on"] = group == "on"
    return opts


def _add_hf_models(
    built: Built, needs: set[str], options: dict[str, Any], *, store: bool = True
) -> list[str]:
    """Local Hugging Face models named by path in the options (loaded on first use), cached
    and accounted as the judge is; the names they are accounted under (a local model costs
    nothing: unpriced, a run's cost was "unknown"). ``store=False`` (a dry run): read only.

    ``scorer_model`` replaces the judge as the teacher-forcing scorer (Unitxt's perplexity
    metric is defined on flan-t5-small, not on the judge); ``reward_model`` is the answer
    reward model, which no default provides. ``hf_device`` (default cpu) runs both.
    """
    from ragmeter.backends.hf import hf_reward_model, hf_scorer

    device, names = str(options.get("hf_device") or "cpu"), []
    wrap = {"cache": built.cache, "concurrency": 1, "accountant": built.accountant}
    if "scorer" in needs and options.get("scorer_model"):
        scorer = CachedScorer(hf_scorer(options["scorer_model"], device=device), **wrap)
        built.resources.scorer = scorer
        names.append(scorer.name)
        built.unavailable.pop("scorer", None)
    if "reward_model" in needs:
        if options.get("reward_model"):
            inner = hf_reward_model(options["reward_model"], device=device)
            reward = CachedRewardModel(inner, store=store, **wrap)
            built.resources.reward_model = reward
            names.append(reward.name)
        else:
            built.unavailable.setdefault(
                "reward_model",
                "no reward model configured: set the option reward_model=PATH to a local "
                "Hugging Face reward model (e.g. OpenAssistant/reward-model-deberta-v3-large-v2)",
            )
    return names


@overload
def open_cache(path: str, *, create: Literal[True] = True) -> CallCache: ...
@overload
def open_cache(path: str, *, create: bool) -> CallCache | None: ...
def open_cache(path: str, *, create: bool = True) -> CallCache | None:
    """The call cache at ``path`` (a directory, or a .sqlite/.db file), opened; a ConfigError
    naming the path and what is wrong otherwise. Why: these were internal errors mid-run (a
    file in the way, no such directory, "file is not a database"). A file that is not our
    cache is never changed or removed: the user decides.

    ``create=False`` (a dry run) makes nothing: an existing store is opened read only, and
    for none the same refusals are made without creating it (None: nothing is stored). Why:
    ``--dry-run --cache DIR`` created DIR and an empty store."""
    where = Path(path)
    db = where if where.suffix in (".sqlite", ".db") else where / DB_NAME
    option = f"--cache (cache) {path}"
    try:  # the checks too: a 256-byte name raised from exists(), an internal error
        if db.parent.exists() and not db.parent.is_dir():
            raise ConfigError(f"{option}: {db.parent} is a file: give a directory, or --cache off")
        if db.is_file() and not _our_store(db):
            raise ConfigError(
                f"{option}: {db} is not a ragmeter cache (not an SQLite store of judge calls): "
                "give another --cache directory, or remove that file if it is not needed"
            )
        if create:
            return CallCache(path)
        if db.is_file():
            return CallCache(path, read_only=True)
        _could_create(db)
        return None
    except (OSError, sqlite3.Error) as exc:
        why = getattr(exc, "strerror", None) or describe(exc)
        raise ConfigError(
            f"{option}: the cache cannot be opened there ({why}): give a writable directory, "
            "or --cache off"
        ) from None


def _could_create(db: Path) -> None:
    """The OSError creating the store ``db`` (and its directories) would meet, without
    creating anything: the nearest existing folder must be a writable directory."""
    if db.exists():  # not a file (is_file was asked): a directory in the way
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(db))
    folder = db.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(folder))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(folder))


def _our_store(db: Path) -> bool:
    """An SQLite file with no tables or ours (read only: a foreign one must not get ours)."""
    try:
        con = sqlite3.connect(read_only_uri(db), uri=True)  # no side files left behind
        try:
            rows = con.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        finally:
            con.close()
    except sqlite3.OperationalError:  # locked or unreadable: CallCache says which
        return True
    except sqlite3.DatabaseError:  # "file is not a database"
        return False
    tables = {r[0] for r in rows}
    return not tables or "calls" in tables


def check_judge_key(s: Settings) -> None:
    """ConfigError when a judge asked for by name (``openai:MODEL``) has no key: said before
    any work, not as every judged score failing (or default metrics silently left out)."""
    variable = missing_key(s)
    if variable is not None:
        raise ConfigError(
            f"no API key for the judge {s.judge!r}: the environment variable {variable} is not "
            "set: set it, or name another variable with --api-key-env (api_key_env), or give "
            "--base-url for a server that needs none"
        )
