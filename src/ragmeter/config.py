"""Settings for the model-based metrics: which judge and embedder, how hard to push them.

One pydantic object, loadable from Python, from a TOML or JSON file, and from CLI options
(which override the file). No secret is ever a plain field: the API key is read from the
environment variable named by ``api_key_env`` (or given as a SecretStr in Python), and
``public_dict()`` — what results and reports record — never includes it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

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

from ragmeter.errors import ConfigError, DataError, Problem
from ragmeter.redact import public_url, reject_credentials

JUDGE_SPEC = re.compile(r"^(local(:[a-z0-9.]+)?|none|off|(openai|litellm|gguf):.+)$")
EMBEDDER_SPEC = re.compile(r"^(local|default|none|off|(st|openai|litellm):.+)$")
# What a URL setting is called where the user gave it (CLI option, else the settings key).
_URL_OPTIONS = {"base_url": "--base-url (base_url)"}
BASE_URL_ENV = "OPENAI_BASE_URL"  # what the openai client follows when no base URL is given


def openai_base_url(explicit: str | None) -> str | None:
    """The server an OpenAI client talks to: ``explicit``, else ``$OPENAI_BASE_URL`` (when
    set and not empty), else None (OpenAI's own API): the openai SDK's own precedence.

    Why resolve it ourselves: the SDK reads the variable only when the client is built, so
    run.json and the cache identity recorded api.openai.com for calls that went elsewhere,
    and a later run without the variable was served those answers as OpenAI's.
    """
    if explicit:
        return explicit
    env = os.environ.get(BASE_URL_ENV, "").strip()
    if not env:
        return None
    reject_credentials(env, BASE_URL_ENV)
    _reject_query(env, BASE_URL_ENV)
    return env


class PriceConfig(BaseModel):
    """US dollars per million tokens."""

    model_config = ConfigDict(extra="forbid")
    input: float = Field(ge=0)
    output: float = Field(0.0, ge=0)


def default_cache_dir() -> str:
    from platformdirs import user_cache_dir

    return str(Path(user_cache_dir("ragmeter")) / "calls")


class Settings(BaseModel):
    """Everything that configures judges, embedders and the engine."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    judge: str = Field(
        "local", description="local | local:0.5b | openai:MODEL | litellm:MODEL | gguf:PATH | none"
    )
    base_url: str | None = Field(
        None, description="OpenAI-compatible server URL (the Ray executor takes a comma list)"
    )
    cache_url: str | None = Field(
        None,
        description="the endpoint identity judge calls are cached under (default: base_url); "
        "replicas of one model share it, so any replica's answer is reused",
    )
    api_key_env: str = Field("OPENAI_API_KEY", description="environment variable holding the key")
    api_key: SecretStr | None = Field(
        None, exclude=True, repr=False, description="the key itself (Python only; never stored)"
    )
    embedder: str = Field("local", description="local | st:PATH | openai:MODEL | none")
    embedder_base_url: str | None = Field(None, description="defaults to base_url")
    concurrency: int = Field(8, ge=1, le=1024, description="judge calls in flight")
    timeout: float = Field(120.0, gt=0, description="seconds per HTTP call (local calls: none)")
    max_retries: int = Field(4, ge=0, le=20)
    cache: str | None = Field(
        default_factory=default_cache_dir, description="cache directory, or 'off'"
    )
    prices: dict[str, PriceConfig] = Field(
        default_factory=dict, description="model -> USD per 1M tokens"
    )
    seed: int = 0
    temperature: float = Field(0.0, ge=0)
    structured_mode: str = Field(
        "auto",
        pattern="^(auto|json_schema|json_object|none)$",
        description="structured output a remote judge is asked for; auto: found at preflight",
    )
    preflight: bool = Field(
        True, description="send one tiny request to a remote judge before the run"
    )
    n_ctx: int | None = Field(None, ge=512, description="local judge window (tokens)")
    n_threads: int | None = Field(None, ge=1, description="local judge threads")
    modes: dict[str, str] = Field(default_factory=dict, description="metric -> mode")
    options: dict[str, Any] = Field(default_factory=dict, description="metric knobs")

    @model_validator(mode="before")
    @classmethod
    def _resolve_base_url(cls, data: Any) -> Any:
        """An OpenAI-compatible judge (else embedder) without a base URL gets
        ``$OPENAI_BASE_URL`` here, once: recorded in run.json and keying the cache as the
        server the calls really go to. Not for litellm, whose providers read their own."""
        if not isinstance(data, dict) or data.get("base_url"):
            return data
        if str(data.get("judge") or "").strip().startswith("openai:"):
            field = "base_url"
        elif str(data.get("embedder") or "").strip().startswith("openai:"):
            field = "embedder_base_url"
        else:
            return data
        url = None if data.get(field) else openai_base_url(None)
        return {**data, field: url} if url else data

    @field_validator("judge")
    @classmethod
    def _judge_spec(cls, v: str) -> str:
        v = v.strip()
        if not JUDGE_SPEC.match(v):
            raise ValueError(
                f"judge must be local, openai:MODEL, litellm:MODEL, gguf:PATH or none, not {v!r}"
            )
        return v

    @field_validator("embedder")
    @classmethod
    def _embedder_spec(cls, v: str) -> str:
        v = v.strip()
        if not EMBEDDER_SPEC.match(v) and not Path(v).expanduser().is_dir():
            raise ValueError(
                f"embedder must be local, st:PATH_OR_NAME, openai:MODEL or none, not {v!r}"
            )
        return v

    @field_validator("base_url", "embedder_base_url", "cache_url")
    @classmethod
    def _no_credentials(cls, v: str | None, info: ValidationInfo) -> str | None:
        """Raises ConfigError itself, not ValueError: pydantic's ValidationError would repeat
        the input, password included, in its text."""
        option = _URL_OPTIONS.get(info.field_name or "", info.field_name or "url")
        reject_credentials(v, option)
        _reject_query(v, option)
        return v

    @field_validator("cache")
    @classmethod
    def _cache(cls, v: str | None) -> str | None:
        if v is None or v.strip().lower() in ("off", "none", "false", "0", ""):
            return None
        return str(Path(v).expanduser())

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
        data["base_url"] = _public_url(self.base_url)
        data["embedder_base_url"] = _public_url(self.embedder_base_url)
        data["cache_url"] = _public_url(self.cache_url)
        return data

    def merged(self, **overrides: Any) -> Settings:
        """A copy with every override that is not None applied (CLI options over a file)."""
        data = self.model_dump(exclude={"api_key"})
        data.update({k: v for k, v in overrides.items() if v is not None})
        merged = Settings.model_validate(data)
        if self.api_key is not None:
            merged.api_key = self.api_key
        return merged

    @classmethod
    def from_file(cls, path: str | Path) -> Settings:
        """Load TOML or JSON; a ``[ragmeter]`` (or ``[tool.ragmeter]``) table is used if present."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise DataError(
                [Problem(None, None, f"cannot read config file: {exc}")], source=str(path)
            ) from None
        try:
            if path.suffix.lower() == ".json":
                data = json.loads(text)
            else:
                import tomllib

                data = tomllib.loads(text)
        except ValueError as exc:
            raise DataError(
                [Problem(None, None, f"not valid {path.suffix[1:] or 'TOML'}: {exc}")],
                source=str(path),
            ) from None
        if isinstance(data.get("tool"), dict) and "ragmeter" in data["tool"]:
            data = data["tool"]["ragmeter"]
        elif isinstance(data.get("ragmeter"), dict):
            data = data["ragmeter"]
        if "api_key" in data:
            raise DataError(
                [
                    Problem(
                        None,
                        "api_key",
                        "do not put keys in config files: set "
                        "api_key_env to the name of an environment variable",
                    )
                ],
                source=str(path),
            )
        return cls.parse_dict(data, source=str(path))

    @classmethod
    def parse_dict(cls, data: dict[str, Any], source: str | None = None) -> Settings:
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            problems = [
                Problem(None, ".".join(map(str, e["loc"])) or None, e["msg"]) for e in exc.errors()
            ]
            raise DataError(problems, source=source or "settings") from None


def _reject_query(url: str | None, option: str) -> None:
    """ConfigError when a URL (or any URL of a comma list) has a query string or fragment.

    Why refuse: the client appends the API path to the base URL, so ``/v1?api-key=K``
    becomes ``/v1/?api-key=Kchat/completions`` (every call fails), and such a query usually
    holds a key, which would then be in error messages and reprs. As for ``user:password@``
    (``reject_credentials``), the message names the URL without its query, never the query.
    """
    for part in (url or "").split(","):
        part = part.strip()
        if "?" not in part and "#" not in part:
            continue
        try:
            public = public_url(part)
        except ValueError:  # an unparseable URL is the client's to report
            public = "the URL without it"
        raise ConfigError(
            f"{option}: a query string or fragment in the URL (?... or #...) is not accepted: "
            f"give {public} and put the key in the environment variable named by "
            "--api-key-env (api_key_env, default OPENAI_API_KEY)"
        )


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


def _public_url(url: str | None) -> str | None:
    """Each URL of a comma list without credentials, query or fragment."""
    if url is None:
        return None
    return ",".join(public_url(u.strip()) for u in url.split(",") if u.strip())


def as_settings(value: Settings | dict[str, Any] | str | Path | None) -> Settings:
    """Accept what ``evaluate(settings=...)`` may be given: Settings, a dict, a file, None."""
    if value is None:
        return Settings()
    if isinstance(value, Settings):
        return value
    if isinstance(value, dict):
        return Settings.parse_dict(value)
    return Settings.from_file(value)


def settings_from_options(
    config: str | Path | None = None, *, modes: list[str] | None = None, **options: Any
) -> Settings:
    """Settings from a config file (optional) overridden by CLI options that were given.

    ``modes`` holds ``metric=mode`` strings, merged over the file's ``modes`` table.
    """
    base = Settings.from_file(config) if config is not None else Settings()
    overrides = {k: v for k, v in options.items() if v is not None}
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
        problems = [
            Problem(None, ".".join(map(str, e["loc"])) or None, e["msg"]) for e in exc.errors()
        ]
        raise DataError(problems, source="command line") from None
