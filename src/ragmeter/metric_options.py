"""The metric knobs ``Settings.options`` may set, checked by name, type and range.

A module of its own to keep config.py (Settings, files, CLI options) under 400 lines; config
re-exports what it defines.
"""

from __future__ import annotations

import difflib
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragmeter.errors import ConfigError, Problem
from ragmeter.redact import redact, secret_name

NO_SECRETS = (
    "keys and other secrets are not accepted in settings (they would be recorded in run.json, "
    "summary.json and reports): put the key in an environment variable and name it with "
    "--api-key-env (api_key_env, default OPENAI_API_KEY)"
)


Count = Annotated[int, Field(strict=True, ge=0)]  # strict: true and "3" are not counts
Weight = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class MetricOptions(BaseModel):
    """Every metric knob ``Settings.options`` may set, with its type and range.

    Why declared: metrics read options by name while scoring, so a misspelt name was
    ignored and a mistyped value failed every score after the judge was paid. Checked when
    the settings are built instead. Defaults live with the metrics that read them.
    """

    model_config = ConfigDict(extra="forbid")
    mode: str | None = None  # every metric's mode, unless ``modes`` names one
    evidence: Literal["auto", "embedding", "lexical"] = "auto"  # resources.EVIDENCE_CHOICES
    group_verdicts: Literal["on", "off"] = "off"
    evidence_k: Count = 3  # context sentences kept per claim; 0: the whole context
    max_context_tokens: Annotated[int, Field(strict=True, ge=1)] | None = None
    faithfulness_combine: Literal["calibrated", "judge"] | None = None  # faithfulness.VARIANTS
    answer_relevance_n: Annotated[int, Field(strict=True, ge=1)] = 3
    context_relevance_candidates: Count = 6  # 0: every sentence
    answer_correctness_weights: tuple[Weight, Weight] = (0.75, 0.25)
    scorer_model: str | None = None  # a local Hugging Face LM's path or name
    reward_model: str | None = None


def check_options(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` checked against MetricOptions (values normalised); ConfigError naming
    every problem (``option_problems``)."""
    checked, problems = option_problems(options)
    if problems:
        raise ConfigError("; ".join(f"{p.field}: {p.message}" for p in problems))
    return checked


def option_problems(options: dict[str, Any]) -> tuple[dict[str, Any], list[Problem]]:
    """The options MetricOptions accepts, and a Problem for each other one. An unknown name
    gets the closest known one; a name that would hold a secret points to the environment
    variable, and its value is never echoed."""
    problems, known = [], list(MetricOptions.model_fields)
    for name in (n for n in options if n not in known):
        if name == "modes":
            why = "a setting of its own ([ragmeter.modes], --mode METRIC=MODE)"
        else:
            why = NO_SECRETS if secret_name(name) else "unknown option" + closest(name, known)
        problems.append(Problem(None, f"options.{name}", why))
    try:
        checked = MetricOptions.model_validate({k: v for k, v in options.items() if k in known})
    except ValidationError as exc:
        for e in exc.errors():
            shown = redact(repr(e["input"]))  # a key pasted into a known option stays unsaid
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            where = "options." + ".".join(map(str, e["loc"]))
            problems.append(Problem(None, where, f"{e['msg'].lower()}, not {shown}"))
        return {}, problems
    # An option at its default is left out: ``evidence_k = 3`` written in a file is the run
    # made without it (the resume fingerprint compares options), not "other settings".
    return checked.model_dump(mode="json", exclude_defaults=True), problems


def closest(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    return f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(known)})"
