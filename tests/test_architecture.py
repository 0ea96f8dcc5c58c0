"""The package's layout is a contract: one-way layers, no import cycles, a leaf CLI, small modules.

These tests read the source, not the running program, so a new cycle, an upward import or
an oversized module fails CI the moment it is written.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "ragmeter"
MAX_LINES = 400


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("ragmeter", cache_dir=None)


def _cycle(graph: grimp.ImportGraph) -> list[str] | None:
    """One import cycle among ragmeter's modules (as a path), or None (iterative DFS)."""
    modules = sorted(graph.modules)
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    for root in modules:
        if root in state:
            continue
        stack = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        path = [root]
        state[root] = 1
        while stack:
            node, children = stack[-1]
            for child in children:
                if state.get(child) == 1:
                    return [*path[path.index(child) :], child]
                if child not in state:
                    state[child] = 1
                    path.append(child)
                    stack.append(
                        (child, iter(sorted(graph.find_modules_directly_imported_by(child))))
                    )
                    break
            else:
                state[node] = 2
                stack.pop()
                path.pop()
    return None


def test_import_linter_contracts_are_kept() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run(
        [str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_no_import_cycle(graph: grimp.ImportGraph) -> None:
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_cycle_finder_finds_a_cycle() -> None:
    """The finder itself can fail: a hand-made graph with a cycle is caught."""
    g = grimp.ImportGraph()
    for name in ("p.a", "p.b", "p.c"):
        g.add_module(name)
    g.add_import(importer="p.a", imported="p.b")
    g.add_import(importer="p.b", imported="p.c")
    g.add_import(importer="p.c", imported="p.a")
    assert _cycle(g) == ["p.a", "p.b", "p.c", "p.a"]


def test_nothing_outside_the_cli_imports_it(graph: grimp.ImportGraph) -> None:
    cli = {m for m in graph.modules if m == "ragmeter.cli" or m.startswith("ragmeter.cli.")}
    importers = {
        importer
        for module in cli
        for importer in graph.find_modules_that_directly_import(module)
        if importer not in cli
    }
    assert importers == set()


def test_no_module_over_the_line_limit() -> None:
    sizes = {p.relative_to(ROOT): len(p.read_text().splitlines()) for p in SRC.rglob("*.py")}
    too_big = {str(p): n for p, n in sizes.items() if n > MAX_LINES}
    assert too_big == {}
    assert len(sizes) > 40  # the scan saw the package


@pytest.mark.parametrize("entry", [["-m", "ragmeter"], ["-m", "ragmeter.cli"]])
@pytest.mark.parametrize("command", ["evaluate", "metrics", "meta-eval", "models"])
def test_every_command_runs_as_a_module(entry: list[str], command: str) -> None:
    done = subprocess.run(
        [sys.executable, *entry, command, "--help"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Usage" in done.stdout
