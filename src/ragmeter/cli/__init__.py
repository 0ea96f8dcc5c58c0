"""The command line: a leaf package over the library, one module per command.

Nothing outside ``ragmeter.cli`` imports it. Each command parses options, calls one library
function and prints; the logic a Python user needs lives in the library. Exit codes: 0 every
requested score computed (or not applicable by definition), 1 some scores failed (or an
internal error, or a failed CI gate: `--fail-under`, `--fail-on-regression`, one ``gate
failed:`` line each), 2 bad input or configuration (no traceback), 3 judge unreachable:
run aborted, 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import sys
from importlib import metadata

# Ctrl-C while these load (typer, rich and every command: 0.5-1.5 s, before main() runs)
# printed a KeyboardInterrupt traceback from deep inside an import: the console script and
# ``python -m ragmeter[.cli]`` import this package first. It is the documented exit 130
# instead, as when the command itself is interrupted (main below).
try:
    import typer

    from ragmeter.cli import compare, evaluate, meta_eval, metrics, models, report
    from ragmeter.cli._common import EXIT_INTERNAL, OnceCommand, ShownGroup, err_console, said
except KeyboardInterrupt:
    sys.stderr.write("interrupted\n")
    raise SystemExit(130) from None

# Help is plain text (rich_markup_mode=None): rich markup read "ragmeter[otel]" as a style
# tag and printed "needs ragmeter", and its boxed panels cut option names at 80 columns
# ("--max-failure-ra…"); click's plain layout shows every name and bracket as written.
HELP_MARKUP = None
app = typer.Typer(
    cls=ShownGroup,  # usage errors quote arguments: shown escaped (_common._shown)
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=HELP_MARKUP,
    help="Measure the quality of RAG pipelines.",
)


def installed_version() -> str:
    """The version pip installed (the dist's metadata), else ``ragmeter.__version__``.

    Why metadata first: it is what ``pip show ragmeter`` and a bug report's ``pip freeze``
    say; the fallback covers a source tree run with ``PYTHONPATH=src`` and no install."""
    try:
        return metadata.version("ragmeter")
    except metadata.PackageNotFoundError:
        from ragmeter import __version__

        return __version__


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"ragmeter {installed_version()}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        callback=_print_version,
        is_eager=True,
        help="Print ragmeter's version and exit.",
    ),
) -> None:
    """Measure the quality of RAG pipelines."""


# short_help: what `ragmeter --help` lists, short enough not to be cut at 80 columns
# cls=OnceCommand: --fail-under or -m given twice is refused, not the last one kept.
app.command("evaluate", cls=OnceCommand)(evaluate.evaluate)
app.command("metrics", cls=OnceCommand)(metrics.list_metrics_cmd)
app.command(
    "meta-eval",
    cls=OnceCommand,
    short_help="Agreement with human preferences (RAGAS Table 1).",
)(meta_eval.meta_eval_cmd)
app.command(
    "compare",
    cls=OnceCommand,
    short_help="Run B vs run A: paired deltas, CIs, p-values, W/T/L.",
)(compare.compare_cmd)
app.command(
    "report",
    cls=OnceCommand,
    short_help="One offline HTML report of a run, or of two compared.",
)(report.report_cmd)
app.add_typer(models.models_app, name="models")


def main() -> None:
    try:
        app()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        err_console.print("interrupted")
        sys.exit(130)
    except Exception as exc:  # an internal error: say so, keep the traceback short
        # said: the message may quote input ("[/x]"); as markup it raised again, a traceback
        err_console.print(said("internal error:", "bold red", f"{type(exc).__name__}: {exc}"))
        sys.exit(EXIT_INTERNAL)
