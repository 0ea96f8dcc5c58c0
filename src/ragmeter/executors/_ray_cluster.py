"""Connecting to Ray, and getting our own errors back out of Ray's.

Why: ``--ray-address`` was handed to ``ray.init`` as given, after the whole file was
validated and ``--out`` claimed: a malformed address ended in "internal error: ValueError"
(exit 1), and an address where nothing listens waited on Ray's own retries for minutes. And
an error raised in a Ray task or actor (a judge that cannot be reached: JudgeUnreachable; a
file changed since it was checked: DataError) reached the caller wrapped in Ray's
RayTaskError / UserCodeException with a page of traceback, so the CLI said "internal error"
and exited 1 where a local or stream run says what is wrong and exits 3 (or 2).

It imports no Ray (``connect`` is handed the module): the dry run, which works without the
ray extra, checks an address here too (``address_form``), so the two never disagree.
"""

from __future__ import annotations

import socket
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
        raise ConfigError(f"cannot start the Ray run on {where}: {exc}") from None


def ragmeter_cause(exc: BaseException) -> BaseException:
    """The ragmeter error a Ray exception wraps (following ``cause``, ``__cause__`` and
    ``__context__``), or ``exc`` itself when it wraps none."""
    seen: set[int] = set()
    todo: list[BaseException] = [exc]
    dual: BaseException | None = None
    while todo:
        e = todo.pop(0)
        if id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, RagmeterError):
            if not _is_ray_error(e):
                return _without_ray_note(e)
            dual = dual or e
        for nxt in (getattr(e, "cause", None), e.__cause__, e.__context__):
            if isinstance(nxt, BaseException):
                todo.append(nxt)
    return dual or exc


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
    return e


def _is_ray_error(e: BaseException) -> bool:
    """Ray's copy of a task's error is an instance of both RayTaskError and the cause's
    class; its text holds the remote traceback, so the plain cause is preferred."""
    return any(c.__module__.startswith("ray.") for c in type(e).__mro__)
