"""MLflow: a ragmeter result logged to the active MLflow run (``ragmeter evaluate --mlflow``).

What is logged, so a run in the MLflow UI holds the whole evaluation:

- metrics: per ragmeter metric ``<name>`` (the mean), ``<name>_ci_low``, ``<name>_ci_high``
  (the bootstrap CI), ``<name>_n_ok`` and ``<name>_n_failed``; plus ``n_samples`` and
  ``failure_rate``. MLflow refuses ``@`` in metric keys, so ``ndcg@10`` is logged as
  ``ndcg_at_10``; a mean that cannot be computed (no ok score) is left out, not logged as 0;
- the per-sample table (``ragmeter/scores.json`` via ``mlflow.log_table``: question_id,
  question, answer, one column per metric, statuses and reasons), and ``scores.jsonl``,
  ``summary.json`` and ``run.json`` as artifacts under ``ragmeter/``. A ``StreamedResult``
  (``--executor stream``/``ray``) keeps its scores on disk, not in memory: its table is not
  built (tag ``ragmeter.table`` says so) and its ``scores.jsonl`` is the per-sample record;
- the HTML report, when one is given or present in the run directory (``report.html``);
- params: the metrics, judge and embedder, ragmeter's version, and ``ragmeter.input`` (the
  input's sha256 from run.json, else a digest of the question ids, 12 hex digits).

``key`` logs a second result beside a first in one MLflow run: metrics ``<key>/<name>``,
params ``ragmeter.<key>.*``, artifacts under ``ragmeter/<key>/``. A run already holding a
ragmeter result under the same key (or none) is refused before anything is logged: MLflow
would fail half-way ("Changing param values is not allowed") or, with equal params, append
the rows to the first result's table.

What MLflow would refuse half-way (a key too long or read as a path, ``key=".."``; two
metrics under one key) is a ConfigError before anything is logged. A
step MLflow fails anyway (the artifact store, the server) is an OutputError saying what the
run already holds; a run ragmeter started for it is ended FAILED, not FINISHED.

``out_dir`` is only read: when it holds a run (``scores.jsonl``) whose samples, metrics,
settings or input differ from the result's, the call is refused; when it holds none, the
files are written to a temporary directory and logged from there, never into ``out_dir``.

The run is the active one (``mlflow.start_run()`` around the call), else a new run in the
current experiment, ended afterwards. The tracking store is MLflow's own choice:
``MLFLOW_TRACKING_URI`` (a local ``file:`` directory, ``sqlite:///mlflow.db``, a server) or
``mlflow.set_tracking_uri``. Needs ``pip install 'ragmeter[mlflow]'``.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import tempfile
import warnings
from pathlib import Path
from typing import Any

from ragmeter.errors import ConfigError, OutputError
from ragmeter.executors.streamed import StreamedResult
from ragmeter.integrations._extras import require
from ragmeter.redact import describe
from ragmeter.result import EvaluationResult

EXTRA = "mlflow"
ARTIFACT_DIR = "ragmeter"


def metric_key(name: str) -> str:
    """An MLflow-safe key: letters, digits, ``_ - . /`` and spaces; ``@`` reads ``_at_``."""
    return re.sub(r"[^A-Za-z0-9_\-./ ]", "_", name.replace("@", "_at_"))


def n_samples(result: EvaluationResult | StreamedResult) -> int:
    return result.n_samples if isinstance(result, StreamedResult) else len(result.samples)


def metrics_of(
    result: EvaluationResult | StreamedResult, key: str | None = None
) -> dict[str, float]:
    """The numbers logged as MLflow metrics (see the module docstring), under ``<key>/``."""
    out: dict[str, float] = {
        "n_samples": float(n_samples(result)),
        "failure_rate": float(result.failure_rate()),
    }
    for name in result.metrics:
        agg, mkey = result.aggregates[name], metric_key(name)
        if agg.mean is not None:
            out[mkey] = float(agg.mean)
        if agg.ci_low is not None and agg.ci_high is not None:
            out[f"{mkey}_ci_low"] = float(agg.ci_low)
            out[f"{mkey}_ci_high"] = float(agg.ci_high)
        out[f"{mkey}_n_ok"] = float(agg.n_ok)
        out[f"{mkey}_n_failed"] = float(agg.n_failed)
    return {f"{key}/{k}" if key else k: v for k, v in out.items()}


def params_of(result: EvaluationResult | StreamedResult, key: str | None = None) -> dict[str, str]:
    """The params logged (``ragmeter.*``, or ``ragmeter.<key>.*``)."""
    settings = result.config.get("settings") or {}
    prefix = f"ragmeter.{key}." if key else "ragmeter."
    return {
        prefix + "metrics": ",".join(result.metrics),
        prefix + "judge": str(result.usage.get("judge") or settings.get("judge")),
        prefix + "embedder": str(result.usage.get("embedder") or settings.get("embedder")),
        prefix + "version": str(result.manifest.get("ragmeter_version", "")),
        prefix + "input": input_digest(result),
    }


def input_digest(result: EvaluationResult | StreamedResult) -> str:
    """What the result scored, in 12 hex digits: the input's sha256 recorded in run.json,
    else (a result built without a manifest) a sha256 of its question ids."""
    facts = result.manifest.get("input") or {}
    recorded = facts.get("sha256") or facts.get("rows_sha256")
    if recorded:
        return str(recorded)[:12]
    if isinstance(result, StreamedResult):
        return "unknown"
    ids = "\n".join(s.question_id for s in result.samples)
    return hashlib.sha256(ids.encode()).hexdigest()[:12]


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
    result: EvaluationResult | StreamedResult,
    *,
    out_dir: str | Path | None = None,
    report: str | Path | None = None,
    run_name: str | None = None,
    key: str | None = None,
) -> str:
    """Log ``result`` to the active MLflow run (else a new one) and return the run id.

    ``out_dir``: the run directory ``--out`` wrote, read only (its files are logged as they
    are, and a ``report.html`` in it is the report); refused when it holds another run. A
    StreamedResult's own ``out_dir`` is the default. Without one the files are written to a
    temporary directory first. ``report``: an HTML report file to log. ``key``: the name to
    log this result under, beside others in the same run. Everything is checked before
    anything is logged.
    """
    mlflow = require("mlflow", EXTRA)
    if key is not None and not re.fullmatch(r"[A-Za-z0-9_.\-]+", key):
        raise ConfigError(f"key must be letters, digits, '_', '-' or '.', not {key!r}")
    directory = run_directory(result, out_dir)
    html = _report(report, Path(out_dir) if out_dir is not None else directory)
    params = params_of(result, key)
    check_names(result, params, key)
    active = mlflow.active_run()
    if active is not None:
        _check_params(mlflow.get_run(active.info.run_id).data.params, params, key)
    run = active if active is not None else mlflow.start_run(run_name=run_name)
    done: list[str] = []
    status = "FAILED"  # a run of ours holding only part of the result is not shown finished
    try:
        _log(mlflow, result, directory, html, params, key, done)
        status = "FINISHED"
    except Exception as exc:
        raise OutputError(
            f"MLflow run {run.info.run_id} holds only part of the result: logging failed "
            f"after {', '.join(done) or 'nothing'} ({describe(exc)})"
            + ("; the run is marked FAILED" if active is None else "")
        ) from exc
    finally:
        if active is None:
            mlflow.end_run(status=status)
    return str(run.info.run_id)


def check_names(
    result: EvaluationResult | StreamedResult, params: dict[str, str], key: str | None
) -> None:
    """Refuse, before anything is logged, what MLflow would refuse half-way: a key longer
    than MLflow's limit or one that reads as a path elsewhere (``key=".."`` gives
    ``../faithfulness``), two metrics logged under one key
    (``ndcg@10`` and a custom ``ndcg_at_10``: the second would overwrite the first)."""
    validation = require("mlflow.utils.validation", EXTRA)
    key_max = getattr(validation, "MAX_ENTITY_KEY_LENGTH", 250)
    by_key: dict[str, str] = {}
    for name in result.metrics:
        other = by_key.setdefault(metric_key(name), name)
        if other != name:
            raise ConfigError(
                f"metrics {other!r} and {name!r} are both logged to MLflow as "
                f"{metric_key(name)!r}: evaluate them in separate runs or log with key='...'"
            )
    for name in [*metrics_of(result, key), *params]:
        if len(name) > key_max or _path_like(name):
            raise ConfigError(
                f"MLflow refuses the key {name!r} ("
                + (f"longer than {key_max} characters" if len(name) > key_max else "a path")
                + ")"
                + (f": choose another key than {key!r}" if key else "")
            )


def _report(report: str | Path | None, directory: Path | None) -> Path | None:
    if report is not None:
        if not Path(report).is_file():
            raise ConfigError(f"report {report} is not a file: give the HTML report to log")
        return Path(report)
    found = directory / "report.html" if directory is not None else None
    if found is None or not found.is_file():
        return None
    manifest = found.with_name("run.json")
    if manifest.is_file() and found.stat().st_mtime < manifest.stat().st_mtime:
        # Why: `--overwrite` (or a resumed run) leaves a report of the replaced run there, which
        # was logged as this run's report beside this run's scores.
        warnings.warn(
            f"{found} is older than the run in {directory} (its run.json): a report of an "
            "earlier run, not logged; pass report=... to log it anyway",
            RuntimeWarning,
            stacklevel=3,
        )
        return None
    return found


def _check_params(there: dict[str, str], here: dict[str, str], key: str | None) -> None:
    """One ragmeter result per key and run, checked before anything is logged: a second one
    would fail half-way (MLflow refuses to change a param) or, with equal params, append its
    rows to the first one's table (``log_table`` appends to an existing file)."""
    held = [k for k in here if k in there]
    if held:
        named = f"under key {key!r}" if key else "without a key"
        diffs = [f"{k}: {there[k]!r} there, {here[k]!r} now" for k in held if there[k] != here[k]]
        raise OutputError(
            f"the active MLflow run already holds a ragmeter result {named} "
            f"({'; '.join(diffs[:3]) or 'the same params'}): log this one with key='...' (its "
            "metrics, params and artifacts go under that name), or in a nested run "
            "(mlflow.start_run(nested=True))"
        )


def run_directory(result: EvaluationResult | StreamedResult, out_dir: Any) -> Path | None:
    """The directory whose files are logged, after checking it holds this result's run;
    None when there is none (the files are then written to a temporary directory)."""
    streamed = isinstance(result, StreamedResult)
    if out_dir is None:
        return result.out_dir if streamed else None
    path = Path(out_dir)
    if not path.is_dir():
        raise OutputError(f"out_dir {path} is not a directory: give the run directory --out wrote")
    if not (path / "scores.jsonl").is_file():
        if streamed:
            raise OutputError(
                f"out_dir {path} holds no scores.jsonl: a streamed result's scores are in its "
                f"own out_dir, {result.out_dir}"
            )
        return None  # nothing of a run there: nothing in it is read or written but report.html
    if streamed and path.resolve() == result.out_dir.resolve():
        return path
    diffs = run_differences(result, path)
    if diffs:
        raise OutputError(
            f"out_dir {path} holds another run than this result ({'; '.join(diffs[:3])}): give "
            "the directory this result was written to, or no out_dir (the result's files are "
            "then written to a temporary directory and logged from there)"
        )
    return path


def run_differences(result: EvaluationResult | StreamedResult, path: Path) -> list[str]:
    """What tells the run in ``path`` apart from ``result``, cheaply: the samples' count and
    question ids (scores.jsonl), the metrics (summary.json), settings and input (run.json)."""
    diffs = []
    ids = _question_ids(path / "scores.jsonl")
    n = n_samples(result)
    if ids is None:
        diffs.append("its scores.jsonl is unreadable")
    elif len(ids) != n:
        diffs.append(f"{len(ids)} samples there, {n} in the result")
    elif not isinstance(result, StreamedResult):
        mine = [s.question_id for s in result.samples]
        other = [i for i, j in zip(ids, mine, strict=True) if i != j]
        if other:
            diffs.append(f"other question ids (first: {other[0]!r})")
    summary = _json(path / "summary.json")
    metrics = list(summary.get("metrics") or {})
    if metrics and metrics != list(result.metrics):
        diffs.append(f"metrics {metrics} there, {list(result.metrics)} in the result")
    manifest = _json(path / "run.json")
    for field in ("fingerprint", "input"):
        there, here = manifest.get(field), result.manifest.get(field)
        if there and here and there != here:
            what = "settings" if field == "fingerprint" else "input"
            diffs.append(f"other {what} (run.json {field})")
    return diffs


def _question_ids(path: Path) -> list[str] | None:
    """The question ids of a scores.jsonl, in order; None when it cannot be read."""
    try:
        with path.open(encoding="utf-8") as fh:
            return [str(json.loads(line)["question_id"]) for line in fh if line.strip()]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _path_like(name: str) -> bool:
    """Whether MLflow refuses ``name`` as a key, read as a file path that resolves to another
    name (MLflow's own rule: ``./x``, ``../x``, ``a//b``, ``/x``, ``..x``)."""
    norm = posixpath.normpath(name)
    return norm != name or norm == "." or norm.startswith(("..", "/"))


def _log(
    mlflow: Any,
    result: EvaluationResult | StreamedResult,
    directory: Path | None,
    html: Path | None,
    params: dict[str, str],
    key: str | None,
    done: list[str],
) -> None:
    """Log everything; ``done`` lists what is logged so far, for the error if a step fails."""
    folder = f"{ARTIFACT_DIR}/{key}" if key else ARTIFACT_DIR
    mlflow.log_params(params)
    done.append("the params")
    mlflow.log_metrics(metrics_of(result, key))
    done.append("the metrics")
    if isinstance(result, StreamedResult):
        mlflow.set_tag(
            f"ragmeter.{key}.table" if key else "ragmeter.table",
            f"not logged: a streamed result keeps its scores on disk; see {folder}/scores.jsonl",
        )
    else:
        mlflow.log_table(table_of(result), artifact_file=f"{folder}/scores.json")
        done.append("the table")
    with tempfile.TemporaryDirectory(prefix="ragmeter-mlflow-") as tmp:
        source = directory if directory is not None else Path(tmp)
        if directory is None and isinstance(result, EvaluationResult):  # streamed: on disk
            result.write(source)
        for name in ("scores.jsonl", "summary.json", "run.json"):
            if (source / name).exists():
                mlflow.log_artifact(str(source / name), artifact_path=folder)
                done.append(name)
            elif directory is not None:
                warnings.warn(
                    f"{directory} holds no {name}: not logged", RuntimeWarning, stacklevel=3
                )
        if html is not None:
            mlflow.log_artifact(str(html), artifact_path=folder)
