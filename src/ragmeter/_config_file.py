"""Reading a settings file: TOML or JSON, and which of its tables holds ragmeter's settings.

Apart from ``config`` (which checks the settings themselves) so that each stays one job and
under the size limit. What is refused here is refused before any setting is looked at.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from ragmeter._json_rows import parse_json
from ragmeter.errors import DataError, Problem


def file_error(source: str, message: str) -> NoReturn:
    raise DataError([Problem(None, None, message)], source=source)


def read_table(path: Path, outside: Callable[[str], Problem]) -> dict[str, Any]:
    """The settings table of a TOML or JSON file: ``[tool.ragmeter]`` (a pyproject.toml),
    else ``[ragmeter]``, else the whole file. ``outside`` says why a key beside ``[ragmeter]``
    is refused (it was silently ignored).

    A file holding both ``[tool.ragmeter]`` and ``[ragmeter]`` is refused: one of them was
    silently ignored, and which one is not something a user can guess."""
    src = str(path)
    suffix = path.suffix.lower()
    if suffix not in ("", ".toml", ".json"):
        file_error(src, f"a {suffix} file is not read: settings files are TOML or JSON")
    try:
        text = path.read_text(encoding="utf-8-sig")  # a BOM (Notepad's) is no TOML error
    except (OSError, UnicodeDecodeError) as exc:
        file_error(src, f"cannot read config file: {exc}")
    kind = "JSON" if suffix == ".json" else "TOML"
    try:
        data = parse_json(text) if kind == "JSON" else tomllib.loads(text)
    except ValueError as exc:
        file_error(src, f"not valid {kind}: {exc}")
    if not isinstance(data, dict):
        table = "JSON object" if kind == "JSON" else "TOML table"
        file_error(src, f"expected a {table} of settings, not {type(data).__name__}")
    tool = data.get("tool")
    if isinstance(tool, dict) and "ragmeter" in tool:  # pyproject.toml: other tools' tables
        if "ragmeter" in data:
            file_error(
                src,
                "both [tool.ragmeter] and [ragmeter] hold settings, and only one would be "
                "read: keep [tool.ragmeter] (in a pyproject.toml) and move the settings of "
                "[ragmeter] into it",
            )
        data = tool["ragmeter"]
    elif "ragmeter" in data:
        problems = [outside(k) for k in data if k != "ragmeter"]
        if problems:
            raise DataError(problems, source=src)
        data = data["ragmeter"]
    if not isinstance(data, dict):
        file_error(src, f"the ragmeter table must be a table, not {type(data).__name__}")
    return data
