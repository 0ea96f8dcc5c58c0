"""``--plugin``: the option of the commands that name metrics, and loading what it names."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragmeter.cli._common import err_console, literal, run_guarded
from ragmeter.plugins import load_entry_points, load_plugins

PluginOption = Annotated[
    list[str] | None,
    typer.Option(
        "--plugin",
        help="A module (mypkg.metrics) or .py file whose import registers metrics "
        "(ragmeter.register_metric); repeatable, added to the --config file's plugins.",
    ),
]


def load_cli_plugins(plugins: list[str] | None, config: Path | None = None) -> None:
    """The installed packages' entry points (a broken one: one warning line on stderr), then
    the ``--config`` file's plugins and ``--plugin``'s: one of those that cannot be loaded
    is exit 2 with one line naming it, before any data is read or model loaded."""
    for warning in load_entry_points():
        err_console.print(literal(f"warning: {warning}", "yellow"), soft_wrap=True)
    run_guarded(load_plugins, plugins or [], config=config)
