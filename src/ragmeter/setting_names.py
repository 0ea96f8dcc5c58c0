"""How a message names a setting the user gave: by the option the command took it by, else as
a setting of its --config file.

Why: ``evaluate`` and ``meta-eval`` refuse the same settings with the same words
(``availability.unused_settings``, ``judge_problem``), but meta-eval has fewer options of its
own; a ``preflight = false`` in its --config file was refused as "--no-preflight (preflight)
is given", an option meta-eval does not have. Each command passes the settings it has options
for (``cli_options``; evaluate's are the default) and the message follows.
"""

from __future__ import annotations

import json
from collections.abc import Collection

# The option of its own that a command may take each setting named in these messages by.
# evaluate takes all four; meta-eval only --base-url (``meta_eval._api.CLI_OPTIONS``).
SETTING_OPTIONS = {
    "base_url": "--base-url",
    "api_key_env": "--api-key-env",
    "structured_mode": "--structured-output",
    "preflight": "--preflight",  # and --no-preflight
}
EVALUATE_OPTIONS = frozenset(SETTING_OPTIONS)


def as_given(
    field: str, value: str | bool, cli_options: Collection[str] = EVALUATE_OPTIONS
) -> tuple[str, str]:
    """The setting as the user gave it, and the fix of leaving it out: ``("--structured-output
    (structured_mode) none is given", "leave --structured-output out")`` where the command has
    the option, ``('structured_mode = "none" is given in the settings (--config)', "leave
    structured_mode out of the settings")`` where it has none (the value as TOML and JSON
    write it)."""
    if field not in cli_options:
        return (
            f"{field} = {json.dumps(value)} is given in the settings (--config)",
            f"leave {field} out of the settings",
        )
    option = SETTING_OPTIONS[field]
    if field == "preflight":
        option = option if value else "--no-preflight"
        return f"{option} ({field}) is given", f"leave {option} out"
    return f"{option} ({field}) {value} is given", f"leave {option} out"


def key_option(cli_options: Collection[str] = EVALUATE_OPTIONS) -> str:
    """Where to name another API key variable: ``--api-key-env``, or the setting
    ``api_key_env`` of the --config file for a command without that option."""
    return (
        "--api-key-env"
        if "api_key_env" in cli_options
        else "api_key_env in the settings (--config)"
    )
