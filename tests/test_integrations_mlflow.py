"""MLflow: a result logged to a temporary SQLite tracking store, read back with MlflowClient:
metrics with CIs, the per-sample table, run.json and the HTML report are all there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import ragmeter
from conftest import EXAMPLES, make_row
from needs import require_module
from ragmeter.errors import ConfigError, OutputError
from ragmeter.integrations import mlflow as rm
from ragmeter.testing import Evaluator


@pytest.fixture
def store(tmp_path, monkeypatch):
    """MLFLOW_TRACKING_URI = sqlite:///tmp_path/mlflow.db; artifacts land under tmp_path."""
    require_module("mlflow")
    import mlflow

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    monkeypatch.chdir(tmp_path)  # the default experiment's artifact root is ./mlruns
    mlflow.set_tracking_uri(uri)
    yield mlflow.MlflowClient(tracking_uri=uri)
    if mlflow.active_run() is not None:
        mlflow.end_run()
    mlflow.set_tracking_uri(None)


def _artifacts(client, run_id: str, path: str = "ragmeter") -> set[str]:
    return {f.path for f in client.list_artifacts(run_id, path)}


def test_log_result_into_the_active_run(store, tmp_path):
    import mlflow

    rows = [make_row(i) for i in range(1, 5)]
    rows[3]["answer"] = "Nothing in the context says this; the moon is cheese."
    result = Evaluator(judge="scripted").evaluate(
        rows, ["faithfulness", "k_precision", "ndcg@10"], n_resamples=50
    )
    run_dir = tmp_path / "run"
    result.write(run_dir)
    ragmeter.report(result, out=run_dir / "report.html")
    with mlflow.start_run(run_name="rag-eval") as active:
        run_id = rm.log_result(result, out_dir=run_dir)
        assert run_id == active.info.run_id  # logged into the user's run, left open
        assert mlflow.active_run() is not None
    run = store.get_run(run_id)
    metrics = run.data.metrics
    for name, key in (("faithfulness", "faithfulness"), ("ndcg@10", "ndcg_at_10")):
        agg = result.aggregates[name]
        assert metrics[key] == pytest.approx(agg.mean)
        assert metrics[f"{key}_ci_low"] == pytest.approx(agg.ci_low)
        assert metrics[f"{key}_ci_high"] == pytest.approx(agg.ci_high)
        assert metrics[f"{key}_n_ok"] == agg.n_ok
    assert metrics["n_samples"] == 4
    assert run.data.params["ragmeter.metrics"] == "faithfulness,k_precision,ndcg@10"
    assert _artifacts(store, run_id) >= {
        "ragmeter/scores.json",
        "ragmeter/scores.jsonl",
        "ragmeter/summary.json",
        "ragmeter/report.html",
    }
    # the per-sample table, read back through MLflow
    local = Path(store.download_artifacts(run_id, "ragmeter/scores.json", str(tmp_path / "dl")))
    table = json.loads(local.read_text())
    qids = [row[table["columns"].index("question_id")] for row in table["data"]]
    assert qids == [s.question_id for s in result.samples]
    faith = [row[table["columns"].index("faithfulness")] for row in table["data"]]
    assert faith == pytest.approx([sc.value for sc in result.scores["faithfulness"]])


def test_cli_evaluate_mlflow_logs_run_json_to_a_new_run(store):
    from ragmeter.cli import app

    done = CliRunner().invoke(
        app,
        [
            "evaluate", str(EXAMPLES / "rag_turns.jsonl"), "-m", "k_precision,mrr,ndcg@10",
            "--judge", "none", "--embedder", "none", "-o", "out", "--mlflow", "-q",
        ],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "logged to MLflow run" in done.output
    [run] = store.search_runs(["0"])
    assert run.info.status == "FINISHED"  # the run the command started, ended by it
    summary = json.loads(Path("out/summary.json").read_text())
    for name, key in (("mrr", "mrr"), ("ndcg@10", "ndcg_at_10")):
        assert run.data.metrics[key] == pytest.approx(summary["metrics"][name]["mean"])
        assert run.data.metrics[f"{key}_ci_high"] == pytest.approx(
            summary["metrics"][name]["ci_high"]
        )
    assert "ragmeter/run.json" in _artifacts(store, run.info.run_id)


def test_cli_evaluate_mlflow_logs_a_streamed_run(store):
    """--executor stream keeps no scores in memory: the run is logged from its --out."""
    from ragmeter.cli import app

    done = CliRunner().invoke(
        app,
        [
            "evaluate", str(EXAMPLES / "rag_turns.jsonl"), "-m", "k_precision,mrr",
            "--executor", "stream", "-o", "sout", "--mlflow", "-q",
        ],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    [run] = store.search_runs(["0"])
    summary = json.loads(Path("sout/summary.json").read_text())
    assert run.data.metrics["mrr"] == pytest.approx(summary["metrics"]["mrr"]["mean"])
    assert "ragmeter/scores.jsonl" in _artifacts(store, run.info.run_id)


def test_metric_keys_are_mlflow_safe():
    assert rm.metric_key("ndcg@10") == "ndcg_at_10"
    assert rm.metric_key("precision@5") == "precision_at_5"
    assert rm.metric_key("faithfulness") == "faithfulness"


NO_MODELS = {"judge": "none", "embedder": "none"}


def _result(first: int, n: int, metrics: list[str], **kw):
    rows = [make_row(i) for i in range(first, first + n)]
    return ragmeter.evaluate(rows, metrics, settings=NO_MODELS, n_resamples=20, **kw)


def test_an_out_dir_holding_another_run_is_refused_before_anything_is_logged(store, tmp_path):
    import mlflow

    mine = _result(1, 3, ["k_precision"])
    _result(5, 4, ["k_precision", "mrr"], out=tmp_path / "runA")  # another run's directory
    with mlflow.start_run() as active, pytest.raises(OutputError) as err:
        rm.log_result(mine, out_dir=tmp_path / "runA")
    assert "4 samples there, 3 in the result" in str(err.value)
    assert "metrics ['k_precision', 'mrr'] there" in str(err.value)
    run = store.get_run(active.info.run_id)
    assert run.data.params == {} and run.data.metrics == {}
    assert _artifacts(store, active.info.run_id) == set()
    # the same question ids in the same number, scored with other settings: refused too
    _result(1, 3, ["k_precision"], out=tmp_path / "runB", seed=7)
    with pytest.raises(OutputError, match=r"other settings \(run.json fingerprint\)"):
        rm.log_result(mine, out_dir=tmp_path / "runB")


def test_an_out_dir_without_a_run_is_only_read(store, tmp_path):
    result = _result(1, 3, ["k_precision"])
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "notes.txt").write_text("mine")
    run_id = rm.log_result(result, out_dir=plain)
    assert sorted(p.name for p in plain.iterdir()) == ["notes.txt"]  # nothing written there
    assert _artifacts(store, run_id) >= {"ragmeter/scores.jsonl", "ragmeter/run.json"}
    with pytest.raises(OutputError, match="is not a directory"):
        rm.log_result(result, out_dir=tmp_path / "typo")
    with pytest.raises(ConfigError, match=r"report .*nope\.html is not a file"):
        rm.log_result(result, report=tmp_path / "nope.html")  # was skipped without a word


def test_a_second_result_in_one_run_needs_a_key_and_is_refused_up_front_without(store):
    import mlflow

    first, second = _result(1, 3, ["k_precision"]), _result(5, 4, ["k_precision", "mrr"])
    with mlflow.start_run() as active:
        rm.log_result(first)
        with pytest.raises(OutputError, match="already holds a ragmeter result without a key"):
            rm.log_result(second)  # MLflow would have raised half-way, params changed
        rm.log_result(second, key="reranker-v2")
        with pytest.raises(OutputError, match=r"under key 'reranker-v2'.*the same params"):
            rm.log_result(second, key="reranker-v2")  # log_table would append its rows
    run = store.get_run(active.info.run_id)
    assert run.data.metrics["n_samples"] == 3
    assert run.data.metrics["reranker-v2/n_samples"] == 4
    assert run.data.metrics["reranker-v2/mrr"] == pytest.approx(second.aggregates["mrr"].mean)
    assert run.data.params["ragmeter.reranker-v2.metrics"] == "k_precision,mrr"
    assert run.data.params["ragmeter.metrics"] == "k_precision"
    nested = _artifacts(store, active.info.run_id, "ragmeter/reranker-v2")
    assert {"ragmeter/reranker-v2/scores.json", "ragmeter/reranker-v2/scores.jsonl"} <= nested


def test_a_streamed_result_is_logged_from_its_own_directory(store, tmp_path):
    data = tmp_path / "rows.jsonl"
    data.write_text("\n".join(json.dumps(make_row(i)) for i in range(1, 6)) + "\n")
    out = tmp_path / "streamed"
    streamed = ragmeter.evaluate(
        data, ["k_precision", "mrr"], settings=NO_MODELS, executor="stream", out=out
    )
    run_id = rm.log_result(streamed)
    run = store.get_run(run_id)
    assert run.data.metrics["n_samples"] == 5
    assert run.data.metrics["mrr"] == pytest.approx(streamed.aggregates["mrr"].mean)
    assert "not logged" in run.data.tags["ragmeter.table"]
    assert _artifacts(store, run_id) == {
        "ragmeter/scores.jsonl",
        "ragmeter/summary.json",
        "ragmeter/run.json",
    }


def test_cli_evaluate_shows_the_scores_when_mlflow_refuses_them(store, monkeypatch):
    """Without -o a logging failure exited 2 before the table: the scores were lost."""
    from ragmeter.cli import app
    from ragmeter.cli import evaluate as cli_evaluate

    def refused(result, out_dir=None):
        raise OutputError("the tracking store cannot be written")

    monkeypatch.setattr(cli_evaluate, "log_result", refused)
    done = CliRunner().invoke(
        app,
        [
            "evaluate", str(EXAMPLES / "rag_turns.jsonl"), "-m", "k_precision",
            "--judge", "none", "--embedder", "none", "--mlflow", "-q",
        ],
    )  # fmt: skip
    assert done.exit_code == 2, done.output
    assert "k_precision" in done.stdout and "0.678" in done.stdout  # the scores, shown
    assert "the tracking store cannot be written" in done.output


def test_a_report_older_than_the_run_there_is_not_logged_as_its_report(store, tmp_path):
    """Was: after `--overwrite`, DIR/report.html of the replaced run was logged as this run's
    report beside this run's scores."""
    import os

    run_dir = tmp_path / "run"
    old = _result(1, 3, ["k_precision"], out=run_dir)
    ragmeter.report(old, out=run_dir / "report.html")
    stale = (run_dir / "report.html").stat().st_mtime - 60
    os.utime(run_dir / "report.html", (stale, stale))  # written before the run below ended
    new = _result(1, 3, ["k_precision", "mrr"], out=run_dir, overwrite=True)
    with pytest.warns(RuntimeWarning, match="older than the run"):
        run_id = rm.log_result(new, out_dir=run_dir)
    assert "ragmeter/report.html" not in _artifacts(store, run_id)
    ragmeter.report(new, out=run_dir / "report.html")  # a report of this run: logged
    assert "ragmeter/report.html" in _artifacts(store, rm.log_result(new, out_dir=run_dir))
