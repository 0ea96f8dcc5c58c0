"""A metric of one's own, as a run records and configures it.

run.json records a registered ``timeout`` (two runs whose limits differ no longer look
alike), and a metric may declare the options it reads (``register_metric(metric,
options={...})``): checked with the built-ins' when the settings are built, and given to
its ``acompute`` in ``resources.options``, defaults filled in.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ragmeter
from ragmeter import Metric, MetricError, Score, Settings, metric_options
from ragmeter.errors import ConfigError
from ragmeter.metrics import registry

ROWS = [
    {"question_id": "q1", "question": "What is X?", "answer": "X is a thing.", "contexts": ["X"]},
    {"question_id": "q2", "question": "What is Y?", "answer": "Y is a much longer thing."},
]


@pytest.fixture
def registered() -> Iterator[list[str]]:
    names: list[str] = []
    yield names
    for name in names:
        for table in (registry._FIXED, registry._GIVEN, registry._LIMITS):
            table.pop(name, None)
        # getattr: the file also runs against the code before options could be declared
        getattr(metric_options, "forget_options", lambda _name: None)(name)
    for prefix in [p for p in registry._GIVEN_TEMPLATES if p.startswith("prv_")]:
        registry._GIVEN_TEMPLATES.pop(prefix)
        registry._TEMPLATES.pop(prefix)
        getattr(registry, "_TEMPLATE_LIMITS", {}).pop(prefix, None)


def _metric(name: str, **kw: Any) -> Metric:
    kw.setdefault("compute", lambda s: Score.ok(0.5))
    return Metric(name=name, description="test-only", requires=(("answer",),), **kw)


def _register(names: list[str], metric: Metric, **kw: Any) -> Metric:
    names.append(metric.name)
    return ragmeter.register_metric(metric, **kw)


def _entries(out: Path) -> dict[str, dict[str, Any]]:
    doc = json.loads((out / "run.json").read_text(encoding="utf-8"))
    return {e["name"]: e for e in doc["metrics"]}


def test_run_json_records_a_custom_metrics_timeout_only_when_set(
    registered: list[str], tmp_path: Path
) -> None:
    _register(registered, _metric("prv_limited"), timeout=7.5)
    _register(registered, _metric("prv_plain"))
    ragmeter.evaluate(
        ROWS, "prv_limited,prv_plain,refusal_rate", n_resamples=0, out=tmp_path / "run"
    )
    entries = _entries(tmp_path / "run")
    assert entries["prv_limited"]["timeout_s"] == 7.5
    assert "timeout_s" not in entries["prv_plain"]  # ordinary entries unchanged
    assert "timeout_s" not in entries["refusal_rate"]  # no built-in's record changes


def test_two_runs_with_different_limits_record_different_limits(
    registered: list[str], tmp_path: Path
) -> None:
    metric = _metric("prv_again")
    _register(registered, metric, timeout=1)
    ragmeter.evaluate(ROWS, "prv_again", n_resamples=0, out=tmp_path / "a")
    ragmeter.register_metric(metric, timeout=30)  # the same definition, its limit changed
    ragmeter.evaluate(ROWS, "prv_again", n_resamples=0, out=tmp_path / "b")
    assert _entries(tmp_path / "a")["prv_again"]["timeout_s"] == 1.0
    assert _entries(tmp_path / "b")["prv_again"]["timeout_s"] == 30.0


def test_a_templates_timeout_is_recorded_for_each_k(registered: list[str], tmp_path: Path) -> None:
    def factory(k: int) -> Metric:
        return _metric(f"prv_top@{k}")

    registry.register_template("prv_top", factory, (3,), timeout=2)
    ragmeter.evaluate(ROWS, "prv_top@5,refusal_rate", n_resamples=0, out=tmp_path / "run")
    entries = _entries(tmp_path / "run")
    assert entries["prv_top@5"]["timeout_s"] == 2.0
    assert "timeout_s" not in entries["refusal_rate"]


def _reads_words(seen: list[Any], option: str = "prv_short_words") -> Any:
    def acompute(sample: Any, resources: Any) -> Score:
        words = resources.options[option]
        seen.append(words)
        return Score.ok(1.0 if len(sample.answer.split()) <= words else 0.0)

    return acompute


def test_a_declared_option_reaches_acompute_with_its_default_or_the_setting(
    registered: list[str],
) -> None:
    seen: list[Any] = []
    metric = _metric("prv_short", compute=None, acompute=_reads_words(seen))
    _register(registered, metric, options={"prv_short_words": 4})
    default = ragmeter.evaluate(ROWS, "prv_short", n_resamples=0)
    assert [s.value for s in default.scores["prv_short"]] == [1.0, 0.0]
    set_ = ragmeter.evaluate(
        ROWS, "prv_short", n_resamples=0, settings=Settings(options={"prv_short_words": 10})
    )
    assert [s.value for s in set_.scores["prv_short"]] == [1.0, 1.0]
    assert sorted(seen) == [4, 4, 10, 10]


def test_a_declared_options_value_is_checked_when_the_settings_are_built(
    registered: list[str],
) -> None:
    metric = _metric("prv_typed", compute=None, acompute=_reads_words([]))
    _register(registered, metric, options={"prv_typed_words": 3, "prv_typed_ratio": 0.5})
    with pytest.raises(ConfigError, match=r"options.prv_typed_words: .*int, not '3'"):
        Settings(options={"prv_typed_words": "3"})
    with pytest.raises(ConfigError, match=r"options.prv_typed_words: .*int, not True"):
        Settings(options={"prv_typed_words": True})
    with pytest.raises(ConfigError, match=r"did you mean 'prv_typed_words'"):
        Settings(options={"prv_typed_wrods": 4})
    ok = Settings(options={"prv_typed_ratio": 1, "prv_typed_words": 3})
    assert ok.options == {"prv_typed_ratio": 1.0}  # an int for a float; a default left out


def test_an_undeclared_option_is_refused_as_unknown() -> None:
    with pytest.raises(ConfigError, match=r"options.prv_nobody_thing: unknown option"):
        Settings(options={"prv_nobody_thing": 3})


@pytest.mark.parametrize(
    ("kw", "says"),
    [
        ({"options": {"other_words": 3}}, "name it prv_bad_<what>"),
        ({"options": {"prv_bad_words": [3]}}, "not list"),
        ({"options": {"prv_bad_api_key": "x"}}, "secrets are not accepted"),
        ({"options": {"prv_bad_x": float("nan")}}, "finite float"),
        ({"options": ["prv_bad_words"]}, "dict of option name -> default"),
    ],
)
def test_a_declaration_that_cannot_work_is_refused_at_registration(
    kw: dict[str, Any], says: str, registered: list[str]
) -> None:
    metric = _metric("prv_bad", compute=None, acompute=_reads_words([]))
    with pytest.raises(MetricError, match=says):
        _register(registered, metric, **kw)
    assert "prv_bad" not in registry._FIXED  # nothing half-registered


def test_options_on_a_compute_metric_are_refused_saying_acompute(registered: list[str]) -> None:
    with pytest.raises(MetricError, match="give the function as acompute"):
        _register(registered, _metric("prv_sync"), options={"prv_sync_words": 3})


def test_a_refused_registration_keeps_the_registered_metrics_options(
    registered: list[str],
) -> None:
    first = _metric("prv_owner", compute=None, acompute=_reads_words([]))
    _register(registered, first, options={"prv_owner_words": 3})
    other = _metric("prv_owner", compute=None, acompute=_reads_words([]))
    with pytest.raises(MetricError, match="already registered"):
        ragmeter.register_metric(other, options={"prv_owner_other": 1})
    assert Settings(options={"prv_owner_words": 4}).options == {"prv_owner_words": 4}


def test_options_and_a_timeout_together_and_registering_again_replaces_them(
    registered: list[str],
) -> None:
    seen: list[Any] = []
    metric = _metric("prv_both", compute=None, acompute=_reads_words(seen, "prv_both_words"))
    _register(registered, metric, timeout=5, options={"prv_both_words": 4})
    result = ragmeter.evaluate(ROWS, "prv_both", n_resamples=0)
    assert [s.value for s in result.scores["prv_both"]] == [1.0, 0.0]
    ragmeter.register_metric(metric, timeout=5, options={"prv_both_words": 10})
    result = ragmeter.evaluate(ROWS, "prv_both", n_resamples=0)
    assert [s.value for s in result.scores["prv_both"]] == [1.0, 1.0]
    ragmeter.register_metric(metric, timeout=5)  # declared no more: refused as unknown
    with pytest.raises(ConfigError, match="unknown option"):
        Settings(options={"prv_both_words": 4})


def test_compare_counts_a_declared_option_for_its_metric_only(
    registered: list[str], tmp_path: Path
) -> None:
    """A declared option changes its own metric's scores, so two runs that set it apart are
    flagged on that metric, though it asks no model (options counted only for metrics that
    ask one), and on no other metric (an unknown option counted for every judged one)."""
    from ragmeter.comparability import metric_view

    metric = _metric("prv_short", compute=None, acompute=_reads_words([]))
    _register(registered, metric, options={"prv_short_words": 4})
    for name, words in (("a", 4), ("b", 10)):
        settings = Settings(options={"prv_short_words": words})
        ragmeter.evaluate(
            ROWS, "prv_short,k_precision", n_resamples=0, settings=settings, out=tmp_path / name
        )
    a, b = ragmeter.load_run(tmp_path / "a"), ragmeter.load_run(tmp_path / "b")
    flagged = [w for w in ragmeter.compare(a, b).warnings if "prv_short_words" in w]
    assert flagged and all("prv_short" in w for w in flagged)
    assert not [w for w in ragmeter.compare(a, b, metrics=["k_precision"]).warnings if "prv_" in w]
    provenance = b.provenance()
    provenance["run"]["metrics"].append({"name": "faithfulness"})
    judged = metric_view(provenance, "faithfulness", models={"judge"}, run_json=True, facts=set())
    assert not any("prv_short" in key for key in judged)
    own = metric_view(provenance, "prv_short", models=set(), run_json=True, facts=set())
    assert own["options.prv_short_words"] == 10
