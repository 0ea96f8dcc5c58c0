"""The top-level Python API as the README shows it: sync calls inside a running event loop,
and the names it promises to export."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import threading

import pytest
from tests.conftest import ROOT, make_row

import ragmeter


async def test_evaluate_and_dry_run_work_inside_a_running_event_loop() -> None:
    """In Jupyter a loop is already running: asyncio.run would refuse ("cannot be called from
    a running event loop") and leave the coroutine never awaited."""
    assert asyncio.get_running_loop() is not None
    result = ragmeter.evaluate([make_row(1), make_row(2)], ["token_f1", "mrr"])
    assert result.aggregates["token_f1"].n_ok == 2
    est = ragmeter.dry_run([make_row(1)], ["token_f1"], {"cache": "off"})
    assert est["samples"] == 1
    # the async form, for callers that can await
    same = await ragmeter.aevaluate([make_row(1), make_row(2)], ["token_f1", "mrr"])
    assert same.aggregates["mrr"] == result.aggregates["mrr"]


def test_evaluate_outside_a_loop_runs_in_the_calling_thread(monkeypatch) -> None:
    from ragmeter import runner

    seen: list[str] = []
    real = runner.aevaluate

    async def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(threading.current_thread().name)
        return await real(*args, **kwargs)

    monkeypatch.setattr(runner, "aevaluate", spy)
    runner.evaluate([make_row(1)], ["token_f1"])
    assert seen == [threading.current_thread().name]


def _readme_error_names() -> list[str]:
    """The class names the README's error paragraph promises are exported from ragmeter."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("Errors form one hierarchy")
    paragraph = text[start : text.index("\n\n", start)]
    return re.findall(r"`([A-Z][A-Za-z]+)`", paragraph)


def test_every_error_the_readme_names_is_exported() -> None:
    names = _readme_error_names()
    assert {"OutputError", "RunAborted", "JudgeUnreachable", "UsageError"} <= set(names)
    missing = [n for n in names if not hasattr(ragmeter, n) or n not in ragmeter.__all__]
    assert missing == []


def test_the_whole_error_hierarchy_is_exported() -> None:
    from ragmeter import errors

    classes = [
        name
        for name, obj in vars(errors).items()
        if isinstance(obj, type) and issubclass(obj, errors.RagmeterError)
    ]
    assert len(classes) > 20
    assert [n for n in classes if getattr(ragmeter, n, None) is not getattr(errors, n)] == []


def test_a_sync_runs_error_is_not_chained_to_the_event_loop_probe():
    """run_sync called asyncio.run inside ``except RuntimeError``, so every error of a sync
    evaluate() read "During handling ... RuntimeError: no running event loop" first."""
    from ragmeter.executors.common import run_sync

    async def boom() -> None:
        raise ValueError("the run's own error")

    with pytest.raises(ValueError, match="the run's own error") as err:
        run_sync(boom())
    assert err.value.__context__ is None


def test_the_error_docstring_draws_every_class() -> None:
    """README and docs/architecture.md send the reader to errors.py's docstring for the tree;
    ExecutorUnavailable and PipelineFailed were missing from it."""
    from ragmeter import errors

    drawn = set(re.findall(r"[├└]── (\w+)", errors.__doc__ or ""))
    classes = {
        name
        for name, obj in vars(errors).items()
        if isinstance(obj, type) and issubclass(obj, errors.RagmeterError)
    }
    assert classes - {"RagmeterError"} - drawn == set()


# Run in a child process: once any test has imported a subpackage (ragmeter.meta_eval), it is
# an attribute of ragmeter for the whole session, and a bare `import ragmeter` would pass.
_SNIPPET_NAMES = """
import ast, json, re, sys, types
missing, blocks = [], 0
for path in sys.argv[1:]:
    text = open(path, encoding="utf-8").read()
    ns = {}  # a page's snippets are one session, as a reader runs them
    for block in re.findall(r"```python\\n(.*?)```", text, re.S):
        blocks += 1
        tree = ast.parse(block)
        imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        exec(compile(ast.Module(body=imports, type_ignores=[]), path, "exec"), ns)
        for node in ast.walk(tree):
            chain = []
            while isinstance(node, ast.Attribute):
                chain.insert(0, node.attr)
                node = node.value
            if not chain or not isinstance(node, ast.Name):
                continue
            where = f"{path}: {'.'.join([node.id, *chain])}"
            if node.id == "ragmeter" and node.id not in ns:
                missing.append(where + " (ragmeter not imported)")
                continue
            obj = ns.get(node.id)
            if not isinstance(obj, types.ModuleType):
                continue
            for part in chain:
                if not hasattr(obj, part):
                    missing.append(where)
                    break
                obj = getattr(obj, part)
print(json.dumps({"blocks": blocks, "missing": sorted(set(missing))}))
"""


def test_the_snippets_name_only_what_their_imports_bring() -> None:
    """`ragmeter.meta_eval.run(...)` after a bare `import ragmeter` raised AttributeError: a
    subpackage is an attribute of its package only once something imported it. The README's
    and the integration pages' snippets, each page run as one session."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs" / "integrations").glob("*.md"))]
    out = subprocess.run(
        [sys.executable, "-c", _SNIPPET_NAMES, *map(str, pages)],
        capture_output=True,
        text=True,
        check=True,
    )
    seen = json.loads(out.stdout)
    assert seen["missing"] == []
    assert seen["blocks"] >= 8  # the pages' snippets were found
