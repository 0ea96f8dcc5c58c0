"""What `pip install ragmeter` gives a new user: the version, the wheel's and the sdist's
contents, and the Python versions the metadata admits.

The wheel and the sdist are built from a copy of the tree with setuptools' own PEP 517 hooks
(no isolated build environment, so no network): what pip would build, in a few seconds.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest
from tests.conftest import ROOT
from typer.testing import CliRunner

import ragmeter
from ragmeter import cli

SRC = ROOT / "src" / "ragmeter"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

# Standard-library modules newer than 3.10, with the version that added them: importing one
# without a fallback sets the floor of requires-python.
NEW_STDLIB = {"tomllib": (3, 11), "wsgiref.types": (3, 11)}

_BUILD = """
import json, sys
from setuptools import build_meta
out = sys.argv[1]
print(json.dumps([build_meta.build_wheel(out), build_meta.build_sdist(out)]))
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """(wheel, sdist, the build's stderr) from a copy of what packaging reads."""
    tree = tmp_path_factory.mktemp("tree")
    junk = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    for name in ("pyproject.toml", "README.md", "MANIFEST.in", "LICENSE"):
        if (ROOT / name).exists():
            shutil.copy(ROOT / name, tree / name)
    shutil.copytree(ROOT / "src", tree / "src", ignore=junk)
    shutil.copytree(ROOT / "tests", tree / "tests", ignore=junk)  # what the sdist must drop
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-c", _BUILD, str(out)],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    wheel, sdist = json.loads(done.stdout.strip().splitlines()[-1])
    return out / wheel, out / sdist, done.stderr


def _runtime_files() -> set[str]:
    """Every file under src/ragmeter a user's run may open or a checker reads: the package
    data (prompts and calibrations, the report template, py.typed) and the modules."""
    return {
        p.relative_to(SRC.parent).as_posix()
        for p in SRC.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".orig")
    }


def test_version_option_prints_the_installed_version() -> None:
    """Was: `ragmeter --version` exited 2 with "No such option: --version"."""
    res = CliRunner().invoke(cli.app, ["--version"])
    assert res.exit_code == 0, res.output
    assert res.output == f"ragmeter {cli.installed_version()}\n"
    assert cli.installed_version() == ragmeter.__version__ == PYPROJECT["project"]["version"]


def test_python_m_ragmeter_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ragmeter", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"ragmeter {ragmeter.__version__}\n"


def test_version_without_an_install_falls_back_to_the_package(monkeypatch) -> None:
    """A source tree on PYTHONPATH has no dist metadata: the package's own version, not a
    PackageNotFoundError traceback."""
    from importlib import metadata

    def absent(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", absent)
    assert cli.installed_version() == ragmeter.__version__


def test_wheel_holds_every_runtime_file_and_nothing_else(built) -> None:
    wheel, _, _ = built
    names = set(zipfile.ZipFile(wheel).namelist())
    package = {n for n in names if not n.startswith("ragmeter-")}
    missing = _runtime_files() - package
    assert not missing, f"the wheel lacks files the code opens: {sorted(missing)}"
    extra = package - _runtime_files()
    assert not extra, f"the wheel carries what src/ragmeter does not: {sorted(extra)}"
    data = {n for n in package if not n.endswith(".py")}
    assert {"ragmeter/py.typed", "ragmeter/reporting/templates/report.html.j2"} <= data
    assert {"ragmeter/prompts/faithfulness_calibration.json"} <= data


def test_sdist_is_the_source_without_a_test_suite_that_cannot_run(built) -> None:
    """Was: setuptools' default put tests/test_*.py in the sdist without tests/conftest.py
    and the helpers they import, so every one of them failed at import."""
    _, sdist, _ = built
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    assert not [n for n in names if n.startswith("tests")]
    assert not [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".orig"))]
    source = {f"src/{n}" for n in _runtime_files()}
    assert not source - names, sorted(source - names)
    assert {"pyproject.toml", "README.md", "LICENSE"} <= names


def test_the_licence_text_ships_in_the_wheel(built) -> None:
    """Was: the licence was declared (Apache-2.0) but its text shipped nowhere, which the
    licence itself asks for in every redistribution (section 4a)."""
    wheel, _, _ = built
    with zipfile.ZipFile(wheel) as zf:
        texts = [n for n in zf.namelist() if n.endswith("/LICENSE") and ".dist-info/" in n]
        assert texts, zf.namelist()
        assert b"Apache License" in zf.read(texts[0])


def test_build_uses_no_deprecated_metadata(built) -> None:
    """Was: `license = { text = ... }`, which setuptools deprecates ("By 2027-Feb-18 ... your
    builds will no longer be supported"): pip install from the sdist would stop working."""
    *_, stderr = built
    assert "SetuptoolsDeprecationWarning" not in stderr, stderr[-2000:]


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


def test_requires_python_admits_no_version_the_code_cannot_run_on() -> None:
    """Was: requires-python >=3.10 while config.py reads settings files with tomllib (3.11+):
    on 3.10 pip installed it and `--config x.toml` died with ModuleNotFoundError."""
    spec = PYPROJECT["project"]["requires-python"]
    assert spec.startswith(">="), spec
    floor = tuple(int(p) for p in spec[2:].split("."))
    for path in SRC.rglob("*.py"):
        for module in _imported_modules(path):
            needs = NEW_STDLIB.get(module)
            assert needs is None or needs <= floor, (
                f"{path.relative_to(ROOT)} imports {module} (Python {needs}), but "
                f"requires-python is {spec}"
            )
    versions = [
        c.rsplit(" ", 1)[-1]
        for c in PYPROJECT["project"].get("classifiers", [])
        if c.startswith("Programming Language :: Python :: 3.")
    ]
    assert all(tuple(int(p) for p in v.split(".")) >= floor for v in versions), versions


def _fresh(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_import_ragmeter_loads_nothing_heavy() -> None:
    """Was: `import ragmeter` (run first by any ragmeter.* import, the pytest plugin's too)
    imported numpy, pydantic and most of the package: about 0.7 s in every pytest session."""
    heavy = ["numpy", "pandas", "pyarrow", "scipy", "pydantic", "openai", "rich", "typer"]
    code = f"import sys, ragmeter; print([m for m in {heavy!r} if m in sys.modules])"
    assert _fresh(code) == "[]"


def test_the_pytest_plugin_loads_nothing_heavy() -> None:
    """Was: ragmeter's pytest11 entry point, loaded by every pytest run where ragmeter is
    installed, imported ragmeter.testing's Evaluator and judges, numpy and pydantic with
    them: about 1.5 s added to an unrelated project's every test session."""
    heavy = ["numpy", "pandas", "pyarrow", "scipy", "pydantic", "openai"]
    code = f"import sys, ragmeter.testing.plugin; print([m for m in {heavy!r} if m in sys.modules])"
    assert _fresh(code) == "[]"
    names = "from ragmeter.testing import Evaluator, ScriptedJudge, assert_scores; print('ok')"
    assert _fresh(names) == "ok"


def test_every_public_name_resolves_and_functions_keep_their_names() -> None:
    """``compare`` and ``dry_run`` are also module names: importing those modules later
    must not turn ``ragmeter.compare`` into a module."""
    code = (
        "import ragmeter, ragmeter.compare, ragmeter.dry_run, ragmeter.gates\n"
        "from ragmeter import *\n"
        "missing = [n for n in ragmeter.__all__ if not hasattr(ragmeter, n)]\n"
        "kinds = [type(ragmeter.compare).__name__, type(ragmeter.dry_run).__name__]\n"
        "print(missing, kinds, compare is ragmeter.compare, set(ragmeter.__all__) <= set(dir()))"
    )
    assert _fresh(code) == "[] ['function', 'function'] True True"
    # modules the eager imports used to bind: `import ragmeter` was enough to reach them
    assert _fresh("import ragmeter; print(ragmeter.errors.ConfigError.__name__)") == "ConfigError"
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        ragmeter.nope  # noqa: B018
