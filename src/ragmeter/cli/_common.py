"""What every command shares: consoles, exit codes, and turning errors into them."""

from __future__ import annotations

import contextlib
import os
import sys
from collections import Counter
from typing import IO, Any

import typer
from rich.console import Console
from rich.text import Text
from typer._click.exceptions import ClickException  # typer vendors click: its errors
from typer.core import TyperCommand, TyperGroup

from ragmeter.errors import DataError, RagmeterError, RunAborted
from ragmeter.executors.common import check_judge_form  # noqa: F401  (re-exported for evaluate)
from ragmeter.md_escape import visible


def reader_gone(stream: IO[str]) -> None:
    """The reader of ``stream`` went away (``| head -1``, ``| grep -q``, a closed pipe): what
    is left to print there goes to os.devnull, and the command carries on.

    Why: rich's default exits 1 at once and click's ``echo`` did the same, without a word.
    A run whose scores all passed then exited 1 ("some scores failed") under ``set -o
    pipefail``, and a ``--fail-under`` or ``--fail-on-regression`` gate printed after the
    table was never checked: its ``gate failed:`` lines (stderr) never came. Carrying on
    keeps the documented exit code and every line still read. devnull as in Python's note on
    SIGPIPE (signal module): no "Exception ignored ... BrokenPipeError" at exit."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError):  # no descriptor (a test's buffer): nothing to redirect
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


class CliConsole(Console):
    """A rich Console that outlives the reader of its stream (``reader_gone`` says why)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True  # nothing more is written to a stream nobody reads
        reader_gone(self.file)


def echo(text: str, nl: bool = True) -> None:
    """``typer.echo`` on stdout (machine-readable output, printed as is), outliving its
    reader as the consoles do."""
    try:
        typer.echo(text, nl=nl)
    except BrokenPipeError:
        reader_gone(sys.stdout)


_RAISING = ("strict", "surrogateescape")


def legible(stream: IO[str]) -> None:
    """A character ``stream``'s encoding cannot hold is written as a backslash escape
    (``\\u2229``) instead of raising. Why: under an ASCII or legacy locale (``LC_ALL=C``
    with ``PYTHONUTF8=0``, a Windows pipe or log file in cp1252) ragmeter's own "·", "∩",
    "−" or an id's "é" raised UnicodeEncodeError as the results were printed: "internal
    error", exit 1, after the whole run, its table lost without ``-o``. Python's stderr
    already does this; stdout is made to as well."""
    reconfigure = getattr(stream, "reconfigure", None)
    # surrogateescape: Python's stdout in the C/POSIX locale, which raises as strict does
    if reconfigure is not None and getattr(stream, "errors", None) in _RAISING:
        with contextlib.suppress(ValueError, OSError):  # a closed or detached stream
            reconfigure(errors="backslashreplace")


# emoji=False: ":smile:" in a label, an id or a judge's reason is text, not an emoji; even
# with markup=False rich replaced it. ragmeter's own text uses no emoji codes.
console = CliConsole(emoji=False)
err_console = CliConsole(stderr=True, emoji=False)

# 0: every requested score computed (or not applicable by definition); 1: some scores failed
# (or an internal error); 2: usage or configuration; 3: the judge is unreachable, run aborted;
# 130: interrupted (Ctrl-C), as a shell reports SIGINT.
EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_ABORTED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_INTERNAL = EXIT_FAILED

# Every form Settings accepts and a backend builds (tests/test_judge_config.py checks both).
JUDGE_HELP = (
    "local (default: the embedded 1.5B) | local:0.5b | gguf:PATH | openai:MODEL | "
    "litellm:MODEL | none"
)
EMBEDDER_HELP = "local (default) | st:PATH_OR_NAME | openai:MODEL | none"
OPTION_HELP = (
    "A metric option over --config's, e.g. --option evidence_k=0 or --option "
    "faithfulness_calibration=cal.json (repeatable; the value read as JSON when it is)."
)


def fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def literal(value: object, style: str = "") -> Text:
    """Text from the user or their data (labels, ids, paths, names, messages, a judge
    server's reply) shown exactly as written, in one ``style``.

    Why: a str is markup to rich. ``[/x]`` in a slice label raised MarkupError (a traceback),
    ``[b]`` vanished from a label and styled the rest, and ``rich.markup.escape`` doubles a
    trailing backslash when nothing follows it. A Text is never parsed. Its control
    characters are ``visible`` (``\\x1b``), line breaks and tabs kept: rich passed an ESC
    in a label or a server's error text raw to the terminal ("\\x1b[2J" cleared it)."""
    return Text(visible(str(value), keep="\n\t"), style=style)


def cell(value: object, style: str = "") -> Text:
    """``literal`` for a table cell: a line break or tab too is ``visible`` (``\\n``), so a
    label is one row of one line and a row cannot pass for two."""
    return Text(visible(str(value)), style=style)


def said(label: str, style: str, message: object) -> Text:
    """``label`` (ragmeter's, styled) then ``message`` (anyone's, literal): ``error: ...``."""
    return Text.assemble((label, style), " ", literal(message))


def table_title(*parts: object) -> Text:
    """A table title of user text and ragmeter's: literal, in rich's title style (a Text
    title is not given it), on one line (control characters ``visible``)."""
    return Text(visible("".join(map(str, parts))), style="table.title")


def report_data_error(exc: DataError) -> None:
    # No source: an option's problem (-m, --fail-under), not the input's; "in the input" sent
    # the user to a data file with nothing wrong. Each problem names its field.
    where = f" in {exc.source}" if exc.source else ""
    err_console.print(
        said("error:", "bold red", f"{len(exc.problems)} problem(s){where}:"), soft_wrap=True
    )
    for p in exc.problems[:200]:
        err_console.print(literal(f"  - {p}"), soft_wrap=True)
    if len(exc.problems) > 200:
        err_console.print(f"  ... and {len(exc.problems) - 200} more")


def run_guarded(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Map errors to exit codes: bad input 2, aborted run 3, interrupted 130 (no traceback)."""
    try:
        return fn(*args, **kwargs)
    except DataError as exc:
        report_data_error(exc)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    except RunAborted as exc:
        err_console.print(said("aborted:", "bold red", exc), soft_wrap=True)
        raise typer.Exit(EXIT_ABORTED) from None
    except KeyboardInterrupt as exc:  # typer would exit 130 without a word
        err_console.print(literal(str(exc) or "interrupted"), soft_wrap=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except RagmeterError as exc:
        err_console.print(said("error:", "bold red", exc), soft_wrap=True)
        raise typer.Exit(EXIT_BAD_INPUT) from None


# Options refused when repeated, and how to give several values in one.
_ONCE = {
    "fail_under": "several gates in one comma-separated list: --fail-under "
    "faithfulness=0.8,mrr=0.6",
    "metrics": "several metrics in one comma-separated list: -m token_f1,k_precision",
}


def _shown(exc: ClickException) -> None:
    """``exc``'s message with its control characters ``visible`` (line breaks kept), as the
    CLI shows all user text. Why: click's usage errors quote the argument given ("Invalid
    value for '--by': ...", "Got unexpected extra argument(s) (...)"); click escapes C0 and
    C1 in some of them, never the bidi controls, so U+202E in a mistyped argument reversed
    the rest of the error line, and a message of another kind could carry an ESC."""
    if getattr(exc, "_ragmeter_shown", False):
        return
    said = exc.format_message
    exc.format_message = lambda: visible(said(), keep="\n")  # type: ignore[method-assign]
    exc._ragmeter_shown = True  # type: ignore[attr-defined]


class ShownErrors:
    """A click command or group whose usage errors are shown escaped (``_shown``): parsing
    (``make_context``) and what a group resolves and runs under it (``invoke``)."""

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().make_context(*args, **kwargs)  # type: ignore[misc]
        except ClickException as exc:
            _shown(exc)
            raise

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)  # type: ignore[misc]
        except ClickException as exc:
            _shown(exc)
            raise


class ShownGroup(ShownErrors, TyperGroup):
    """The root command group (``ragmeter``): "No such command '...'" shown escaped."""


class OnceCommand(ShownErrors, TyperCommand):
    """A command that refuses ``--fail-under`` or ``-m`` given more than once (exit 2).

    Why: click keeps the last value of an option and drops the others without a word, so
    ``--fail-under faithfulness=0.8 --fail-under mrr=0.6`` gated mrr alone: a faithfulness
    below its threshold passed CI (exit 0 for a failed gate); ``-m token_f1 -m k_precision``
    scored k_precision alone. Other options keep click's rule, the last one given wins (a
    wrapper script's default overridden after it)."""

    def invoke(self, ctx: Any) -> Any:
        legible(sys.stdout)
        legible(sys.stderr)
        return super().invoke(ctx)

    def make_parser(self, ctx: Any) -> Any:
        """click's parser, its ``parse_args`` checked for repeats: it returns every option
        in the order given, once per occurrence (typer vendors click: ``ctx.fail`` raises
        the UsageError typer prints, "Usage: ... Error: ...", exit 2)."""
        parser = super().make_parser(ctx)
        parse = parser.parse_args

        def parse_once(args: list[str]) -> Any:
            opts, rest, order = parse(args=args)
            _refuse_repeats(ctx, order)
            _refuse_empty(ctx, opts, order)
            return opts, rest, order

        parser.parse_args = parse_once
        return parser


def _refuse_empty(ctx: Any, opts: dict[str, Any], order: list[Any]) -> None:
    """An option given an empty value (``-o ""``, ``--by ""``: often an unset variable in a CI
    script) is refused. Why: each one meant something else without a word: ``-o ""`` wrote
    the run into the current directory, ``--by ""`` gave no slices, ``compare -m ""``
    compared every metric. No option of the CLI takes an empty value."""
    for param in dict.fromkeys(order):
        if getattr(param, "param_type_name", "") != "option" or param.is_flag or param.count:
            continue
        value = opts.get(param.name)
        values = value if isinstance(value, (list, tuple)) else [value]
        if any(isinstance(v, str) and not v.strip() for v in values):
            ctx.fail(
                f"{'/'.join(param.opts)} is given an empty value (an unset variable?): give a "
                "value, or leave the option out"
            )


def _refuse_repeats(ctx: Any, order: list[Any]) -> None:
    counts = Counter(p for p in order if getattr(p, "param_type_name", "") == "option")
    for param, n in counts.items():
        if n > 1 and param.name in _ONCE and not param.multiple:
            ctx.fail(
                f"{'/'.join(param.opts)} is given {n} times: give it once, {_ONCE[param.name]}"
            )
