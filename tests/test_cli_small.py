"""Small CLI defects left by earlier audits: `ragmeter models` under an ASCII locale, Ctrl-C
while the CLI starts, and what `ragmeter metrics` says a metric uses. Each test failed before
its fix."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

import ragmeter
from ragmeter.cli import app

ASCII = {"PYTHONUTF8": "0", "LC_ALL": "C", "LANG": "C", "PYTHONIOENCODING": ""}


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    src = str(Path(ragmeter.__file__).resolve().parents[1])
    path = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path, "RAGMETER_HOME": str(tmp_path / "home"), **extra}
    return {k: v for k, v in env.items() if v}  # PYTHONIOENCODING="": unset, not empty


def _python(code: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=_env(tmp_path, **env),
        timeout=120,
    )


def test_models_list_under_an_ascii_locale_prints_its_table(tmp_path: Path) -> None:
    """Before: "internal error: UnicodeEncodeError" and exit 1 (its "—" and "…"): `models`
    did not use OnceCommand, which makes stdout write what it cannot encode as escapes."""
    proc = subprocess.run(
        [sys.executable, "-m", "ragmeter", "models", "list"],
        capture_output=True,
        text=True,
        env=_env(tmp_path, **ASCII),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    assert "embedded judge models" in proc.stdout
    assert str(tmp_path / "home" / "models") in proc.stdout


# `models install` with the assembly replaced (no 1 GiB written): what it prints after it.
_INSTALL = """
import sys
from pathlib import Path
from ragmeter.backends import model_store
model_store.is_verified = lambda *a, **k: False
model_store.assemble = lambda model, force=False, progress=None: Path("/tmp/m\\u00e9/x.gguf")
sys.argv = ["ragmeter", "models", "install", "--only-small"]
from ragmeter.cli import main
main()
"""


def test_models_install_under_an_ascii_locale_reports_the_assembled_model(
    tmp_path: Path,
) -> None:
    """Before: the model assembled and verified, then "internal error: UnicodeEncodeError",
    exit 1, at the line saying so (its "…" and a cache path's "é")."""
    proc = _python(_INSTALL, tmp_path, **ASCII)
    assert proc.returncode == 0, proc.stderr
    assert "internal error" not in proc.stderr
    assert "assembled and verified" in proc.stdout
    assert "/tmp/m\\xe9/x.gguf" in proc.stdout  # the path's "é" as an escape, not lost


def test_models_commands_refuse_what_the_other_commands_refuse() -> None:
    """An option repeated or given empty is checked as for every other command: the models
    commands are OnceCommands (before: typer's plain command)."""
    from ragmeter.cli._common import OnceCommand
    from ragmeter.cli.models import models_app

    classes = {c.name: c.cls for c in models_app.registered_commands}
    assert classes == {"install": OnceCommand, "list": OnceCommand}
