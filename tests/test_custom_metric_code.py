"""A user's metric whose code changed while its version did not: run.json records the digest
of its functions' source (``code_sha256``), ``compare`` says the two runs scored it
differently, and a resume into the same ``--out`` refuses to mix the two definitions.

Before, both runs recorded ``"version": "1"`` and nothing else of the metric, so compare
called them comparable and a resume kept the old code's scores beside the new code's."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ragmeter.cli import app
from ragmeter.metrics._code_digest import code_sha256
from test_plugins import _plugin, clean  # noqa: F401  (the fixture: plugins forgotten)

runner = CliRunner()
ROWS = [
    {
        "question_id": f"q{i}",
        "question": "What is X?",
        "answer": " ".join(["w"] * (i + 1)),
        "contexts": ["w w w"],
    }
    for i in range(6)
]
BODY = """
import ragmeter
from ragmeter import Metric, Score


def short(sample):
    return Score.ok(1.0 if len(sample.answer.split()) <= {limit} else 0.0)


ragmeter.register_metric(
    Metric(name="{{name}}", description="short answers", requires=(("answer",),), compute=short)
)
"""


def _data(tmp_path: Path) -> Path:
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


def _run(tmp_path: Path, limit: int, out: Path, *extra: str) -> object:
    from ragmeter import plugins

    plugins._LOADED.clear()  # a second version of the same file, as a later process loads it
    from ragmeter.metrics import registry

    for table in (registry._FIXED, registry._GIVEN, registry._LIMITS):
        table.pop("plg_short", None)
    path = _plugin(tmp_path / f"v{limit}", "plg_codeshort", "plg_short", BODY.format(limit=limit))
    args = ["evaluate", str(_data(tmp_path)), "-m", "plg_short,k_precision", "-o", str(out)]
    return runner.invoke(app, [*args, "-q", "--plugin", str(path), "--n-resamples", "10", *extra])


def _entries(out: Path) -> dict[str, dict]:
    doc = json.loads((out / "run.json").read_text(encoding="utf-8"))
    return {e["name"]: e for e in doc["metrics"]}


def test_run_json_records_the_code_of_a_users_metric_only(tmp_path: Path) -> None:
    out = tmp_path / "a"
    assert _run(tmp_path, 2, out).exit_code == 0
    entries = _entries(out)
    assert len(entries["plg_short"]["code_sha256"]) == 64
    assert "code_sha256" not in entries["k_precision"]  # a built-in: its version says it


def test_compare_says_the_code_changed_under_the_same_version(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for out, limit in ((a, 2), (b, 4), (c, 2)):
        assert _run(tmp_path, limit, out).exit_code == 0
    assert _entries(a)["plg_short"]["version"] == _entries(b)["plg_short"]["version"] == "1"
    changed = runner.invoke(app, ["compare", str(a), str(b)], env={"COLUMNS": "200"})
    flat = " ".join(changed.output.split())
    assert "NOT COMPARABLE" in flat and "manifests differ in code for plg_short" in flat
    same = runner.invoke(app, ["compare", str(a), str(c)], env={"COLUMNS": "200"})
    assert "NOT COMPARABLE" not in " ".join(same.output.split()), same.output


def test_a_resume_refuses_to_mix_two_definitions(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert _run(tmp_path, 2, out).exit_code == 0
    again = _run(tmp_path, 4, out)
    assert again.exit_code == 2, again.output
    assert "code_sha256" in " ".join(again.output.split())
    assert _run(tmp_path, 4, out, "--overwrite").exit_code == 0


def test_code_without_source_records_nothing_rather_than_a_partial_digest() -> None:
    namespace: dict = {}
    exec("def f(sample):\n    return None\n", namespace)  # no file behind it
    assert code_sha256([namespace["f"]]) is None
    assert code_sha256([_entries, namespace["f"]]) is None
    assert code_sha256([_entries]) == code_sha256([_entries])
    assert code_sha256([None]) is None


OPTIONED = """
import ragmeter
from ragmeter import Metric, Score


def short(sample, resources):
    words = resources.options["plg_opt_words"]
    return Score.ok(1.0 if len(sample.answer.split()) <= words else 0.0)


ragmeter.register_metric(
    Metric(name="plg_opt", description="short answers", requires=(("answer",),), acompute=short),
    options={{"plg_opt_words": {default}}},
)
"""


def _run_default(tmp_path: Path, default: int, out: Path, *extra: str) -> object:
    from ragmeter import plugins
    from ragmeter.metrics import registry

    plugins._LOADED.clear()
    for table in (registry._FIXED, registry._GIVEN, registry._LIMITS):
        table.pop("plg_opt", None)
    body = OPTIONED.format(default=default)
    path = _plugin(
        tmp_path / f"d{default}",
        "plg_optmod",
        "plg_opt",
        body.replace("{", "{{").replace("}", "}}"),
    )
    args = ["evaluate", str(_data(tmp_path)), "-m", "plg_opt", "-o", str(out), "-q"]
    return runner.invoke(app, [*args, "--plugin", str(path), "--n-resamples", "10", *extra])


def test_a_changed_option_default_is_recorded_compared_and_refused_on_resume(tmp_path: Path):
    """Settings leave out an option at its default, and the digest covers the functions, not
    the registration: a default changed from 2 to 4 was in neither run's record, so compare
    called the runs comparable and a resume mixed the two definitions."""
    a, b = tmp_path / "a", tmp_path / "b"
    assert _run_default(tmp_path, 2, a).exit_code == 0
    assert _run_default(tmp_path, 4, b).exit_code == 0
    assert _entries(a)["plg_opt"]["options"] == {"plg_opt_words": 2}
    assert _entries(a)["plg_opt"]["code_sha256"] == _entries(b)["plg_opt"]["code_sha256"]
    changed = runner.invoke(app, ["compare", str(a), str(b)], env={"COLUMNS": "200"})
    flat = " ".join(changed.output.split())
    assert "manifests differ in options.plg_opt_words (default) for plg_opt" in flat, flat
    again = _run_default(tmp_path, 4, a)
    assert again.exit_code == 2 and "plg_opt_words" in " ".join(again.output.split())
