"""Custom metrics from the command line: ``--plugin``, ``plugins = [...]`` in ``--config``, and
the entry points of installed packages (group ``ragmeter.plugins``).

Every plugin here is written to ``tmp_path`` and registers a metric that needs no model.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragmeter import metric_options
from ragmeter.cli import app
from ragmeter.metrics import registry

runner = CliRunner()
ROWS = [
    {"question_id": "q1", "question": "What is X?", "answer": "X is a thing."},
    {"question_id": "q2", "question": "What is Y?", "answer": "Y is a much longer thing, indeed."},
]
SHORT = """
import ragmeter
from ragmeter import Metric, Score


def short(sample, resources):
    words = resources.options["{name}_words"]
    return Score.ok(1.0 if len(sample.answer.split()) <= words else 0.0)


ragmeter.register_metric(
    Metric(name="{name}", description="1 when the answer is short", requires=(("answer",),),
           acompute=short),
    options={{"{name}_words": 4}},
)
"""


@pytest.fixture(autouse=True)
def clean() -> Iterator[None]:
    """Each test's plugins and metrics forgotten after it: the registry is the process's."""
    modules = set(sys.modules)
    yield
    loader = sys.modules.get("ragmeter.plugins")
    for plugin in list(getattr(loader, "_LOADED", {}).values()):
        for name in plugin.metrics:
            for table in (registry._FIXED, registry._GIVEN, registry._LIMITS):
                table.pop(name, None)
            metric_options.forget_options(name)
    getattr(loader, "_LOADED", {}).clear()
    for prefix in [p for p in registry._GIVEN_TEMPLATES if p.startswith("plg_")]:
        registry._GIVEN_TEMPLATES.pop(prefix)
        registry._TEMPLATES.pop(prefix)
        registry._TEMPLATE_LIMITS.pop(prefix, None)
    for name in set(sys.modules) - modules:
        if name.startswith(("plg_", "ragmeter_plugin_")):
            del sys.modules[name]


def _data(tmp_path: Path) -> Path:
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


def _plugin(where: Path, name: str, metric: str, body: str = SHORT) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    path = where / f"{name}.py"
    path.write_text(body.format(name=metric), encoding="utf-8")
    return path


def test_metrics_lists_a_file_plugins_metric_marked_as_its_with_its_options(tmp_path):
    path = _plugin(tmp_path, "plg_list", "plg_short")
    result = runner.invoke(app, ["metrics", "--plugin", str(path)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if x.startswith("plg_short "))
    assert f"(plugin {path})" in line
    assert "options: plg_short_words=4" in result.output
    assert "token_f1" in result.output  # the built-ins listed too


@pytest.mark.parametrize("executor", ["local", "stream"])
def test_evaluate_runs_a_module_plugins_metric_and_run_json_says_what_defined_it(
    tmp_path, monkeypatch, executor
):
    _plugin(tmp_path / "pkgs" / "plg_team", "metrics", "plg_team_short")
    (tmp_path / "pkgs" / "plg_team" / "__init__.py").write_text("", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "pkgs"))
    out = tmp_path / "out"
    args = ["evaluate", str(_data(tmp_path)), "-m", "plg_team_short,refusal_rate", "-o", str(out)]
    args += ["--plugin", "plg_team.metrics", "--n-resamples", "10", "-q", "--executor", executor]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    doc = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert doc["plugins"] == [
        {"name": "plg_team.metrics", "kind": "module", "metrics": ["plg_team_short"]}
    ]
    entries = {e["name"]: e for e in doc["metrics"]}
    assert entries["plg_team_short"]["plugin"] == "plg_team.metrics"
    assert "plugin" not in entries["refusal_rate"]
    scores = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
    assert [s["plg_team_short"] for s in scores] == [1.0, 0.0]  # 3 words <= 4 < 7


def test_config_plugins_are_relative_to_the_file_set_options_and_add_to_the_cli(
    tmp_path, monkeypatch
):
    _plugin(tmp_path / "conf" / "metrics", "plg_conf", "plg_conf_short")
    other = _plugin(tmp_path, "plg_other", "plg_other_short")
    config = tmp_path / "conf" / "ragmeter.toml"
    config.write_text(
        '[ragmeter]\nplugins = ["metrics/plg_conf.py"]\n'
        "[ragmeter.options]\nplg_conf_short_words = 10\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)  # the file's path is read from the file's directory
    out = tmp_path / "out"
    args = ["evaluate", str(_data(tmp_path)), "--config", str(config), "-o", str(out), "-q"]
    args += ["-m", "plg_conf_short,plg_other_short", "--plugin", str(other), "--judge", "none"]
    result = runner.invoke(app, [*args, "--n-resamples", "10"])
    assert result.exit_code == 0, result.output
    doc = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert [p["name"] for p in doc["plugins"]] == ["metrics/plg_conf.py", str(other)]
    scores = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
    assert [s["plg_conf_short"] for s in scores] == [1.0, 1.0]  # the file's option: 10 words


def test_the_same_plugin_named_twice_is_loaded_once(tmp_path, monkeypatch):
    path = _plugin(tmp_path, "plg_twice", "plg_twice_short")
    config = tmp_path / "c.toml"
    config.write_text('plugins = ["plg_twice.py"]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    args = ["evaluate", str(_data(tmp_path)), "--config", str(config), "--plugin", str(path)]
    result = runner.invoke(app, [*args, "-m", "plg_twice_short", "--dry-run"])
    assert result.exit_code == 0, result.output  # registering it twice was "already registered"


RAISES = 'raise ValueError("bad \\x1b[2J config: sk-abcdefghijklmnopqrstuvwxyz0123456789")\n'
CLASH = """
import ragmeter
from ragmeter import Metric, Score
ragmeter.register_metric(Metric(name="token_f1", description="mine", requires=(("answer",),),
                                compute=lambda s: Score.ok(1.0)))
"""
MISSING_DEP = "import plg_no_such_dependency\n"


@pytest.mark.parametrize(
    ("plugin", "said"),
    [
        ("plg_gone.py", "plugin 'plg_gone.py': no such file"),
        ("plg_nowhere.metrics", "plugin 'plg_nowhere.metrics': no module named 'plg_nowhere'"),
        ("not a module", "plugin 'not a module': not a module name"),
        ("raises", "raised ValueError: bad \\x1b[2J config: "),
        ("clash", "metric 'token_f1' is a built-in metric: choose another name"),
        ("dep", "raised ModuleNotFoundError: No module named 'plg_no_such_dependency' on import"),
    ],
)
def test_a_plugin_that_cannot_load_is_one_line_exit_2_before_any_work(
    tmp_path, monkeypatch, plugin, said
):
    bodies = {"raises": RAISES, "clash": CLASH, "dep": MISSING_DEP}
    if plugin in bodies:
        plugin = str(_plugin(tmp_path, f"plg_{plugin}", "unused", bodies[plugin]))
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    args = ["evaluate", str(_data(tmp_path)), "-m", "token_f1", "-o", str(out)]
    result = runner.invoke(app, [*args, "--plugin", plugin])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: plugin ") and said in lines[0]
    assert "Traceback" not in result.output and "\x1b" not in result.output
    assert "sk-abcdefghij" not in result.output  # a key-looking token in its message masked
    assert not out.exists()  # nothing written: refused before any work


def test_malformed_plugins_in_a_config_file_are_refused(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text("plugins = 5\n", encoding="utf-8")
    result = runner.invoke(app, ["evaluate", str(_data(tmp_path)), "--config", str(config)])
    assert result.exit_code == 2, result.output
    assert "plugins must be a list of module names or .py paths" in result.output


def _dist(site: Path, name: str, entry: str) -> None:
    info = site / f"{name.replace('-', '_')}-1.0.dist-info"  # the name, then the version
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[ragmeter.plugins]\n{name} = {entry}\n")


def test_installed_entry_points_are_loaded_and_a_broken_one_is_a_warning(tmp_path, monkeypatch):
    site = tmp_path / "site"
    _plugin(site, "plg_ep_good", "plg_ep_short")
    _plugin(site, "plg_ep_bad", "unused", RAISES)
    _dist(site, "plg-good", "plg_ep_good")
    _dist(site, "plg-bad", "plg_ep_bad")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delenv("RAGMETER_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    args = ["evaluate", str(_data(tmp_path)), "-m", "plg_ep_short", "--n-resamples", "10", "-q"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output  # the broken one defines nothing asked for
    assert "plg_ep_short" in result.output
    warning = next(x for x in result.output.splitlines() if x.startswith("warning:"))
    assert "entry point 'plg-bad' of plg-bad" in warning and "raised ValueError" in warning
    assert "sk-abcdefghij" not in result.output


def test_entry_points_are_not_loaded_when_autoload_is_off_nor_by_import_ragmeter(
    tmp_path, monkeypatch
):
    site = tmp_path / "site"
    _plugin(site, "plg_ep_off", "plg_ep_off_short")
    _dist(site, "plg-off", "plg_ep_off")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("RAGMETER_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = runner.invoke(app, ["metrics"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "plg_ep_off_short" not in result.output
    monkeypatch.delenv("RAGMETER_DISABLE_PLUGIN_AUTOLOAD")
    result = runner.invoke(app, ["metrics"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "plg_ep_off_short" in result.output  # on again
    code = "import sys, ragmeter; print('plg_ep_off' in sys.modules)"
    env = {"PYTHONPATH": f"{site}:{Path(__file__).parents[1] / 'src'}", "PATH": "/usr/bin"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr


TEMPLATE = """
from ragmeter import Metric, Score
from ragmeter.metrics import registry


def top(k):
    return Metric(name=f"{name}@{{k}}", description="k words or fewer", requires=(("answer",),),
                  compute=lambda s: Score.ok(float(len(s.answer.split()) <= k)))


registry.register_template("{name}", top, (3,))
"""


def test_a_plugins_template_metric_is_recorded_as_its_with_its_k(tmp_path):
    path = _plugin(tmp_path, "plg_tpl", "plg_top", TEMPLATE)
    out = tmp_path / "out"
    args = ["evaluate", str(_data(tmp_path)), "-m", "plg_top@5", "-o", str(out), "-q"]
    result = runner.invoke(app, [*args, "--plugin", str(path), "--n-resamples", "10"])
    assert result.exit_code == 0, result.output
    doc = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert doc["plugins"][0]["metrics"] == ["plg_top@k"]
    assert {e["name"]: e.get("plugin") for e in doc["metrics"]} == {"plg_top@5": str(path)}
    listed = runner.invoke(app, ["metrics", "--plugin", str(path)], env={"COLUMNS": "200"})
    assert "plg_top@k" in listed.output and f"(plugin {path})" in listed.output


def test_python_evaluate_and_dry_run_given_a_settings_file_load_its_plugins(tmp_path):
    """As ``--config`` does on the command line. Before, ``evaluate(settings=FILE)`` refused
    the file's options for the plugin's metric as unknown (its plugins were never imported),
    and without them said the metric was unknown."""
    import ragmeter

    _plugin(tmp_path / "conf" / "metrics", "plg_py", "plg_py_short")
    config = tmp_path / "conf" / "ragmeter.toml"
    config.write_text(
        '[ragmeter]\nplugins = ["metrics/plg_py.py"]\njudge = "none"\n'
        "[ragmeter.options]\nplg_py_short_words = 10\n",
        encoding="utf-8",
    )
    estimate = ragmeter.dry_run(str(_data(tmp_path)), ["plg_py_short"], settings=str(config))
    assert estimate["skipped"] == {"plg_py_short": 0} and estimate["calls"] == 0
    result = ragmeter.evaluate(str(_data(tmp_path)), "plg_py_short", settings=config)
    assert [s.value for s in result.scores["plg_py_short"]] == [1.0, 1.0]  # 10 words
    out = tmp_path / "out"
    ragmeter.evaluate(str(_data(tmp_path)), "plg_py_short", settings=config, executor="stream",
                      out=out)  # fmt: skip
    assert '"plg_py_short"' in (out / "scores.jsonl").read_text(encoding="utf-8")
