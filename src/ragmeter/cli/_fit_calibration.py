"""``meta-eval labels --fit-calibration OUT.json``: the run with the fit, and what it prints.

Why a module of its own: ``cli/meta_eval.py`` calls ``with_fit`` once, in place of the run,
so the command keeps its one library call; the refusals only this option has (a pairwise
dataset, OUT the same file as --out) and the fit's table are here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.table import Table

from ragmeter.cli._common import console, literal, table_title
from ragmeter.cli._long_tables import print_table as print_wide
from ragmeter.errors import UsageError
from ragmeter.meta_eval import LabelsReport
from ragmeter.meta_eval._labels_api import from_run


def with_fit(
    run: Callable[..., Any], fit_calibration: Path | None, out: str | None
) -> Callable[..., Any]:
    """``run`` itself without ``--fit-calibration``; with it, a run of ``labels`` that fits
    and writes the calibration, its numbers printed before the labels' table. Refused
    (exit 2, before any work): another dataset (wikieval holds preference pairs, not labels:
    no label per answer to fit to) and OUT naming the --out file."""
    if fit_calibration is None:
        return run

    def fitted(dataset: str, data: str | Path, **kwargs: Any) -> LabelsReport:
        if dataset != "labels":
            raise UsageError(
                f"--fit-calibration fits to per-answer labels: use `meta-eval labels --data "
                f"FILE`, not {dataset} (preference pairs, no label per answer)"
            )
        target = Path(fit_calibration).expanduser()
        if out is not None and Path(out).expanduser().resolve() == target.resolve():
            raise UsageError(f"--fit-calibration {fit_calibration} is the --out file: give another")
        report = from_run(data, fit_calibration=fit_calibration, **kwargs)
        print_fit(report.payload.get("fit_calibration") or {})
        return report

    return fitted


def print_fit(fit: dict[str, Any]) -> None:
    """The out-of-fold AUROC and Brier of the refit, the shipped calibration and the judge
    alone on the same rows, the final coefficients and the file written. Nothing when the
    fit was not made (``LabelsReport.failure_lines`` says why, on stderr)."""
    cv = fit.get("cross_validation")
    if not cv:
        return
    table = Table(
        title=table_title(
            f"faithfulness calibration fitted to your labels · {cv['n']} rows "
            f"({cv['n_positive']} labelled 1), {cv['folds']}-fold CV grouped by "
            f"{cv['grouped_by']} (out-of-fold numbers)"
        )
    )
    for col in ("scorer", "AUROC", "Brier"):
        table.add_column(col, justify="left" if col == "scorer" else "right")
    for key, name in (
        ("refit", "refit on your labels"),
        ("shipped", f"shipped ({cv['shipped'].get('version')})"),
        ("judge_alone", "judge alone (mean P(yes))"),
    ):
        row = cv[key]
        auc = "—" if row["auroc"] is None else f"{row['auroc']:.3f}"
        table.add_row(literal(name), auc, f"{row['brier']:.3f}")
    print_wide(console, table)
    c = fit["coefficients"]
    console.print(
        literal(
            f"coefficients (all rows): intercept {c['intercept']}, logit_p_yes "
            f"{c['logit_p_yes']}, lexical_support {c['lexical_support']}, missing_specific "
            f"{c['missing_specific']}"
        ),
        soft_wrap=True,  # one line in a CI log
    )
    left = fit.get("left_out") or {}
    if any(left.values()):
        parts = ", ".join(f"{v} {k}" for k, v in left.items() if v)
        console.print(literal(f"left out of the fit: {parts}"), soft_wrap=True)
    if not cv.get("converged", True):
        console.print(literal("warning: a fit stopped before converging", "yellow"))
    console.print(
        literal(
            f"wrote {fit['out']} (version {fit['version']}): use it with --option "
            f"faithfulness_calibration={fit['out']}"
        ),
        soft_wrap=True,
    )
