"""One self-contained static HTML report of a run, optionally compared with a second run.

The page opens with no network: styles are inline, charts are SVG rendered at report time,
sample evidence expands with HTML's own <details> element (no script). Needs the ``report``
extra (jinja2, matplotlib).
"""

from __future__ import annotations

import inspect
import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragmeter.errors import ConfigError, OutputError, ReportUnavailable
from ragmeter.io import atomic_open, stat_problem
from ragmeter.manifest import OUTPUTS
from ragmeter.md_escape import visible

__all__ = ["check_out", "render_report", "report", "write_out"]


def check_out(
    out: str | Path,
    option: str = "--out",
    example: str = "report.html",
    runs: Sequence[str | Path | None] = (),
) -> Path:
    """An output file's path, checked before any work: rendering takes seconds, and finding
    then that ``out`` is a directory or cannot be written wastes them. OutputError says why,
    naming ``option`` (``compare --markdown`` / ``--json`` check theirs with it too).
    ``runs``: the run directories (or scores.jsonl files) read, whose files ``out`` must not
    be (``_not_a_run_file``).

    Writability is probed with a temporary file in the nearest existing directory (a
    permission check alone is wrong for root and for /proc-like file systems).
    """
    if not isinstance(out, (str, os.PathLike)):  # a number was pathlib's TypeError
        raise OutputError(f"{option} takes a file path (str or pathlib.Path), not {out!r}")
    path = Path(out).expanduser()
    if said := stat_problem(path):  # a 256-byte name: said, not a traceback
        raise OutputError(f"{option} {path} cannot be written ({said}): give a writable file path")
    _not_a_run_file(path, option, runs)
    if path.is_dir():
        raise OutputError(
            f"{option} {path} is a directory: give the file to write, e.g. {path / example}"
        )
    existing = path.parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise OutputError(
            f"{option} {path} cannot be created: {existing} is a file, not a directory"
        )
    try:
        if path.exists():
            with path.open("a", encoding="utf-8"):
                pass
        else:
            fd, probe = tempfile.mkstemp(prefix=".ragmeter-report-", dir=existing)
            os.close(fd)
            os.unlink(probe)
    except OSError as exc:
        raise OutputError(
            f"{option} {path} cannot be written ({exc.strerror or exc}): give a writable file path"
        ) from None
    return path


def _not_a_run_file(path: Path, option: str, runs: Sequence[str | Path | None]) -> None:
    """OutputError when ``path`` is a file of one of ``runs`` (scores.jsonl, summary.json,
    run.json). Why: ``report runs/a -o runs/a/scores.jsonl`` or ``compare a b --json
    b/summary.json`` replaced a run's own file with the page or the comparison, and the run
    could no longer be read; a new file inside a run directory (runs/a/report.html) is fine.
    """
    for run in (Path(r).expanduser() for r in runs if r is not None):
        if stat_problem(run):  # a run path that cannot be looked up: said when it is read
            continue
        directory = run.parent if run.is_file() else run
        for name in {*OUTPUTS, run.name} if run.is_file() else OUTPUTS:
            try:
                same = os.path.samefile(path, directory / name)
            except OSError:  # either is missing: not the same file
                continue
            if same:
                raise OutputError(
                    f"{option} {path} is the {name} of the run {run}, which is read: give "
                    "another file to write"
                )


def write_out(path: Path, text: str, option: str = "--out") -> Path:
    """Write ``text`` to a path ``check_out`` accepted, creating its directories; OutputError
    (not a traceback) if the file system refuses after all. Written atomically (``io``'s
    ``atomic_open``): on a full disk, the report or comparison of the last run was replaced
    by a page cut at 4 KiB (or an empty file), now it stays as it was."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_open(path) as fh:
            fh.write(text)
    except OSError as exc:
        raise OutputError(f"{option} {path} cannot be written ({exc.strerror or exc})") from None
    return path


# Bidi controls that open an embedding, override or isolate (U+202A-E, U+2066-8) or close an
# isolate (U+2069); marks (U+200E/F) reorder nothing beyond their neighbours.
_OPENS_ISOLATE = "\u2066\u2067\u2068"
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
# What HTML calls a control character, but the whitespace it reads (tab, line feed, carriage
# return): NUL is a parse error browsers replace, the others parse errors shown as nothing
# or as a box, and an ESC or "\x9b" pasted from the page reaches a terminal raw.
_HTML_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# A run of this many characters without a space gets a <wbr> every _WRAP_AT characters.
_LONG_RUN = re.compile(r"[^\s]{200,}")
_WRAP_AT = 100


def isolated(text: str) -> str:
    """``text`` in a bidi isolate (FSI ... PDI) when it holds bidi controls; else as is.

    Why: a run directory named with U+202E (right-to-left override) reversed the rest of
    its heading, "B = ... vs A = ... (8 paired samples)"; only the summary lines used <bdi>.
    A PDI with no opener in ``text`` would close the isolate early: it is dropped, and each
    isolate ``text`` leaves open is closed."""
    if not _BIDI.search(text):
        return text
    depth, kept = 0, []
    for ch in text:
        if ch in _OPENS_ISOLATE:
            depth += 1
        elif ch == "\u2069":
            if depth == 0:
                continue
            depth -= 1
        kept.append(ch)
    return "\u2068" + "".join(kept) + "\u2069" * (depth + 1)


def shown(value: Any) -> Any:
    """Every ``{{ }}`` of the template (Jinja's ``finalize``): a run's text isolated for
    bidi, and a long run of text without spaces given a line-break opportunity (<wbr>) every
    _WRAP_AT characters. Why: chromium's ``overflow-wrap: anywhere`` is quadratic in a
    token's length; a report whose question was one 100,000-character token (base64,
    scraped text) took 30-55 s to open. Markup (a macro's output, an ``|e`` attribute)
    passes as it is; text without such runs is left to autoescape, byte for byte as before.
    """
    from markupsafe import Markup, escape

    if type(value) is not str:
        return value
    text = isolated(value)
    if not _LONG_RUN.search(text):
        return text
    out, end = [], 0
    for m in _LONG_RUN.finditer(text):
        out.append(escape(text[end : m.start()]))
        run = m.group()
        out.append(
            Markup("<wbr>").join(
                escape(run[i : i + _WRAP_AT]) for i in range(0, len(run), _WRAP_AT)
            )
        )
        end = m.end()
    out.append(escape(text[end:]))
    return Markup("").join(out)


def _require() -> None:
    missing = []
    for mod in ("jinja2", "matplotlib"):
        try:
            __import__(mod)
        except ImportError:
            missing.append(mod)
    if missing:
        raise ReportUnavailable(
            f"the HTML report needs {', '.join(missing)}: pip install 'ragmeter[report]'"
        )


def render_report(
    run: Any,
    compare: Any = None,
    *,
    by: str | None = None,
    worst: int = 5,
    alpha: float = 0.05,
    title: str | None = None,
    seed: int | None = None,
    intersect: bool = False,
    max_drop: Any = None,
) -> str:
    """The report's HTML as a string.

    ``run``: an EvaluationResult or run directory. ``compare``: a second run (B; ``run`` is
    A) or a ready ``Comparison``. ``by``: a column to slice by. ``worst``: samples shown per
    metric in the worst / biggest-change lists. ``intersect``: as compare's, compare only the
    ids both runs hold (the comparison's warnings say how many were left out). ``seed``: of
    the comparison's CIs (default 0) and the slices' (default: each run's own, as its
    summary.json records it with its confidence and resamples). ``max_drop``: compare's
    non-inferiority margins ({metric: DELTA} or ``"METRIC=DELTA,..."``), shown in the
    comparison section; a ready ``Comparison`` carries its own (``compare(max_drop=...)``).
    """
    _margins_asked(compare, max_drop)
    _require()
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    from ragmeter.compare import Comparison
    from ragmeter.compare import compare as run_compare
    from ragmeter.reporting.build import report_context, run_slices
    from ragmeter.runs import as_run

    comparison = None
    if isinstance(compare, Comparison):
        comparison = compare
        base = compare.a
    else:
        base = as_run(run)
        if compare is not None:
            comparison = run_compare(
                base,
                compare,
                by=by,
                seed=0 if seed is None else seed,
                intersect=intersect,
                max_drop=max_drop,
            )
    slices = run_slices(base, comparison, by, seed) if by else None
    context = report_context(
        base, comparison=comparison, slices=slices, by=by, worst=worst, alpha=alpha, title=title
    )
    env = Environment(
        loader=PackageLoader("ragmeter.reporting", "templates"),
        autoescape=select_autoescape(default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=shown,
    )
    env.filters["isolated"] = isolated
    return controls_shown(env.get_template("report.html.j2").render(**context))


def _margins_asked(compare: Any, max_drop: Any) -> None:
    """ConfigError before any work when ``max_drop`` cannot be shown: without a second run
    there is no B - A to hold to a margin, and a ready Comparison's margins were fixed when
    it was made (a second set, silently ignored, would show a gate that was never run)."""
    from ragmeter.compare import Comparison

    if max_drop is None:
        return
    if compare is None:
        raise ConfigError("max_drop needs a second run to compare with (compare=RUN_B)")
    if isinstance(compare, Comparison):
        raise ConfigError(
            "max_drop: the Comparison given was already made; pass max_drop to compare()"
        )


def controls_shown(html: str) -> str:
    """``html`` with each ``_HTML_CONTROL`` character ``visible`` (``\\x00``, ``\\x1b``), as
    the terminal shows them: in text, attributes and the evidence's JSON alike. ragmeter's
    template and charts write none, so only a run's text changes; an escape is plain ASCII,
    safe in any of those places."""
    return _HTML_CONTROL.sub(lambda m: visible(m.group()), html)


def report(
    run: Any,
    compare: Any = None,
    *,
    out: str | Path = "report.html",
    **options: Any,
) -> Path:
    """Write the report (see render_report for the options) to ``out``; returns its path.

    ``out`` is checked first (``check_out``): OutputError before any rendering, as is an
    option render_report has not (a TypeError, naming no option there is).
    """
    known = [p for p in inspect.signature(render_report).parameters if p not in ("run", "compare")]
    if unknown := sorted(set(options) - set(known)):
        said = f"report() has no option {', '.join(unknown)}; options: {', '.join(known)}"
        raise ConfigError(said)
    path = check_out(out)
    return write_out(path, render_report(run, compare, **options))
