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


# Not a setting: the modules whose import registers metrics (``ragmeter.plugins``).
PLUGINS = "plugins"


def read_table(path: Path, outside: Callable[[str], Problem]) -> dict[str, Any]:
    """The settings of a TOML or JSON file (``_read``), its ``plugins`` checked and left out.

    Why left out: the plugins are imported by the commands that name metrics (``ragmeter
    evaluate``, ``load_plugins(config=...)``) before the settings are built, so that options
    a plugin's metric declares are known; a reader that names no metric (meta-eval) has no
    use for them, and ``Settings`` refused the key as an unknown setting."""
    data = _read(path, outside)
    _plugins(str(path), data)  # a malformed list is refused whoever reads the file
    return {k: v for k, v in data.items() if k != PLUGINS}


def plugins_in(path: Path, outside: Callable[[str], Problem]) -> list[str]:
    """The plugins a settings file names: ``plugins = ["mypkg.metrics", "metrics/x.py"]``."""
    return _plugins(str(path), _read(path, outside))


def _plugins(src: str, data: dict[str, Any]) -> list[str]:
    given = data.get(PLUGINS, [])
    if not isinstance(given, list) or not all(isinstance(p, str) and p.strip() for p in given):
        file_error(
            src,
            "plugins must be a list of module names or .py paths, e.g. "
            'plugins = ["mypkg.metrics", "metrics/domain.py"]',
        )
    return [p.strip() for p in given]


def _read(path: Path, outside: Callable[[str], Problem]) -> dict[str, Any]:
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
