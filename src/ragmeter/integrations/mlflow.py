"""MLflow: a ragmeter result logged to the active MLflow run (``ragmeter evaluate --mlflow``).

What is logged, so a run in the MLflow UI holds the whole evaluation:

- metrics: per ragmeter metric ``<name>`` (the mean), ``<name>_ci_low``, ``<name>_ci_high``
  (the bootstrap CI), ``<name>_n_ok`` and ``<name>_n_failed``; plus ``n_samples`` and
  ``failure_rate``. MLflow refuses ``@`` in metric keys, so ``ndcg@10`` is logged as
  ``ndcg_at_10``; a mean that cannot be computed (no ok score) is left out, not logged as 0;
- the per-sample table (``ragmeter/scores.json`` via ``mlflow.log_table``: question_id,
  question, answer, one column per metric, statuses and reasons), and ``scores.jsonl``,
  ``summary.json`` and ``run.json`` as artifacts under ``ragmeter/``;
- the HTML report, when one is given or present in the run directory (``report.html``);
- params: the metrics, judge and embedder, ragmeter's version.

The run is the active one (``mlflow.start_run()`` around the call), else a new run in the
current experiment, ended afterwards. The tracking store is MLflow's own choice:
``MLFLOW_TRACKING_URI`` (a local ``file:`` directory, ``sqlite:///mlflow.db``, a server) or
``mlflow.set_tracking_uri``. Needs ``pip install 'ragmeter[mlflow]'``.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from ragmeter.integrations._extras import require
from ragmeter.result import EvaluationResult

EXTRA = "mlflow"
ARTIFACT_DIR = "ragmeter"


def metric_key(name: str) -> str:
    """An MLflow-safe key: letters, digits, ``_ - . /`` and spaces; ``@`` reads ``_at_``."""
    return re.sub(r"[^A-Za-z0-9_\-./ ]", "_", name.replace("@", "_at_"))


def metrics_of(result: EvaluationResult) -> dict[str, float]:
    """The numbers logged as MLflow metrics (see the module docstring)."""
    out: dict[str, float] = {
        "n_samples": float(len(result.samples)),
        "failure_rate": float(result.failure_rate()),
    }
    for name in result.metrics:
        agg, key = result.aggregates[name], metric_key(name)
        if agg.mean is not None:
            out[key] = float(agg.mean)
        if agg.ci_low is not None and agg.ci_high is not None:
            out[f"{key}_ci_low"] = float(agg.ci_low)
            out[f"{key}_ci_high"] = float(agg.ci_high)
        out[f"{key}_n_ok"] = float(agg.n_ok)
        out[f"{key}_n_failed"] = float(agg.n_failed)
    return out


def table_of(result: EvaluationResult) -> Any:
    """One row per sample: the turn, one column per metric, statuses and reasons as JSON."""
    import pandas as pd

    rows = []
    for rec in result.records():
        row = {k: rec.get(k) for k in ("question_id", "question", "answer")}
        row["contexts"] = json.dumps(rec.get("contexts"), ensure_ascii=False)
        row.update({m: rec.get(m) for m in result.metrics})
        row["status"] = json.dumps(rec.get("status", {}))
        row["reasons"] = json.dumps(rec.get("reasons", {}), ensure_ascii=False)
        rows.append(row)
    return pd.DataFrame(rows)


def check() -> None:
    """Raise IntegrationUnavailable now when mlflow is missing (before a run, not after)."""
    require("mlflow", EXTRA)


def log_result(
    result: EvaluationResult,
    *,
    out_dir: str | Path | None = None,
    report: str | Path | None = None,
    run_name: str | None = None,
) -> str:
    """Log ``result`` to the active MLflow run (else a new one) and return the run id.

    ``out_dir``: the run directory ``--out`` wrote (its files are logged as they are, and a
    ``report.html`` in it is the report); without it the files are written to a temporary
    directory first. ``report``: an HTML report file to log.
    """
    mlflow = require("mlflow", EXTRA)
    started = mlflow.active_run() is None
    run = mlflow.start_run(run_name=run_name) if started else mlflow.active_run()
    try:
        _log(mlflow, result, out_dir, report)
    finally:
        if started:
            mlflow.end_run()
    return str(run.info.run_id)


def _log(mlflow: Any, result: EvaluationResult, out_dir: Any, report: Any) -> None:
    settings = result.config.get("settings") or {}
    mlflow.log_params(
        {
            "ragmeter.metrics": ",".join(result.metrics),
            "ragmeter.judge": str(result.usage.get("judge") or settings.get("judge")),
            "ragmeter.embedder": str(result.usage.get("embedder") or settings.get("embedder")),
            "ragmeter.version": str(result.manifest.get("ragmeter_version", "")),
        }
    )
    mlflow.log_metrics(metrics_of(result))
    mlflow.log_table(table_of(result), artifact_file=f"{ARTIFACT_DIR}/scores.json")
    with tempfile.TemporaryDirectory(prefix="ragmeter-mlflow-") as tmp:
        directory = Path(out_dir) if out_dir is not None else Path(tmp)
        if out_dir is None or not (directory / "scores.jsonl").exists():
            result.write(directory)
        for name in ("scores.jsonl", "summary.json", "run.json"):
            if (directory / name).exists():
                mlflow.log_artifact(str(directory / name), artifact_path=ARTIFACT_DIR)
        html = Path(report) if report is not None else directory / "report.html"
        if html.exists():
            mlflow.log_artifact(str(html), artifact_path=ARTIFACT_DIR)
