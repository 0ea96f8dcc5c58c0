"""Log a ragmeter evaluation to MLflow (metrics with CIs, per-sample table, run.json).

    pip install 'ragmeter[mlflow]'
    MLFLOW_TRACKING_URI=sqlite:///mlflow.db python examples/integrations/mlflow_log.py
    mlflow ui --backend-store-uri sqlite:///mlflow.db   # then open the "ragmeter" experiment

The CLI does the same (without -m it also runs the judged metrics on the embedded judge):
    MLFLOW_TRACKING_URI=sqlite:///mlflow.db MLFLOW_EXPERIMENT_NAME=ragmeter \
        ragmeter evaluate examples/rag_turns.jsonl -m k_precision,token_f1,mrr,ndcg@10 \
        -o out/mlflow-cli --mlflow
"""

import mlflow

import ragmeter
from ragmeter.integrations.mlflow import log_result

mlflow.set_experiment("ragmeter")
result = ragmeter.evaluate(
    "examples/rag_turns.jsonl", ["k_precision", "token_f1", "mrr", "ndcg@10"], out="out/mlflow-demo"
)
with mlflow.start_run(run_name="baseline retriever"):
    mlflow.log_param("retriever", "bm25")  # your own params beside ragmeter's
    run_id = log_result(result, out_dir="out/mlflow-demo")
print(
    "logged to run",
    run_id,
    {k: v for k, v in mlflow.get_run(run_id).data.metrics.items() if k.startswith("mrr")},
)
