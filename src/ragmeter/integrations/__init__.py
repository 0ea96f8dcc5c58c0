"""Integrations: each an optional extra that the core never imports.

``langchain`` and ``llamaindex`` run a user's pipeline over questions and capture samples;
``otel`` loads OpenInference traces into samples (``--format otel``) and ``otel_export``
writes scores back onto them; ``mlflow`` logs a result to the active MLflow run. Import the
module you need (``from ragmeter.integrations import langchain``); without its extra, its
entry points raise ``IntegrationUnavailable`` naming the ``pip install`` to run.
"""
