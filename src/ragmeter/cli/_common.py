"""What every command shares: consoles, exit codes, and turning errors into them."""

from __future__ import annotations

from typing import Any

import typer
from rich.console import Console
from rich.markup import escape

from ragmeter.errors import DataError, RagmeterError, RunAborted

console = Console()
err_console = Console(stderr=True)

# 0: every requested score computed (or not applicable by definition); 1: some scores failed
# (or an internal error); 2: usage or configuration; 3: the judge is unreachable, run aborted;
# 130: interrupted (Ctrl-C), as a shell reports SIGINT.
EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_ABORTED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_INTERNAL = EXIT_FAILED


def fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def report_data_error(exc: DataError) -> None:
    # No source: an option's problem (-m, --fail-under), not the input's; "in the input" sent
    # the user to a data file with nothing wrong. Each problem names its field.
    where = f" in {escape(str(exc.source))}" if exc.source else ""
    err_console.print(
        f"[bold red]error:[/bold red] {len(exc.problems)} problem(s){where}:", soft_wrap=True
    )
    for p in exc.problems[:200]:
        err_console.print(f"  - {p}", markup=False, highlight=False, soft_wrap=True)
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
        err_console.print(
            f"[bold red]aborted:[/bold red] {escape(str(exc))}", highlight=False, soft_wrap=True
        )
        raise typer.Exit(EXIT_ABORTED) from None
    except KeyboardInterrupt as exc:  # typer would exit 130 without a word
        err_console.print(str(exc) or "interrupted", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except RagmeterError as exc:
        err_console.print(
            f"[bold red]error:[/bold red] {escape(str(exc))}", highlight=False, soft_wrap=True
        )
        raise typer.Exit(EXIT_BAD_INPUT) from None
