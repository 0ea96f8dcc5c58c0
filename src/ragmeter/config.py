"""Settings for the model-based metrics: which judge and embedder, how hard to push them.

One pydantic object, loadable from Python, from a TOML or JSON file, and from CLI options
(which override the file). No secret is ever a plain field: the API key is read from the
environment variable named by ``api_key_env`` (or given as a SecretStr in Python), and
``public_dict()`` — what results and reports record — never includes it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ragmeter import redact as _redact
from ragmeter._config_file import read_table
from ragmeter.endpoints import litellm_base_url, openai_base_url
from ragmeter.errors import ConfigError, DataError, Problem
from ragmeter.metric_options import NO_SECRETS, check_options, closest, option_problems
from ragmeter.metric_options import MetricOptions as MetricOptions  # re-exported
from ragmeter.redact import (
    public_urls,
    reject_credentials,
    reject_query,
    reject_unusable,
    secret_name,
)

JUDGE_SPEC = re.compile(r"^(local(:[a-z0-9.]+)?|none|off|(openai|litellm|gguf):.+)$")
# What backends.embedders.make_embedder builds (litellm: none; a directory: checked apart).
EMBEDDER_SPEC = re.compile(r"^(local|default|none|off|(st|openai):.+)$")
# What a URL setting is called where the user gave it (CLI option, else the settings key).
_URL_OPTIONS = {"base_url": "--base-url (base_url)"}
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_VARIABLE = re.compile(r"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([^}]*)\})")
# The metric options that name a local model: a path as often as a Hugging Face name.
_PATH_OPTIONS = ("scorer_model", "reward_model", "faithfulness_calibration")


class PriceConfig(BaseModel):
    """US dollars per million tokens."""

    model_config = ConfigDict(extra="forbid")
    input: float = Field(ge=0)
    output: float = Field(0.0, ge=0)


def _env_url(data: Any) -> tuple[str, str | None]:
    """The URL setting the environment fills for these raw settings, and its value."""
    if not isinstance(data, dict) or data.get("base_url"):
        return "base_url", None
    judge = str(data.get("judge") or "").strip()
    if judge.startswith("openai:"):
        return "base_url", openai_base_url(None)
    if judge.startswith("litellm:") and (url := litellm_base_url(judge[8:], None)):
        return "base_url", url
    if str(data.get("embedder") or "").strip().startswith("openai:") and not data.get(
        "embedder_base_url"
    ):
        return "embedder_base_url", openai_base_url(None)
    return "base_url", None


EMBEDDERS = "local, st:PATH_OR_NAME, openai:MODEL, none or a sentence-transformers directory"


def default_cache_dir() -> str:
    from platformdirs import user_cache_dir

    return str(Path(user_cache_dir("ragmeter")) / "calls")


class Settings(BaseModel):
    """Everything that configures judges, embedders and the engine.

    Errors never repeat the value given (``hide_input_in_errors``): pydantic's text quoted
    it, so ``Settings(openai_api_key="sk-...")``, a header, or replica URLs given as a list
    with ``user:key@`` put the key in the traceback. The field and what it takes are said."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, hide_input_in_errors=True)

    judge: str = Field(
        "local", description="local | local:0.5b | openai:MODEL | litellm:MODEL | gguf:PATH | none"
    )
    base_url: str | None = Field(
        None, description="OpenAI-compatible server URL (the Ray executor takes a comma list)"
    )
    # the endpoint identity judge calls are cached under (default: base_url): replicas of one
    # model share it, so any replica's answer is reused
    cache_url: str | None = None
    api_key_env: str = Field("OPENAI_API_KEY", description="environment variable holding the key")
    api_key: SecretStr | None = Field(
        None, exclude=True, repr=False, description="the key itself (Python only; never stored)"
    )
    embedder: str = Field("local", description="local | st:PATH | openai:MODEL | none")
    embedder_base_url: str | None = Field(None, description="defaults to base_url")
    concurrency: int = Field(8, ge=1, le=1024, description="judge calls in flight")
    timeout: float = Field(120.0, gt=0, description="seconds per HTTP call (local calls: none)")
    max_retries: int = Field(4, ge=0, le=20, description="retries of a failed call (429, 5xx)")
    cache: str | None = Field(
        default_factory=default_cache_dir, description="cache directory, or 'off'"
    )
    prices: dict[str, PriceConfig] = Field(default_factory=dict)  # model -> USD per 1M tokens
    seed: int = 0
    temperature: float = Field(0.0, ge=0)
    # the structured output a remote judge is asked for; auto: found at preflight
    structured_mode: str = Field("auto", pattern="^(auto|json_schema|json_object|none)$")
    preflight: bool = True  # one tiny request to a remote judge before the run
    n_ctx: int | None = Field(None, ge=512, description="local judge window (tokens)")
    n_threads: int | None = Field(None, ge=1, description="local judge threads")
    modes: dict[str, str] = Field(default_factory=dict, description="metric -> mode")
    options: dict[str, Any] = Field(default_factory=dict, description="metric knobs")

    @model_validator(mode="wrap")
    @classmethod
    def _resolve_base_url(cls, data: Any, handler: Any) -> Any:
        """An OpenAI-compatible judge (else embedder) without a base URL gets
        ``$OPENAI_BASE_URL`` here, once: recorded in run.json and keying the cache as the
        server the calls really go to. So does a LiteLLM judge of a model LiteLLM sends to
        OpenAI (``litellm:openai/MODEL``, ``litellm:gpt-4o-mini``), with LiteLLM's own
        precedence (``litellm_base_url``); other providers get the endpoint LiteLLM
        resolves for them (``$OLLAMA_API_BASE``, ``$AZURE_API_BASE``, ...).

        The URL so found is not counted as given (``model_fields_set``): a setting the user
        gave and the judge cannot use is refused (``availability.unused_settings``), one the
        environment supplied is not the user's doing."""
        field, url = _env_url(data)
        settings = handler({**data, field: url} if url else data)
        if url and isinstance(settings, Settings):
            settings.__pydantic_fields_set__.discard(field)
        return settings

    @field_validator("judge")
    @classmethod
    def _judge_spec(cls, v: str) -> str:
        v = v.strip()
        if v.startswith("gguf:"):  # a path, as cache: "$MODELS/q.gguf" was taken literally
            v = "gguf:" + _expand(v[5:], "--judge (judge)")
        if not JUDGE_SPEC.match(v):
            raise ValueError(
                f"judge must be local, openai:MODEL, litellm:MODEL, gguf:PATH or none, not {v!r}"
            )
        return v

    @field_validator("embedder")
    @classmethod
    def _embedder_spec(cls, v: str) -> str:
        v = v.strip()
        if v.startswith("st:"):  # a path or a Hugging Face name; a directory: a path
            v = "st:" + _expand(v[3:], "--embedder (embedder)")
        elif not EMBEDDER_SPEC.match(v):
            v = _expand(v, "--embedder (embedder)")
        if not EMBEDDER_SPEC.match(v) and not Path(v).expanduser().is_dir():
            raise ValueError(
                f"embedder must be one of {EMBEDDERS}, not {v!r}"
                + (" (LiteLLM embeddings: openai:MODEL with --base-url)" if "litellm" in v else "")
            )
        return v

    @field_validator("base_url", "embedder_base_url", "cache_url")
    @classmethod
    def _no_credentials(cls, v: str | None, info: ValidationInfo) -> str | None:
        """Raises ConfigError itself, not ValueError: pydantic's ValidationError would repeat
        the input, password included, in its text."""
        option = _URL_OPTIONS.get(info.field_name or "", info.field_name or "url")
        reject_credentials(v, option)
        reject_query(v, option)
        if info.field_name != "cache_url":  # a cache server's URL need not be http(s)
            reject_unusable(v, option)
        return v

    @field_validator("api_key_env")
    @classmethod
    def _variable_name(cls, v: str) -> str:
        """A variable's name, else ConfigError that does not repeat it. Why: a key pasted
        here ("sk-...") was printed back in "the environment variable sk-... is not set"."""
        if not _ENV_NAME.fullmatch(v):
            raise ConfigError(
                "--api-key-env (api_key_env) takes the name of the environment variable "
                "holding the key (letters, digits and _, e.g. OPENAI_API_KEY), not the key "
                "itself; what was given is not such a name, and is not shown"
            )
        return v

    @field_validator("options")
    @classmethod
    def _options(cls, v: dict[str, Any]) -> dict[str, Any]:
        """Raises ConfigError itself: pydantic's error would echo the values, keys included.
        The local models' paths get ``$VARIABLE`` expanded as ``cache`` does."""
        if isinstance(v, dict):  # expanded first: the calibration file is read by the check
            v = {
                k: _expand(x, f"options.{k}") if k in _PATH_OPTIONS and isinstance(x, str) else x
                for k, x in v.items()
            }
        return check_options(v)

    @field_validator("cache")
    @classmethod
    def _cache(cls, v: str | None) -> str | None:
        """``~`` and ``$VARIABLE`` expanded, an unset one refused: a file's ``cache =
        "$HOME/x"`` (no shell reads it) made a directory named ``$HOME`` in the current one."""
        if v is None or v.strip().lower() in ("off", "none", "false", "0", ""):
            return None
        return str(Path(_expand(v, "--cache (cache)")).expanduser())

    # -- derived -------------------------------------------------------------------------
    @property
    def judge_kind(self) -> str:
        return self.judge.split(":", 1)[0]

    @property
    def judge_model(self) -> str:
        return self.judge.split(":", 1)[1] if ":" in self.judge else ""

    def metric_options(self) -> dict[str, Any]:
        """What metrics read from ``Resources.options``: the knobs plus the chosen modes."""
        return {**self.options, "modes": dict(self.modes)}

    def public_dict(self) -> dict[str, Any]:
        """The settings as recorded in results: no key, ever (only the variable's name)."""
        data = self.model_dump(mode="json", exclude={"api_key"})
        data["base_url"] = public_urls(self.base_url)
        data["embedder_base_url"] = public_urls(self.embedder_base_url)
        data["cache_url"] = public_urls(self.cache_url)
        return dict(_redact.redact_tree(data))

    def merged(self, **overrides: Any) -> Settings:
        """A copy with every override that is not None applied (CLI options over a file)."""
        return self._rebuilt({k: v for k, v in overrides.items() if v is not None})

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy, ``update`` validated: pydantic's own took ``update={"concurrency": 0}``
        unchecked, and the settings failed deep in a run, after the judge was paid."""
        return self._rebuilt(dict(update)) if update else super().model_copy(deep=deep)

    def _rebuilt(self, given: dict[str, Any]) -> Self:
        """``given`` over what was given here (``model_fields_set``); both stay given. A URL
        ``$OPENAI_BASE_URL`` filled is found anew: kept, it beat ``--base-url`` for an
        ``openai:`` embedder and went to a ``litellm:anthropic/`` judge."""
        data = {**self.model_dump(include=self.model_fields_set - secret_fields()), **given}
        rebuilt = type(self).model_validate(data)
        if "api_key" not in given and self.api_key is not None:
            rebuilt.api_key = self.api_key
        rebuilt.__pydantic_fields_set__ = set(self.model_fields_set) | set(given)
        return rebuilt

    @classmethod
    def from_file(cls, path: str | Path) -> Settings:
        """Load TOML or JSON; a ``[ragmeter]`` (or ``[tool.ragmeter]``) table is used if present.
        Nothing may stand beside ``[ragmeter]`` (it was silently ignored), no key hold a secret."""
        src = str(path)
        data = read_table(Path(path), _outside_problem)
        if "api_key" in data:
            raise DataError([Problem(None, "api_key", NO_SECRETS)], source=src)
        return cls.parse_dict(data, source=src, in_file=True)

    @classmethod
    def parse_dict(
        cls, data: dict[str, Any], source: str | None = None, *, in_file: bool = False
    ) -> Settings:
        """Settings from a dict; DataError listing every problem (unknown keys with the
        closest known name; no value of a URL or of a secret-looking key is shown). A file's
        (``in_file``) is never pointed to ``api_key``, a setting files may not hold."""
        options = data.get("options")
        _, problems = option_problems(options) if isinstance(options, dict) else ({}, [])
        try:  # the other settings too, so that every problem is said at once
            settings = cls.model_validate({k: v for k, v in data.items() if k != "options"})
        except ValidationError as exc:
            problems += [_problem(e, in_file=in_file) for e in exc.errors()]
        except ConfigError as exc:  # a URL: its message never holds the secret part
            problems.append(Problem(None, None, str(exc)))
        if problems:
            raise DataError(problems, source=source or "settings")
        if options is None:
            return settings
        try:
            return cls.model_validate(data)
        except ConfigError as exc:  # an option's path with an unset variable: name the file
            raise DataError([Problem(None, None, str(exc))], source=source or "settings") from None


def _expand(value: str, option: str) -> str:
    """``value`` with ``$VARIABLE`` and ``${VARIABLE}`` expanded (``~`` is left to whoever
    opens the path), an unset variable refused naming it. Why: no shell reads a settings
    file, and a path taken literally was "not found" with ``$MODELS`` in its name."""
    expanded = os.path.expandvars(value)
    if unset := _VARIABLE.search(expanded):  # expandvars leaves an unset one as it is
        name = unset.group(1) or unset.group(2)
        raise ConfigError(f"{option}: the environment variable {name} is not set")
    return expanded


def _outside_problem(key: str) -> Problem:
    """A top-level key beside the [ragmeter] table: ignored until now, refused."""
    where = "beside the [ragmeter] table: settings go inside it"
    fields = _file_settings()
    return Problem(None, key, NO_SECRETS if secret_name(key) else where + closest(key, fields))


def _file_settings() -> list[str]:
    """The settings a file may hold: all but the secrets (``from_file`` refuses them)."""
    return [name for name in Settings.model_fields if name not in secret_fields()]


def _problem(e: Any, *, in_file: bool = False) -> Problem:
    """One pydantic error as a Problem; an unknown key gets the closest known name (of those
    a file may hold, for a file's)."""
    loc = [str(x) for x in e["loc"]]
    if e["type"] != "extra_forbidden":
        return Problem(None, ".".join(loc) or None, e["msg"])
    name = loc[-1]
    if loc[0] == "prices":
        known = list(PriceConfig.model_fields)
    else:
        known = _file_settings() if in_file else list(Settings.model_fields)
    if len(loc) == 1 and name in MetricOptions.model_fields:
        # before the secret check: max_context_tokens was told it looked like a key
        why = "an option of the metrics, not a setting: put it under [ragmeter.options]"
    else:
        why = NO_SECRETS if secret_name(name) else "unknown setting" + closest(name, known)
    return Problem(None, ".".join(loc), why)


def secret_fields() -> frozenset[str]:
    """The Settings fields that hold a secret: those hidden from its repr (``api_key``)."""
    return frozenset(name for name, f in Settings.model_fields.items() if f.repr is False)


def hide_secrets(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` (Settings fields as a dict) with every secret held as a SecretStr.

    Why: a dict of options often lives in an object whose repr is printed (pytest shows the
    objects of a failed assert, and fixture locals with ``-l``): a plain string key would
    land in CI logs. A SecretStr prints as '**********' and Settings accepts it as it is.
    """
    hidden = secret_fields()
    return {
        k: SecretStr(v) if k in hidden and isinstance(v, str) else v for k, v in options.items()
    }


def as_settings(value: Settings | dict[str, Any] | str | Path | None) -> Settings:
    """Accept what ``evaluate(settings=...)`` may be given: Settings, a dict, a file, None;
    anything else is a DataError naming these (a number or a list was pathlib's TypeError)."""
    if value is None:
        return Settings()
    if isinstance(value, Settings):
        return value
    if isinstance(value, dict):
        return Settings.parse_dict(value)
    if isinstance(value, (str, os.PathLike)):
        return Settings.from_file(value)
    accepted = "a Settings, a dict of settings, the path of a TOML or JSON file, or None"
    said = f"settings must be {accepted}, not {type(value).__name__}"
    raise DataError([Problem(None, "settings", said)])


def settings_from_options(
    config: str | Path | None = None, *, modes: list[str] | None = None, **options: Any
) -> Settings:
    """Settings from a config file (optional) overridden by CLI options that were given.
    ``modes``: ``metric=mode`` strings over the file's ``modes``; ``option_items``:
    ``name=value`` strings (``--option``) over its ``options``."""
    base = Settings.from_file(config) if config is not None else Settings()
    items = options.pop("option_items", None)
    overrides = {k: v for k, v in options.items() if v is not None}
    if items:
        from ragmeter.metric_options import parse_option_items

        overrides["options"] = {**base.options, **parse_option_items(items)}
    if modes:
        parsed = dict(base.modes)
        bad = []
        for item in modes:
            name, sep, mode = item.partition("=")
            if not sep or not name.strip() or not mode.strip():
                bad.append(Problem(None, "--mode", f"expected METRIC=MODE, got {item!r}"))
                continue
            parsed[name.strip()] = mode.strip()
        if bad:
            raise DataError(bad, source="command line")
        overrides["modes"] = parsed
    try:
        return base.merged(**overrides)
    except ValidationError as exc:
        raise DataError([_problem(e) for e in exc.errors()], source="command line") from None
