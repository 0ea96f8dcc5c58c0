"""A template of one's own (``register_template(prefix, factory, ks, options={...})``) declares
the options its metrics read, as ``register_metric(metric, options={...})`` does.

Before, ``register_template`` took no ``options``, so any option a ``mytop@k`` read was
refused by the settings as unknown: a template could read no option at all.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import ragmeter
from ragmeter import Metric, MetricError, Score, Settings, metric_options
from ragmeter.cli import app
from ragmeter.errors import ConfigError
from ragmeter.metrics import registry

runner = CliRunner()
ROWS = [
    {"question_id": "q1", "question": "What is X?", "answer": "X is a thing.", "contexts": ["X"]},
    {"question_id": "q2", "question": "What is Y?", "answer": "Y is a much longer thing."},
]


@pytest.fixture(autouse=True)
def clean() -> Iterator[None]:
    """Every ``tpo_`` metric, template and option forgotten after each test, and the plugins
    loaded: the registries are the process's."""
    modules = set(sys.modules)
    yield
    for name in [n for n in registry._GIVEN if n.startswith("tpo_")]:
        for table in (registry._FIXED, registry._GIVEN, registry._LIMITS):
            table.pop(name, None)
        metric_options.forget_options(name)
    for prefix in [p for p in registry._TEMPLATES if p.startswith("tpo_")]:
        for table in (registry._TEMPLATES, registry._GIVEN_TEMPLATES, registry._TEMPLATE_LIMITS):
            table.pop(prefix, None)
        metric_options.forget_options(f"{prefix}@k")
    for name in [n for n, (owner, _) in metric_options._DECLARED.items() if "tpo_" in owner]:
        del metric_options._DECLARED[name]
    loader = sys.modules.get("ragmeter.plugins")
    getattr(loader, "_LOADED", {}).clear()
    for name in set(sys.modules) - modules:
        if name.startswith("tpo_"):
            del sys.modules[name]


def _factory(prefix: str, seen: list[Any], option: str | None = None, sync: bool = False) -> Any:
    """``factory(k)`` of ``prefix@k``: 1 when the answer has at most ``<option>`` words."""
    option = option or f"{prefix}_words"

    def factory(k: int) -> Metric:
        def acompute(sample: Any, resources: Any) -> Score:
            words = resources.options[option]
            seen.append((k, words))
            return Score.ok(1.0 if len(sample.answer.split()) <= words else 0.0)

        fn: dict[str, Any] = (
            {"compute": lambda s: Score.ok(1.0)} if sync else {"acompute": acompute}
        )
        return Metric(name=f"{prefix}@{k}", description="test-only", requires=(("answer",),), **fn)

    return factory


def test_options_reach_acompute_of_each_k_with_defaults_and_the_settings_value() -> None:
    seen: list[Any] = []
    registry.register_template(
        "tpo_top", _factory("tpo_top", seen), (3,), options={"tpo_top_words": 4}
    )
    default = ragmeter.evaluate(ROWS, "tpo_top@3", n_resamples=0)
    assert [s.value for s in default.scores["tpo_top@3"]] == [1.0, 0.0]  # 4 words, then 6
    set_ = Settings(options={"tpo_top_words": 10})
    both = ragmeter.evaluate(ROWS, "tpo_top@3,tpo_top@5", n_resamples=0, settings=set_)
    assert [s.value for s in both.scores["tpo_top@5"]] == [1.0, 1.0]
    assert sorted(seen) == [(3, 4), (3, 4), (3, 10), (3, 10), (5, 10), (5, 10)]


def test_unknown_and_ill_typed_options_are_refused_when_the_settings_are_built() -> None:
    factory = _factory("tpo_typed", [])
    options = {"tpo_typed_words": 3, "tpo_typed_ratio": 0.5}
    registry.register_template("tpo_typed", factory, (3,), options=options)
    with pytest.raises(ConfigError, match=r"options.tpo_typed_words: .*int, not '3'"):
        Settings(options={"tpo_typed_words": "3"})
    with pytest.raises(ConfigError, match=r"did you mean 'tpo_typed_words'"):
        Settings(options={"tpo_typed_wrods": 4})
    with pytest.raises(ConfigError, match=r"options.tpo_other_words: unknown option"):
        Settings(options={"tpo_other_words": 4})
    ok = Settings(options={"tpo_typed_ratio": 1, "tpo_typed_words": 3})
    assert ok.options == {"tpo_typed_ratio": 1.0}  # an int for a float; a default left out


@pytest.mark.parametrize(
    ("options", "sync", "says"),
    [
        ({"other_words": 3}, False, "name it tpo_bad_<what>"),
        ({"tpo_bad@1_words": 3}, False, "lower-case letters, digits and _"),
        ({"tpo_bad_words": [3]}, False, "not list"),
        ({"tpo_bad_api_key": "x"}, False, "secrets are not accepted"),
        ({"tpo_bad_x": float("nan")}, False, "finite float"),
        (["tpo_bad_words"], False, "dict of option name -> default"),
        ({"tpo_bad_words": 3}, True, "give the function as acompute"),
        ({"tpo_bad_taken": 3}, False, "declared by 'tpo_bad'"),
    ],
)
def test_a_declaration_that_cannot_work_is_refused_at_registration(
    options: Any, sync: bool, says: str
) -> None:
    seen: list[Any] = []
    plain = _factory("tpo_bad", seen, "tpo_bad_taken")(1)  # a metric of the prefix's name
    metric = Metric(
        name="tpo_bad", description="t", requires=(("answer",),), acompute=plain.acompute
    )
    ragmeter.register_metric(metric, options={"tpo_bad_taken": 1})
    with pytest.raises(MetricError, match=says):
        registry.register_template(
            "tpo_bad", _factory("tpo_bad", seen, sync=sync), (3,), options=options
        )
    assert "tpo_bad" not in registry._TEMPLATES  # nothing half-registered
    assert metric_options.declared_defaults("tpo_bad@k") == {}


def test_registering_again_takes_new_options_and_timeout_and_a_refusal_changes_nothing() -> None:
    seen: list[Any] = []
    factory = _factory("tpo_again", seen)
    registry.register_template(
        "tpo_again", factory, (3,), timeout=5, options={"tpo_again_words": 4}
    )
    registry.register_template(
        "tpo_again", factory, (3,), timeout=5, options={"tpo_again_words": 10}
    )
    result = ragmeter.evaluate(ROWS, "tpo_again@3", n_resamples=0)
    assert [s.value for s in result.scores["tpo_again@3"]] == [1.0, 1.0]  # the new default
    registry.register_template(
        "tpo_again", factory, (3,), timeout=9, options={"tpo_again_words": 10}
    )
    assert registry.timeout_of("tpo_again@3") == 9.0
    with pytest.raises(MetricError, match="name it tpo_again_<what>"):
        registry.register_template("tpo_again", factory, (3,), timeout=1, options={"x_y": 1})
    assert registry.timeout_of("tpo_again@3") == 9.0  # the refused one changed nothing
    assert Settings(options={"tpo_again_words": 4}).options == {"tpo_again_words": 4}
    registry.register_template("tpo_again", factory, (3,), timeout=9)  # declared no more
    with pytest.raises(ConfigError, match="unknown option"):
        Settings(options={"tpo_again_words": 4})


def test_a_refused_re_registration_leaves_the_template_registered() -> None:
    """The same factory with a new timeout was unregistered first and then refused for its
    bad default_ks: ``tpo_keep@3`` became an unknown metric."""
    factory = _factory("tpo_keep", [])
    registry.register_template("tpo_keep", factory, (3,), timeout=2)
    with pytest.raises(MetricError, match="default_ks must be positive integers"):
        registry.register_template("tpo_keep", factory, (0,), timeout=5)
    assert registry.get_metric("tpo_keep@3").name == "tpo_keep@3"
    assert registry.timeout_of("tpo_keep@3") == 2.0


def test_a_template_and_a_metric_of_the_same_name_keep_their_own_options() -> None:
    plain = _factory("tpo_same", [])(1)
    metric = Metric(
        name="tpo_same", description="t", requires=(("answer",),), acompute=plain.acompute
    )
    ragmeter.register_metric(metric, options={"tpo_same_a": 1})
    registry.register_template(
        "tpo_same", _factory("tpo_same", []), (3,), options={"tpo_same_b": 2}
    )
    both = Settings(options={"tpo_same_a": 5, "tpo_same_b": 6})
    assert both.options == {"tpo_same_a": 5, "tpo_same_b": 6}


def _provenance(options: dict[str, Any]) -> dict[str, Any]:
    names = ["tpo_top@5", "tpo_top@10", "tpo_topx", "faithfulness"]
    return {
        "config": {"settings": {"options": options}},
        "run": {"metrics": [{"name": n, "needs": []} for n in names]},
    }


def test_compare_counts_a_templates_option_for_its_metrics_only() -> None:
    """``tpo_top_words`` counted for every metric asking a model, and for no ``tpo_top@k``
    (run.json names them ``tpo_top@5``, never ``tpo_top``), which asks none."""
    from ragmeter.comparability import metric_view

    provenance = _provenance({"tpo_top_words": 10})
    for name in ("tpo_top@5", "tpo_top@10"):
        own = metric_view(provenance, name, models=set(), run_json=True, facts=set())
        assert own["options.tpo_top_words"] == 10, name
    for name, models in (("faithfulness", {"judge"}), ("tpo_topx", {"judge"})):
        other = metric_view(provenance, name, models=models, run_json=True, facts=set())
        assert not any("tpo_top_words" in key for key in other), name


def test_compare_flags_two_runs_apart_on_the_templates_metrics(tmp_path: Path) -> None:
    factory = _factory("tpo_top", [])
    registry.register_template("tpo_top", factory, (3,), options={"tpo_top_words": 4})
    for name, words in (("a", 4), ("b", 10)):
        settings = Settings(options={"tpo_top_words": words})
        ragmeter.evaluate(
            ROWS, "tpo_top@5,k_precision", n_resamples=0, settings=settings, out=tmp_path / name
        )
    a, b = ragmeter.load_run(tmp_path / "a"), ragmeter.load_run(tmp_path / "b")
    flagged = [w for w in ragmeter.compare(a, b).warnings if "tpo_top_words" in w]
    assert flagged and all("tpo_top@5" in w for w in flagged)
    assert not [w for w in ragmeter.compare(a, b, metrics=["k_precision"]).warnings if "tpo_" in w]


PLUGIN = """
import ragmeter
from ragmeter import Metric, Score


def factory(k):
    def short(sample, resources):
        words = resources.options["tpo_cli_words"]
        return Score.ok(1.0 if len(sample.answer.split()) <= words else 0.0)

    return Metric(name=f"tpo_cli@{k}", description="1 when the answer is short",
                  requires=(("answer",),), acompute=short)


ragmeter.register_template("tpo_cli", factory, (3,), options={"tpo_cli_words": 4})
"""


def _files(tmp_path: Path, value: str) -> tuple[Path, Path, Path]:
    plugin, data, config = tmp_path / "tpo_cli.py", tmp_path / "d.jsonl", tmp_path / "c.toml"
    plugin.write_text(PLUGIN, encoding="utf-8")
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    config.write_text(f"[ragmeter.options]\n{value}\n", encoding="utf-8")
    return plugin, data, config


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("tpo_cli_words = 'ten'", "'options.tpo_cli_words': tpo_cli@k's option takes a int"),
        ("tpo_cli_wrods = 10", "did you mean 'tpo_cli_words'"),
    ],
)
def test_the_cli_refuses_a_bad_templates_option_exit_2_before_any_work(
    tmp_path: Path, value: str, said: str
) -> None:
    plugin, data, config = _files(tmp_path, value)
    out = tmp_path / "out"
    args = ["evaluate", str(data), "-m", "tpo_cli@3", "--plugin", str(plugin), "-o", str(out)]
    result = runner.invoke(app, [*args, "--config", str(config), "-q", "--judge", "none"])
    assert result.exit_code == 2, result.output
    assert said in result.output and "Traceback" not in result.output
    assert not out.exists()


def test_the_cli_runs_a_templates_option_and_lists_it(tmp_path: Path) -> None:
    plugin, data, config = _files(tmp_path, "tpo_cli_words = 10")
    out = tmp_path / "out"
    args = ["evaluate", str(data), "-m", "tpo_cli@3", "--plugin", str(plugin), "-o", str(out)]
    result = runner.invoke(app, [*args, "--config", str(config), "-q", "--judge", "none"])
    assert result.exit_code == 0, result.output
    scores = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
    assert [s["tpo_cli@3"] for s in scores] == [1.0, 1.0]  # the file's option: 10 words
    listed = runner.invoke(app, ["metrics", "--plugin", str(plugin)], env={"COLUMNS": "200"})
    assert listed.exit_code == 0, listed.output
    block = listed.output.split("tpo_cli@k ", 1)[1].split("better:", 1)[0]
    assert f"(plugin {plugin})" in block and "options: tpo_cli_words=4" in block


def test_a_template_whose_metrics_use_acompute_runs_and_is_listed() -> None:
    """``list_metrics`` rebuilt ``prefix@k`` from ``factory(1)`` with its ``compute`` only:
    an acompute template's listing was refused, and with it every run (modes are checked on
    the listing) and ``ragmeter metrics``."""

    def factory(k: int) -> Metric:
        async def acompute(sample: Any, resources: Any) -> Score:
            return Score.ok(1.0)

        return Metric(
            name=f"tpo_async@{k}", description="t", requires=(("answer",),), acompute=acompute
        )

    registry.register_template("tpo_async", factory, (3,))
    assert "tpo_async@k" in [m.name for m in registry.list_metrics()]
    result = ragmeter.evaluate(ROWS, "tpo_async@2,refusal_rate", n_resamples=0)
    assert [s.value for s in result.scores["tpo_async@2"]] == [1.0, 1.0]
