"""What every command shares: consoles, exit codes, and turning errors into them."""

from __future__ import annotations

from typing import Any

import typer
from rich.console import Console
from rich.text import Text

from ragmeter.errors import DataError, RagmeterError, RunAborted

# emoji=False: ":smile:" in a label, an id or a judge's reason is text, not an emoji; even
# with markup=False rich replaced it. ragmeter's own text uses no emoji codes.
console = Console(emoji=False)
err_console = Console(stderr=True, emoji=False)

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


def fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def literal(value: object, style: str = "") -> Text:
    """Text from the user or their data (labels, ids, paths, names, messages, a judge
    server's reply) shown exactly as written, in one ``style``.

    Why: a str is markup to rich. ``[/x]`` in a slice label raised MarkupError (a traceback),
    ``[b]`` vanished from a label and styled the rest, and ``rich.markup.escape`` doubles a
    trailing backslash when nothing follows it. A Text is never parsed."""
    return Text(str(value), style=style)


def said(label: str, style: str, message: object) -> Text:
    """``label`` (ragmeter's, styled) then ``message`` (anyone's, literal): ``error: ...``."""
    return Text.assemble((label, style), " ", literal(message))


def table_title(*parts: object) -> Text:
    """A table title of user text and ragmeter's: literal, in rich's title style (a Text
    title is not given it)."""
    return Text("".join(map(str, parts)), style="table.title")


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
