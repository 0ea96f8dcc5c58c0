"""Small CLI defects left by earlier audits: `ragmeter models` under an ASCII locale, Ctrl-C
while the CLI starts, and what `ragmeter metrics` says a metric uses. Each test failed before
its fix."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
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


# Ctrl-C while ragmeter.cli's modules load, made deterministic: the import of one command
# module raises KeyboardInterrupt, as SIGINT would there.
_CTRL_C_IN_IMPORT = """
import sys
class CtrlC:
    def find_spec(self, name, path=None, target=None):
        if name == "ragmeter.cli.evaluate":
            raise KeyboardInterrupt
        return None
sys.meta_path.insert(0, CtrlC())
sys.argv = ["ragmeter", "metrics"]
{start}
"""

STARTS = {
    "console script": "from ragmeter.cli import main\nsys.exit(main())",
    "python -m ragmeter": "import runpy\nrunpy.run_module('ragmeter', run_name='__main__')",
    "python -m ragmeter.cli": "import runpy\n"
    "runpy.run_module('ragmeter.cli', run_name='__main__', alter_sys=True)",
}


@pytest.mark.parametrize("start", list(STARTS))
def test_ctrl_c_while_the_cli_loads_exits_130_without_a_traceback(
    start: str, tmp_path: Path
) -> None:
    """Before: a KeyboardInterrupt traceback from inside the imports, exit 1."""
    proc = _python(_CTRL_C_IN_IMPORT.format(start=STARTS[start]), tmp_path)
    assert proc.returncode == 130, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "interrupted" in proc.stderr


# A real SIGINT, early: the child has Python's own handler (a CI runner may start processes
# with SIGINT ignored), says it is ready, then starts `python -m ragmeter metrics`.
_READY_THEN_RUN = """
import signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)


class Hold:  # holds the import of a CLI command module until the SIGINT lands in it
    def find_spec(self, name, path=None, target=None):
        if name == "ragmeter.cli.evaluate":
            print("ready", flush=True)
            time.sleep(60)
        return None


sys.meta_path.insert(0, Hold())
import runpy
sys.argv = ["ragmeter", "metrics"]
runpy.run_module("ragmeter", run_name="__main__", alter_sys=True)
"""


def test_a_real_sigint_during_start_up_exits_130_without_a_traceback(tmp_path: Path) -> None:
    """Before: a KeyboardInterrupt traceback and death by SIGINT (-2)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _READY_THEN_RUN],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(tmp_path),
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "ready\n"  # inside the imports of ragmeter.cli
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err


def test_metrics_does_not_say_faithfulness_uses_the_embedder_when_configured() -> None:
    """Before: "fast (default): judge (uses embedder when configured)", though an embedder is
    configured by default and faithfulness uses it only with options.evidence=embedding."""
    result = CliRunner().invoke(app, ["metrics"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    faithfulness = next(x for x in lines if x.startswith("faithfulness "))
    assert "when configured" not in result.output
    assert "needs fast (default): judge (can also use embedder); generate: judge" in faithfulness
    correctness = next(x for x in lines if x.startswith("answer_correctness "))
    assert "fast (default): judge (can also use embedder)" in correctness
