"""Odd Python inputs to the public API: each is a ragmeter UsageError naming what is wrong
and what is accepted, before any work, never a TypeError, AttributeError or pydantic error
from deep inside (the contract of ragmeter/errors.py and the README's "Python API")."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import ragmeter
from ragmeter import ConfigError, DataError, MetricError, OutputError, Settings, UsageError
from ragmeter.testing import Evaluator, assert_scores

NO_JUDGE = Settings(judge="none")


def _rows(n: int = 4) -> list[dict[str, object]]:
    return [
        {
            "question_id": f"q{i}",
            "question": "What is x?",
            "answer": "x is y" if i % 2 else "no",
            "reference_answers": ["x is y"],
            "src": f"s{i % 2}",
        }
        for i in range(n)
    ]


@pytest.fixture(scope="module")
def result() -> ragmeter.EvaluationResult:
    out = ragmeter.evaluate(_rows(), ["token_f1"], settings=NO_JUDGE, n_resamples=0)
    assert isinstance(out, ragmeter.EvaluationResult)
    return out


# ---- data -------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [object(), [1, 2], {"a": object()}])
def test_a_pass_through_value_json_cannot_hold_is_a_data_error(value: object) -> None:
    """Was PydanticSerializationError while hashing the input, after validation."""
    rows = _rows()
    rows[1]["extra"] = value
    if value == [1, 2]:  # a list of numbers is fine: the control
        ragmeter.evaluate(rows, ["token_f1"], settings=NO_JUDGE, n_resamples=0)
        return
    with pytest.raises(DataError, match=r"row 2, field 'extra.*cannot be written to scores"):
        ragmeter.evaluate(rows, ["token_f1"], settings=NO_JUDGE, n_resamples=0)


def test_a_dataframe_period_column_is_a_data_error() -> None:
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(_rows(2))
    frame["month"] = pd.period_range("2024-01", periods=2, freq="M")
    with pytest.raises(DataError, match=r"field 'month': holds a value of type Period"):
        ragmeter.load(frame)


def test_an_open_file_is_refused_naming_its_path_as_the_fix(tmp_path: Path) -> None:
    """Was read as an iterator of lines: 'row N: expected an object, got str', one a line."""
    data = tmp_path / "d.jsonl"
    data.write_text('{"question": "a"}\n{"question": "b"}\n')
    with data.open() as fh, pytest.raises(DataError, match="an open file: give its path") as err:
        ragmeter.load(fh)
    assert len(err.value.problems) == 1
    with pytest.raises(DataError, match="an open file"):
        ragmeter.load(io.StringIO('{"question": "a"}\n'))


def test_format_is_read_in_any_case_and_checked_for_data_in_memory(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text('{"question": "a"}\n')
    assert len(ragmeter.load(data, format="JSONL")) == 1  # as the suffix .JSONL is
    with pytest.raises(DataError, match=r"unknown format 'xml': use jsonl"):
        ragmeter.load(_rows(), format="xml")  # was ignored in silence
    with pytest.raises(DataError, match=r"unknown format 5"):
        ragmeter.load(_rows(), format=5)


# ---- metrics ----------------------------------------------------------------------------


@pytest.mark.parametrize("metrics", [5, b"token_f1", 1.5])
def test_metrics_that_are_no_list_of_names_are_a_metric_error(metrics: object) -> None:
    """An int was TypeError: 'int' object is not iterable; bytes read as integers."""
    with pytest.raises(MetricError, match=r"metrics must be a list of metric names .* not "):
        ragmeter.evaluate(_rows(), metrics, settings=NO_JUDGE)  # type: ignore[arg-type]
    with pytest.raises(MetricError, match=r"metrics must be a list of metric names"):
        ragmeter.dry_run(_rows(), metrics, NO_JUDGE)  # type: ignore[arg-type]


def test_a_metric_alone_stands_for_a_list_of_it() -> None:
    """A Metric in a list was taken, alone it was TypeError: 'Metric' object is not iterable."""
    metric = ragmeter.get_metric("token_f1")
    out = ragmeter.evaluate(_rows(), metric, settings=NO_JUDGE, n_resamples=0)  # type: ignore[arg-type]
    assert list(out.aggregates) == ["token_f1"]


# ---- settings ---------------------------------------------------------------------------


def test_settings_as_a_dict_raise_a_data_error_listing_each() -> None:
    """The dict form (what evaluate(settings={...}) reads) lists every bad value in one
    DataError. ``Settings(...)`` built directly keeps pydantic's ValidationError (a
    ValueError naming each field): converting it needs pydantic's private metaclass."""
    with pytest.raises(DataError) as err:
        Settings.parse_dict({"concurrency": "many", "judge": 5, "nope": 1})
    assert {p.field for p in err.value.problems} == {"concurrency", "judge", "nope"}
    assert Settings(judge="none").judge == "none"  # good values still build
    with pytest.raises(DataError, match=r"in settings\n  - field 'nope': unknown setting"):
        Settings.parse_dict({"nope": 1})  # one message, not one wrapped in another


@pytest.mark.parametrize("settings", [5, [("judge", "none")], b"judge='none'"])
def test_settings_of_another_type_are_a_data_error(settings: object) -> None:
    """Was pathlib's TypeError: expected str, bytes or os.PathLike object."""
    with pytest.raises(DataError, match=r"settings must be a Settings, a dict .* not "):
        ragmeter.evaluate(_rows(), ["token_f1"], settings=settings)


def test_evaluator_options_and_judge_of_the_wrong_type_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="options must be a dict of settings, not list"):
        Evaluator(options=[("judge", "none")])  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"judge must be a spec .* not int"):
        Evaluator(judge=5)


# ---- compare and report -----------------------------------------------------------------


def test_compare_options_of_the_wrong_type_are_data_errors(
    result: ragmeter.EvaluationResult,
) -> None:
    with pytest.raises(DataError, match=r"field 'by': by names one input column .* list"):
        ragmeter.compare(result, result, by=["src"])  # type: ignore[arg-type]
    with pytest.raises(DataError, match=r"field 'metrics': must be a list of metric names"):
        ragmeter.compare(result, result, metrics="token_f1")  # type: ignore[arg-type]
    with pytest.raises(DataError, match=r"field 'metrics'"):
        ragmeter.compare(result, result, metrics=5)  # type: ignore[arg-type]
    with pytest.raises(DataError, match=r"field 'confidence': must be between 0 and 1, not '0.9'"):
        ragmeter.compare(result, result, confidence="0.9")  # type: ignore[arg-type]
    assert ragmeter.compare(result, result, by="src", metrics=["token_f1"]).metric("token_f1")


def test_report_out_of_another_type_or_an_unknown_option_is_refused(
    result: ragmeter.EvaluationResult, tmp_path: Path
) -> None:
    with pytest.raises(OutputError, match=r"--out takes a file path .* not 5"):
        ragmeter.report(result, out=5)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"report\(\) has no option nope; options: by, worst"):
        ragmeter.report(result, out=tmp_path / "r.html", nope=1)


# ---- assert_scores ----------------------------------------------------------------------


@pytest.mark.parametrize("thresholds", [[("token_f1", 0.1)], 5])
def test_assert_scores_thresholds_of_another_type_are_a_data_error(
    result: ragmeter.EvaluationResult, thresholds: object
) -> None:
    """Was AttributeError: 'list' object has no attribute 'split'."""
    with pytest.raises(DataError, match=r"give a dict \{metric: value\} or a 'METRIC=VALUE"):
        assert_scores(result, thresholds)  # type: ignore[arg-type]


@pytest.mark.parametrize("given", [None, "runs/base", {}])
def test_assert_scores_on_something_not_a_result_is_a_data_error(given: object) -> None:
    """Was AttributeError: 'str' object has no attribute 'aggregates'."""
    with pytest.raises(DataError, match=r"result must be what ragmeter.evaluate returned"):
        assert_scores(given, token_f1=0.1)


def test_assert_scores_bad_arguments_are_usage_errors_still_value_errors(
    result: ragmeter.EvaluationResult,
) -> None:
    """Were a plain ValueError (and a TypeError for a string rate); still ValueErrors."""
    with pytest.raises(UsageError, match="on must be one of"):
        assert_scores(result, token_f1=0.1, on="median")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"max_failure_rate must be in \[0, 1\], not '0.1'"):
        assert_scores(result, token_f1=0.1, max_failure_rate="0.1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="show must be an integer"):
        assert_scores(result, token_f1=0.1, show=1.5)  # type: ignore[arg-type]


# ---- evaluate's own arguments, load_run's path ----------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "said"),
    [
        ({"confidence": "0.9"}, ConfigError, "confidence must be between 0 and 1"),
        ({"seed": True}, ConfigError, "seed must be an integer"),
        ({"out": 5}, OutputError, "out takes a directory path"),
        ({"out": ""}, OutputError, "out takes a directory path"),
        ({"overwrite": "no"}, ConfigError, "overwrite must be True or False"),
        ({"progress": "yes"}, ConfigError, "progress must be True or False"),
    ],
    ids=["confidence-str", "seed-bool", "out-int", "out-empty", "overwrite-str", "progress-str"],
)
def test_evaluate_arguments_of_the_wrong_kind(
    kwargs: dict[str, object], error: type, said: str, tmp_path: Path, monkeypatch
) -> None:
    """A string confidence was a TypeError, seed=True ran as seed 1, out="" wrote the run into
    the current directory, overwrite="no" (truthy) replaced an existing run."""
    monkeypatch.chdir(tmp_path)  # out="" must write nothing here
    with pytest.raises(error, match=said):
        ragmeter.evaluate(_rows(), ["token_f1"], settings=NO_JUDGE, **kwargs)  # type: ignore[arg-type]
    assert not list(tmp_path.iterdir())


def test_metrics_as_a_generator_are_read_once(tmp_path: Path) -> None:
    """The up-front check read the generator, and the plan then found no metric named."""
    out = ragmeter.evaluate(_rows(), (m for m in ["token_f1"]), settings=NO_JUDGE, n_resamples=0)
    assert list(out.aggregates) == ["token_f1"]


@pytest.mark.parametrize("path", [None, 5])
def test_load_run_of_no_path(path: object) -> None:
    with pytest.raises(DataError, match="a run is read from its directory's path"):
        ragmeter.load_run(path)  # type: ignore[arg-type]


def test_result_write_refuses_what_is_no_directory_and_expands_the_home(tmp_path, monkeypatch):
    """write(None)/write(5) were pathlib TypeErrors, write(a file) a FileExistsError, and
    write("~/runs/a") made a directory named "~" in the working directory."""
    result = ragmeter.evaluate(_rows(2), "token_f1", n_resamples=0)
    for bad in (None, 5, "", "  "):
        with pytest.raises(OutputError, match=r"write\(\) takes a directory path"):
            result.write(bad)
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match=r"file\b.*is a file: give a directory"):
        result.write(tmp_path / "file")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    scores, _ = result.write("~/runs/a")
    assert scores == tmp_path / "home" / "runs" / "a" / "scores.jsonl" and scores.exists()
    assert not (tmp_path / "~").exists()


def test_a_home_relative_path_is_read_as_the_home_everywhere(tmp_path, monkeypatch):
    """evaluate(out="~/...") and report() read "~" as the home directory, but load(),
    evaluate(data), dry_run() and load_run()/compare() said "file not found" / "does not
    exist" for "~/data.jsonl" (the shell expands it for the CLI; Python callers had to)."""
    from ragmeter.io import write_jsonl

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    write_jsonl(_rows(3), tmp_path / "in.jsonl")
    assert len(ragmeter.load("~/in.jsonl")) == len(ragmeter.load(Path("~/in.jsonl"))) == 3
    assert ragmeter.dry_run("~/in.jsonl", "token_f1")
    for executor in ("local", "stream"):
        ragmeter.evaluate("~/in.jsonl", "token_f1", executor=executor, out=f"~/{executor}")
        assert ragmeter.load_run(f"~/{executor}").result.metrics == ["token_f1"]
    assert ragmeter.compare("~/local", Path("~/stream")).metrics[0].n == 3
    assert not (tmp_path / "~").exists()


def test_dry_run_reads_a_generator_of_metric_names_once() -> None:
    """The checks read the generator, leaving none to plan: 'no metric named' (MetricError)."""
    settings = Settings(judge="openai:gpt-4o-mini", api_key_env="RAGMETER_TEST_UNSET", cache="off")
    rows = [{**r, "contexts": ["x is y"]} for r in _rows(3)]
    estimate = ragmeter.dry_run(rows, (m for m in ["faithfulness"]), settings=settings)
    assert list(estimate["per_metric"]) == ["faithfulness"]
