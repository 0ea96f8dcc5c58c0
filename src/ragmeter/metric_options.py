"""The metric knobs ``Settings.options`` may set, checked by name, type and range.

A module of its own to keep config.py (Settings, files, CLI options) under 400 lines; config
re-exports what it defines. A user's metric declares the options it reads when registered
(``register_metric(metric, options={...})``, ``declare_options``): checked here as these are.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ragmeter.errors import ConfigError, DataError, Problem
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
    # a calibration file (``meta-eval labels --fit-calibration``) in place of the package's;
    # its content is checked in ``option_problems`` (``read_calibration_file``)
    faithfulness_calibration: Annotated[str, Field(min_length=1)] | None = None
    answer_relevance_n: Annotated[int, Field(strict=True, ge=1)] = 3
    context_relevance_candidates: Count = 6  # 0: every sentence
    answer_correctness_weights: tuple[Weight, Weight] = (0.75, 0.25)
    scorer_model: str | None = None  # a local Hugging Face LM's path or name
    reward_model: str | None = None
    hf_device: str = "cpu"  # the torch device of scorer_model and reward_model

    @field_validator("hf_device")
    @classmethod
    def _torch_knows(cls, device: str) -> str:
        """Refuse a device torch cannot use here, when the settings are made: not a failure
        of every sample once the model loads. Torch is imported only for a device not cpu."""
        if device != "cpu" and (why := device_problem(device)) is not None:
            raise ValueError(f"{device!r} cannot run the Hugging Face models: {why}")
        return device


def device_problem(device: str) -> str | None:
    """Why torch cannot run the Hugging Face models on ``device``, or None. Why: only "cpu"
    was possible; a device asked for must be refused before any work, not fail every sample
    ("Torch not compiled with CUDA enabled") once the model loads."""
    try:
        import torch
    except ImportError as exc:
        return f"torch is not installed ({exc}): pip install 'ragmeter[hf]'"
    try:
        where = torch.device(device)
    except (RuntimeError, ValueError, TypeError):
        return "not a torch device (cpu, cuda, cuda:N, mps)"
    if where.type == "cuda":
        n = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if n == 0:
            return "no CUDA device is available on this machine (torch sees none)"
        if where.index is not None and where.index >= n:
            return f"this machine has {n} CUDA device(s): cuda:0 to cuda:{n - 1}"
    elif where.type == "mps" and not torch.backends.mps.is_available():
        return "no MPS (Apple GPU) device is available on this machine"
    elif where.type not in ("cpu", "cuda", "mps"):
        return f"the {where.type} device is not supported here: use cpu, cuda or mps"
    return None


# A user's metric's options, by option name: (the metric's name, its default). Why a table
# and not a model: they are declared at run time, by ``register_metric``.
_DECLARED: dict[str, tuple[str, bool | int | float | str]] = {}
_OPTION_RE = re.compile(r"^[a-z][a-z0-9_]*$")


def declare_options(metric: str, options: Mapping[str, Any], *, check_only: bool = False) -> None:
    """Make ``options`` (option name -> default) known for the user's metric ``metric``; its
    earlier declaration is replaced. The default's type (bool, int, float, str) is the type a
    value must have. A name must start with ``<metric>_`` (so no built-in's or other metric's
    knob is taken) and hold no secret. ValueError saying what is wrong, nothing declared;
    ``check_only``: only that check. A template's options are declared as ``prefix@k`` (the
    name its listing shows), each named ``<prefix>_<what>``: kept apart from a metric named
    ``prefix``, whose own declaration replacing them would drop the template's."""
    problems = []
    stem = metric[:-2] if metric.endswith("@k") else metric
    if not isinstance(options, Mapping):
        raise ValueError(f"options takes a dict of option name -> default, not {options!r}")
    for name, default in options.items():
        if not isinstance(name, str) or not _OPTION_RE.fullmatch(name):
            problems.append(f"option {name!r}: lower-case letters, digits and _")
        elif not name.startswith(f"{stem}_") or name == f"{stem}_":
            problems.append(f"option {name!r}: name it {stem}_<what> (after its metric)")
        elif name in MetricOptions.model_fields or name == "modes":
            problems.append(f"option {name!r} is a built-in option")
        elif secret_name(name):
            problems.append(f"option {name!r}: {NO_SECRETS}")
        elif _DECLARED.get(name, (metric,))[0] != metric:
            problems.append(f"option {name!r} is declared by {_DECLARED[name][0]!r}")
        if not isinstance(default, (bool, int, float, str)) or (
            isinstance(default, float) and not math.isfinite(default)
        ):
            problems.append(
                f"option {name!r}: the default is a bool, int, finite float or str "
                f"(its type is the option's), not {type(default).__name__}"
            )
    if problems:
        raise ValueError("; ".join(problems))
    if check_only:
        return
    forget_options(metric)
    _DECLARED.update({name: (metric, default) for name, default in options.items()})


def forget_options(metric: str) -> None:
    """Drop the options the user's metric ``metric`` declared."""
    for name in [n for n, (owner, _) in _DECLARED.items() if owner == metric]:
        del _DECLARED[name]


def declared_defaults(metric: str) -> dict[str, Any]:
    """The options ``metric`` declared, at their defaults."""
    return {name: default for name, (owner, default) in _DECLARED.items() if owner == metric}


def _declared_problem(name: str, value: Any) -> tuple[Any, str | None]:
    """``value`` of the declared option ``name`` normalised (an int for a float option is
    that float), or a message: strict, as the built-ins' counts are (no "3", no true for 1)."""
    default = _DECLARED[name][1]
    want = type(default)
    if want is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if type(value) is not want or (want is float and not math.isfinite(value)):
        shown = redact(repr(value))
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        return None, f"{_DECLARED[name][0]}'s option takes a {want.__name__}, not {shown}"
    return value, None


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
    declared: dict[str, Any] = {}
    for name in (n for n in options if n not in known):
        if name in _DECLARED:
            value, why = _declared_problem(name, options[name])
            if why is not None:
                problems.append(Problem(None, f"options.{name}", why))
            elif value != _DECLARED[name][1]:  # at its default: left out, as below
                declared[name] = value
            continue
        if name == "modes":
            why = "a setting of its own ([ragmeter.modes], --mode METRIC=MODE)"
        else:
            hint = closest(name, [*known, *_DECLARED])
            why = NO_SECRETS if secret_name(name) else "unknown option" + hint
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
    out = checked.model_dump(mode="json", exclude_defaults=True)
    if (cal := checked.faithfulness_calibration) is not None:
        try:  # before any work: a bad file failed every faithfulness score after the judge
            read_calibration_file(cal)
            # absolute: the file the settings checked, wherever a worker runs (a Ray
            # actor's current directory is not the caller's)
            out["faithfulness_calibration"] = str(calibration_path(cal).absolute())
        except ValueError as exc:
            problems.append(Problem(None, "options.faithfulness_calibration", str(exc)))
    # An option at its default is left out: ``evidence_k = 3`` written in a file is the run
    # made without it (the resume fingerprint compares options), not "other settings".
    return {**out, **declared}, problems


def closest(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    return f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(known)})"


# A user's faithfulness calibration file: the schema of prompts/faithfulness_calibration.json.
CALIBRATION_TERMS = ("intercept", "logit_p_yes", "lexical_support", "missing_specific")
_CALIBRATION_MAX_BYTES = 1 << 20  # a fitted calibration is a few kB; a data set is not one


def calibration_path(value: str) -> Path:
    """The option's path with ``~`` and ``$VARIABLE`` expanded; a relative one stays relative
    to the current directory (as every path on the command line and in settings files)."""
    return Path(os.path.expandvars(value)).expanduser()


def read_calibration_file(value: str) -> tuple[dict[str, Any], str]:
    """The calibration file named by ``options.faithfulness_calibration``, checked, and the
    sha256 of its bytes. ValueError, one line naming the file and what is wrong; the file's
    content is never echoed (it could be anything). Why here, below the metrics: the settings
    check it when they are built, before any judge call; the metric and run.json read it
    again through this function, so all three agree on what a valid file is."""
    path = calibration_path(value)
    where = f"calibration file {redact(value)!r}"
    try:
        with path.open("rb") as fh:
            data = fh.read(_CALIBRATION_MAX_BYTES + 1)
    except FileNotFoundError:
        cwd = "" if path.is_absolute() else f" (relative to the current directory {os.getcwd()})"
        raise ValueError(f"{where}: no such file{redact(cwd)}") from None
    except IsADirectoryError:
        raise ValueError(f"{where}: is a directory, not a file") from None
    except OSError as exc:
        raise ValueError(
            f"{where}: cannot be read ({exc.strerror or type(exc).__name__})"
        ) from None
    if len(data) > _CALIBRATION_MAX_BYTES:
        raise ValueError(f"{where}: larger than 1 MiB, not a calibration file")
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError(f"{where}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: not JSON ({exc.msg}, line {exc.lineno})") from None
    if (why := _calibration_schema_problem(doc)) is not None:
        raise ValueError(f"{where}: {why}")
    return doc, hashlib.sha256(data).hexdigest()


def _calibration_schema_problem(doc: Any) -> str | None:
    """What keeps ``doc`` from being a faithfulness calibration, or None."""
    if not isinstance(doc, dict):
        return f"a JSON object with version and coefficients, not a {type(doc).__name__}"
    version = doc.get("version")
    if not isinstance(version, str) or not version.strip():
        return "no version: 'version' must be a non-empty string"
    terms = doc.get("coefficients")
    if not isinstance(terms, dict):
        return f"'coefficients' must be an object holding {', '.join(CALIBRATION_TERMS)}"
    if missing := [t for t in CALIBRATION_TERMS if t not in terms]:
        return f"coefficient(s) missing: {', '.join(missing)}"
    if unknown := sorted(set(terms) - set(CALIBRATION_TERMS)):
        shown = ", ".join(redact(str(t))[:40] for t in unknown[:3])
        return f"unknown coefficient(s): {shown} (known: {', '.join(CALIBRATION_TERMS)})"
    for t in CALIBRATION_TERMS:
        v = terms[t]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not _finite(v):
            return f"coefficient {t} must be a finite number"
    if not isinstance(doc.get("provenance", {}), dict):
        return "'provenance' must be an object"
    return None


def _finite(v: float) -> bool:
    try:
        return math.isfinite(v)
    except OverflowError:  # an integer too large for a float
        return False


def parse_option_items(items: list[str]) -> dict[str, Any]:
    """``--option NAME=VALUE`` strings as options: VALUE read as a JSON literal when it is
    one (``evidence_k=0`` is the number 0, ``answer_correctness_weights=[0.5,0.5]`` a list,
    ``group_verdicts=on`` and ``faithfulness_calibration=cal.json`` stay strings; quote a
    string that reads as a number: ``'x="3"'``). Why: a run's options could only come from a
    ``--config`` file, so a calibration just fitted (``meta-eval labels --fit-calibration``)
    needed a file written to be used. Names and values are checked as the file's are."""
    parsed: dict[str, Any] = {}
    bad = []
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name.strip() or not raw.strip():
            bad.append(Problem(None, "--option", f"expected NAME=VALUE, got {item!r}"))
            continue
        try:
            value: Any = json.loads(raw)
        except ValueError:
            value = raw.strip()
        parsed[name.strip()] = value
    if bad:
        raise DataError(bad, source="command line")
    return parsed
