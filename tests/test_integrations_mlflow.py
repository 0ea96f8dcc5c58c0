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


def test_metric_keys_are_mlflow_safe():
    assert rm.metric_key("ndcg@10") == "ndcg_at_10"
    assert rm.metric_key("precision@5") == "precision_at_5"
    assert rm.metric_key("faithfulness") == "faithfulness"
