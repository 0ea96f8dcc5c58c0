"""Connecting to Ray, and getting our own errors back out of Ray's.

Why: ``--ray-address`` was handed to ``ray.init`` as given, after the whole file was
validated and ``--out`` claimed: a malformed address ended in "internal error: ValueError"
(exit 1), and an address where nothing listens waited on Ray's own retries for minutes. And
an error raised in a Ray task or actor (a judge that cannot be reached: JudgeUnreachable; a
file changed since it was checked: DataError) reached the caller wrapped in Ray's
RayTaskError / UserCodeException with a page of traceback, so the CLI said "internal error"
and exited 1 where a local or stream run says what is wrong and exits 3 (or 2). Ray Data
also logged such an error, traceback and all, as a crash of its own, before ragmeter said it
in one line: ``ray_data_console_quiet`` keeps those records off the console.

It imports no Ray (``connect`` is handed the module): the dry run, which works without the
ray extra, checks an address here too (``address_form``), so the two never disagree.
"""

from __future__ import annotations

import logging
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any

from ragmeter.errors import ConfigError, DataError, RagmeterError

_NO_CHECK = (None, "", "auto", "local")
_RAY_NOTE = "\nFailed to "


def check_address(address: str | None) -> None:
    """A ConfigError, before any work, for an address that is no ``HOST:PORT`` /
    ``ray://HOST:PORT`` / ``auto``, or where nothing accepts a connection."""
    where = address_form(address)
    if where is None:
        return
    host, port = where
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
    except OSError as exc:
        raise ConfigError(
            f"--ray-address {address}: nothing answers at {host}:{port} "
            f"({exc.strerror or exc}): start the cluster (ray start --head) or fix the address"
        ) from None


def address_form(address: str | None) -> tuple[str, str] | None:
    """The host and port of an address to connect to, None for none to check (a local Ray,
    ``auto``), a ConfigError for an address that is no ``HOST:PORT`` / ``ray://HOST:PORT`` /
    ``auto``. It connects to nothing and imports no Ray: the dry run checks an address with
    it (a cluster that is not up yet is no error there), by the run's own rule and words."""
    if address in _NO_CHECK:
        return None
    assert address is not None
    hostport = address.removeprefix("ray://")
    host, sep, port = hostport.rpartition(":")
    if not sep or not host or not port.isdigit() or "/" in hostport:
        raise ConfigError(
            f"--ray-address {address!r} is not a Ray address: give HOST:PORT (the head's GCS, "
            "e.g. 10.0.0.5:6379), ray://HOST:10001 (Ray Client) or auto"
        )
    return host, port


def connect(ray: Any, address: str | None) -> None:
    """``ray.init`` on ``address`` (None: a local Ray); its refusals as a ConfigError."""
    try:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    except (ValueError, ConnectionError, RuntimeError, TimeoutError) as exc:
        where = f"--ray-address {address}" if address else "a local Ray"
        said = str(exc)
        why = _root_reason(exc)
        if why and why not in said:
            said = f"{said}: {why}"
        raise ConfigError(f"cannot start the Ray run on {where}: {said}") from None


def _root_reason(exc: BaseException) -> str:
    """The last line of what the innermost exception ``exc`` was raised from says: Ray's
    ``ConnectionError("Failed to connect to Ray cluster at ...")`` wraps a RuntimeError
    whose text is a whole traceback ending in the reason. Why: a cluster started with token
    authentication (``ray start`` of Ray 2.60 turns it on) refused a client without the
    token, and the run said only "Failed to connect to Ray cluster at HOST:PORT" (the
    address it had just been given), never that the token was missing nor how to pass it."""
    inner = exc
    seen = {id(exc)}
    while inner.__cause__ is not None and id(inner.__cause__) not in seen:
        inner = inner.__cause__
        seen.add(id(inner))
    if inner is exc:
        return ""
    lines = [line.strip() for line in str(inner).splitlines() if line.strip()]
    return lines[-1] if lines else ""


def ragmeter_cause(exc: BaseException) -> BaseException:
    """The ragmeter error a Ray exception wraps (following ``cause``, ``__cause__`` and
    ``__context__``), or ``exc`` itself when it wraps none."""
    dual: BaseException | None = None
    for e in _chain(exc):
        if isinstance(e, RagmeterError):
            if not _is_ray_error(e):
                return _without_ray_note(e)
            dual = dual or e
    return dual or exc


def task_exception(exc: BaseException) -> Exception | None:
    """The exception a Ray task raised, out of Ray's RayTaskError (its ``cause``), or None
    when ``exc`` is no such wrapper. Why: for an error it does not know (a crash), the CLI
    says one line, ``internal error: TYPE: TEXT``, and a RayTaskError's text is the whole
    remote traceback (80 lines for an input file gone missing), which Ray Data has already
    logged just above; raised from the wrapper, the traceback stays in Python's report."""
    inner = getattr(exc, "cause", None)
    if _is_ray_error(exc) and isinstance(inner, Exception) and not _is_ray_error(inner):
        return _without_ray_note(inner)
    return None


def wraps_ours(exc: BaseException) -> bool:
    """Whether ``exc`` is, or wraps, a ragmeter error: one the run raises as its own."""
    return any(isinstance(e, RagmeterError) for e in _chain(exc))


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and every exception it leads to through ``cause`` (Ray's RayTaskError keeps
    the task's exception there), ``__cause__`` and ``__context__``, breadth first, once each."""
    seen: set[int] = set()
    todo: list[BaseException] = [exc]
    while todo:
        e = todo.pop(0)
        if id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        for nxt in (getattr(e, "cause", None), e.__cause__, e.__context__):
            if isinstance(nxt, BaseException):
                todo.append(nxt)


@contextmanager
def ray_data_console_quiet() -> Iterator[None]:
    """While the pipeline runs, Ray Data's console output leaves out its records about an
    error the run raises as its own (``wraps_ours``), and a traceback it has already shown.
    Its log file (``ray-data.log`` in the Ray session's logs) keeps every record.

    Why: with ``raise_original_map_exception`` (which keeps our errors ours, not a
    UserCodeException), Ray Data takes an actor's error for a crash of its own: an
    unreachable judge printed about 400 lines before ragmeter's one ``aborted: ...`` line,
    the traceback three times and "please open an issue on the Ray project GitHub page",
    even with -q. An error ragmeter does not know (a real crash) is still shown by Ray,
    every line of it, but its traceback once, not twice."""
    handlers = [h for h in logging.getLogger("ray.data").handlers if _console(h)]
    quiet = _QuietAboutOurs()
    for h in handlers:
        h.addFilter(quiet)
    try:
        yield
    finally:
        for h in handlers:
            h.removeFilter(quiet)


def _console(handler: logging.Handler) -> bool:
    """A handler writing to a terminal stream (Ray Data's ``PlainRayHandler`` to stderr),
    not to a file."""
    return isinstance(handler, logging.StreamHandler) and not isinstance(
        handler, logging.FileHandler
    )


class _QuietAboutOurs(logging.Filter):
    """See ``ray_data_console_quiet``. A record's exception is its ``exc_info`` or, for a
    record logged without one, the exception its thread is handling: Ray Data logs its
    "internal code ... open an issue" line inside the ``except`` that caught it."""

    def __init__(self) -> None:
        super().__init__()
        self.shown: list[BaseException] = []  # kept, so that their ids are not reused

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else sys.exc_info()[1]
        if exc is None:
            return True
        if wraps_ours(exc):
            return False
        if not record.exc_info:  # a line about an error ragmeter does not know: Ray's to say
            return True
        if any(e is exc for e in self.shown):  # its traceback again
            return False
        self.shown.append(exc)
        return True


def _without_ray_note(e: BaseException) -> BaseException:
    """``e`` without the lines Ray Data appends to a task's error message ("Failed to apply
    UDF transform after 1/1 attempts ... if you believe this to be transient."). A DataError
    is built again from its problems: pickled by Ray, it came back as DataError(its own
    message), whose text listed that message one character a line."""
    if isinstance(e, DataError):
        return DataError(e.problems, e.source, total=e.total)
    if e.args and isinstance(e.args[0], str):
        head, sep, tail = e.args[0].partition(_RAY_NOTE)
        if sep and "attempts (total backoff" in tail:
            e.args = (head, *e.args[1:])
    elif e.args and _is_ray_note(e.args[-1]):  # added as an argument of its own
        e.args = e.args[:-1]
    if isinstance(e, OSError) and _is_ray_note(e.filename):  # so an OSError, once pickled
        try:  # the file's name is lost: the traceback Ray Data logged says it
            return type(e)(*e.args)
        except Exception:
            return e
    return e


def _is_ray_note(arg: Any) -> bool:
    return isinstance(arg, str) and arg.startswith(_RAY_NOTE[1:]) and "(total backoff" in arg


def _is_ray_error(e: BaseException) -> bool:
    """Ray's copy of a task's error is an instance of both RayTaskError and the cause's
    class; its text holds the remote traceback, so the plain cause is preferred."""
    return any(c.__module__.startswith("ray.") for c in type(e).__mro__)


@dataclass
class Term:
    """Whether the rows are still being scored (a SIGTERM then interrupts the run) and
    whether a SIGTERM came."""

    scoring: bool = True
    received: bool = False


@contextmanager
def term_interrupts() -> Iterator[Term]:
    """While the rows are scored, SIGTERM interrupts a Ray run as Ctrl-C does (run.json
    ``interrupted``, the line saying where it got to, exit 130); once they all are
    (``scoring`` False), it is noted and the run writes its files and ends complete.

    Why: ``timeout``, systemd, ``docker stop`` and a cancelled CI job send SIGTERM, and a
    Ray run died of it at once (``ray.init`` installs a handler that calls
    ``sys.exit(15)``, past every ``except Exception``): run.json said ``running`` for ever and
    nothing was said, where a stream run of the same input stops as Ctrl-C stops it
    (``stream.term_cancels``). Only where SIGTERM has Python's default or Ray's handler (an
    application's own handler is left alone) and this is the main thread; restored
    afterwards."""
    got = Term()
    handler = signal.getsignal(signal.SIGTERM)
    ours = threading.current_thread() is threading.main_thread() and (
        handler == signal.SIG_DFL or getattr(handler, "__module__", "") == "ray._private.worker"
    )

    def on_term(signum: int, frame: FrameType | None) -> None:
        got.received = True
        if got.scoring:
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_term) if ours else None
    try:
        yield got
    finally:
        if ours:
            signal.signal(signal.SIGTERM, previous)
