"""Metric plugins: modules whose import registers metrics (``register_metric``), so that the
command line can run a team's own metric: ``--plugin mypkg.metrics`` or ``--plugin
path/to/metrics.py``, ``plugins = [...]`` in a ``--config`` file, and the modules installed
packages publish under the entry-point group ``ragmeter.plugins`` (as pytest's ``pytest11``).

Nothing here runs on ``import ragmeter``: a library import must not execute code other
packages installed. The CLI loads the plugins when a command that names metrics starts
(``evaluate``, its ``--dry-run``, ``metrics``); a Python user calls ``load_plugins``. What a
plugin registered is remembered (``loaded``, ``origin_of``) so that run.json can say which
plugin defined a metric.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any

from ragmeter._config_file import plugins_in
from ragmeter.errors import ConfigError, MetricError
from ragmeter.metrics.registry import registered_names
from ragmeter.redact import describe

GROUP = "ragmeter.plugins"
AUTOLOAD_OFF = "RAGMETER_DISABLE_PLUGIN_AUTOLOAD"  # as PYTEST_DISABLE_PLUGIN_AUTOLOAD
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


@dataclass(frozen=True)
class Plugin:
    """One plugin loaded: ``name`` as given (a module name, a .py path as written, or an
    entry point's module), ``kind`` ("module", "file" or "entry_point"), the module's name
    in ``sys.modules`` and the metrics (``prefix@k`` for a template) its import registered."""

    name: str
    kind: str
    module: str
    metrics: tuple[str, ...]

    def record(self) -> dict[str, Any]:
        """What run.json keeps of it."""
        return {"name": self.name, "kind": self.kind, "metrics": list(self.metrics)}


_LOADED: dict[str, Plugin] = {}  # by module name, or by resolved path for a file


def loaded() -> list[Plugin]:
    """The plugins loaded in this process, in the order they were."""
    return list(_LOADED.values())


def origin_of(name: str) -> Plugin | None:
    """The plugin whose import registered metric ``name`` (``ndcg@10`` as ``ndcg@k``)."""
    key = re.sub(r"@\d+$", "@k", name)
    return next((p for p in _LOADED.values() if key in p.metrics), None)


def load_plugins(plugins: Sequence[str] = (), *, config: str | Path | None = None) -> list[Plugin]:
    """Import the ``config`` file's ``plugins`` (a path there is relative to the file), then
    ``plugins`` (relative to the working directory); each once, however often named.

    ConfigError, one line naming the plugin, at the first that cannot be loaded: a module
    not found, a file missing, an import that raised (its type and first line, secrets
    masked: ``describe``), a metric name a built-in or another plugin has. Why stop there:
    a run named on the command line or in CI must not go on without a metric it was told to
    load, and the plugins come before any data is read or model loaded."""
    named: list[tuple[str, Path]] = []
    if config is not None:
        from ragmeter.config import _outside_problem  # the settings' own rule for the file

        base = Path(config).parent
        named += [(p, base) for p in plugins_in(Path(config), _outside_problem)]
    named += [(p, Path.cwd()) for p in plugins]
    return [_load(spec, base) for spec, base in named]


def settings_with_plugins(settings: Any) -> Any:
    """``settings`` as given, once the plugins its file names are imported, when it is the
    path of a settings file (``evaluate(data, settings="ragmeter.toml")``), as ``--config``
    does on the command line. Why: Python ignored the file's ``plugins``, so a metric they
    define was "unknown", and options it declares in the same file were refused first."""
    if isinstance(settings, (str, os.PathLike)):
        load_plugins(config=settings)
    return settings


def _load(spec: str, base: Path) -> Plugin:
    spec = spec.strip()
    if spec.endswith(".py") or "/" in spec or os.sep in spec:
        path = (base / Path(spec).expanduser()).resolve()
        if not path.is_file():
            raise ConfigError(f"plugin {spec!r}: no such file ({path})")
        key = str(path)
        if key not in _LOADED:
            _LOADED[key] = _imported(spec, "file", lambda: _exec_file(path))
        return _LOADED[key]
    if not _DOTTED.fullmatch(spec):
        raise ConfigError(
            f"plugin {spec!r}: not a module name (mypkg.metrics) nor a path to a .py file"
        )
    if spec not in _LOADED:
        _LOADED[spec] = _imported(spec, "module", lambda: _import(spec))
    return _LOADED[spec]


def _import(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
            raise _NotFound(
                f"plugin {name!r}: no module named {exc.name!r} (not installed, nor on "
                "PYTHONPATH; give a file as its path, e.g. ./metrics.py)"
            ) from None
        raise  # a module the plugin imports is missing: the plugin raised


def _exec_file(path: Path) -> ModuleType:
    """The file run as a module named after it (``ragmeter_plugin_<stem>``, numbered when two
    files share a stem), kept in ``sys.modules``: dataclasses and pickling look it up there."""
    stem = re.sub(r"\W", "_", path.stem)
    name, n = f"ragmeter_plugin_{stem}", 1
    while name in sys.modules:
        n += 1
        name = f"ragmeter_plugin_{stem}_{n}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise _NotFound(f"plugin {str(path)!r}: cannot be imported as a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


class _NotFound(ConfigError):
    """A plugin that is not there (said as is, not as an import that raised)."""


def _imported(spec: str, kind: str, load: Callable[[], ModuleType]) -> Plugin:
    """The plugin ``load`` imports, with the metrics its import registered. A SystemExit
    (a plugin's ``sys.exit()``) is an error of the plugin's too: it ended the command."""
    before = registered_names()
    try:
        module = load()
    except _NotFound:
        raise
    except MetricError as exc:  # register_metric refused: a taken or built-in name
        raise ConfigError(f"plugin {spec!r}: {exc}") from None
    except (Exception, SystemExit) as exc:
        raise ConfigError(f"plugin {spec!r} raised {describe(exc)} on import") from None
    added = tuple(sorted(registered_names() - before))
    return Plugin(spec, kind, module.__name__, added)


def load_entry_points() -> list[str]:
    """Import every module installed packages publish under ``ragmeter.plugins`` (an entry
    point naming a function, ``mypkg.metrics:register``, has it called); one warning line
    for each that fails, and the command goes on. ``RAGMETER_DISABLE_PLUGIN_AUTOLOAD=1``
    loads none.

    Why a warning, not an error: an entry point is there because a package is installed,
    not because this command asked for it; a broken one (an old version, a missing
    dependency) must not stop CI runs of metrics it does not define. A command that names
    one of its metrics still stops, at "unknown metric", after the warning saying why."""
    if os.environ.get(AUTOLOAD_OFF, "").strip() not in ("", "0"):
        return []
    warnings = []
    for ep in metadata.entry_points(group=GROUP):
        key = f"{ep.name}={ep.value}"
        if key in _LOADED:
            continue
        try:
            _LOADED[key] = _imported(ep.value, "entry_point", lambda ep=ep: _entry(ep))
        except ConfigError as exc:
            dist = getattr(ep.dist, "name", None)
            warnings.append(f"entry point {ep.name!r}{f' of {dist}' if dist else ''}: {exc}")
    return warnings


def _entry(ep: metadata.EntryPoint) -> ModuleType:
    target = ep.load()
    if ep.attr and callable(target):
        target()
    return sys.modules[ep.module]
