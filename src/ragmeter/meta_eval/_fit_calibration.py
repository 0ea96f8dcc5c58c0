"""Fit the faithfulness calibration (fast mode) to the user's own labels, with honest numbers.

Why: the shipped coefficients (``prompts/faithfulness_calibration.json``) were fitted on
general QA. In another domain (SciFact) the lexical terms are noise: on 693 SciFact claims,
out of fold, a refit ranks as the judge alone does (AUROC 0.747 vs 0.748) where the shipped
calibration loses (0.735), and its Brier is 0.188 against 0.358
(``benchmarks/faithfulness_domain_refit.py``). This module refits
the same formula the metric applies (``support.Calibration.p_supported``):

    P(claim supported) = sigmoid(b0 + b1 logit P_judge(yes) + b2 lexical + b3 missing)

with the answer's score the MEAN of its claims' P, by the objective of
``benchmarks/fit_faithfulness_calibration.py``: log loss of that per-answer mean against the
answer labels, L2 ``l2`` on b1..b3, L-BFGS-B from [0, 1, 0, 0].

Input, one entry per labelled answer (``fit_calibration``'s ``claims``): the list of its
claims' features as a faithfulness Score's ``details["statement_evidence"]`` holds them, each
a mapping with ``p_yes`` (the judge's P(yes), 0..1), ``lexical`` (lexical support, 0..1) and
``missing_specific`` (the names/numbers the contexts lack: a list, non-empty = 1; or a bool
or 0/1). ``labels``: 1 faithful, 0 not. ``groups`` (optional): a key per answer, the text of
its contexts, so answers on one context stay in one fold (else each answer is its own group).

The numbers are out-of-fold: k-fold cross-validation (rows grouped, groups shuffled with a
fixed seed), each fold predicted by a fit on the others; the refit's AUROC and Brier beside
the shipped calibration's and the judge alone's (mean P(yes)) on the same rows. The final
coefficients are fitted on all rows.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import os
import tempfile
from collections.abc import Hashable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from ragmeter.config import Settings
from ragmeter.errors import UsageError
from ragmeter.io import write_json
from ragmeter.meta_eval._labels import auroc
from ragmeter.meta_eval._labels_run import LabelResult
from ragmeter.metrics.registry import get_metric
from ragmeter.metrics.support import EPS, Calibration, load_calibration, logit
from ragmeter.plan import mode_of_metric
from ragmeter.stats import brier

MIN_ROWS = 20  # fewer: five folds of four answers say nothing
DEFAULT_L2 = 0.02
DEFAULT_FOLDS = 5
SEED = 0
START = (0.0, 1.0, 0.0, 0.0)  # the judge alone, as the benchmark's fit starts
ABOUT = (
    "P = sigmoid(intercept + logit_p_yes * logit(P(yes)) + lexical_support * lexical + "
    "missing_specific * missing), missing = 1 when the statement holds a name or number (not "
    "from its question) that no context sentence holds; the answer's score is the mean of P "
    "over its claims. Fitted on the user's own labels by ragmeter.meta_eval.fit_calibration "
    "(`ragmeter meta-eval labels --fit-calibration`): log loss of the per-answer mean, L2 on "
    "the non-intercept weights, L-BFGS-B from [0, 1, 0, 0]; see docs/labels-meta-eval.md."
)


class FitCalibrationError(UsageError, ValueError):
    """The calibration cannot be fitted from what was given (said before any judge work when
    the CLI can tell; otherwise after scoring, with nothing written)."""


Features = tuple[np.ndarray, np.ndarray, np.ndarray]  # (claims x 3, row of each claim, counts)


def claim_features(claims: Sequence[Sequence[Mapping[str, Any]]]) -> Features:
    """[logit P(yes), lexical, missing] per claim (``support.logit``: the metric's clipping),
    the answer each claim belongs to, and each answer's number of claims."""
    feats: list[tuple[float, float, float]] = []
    rows: list[int] = []
    for i, row in enumerate(claims):
        if not row:
            raise FitCalibrationError(f"answer {i + 1}: no claims (its score has no features)")
        for c in row:
            try:
                p, lex = float(c["p_yes"]), float(c["lexical"])
            except (KeyError, TypeError, ValueError) as exc:
                raise FitCalibrationError(
                    f"answer {i + 1}: a claim without a numeric p_yes / lexical ({exc})"
                ) from None
            if not (0.0 <= p <= 1.0 and 0.0 <= lex <= 1.0):
                raise FitCalibrationError(
                    f"answer {i + 1}: p_yes {p} and lexical {lex} must lie in [0, 1]"
                )
            feats.append((logit(p), lex, _missing(c.get("missing_specific"))))
            rows.append(i)
    counts = np.bincount(np.asarray(rows, dtype=int), minlength=len(claims)).astype(float)
    return np.asarray(feats, dtype=float).reshape(-1, 3), np.asarray(rows, dtype=int), counts


def _missing(value: Any) -> float:
    """1.0 when the claim names a name/number the contexts lack (a non-empty list, True, 1)."""
    if isinstance(value, list | tuple | set):
        return float(bool(value))
    return float(bool(value)) if value is not None else 0.0


def _scores(w: np.ndarray, f: Features) -> np.ndarray:
    x, rows, counts = f
    return np.bincount(rows, weights=expit(w[0] + x @ w[1:]), minlength=len(counts)) / counts


def _fit(f: Features, y: np.ndarray, l2: float) -> tuple[np.ndarray, bool]:
    """The coefficients minimising the benchmark's objective (analytic gradient: the
    numeric one stopped L-BFGS-B short of the optimum on flat losses); converged or not."""
    x, rows, counts = f
    design = np.column_stack([np.ones(len(x)), x])
    n = len(y)

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        sig = expit(design @ w)
        s = np.bincount(rows, weights=sig, minlength=n) / counts
        inside = (s > EPS) & (s < 1 - EPS)
        s = np.clip(s, EPS, 1 - EPS)
        value = -np.mean(y * np.log(s) + (1 - y) * np.log(1 - s)) + l2 * np.sum(w[1:] ** 2)
        d_s = np.where(inside, -(y / s - (1 - y) / (1 - s)) / n, 0.0) / counts
        per_claim = (d_s[rows] * sig * (1 - sig))[:, None] * design
        grad = per_claim.sum(axis=0) + 2 * l2 * np.r_[0.0, w[1:]]
        return float(value), grad

    res = minimize(loss, np.array(START), jac=True, method="L-BFGS-B")
    if not np.all(np.isfinite(res.x)):
        raise FitCalibrationError(f"the fit diverged ({res.message})")
    return res.x, bool(res.success)


def _calibration(w: Sequence[float], version: str = "fold") -> Calibration:
    return Calibration(version, float(w[0]), float(w[1]), float(w[2]), {}, float(w[3]))


def _answer_scores(cal: Calibration, claims: Sequence[Sequence[Mapping[str, Any]]]) -> list[float]:
    """Each answer's score as the metric computes it: the mean of ``p_supported``."""
    return [
        sum(
            cal.p_supported(
                float(c["p_yes"]), float(c["lexical"]), _missing(c.get("missing_specific"))
            )
            for c in row
        )
        / len(row)
        for row in claims
    ]


def grouped_folds(groups: Sequence[Hashable], k: int, seed: int = SEED) -> list[int]:
    """A fold per row: the distinct groups shuffled with ``seed``, each given whole to the
    fold with the fewest rows so far (ties: the lowest), so a group never spans two folds."""
    order = list(dict.fromkeys(groups))
    sizes: dict[Hashable, int] = {}
    for g in groups:
        sizes[g] = sizes.get(g, 0) + 1
    perm = np.random.default_rng(seed).permutation(len(order))
    fold_of: dict[Hashable, int] = {}
    filled = [0] * k
    for j in perm:
        g = order[int(j)]
        f = min(range(k), key=lambda i: (filled[i], i))
        fold_of[g] = f
        filled[f] += sizes[g]
    return [fold_of[g] for g in groups]


def _metrics(scores: Sequence[float], y: Sequence[int]) -> dict[str, float | None]:
    a = auroc(scores, y)
    return {"auroc": None if a is None else round(a, 4), "brier": round(brier(scores, y), 4)}


def check_rows(labels: Sequence[int], what: str = "labelled faithfulness rows") -> None:
    """At least ``MIN_ROWS`` answers, both classes: said before any judge work when the CLI
    can count them, and again on the rows that were scored."""
    n, pos = len(labels), sum(int(v) for v in labels)
    if n < MIN_ROWS:
        raise FitCalibrationError(
            f"--fit-calibration needs at least {MIN_ROWS} {what}, there are {n}"
        )
    if pos in (0, n):
        raise FitCalibrationError(
            f"--fit-calibration needs both labels among the {what}; all {n} are {int(pos > 0)}"
        )


def fit_calibration(
    claims: Sequence[Sequence[Mapping[str, Any]]],
    labels: Sequence[int],
    groups: Sequence[Hashable] | None = None,
    *,
    l2: float = DEFAULT_L2,
    folds: int = DEFAULT_FOLDS,
    seed: int = SEED,
    provenance: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(calibration, cross-validation report) from per-answer claim features and labels
    (module docstring: the input). The calibration is the package file's schema
    (``support.parse_calibration`` reads it; ``version`` "user-" + 12 hex of a digest of the
    coefficients and the data); ``provenance`` (data file digest, judge, prompt version...)
    is merged into its provenance with the CV report. No judge is run: stored results do."""
    y = np.asarray([int(v) for v in labels], dtype=float)
    if len(claims) != len(y) or (groups is not None and len(groups) != len(y)):
        raise FitCalibrationError("claims, labels and groups must have one entry per answer")
    if set(np.unique(y)) - {0.0, 1.0}:
        raise FitCalibrationError("labels must be 0 or 1")
    if not (math.isfinite(l2) and l2 >= 0) or folds < 2:
        raise FitCalibrationError(f"l2 must be >= 0 and folds >= 2 (l2 {l2}, folds {folds})")
    check_rows([int(v) for v in y], "answers")
    f = claim_features(claims)
    keys: Sequence[Hashable] = list(range(len(y))) if groups is None else groups
    n_groups = len(set(keys))
    k = min(folds, n_groups)
    if k < 2:
        raise FitCalibrationError("every answer shares one context: no fold could be held out")
    fold = np.asarray(grouped_folds(keys, k, seed))
    oof = np.zeros(len(y))
    converged = True
    for i in range(k):
        test = np.flatnonzero(fold == i)
        train = np.flatnonzero(fold != i)
        w, ok = _fit(_subset(f, train), y[train], l2)
        converged &= ok
        oof[test] = _answer_scores(_calibration(w), [claims[j] for j in test])
    w, ok = _fit(f, y, l2)
    coef = [round(float(v), 4) + 0.0 for v in w]  # + 0.0: no "-0.0" in the file
    shipped = load_calibration()
    judge = [sum(float(c["p_yes"]) for c in row) / len(row) for row in claims]
    ys = [int(v) for v in y]
    cv = {
        "folds": k,
        "seed": seed,
        "grouped_by": "contexts" if groups is not None else "answer",
        "n_groups": n_groups,
        "n": len(ys),
        "n_positive": sum(ys),
        "refit": _metrics(oof.tolist(), ys),
        "shipped": {**_metrics(_answer_scores(shipped, claims), ys), "version": shipped.version},
        "judge_alone": _metrics(judge, ys),
        "converged": bool(converged and ok),
    }
    coefficients = dict(
        zip(("intercept", "logit_p_yes", "lexical_support", "missing_specific"), coef, strict=True)
    )
    data = [[[round(float(v), 6) for v in row] for row in f[0]], f[1].tolist(), ys]
    digest = hashlib.sha256(
        json.dumps({"coefficients": coefficients, "data": data}, sort_keys=True).encode()
    ).hexdigest()
    calibration = {
        "version": "user-" + digest[:12],
        "about": ABOUT,
        "coefficients": coefficients,
        "provenance": {
            "metric": "faithfulness",
            "fit_set": "user labels",
            "n_rows": len(ys),
            "n_positive": sum(ys),
            "l2": l2,
            "folds": k,
            "fitted_on": dt.date.today().isoformat(),
            **dict(provenance or {}),
            "cross_validation": cv,
        },
    }
    return calibration, cv


def _subset(f: Features, rows: np.ndarray) -> Features:
    """The features of the answers ``rows``, renumbered 0..len(rows)-1."""
    x, row_of, counts = f
    keep = np.isin(row_of, rows)
    new = np.full(len(counts), -1)
    new[rows] = np.arange(len(rows))
    return x[keep], new[row_of[keep]], counts[rows]


# --- ``meta-eval labels --fit-calibration OUT``: the request checked, the scored rows fitted --


def check_fit_request(
    out: str | Path, data: str | Path, dims: Sequence[str], items: Sequence[Any], s: Settings
) -> Path:
    """Refuse, before any model loads, a fit that cannot be made or written: faithfulness not
    labelled, too few rows or one class, a mode without the calibration's features
    (``--mode faithfulness=generate``, ``faithfulness_combine=judge``), OUT existing (no
    overwrite: a fitted calibration is provenance), its directory missing or not writable."""
    if "faithfulness" not in dims:
        raise FitCalibrationError(
            "--fit-calibration fits faithfulness, which this run does not score: give "
            "label_faithfulness in the data (and faithfulness in --dimensions)"
        )
    check_rows([i.labels["faithfulness"] for i in items if "faithfulness" in i.labels])
    options = s.metric_options()
    mode = mode_of_metric(get_metric("faithfulness"), options)
    if mode != "fast":
        raise FitCalibrationError(
            f"--fit-calibration fits fast mode's calibration; faithfulness runs in mode {mode!r} "
            "here, which has no per-claim P(yes) and lexical support: drop --mode "
            "faithfulness=..."
        )
    if options.get("faithfulness_combine") == "judge":
        raise FitCalibrationError(
            "--fit-calibration fits the calibrated combination; options.faithfulness_combine is "
            "'judge' (the judge alone, nothing to fit): leave it out"
        )
    path = Path(out).expanduser()
    if Path(data).expanduser().resolve() == path.resolve():
        raise FitCalibrationError(f"--fit-calibration {out} is the data file: give a new file")
    if path.exists() or path.is_symlink():
        raise FitCalibrationError(
            f"--fit-calibration {out} exists: give a new file (a calibration is not overwritten)"
        )
    if not path.parent.is_dir():
        raise FitCalibrationError(
            f"--fit-calibration {out}: directory {path.parent} does not exist"
        )
    try:
        fd, probe = tempfile.mkstemp(prefix=".ragmeter-calibration-", dir=path.parent)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise FitCalibrationError(
            f"--fit-calibration {out} cannot be written ({exc.strerror or exc})"
        ) from None
    return path


def fit_from_results(
    out: str | Path, data: str | Path, results: Sequence[LabelResult], judge: str
) -> dict[str, Any]:
    """Fit on every faithfulness row scored in fast calibrated mode with a value (undefined
    and failed rows left out and counted), write the calibration to ``out``; what the
    payload records (coefficients, CV numbers, rows left out), or ``{"out", "error"}`` when
    too few rows were scored: the labels' results are still reported."""
    try:
        return _fit_and_write(out, data, results, judge)
    except FitCalibrationError as exc:
        return {"out": str(out), "error": str(exc)}


def _fit_and_write(
    out: str | Path, data: str | Path, results: Sequence[LabelResult], judge: str
) -> dict[str, Any]:
    (res,) = [r for r in results if r.kind == "ragas" and r.dimension == "faithfulness"]
    used = [
        r
        for r in res.rows
        if r.get("status") == "ok"
        and r.get("value") is not None
        and r.get("combine") == "calibrated"
        and r.get("statement_evidence")
    ]
    left_out = {"undefined": res.n_undefined, "failed": res.n_failed}
    left_out["other"] = len(res.rows) - len(used) - left_out["undefined"] - left_out["failed"]
    check_rows([int(r["label"]) for r in used], "faithfulness rows scored")
    versions = sorted({str(r.get("prompt_version")) for r in used})
    calibration, cv = fit_calibration(
        [r["statement_evidence"] for r in used],
        [int(r["label"]) for r in used],
        [r["contexts_sha256"] for r in used],
        provenance={
            "data_file": Path(data).name,
            "data_sha256": hashlib.sha256(Path(data).expanduser().read_bytes()).hexdigest(),
            "left_out": left_out,
            "judge": judge,
            "prompt_versions": versions[0] if len(versions) == 1 else versions,
            "ragmeter_version": _ragmeter_version(),
        },
    )
    path = Path(out).expanduser()
    try:
        write_json(calibration, path)
    except OSError as exc:
        raise FitCalibrationError(f"{out} cannot be written ({exc.strerror or exc})") from None
    return {
        "out": str(path),
        "version": calibration["version"],
        "coefficients": calibration["coefficients"],
        "cross_validation": cv,
        "left_out": left_out,
    }


def _ragmeter_version() -> str:
    """The version pip installed (``ragmeter --version``'s); "unknown" in a bare checkout
    (importing ``ragmeter`` itself from here would break the layers)."""
    try:
        return metadata.version("ragmeter")
    except metadata.PackageNotFoundError:
        return "unknown"
