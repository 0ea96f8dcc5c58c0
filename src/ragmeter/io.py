"""Loaders: files (JSONL, JSON, CSV, Parquet), and data in memory (rows, dicts of columns,
DataFrames, Arrow tables, HF datasets: see ``_tables``)."""

from __future__ import annotations

import contextlib
import json
import math
import os
import secrets
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pydantic_core

from ragmeter._csv import NotLiteral, python_literal, read_csv_records
from ragmeter._json_rows import BLANK, DuplicateKey, dotted, parse_json, parse_line, wide_text
from ragmeter._parquet import read_parquet
from ragmeter._perf import gc_paused
from ragmeter._tables import memory_records, read_json_records
from ragmeter.errors import DataError, Problem
from ragmeter.md_escape import json_visible
from ragmeter.sample import LIST_FIELDS, Sample, validate_records

# CSV cells of these columns (ours and the aliases) hold JSON arrays.
_CSV_LIST_COLUMNS = set(LIST_FIELDS) | {
    "retrieved_contexts",
    "contexts_id",
    "contexts_ids",
    "context_id",
    "retrieved_context_ids",
    "ground_truths",
}
_CSV_JSON_COLUMNS = {"metadata", "metadata_field"}


FORMATS = ("jsonl", "json", "csv", "tsv", "parquet", "otel")


def expand_user(data: Any) -> Any:
    """``data`` with a leading ``~`` read as the home directory when it is a path, else as it
    is. Why: evaluate(out="~/runs/a") and report() read it so, and pandas does; a Python
    caller's "~/data.jsonl" was "file not found" (the shell expands it for the CLI)."""
    if isinstance(data, str) and data.startswith("~"):
        return os.path.expanduser(data)
    if isinstance(data, os.PathLike) and str(data).startswith("~"):
        return Path(os.path.expanduser(data))
    return data


def load(data: Any, *, source: str | None = None, format: str | None = None) -> list[Sample]:
    """Turn any supported input into validated samples, or raise DataError with every problem.

    ``format`` (a file's, else its suffix decides): one of FORMATS; ``otel`` reads
    OpenInference traces (``ragmeter.integrations.otel``, the ``otel`` extra).
    """
    format = _format(format, source)
    data = expand_user(data)
    if format == "otel":
        from ragmeter.integrations.otel import load_traces

        return load_traces(data)
    if isinstance(data, (str, os.PathLike)):
        return load_file(data, format=format)
    records, name = memory_records(data, source)
    return validate_records(records, name)


def load_file(path: str | os.PathLike[str], *, format: str | None = None) -> list[Sample]:
    path = Path(expand_user(path))
    src = str(path)
    format = _format(format, src)
    if (unreachable := stat_problem(path)) is not None:
        raise DataError([Problem(None, None, f"cannot read file: {unreachable}")], src)
    if not path.exists():
        raise DataError([Problem(None, None, f"file not found: {path}")], src)
    if path.is_dir():
        raise DataError([Problem(None, None, f"is a directory, not a data file: {path}")], src)
    suffix = f".{format}" if format else "".join(path.suffixes[-1:]).lower()
    if suffix not in (".parquet", ".pq") and (wide := sniff_problem(path)) is not None:
        raise DataError([Problem(None, None, wide)], src)  # one line, not one a row
    try:
        if suffix in (".jsonl", ".ndjson"):
            return _load_jsonl(path)
        if suffix == ".json":
            try:
                return validate_records(read_json_records(path), src)
            except DataError:
                if not _json_lines(path):
                    raise
            return _load_jsonl(path)
        if format == "otel":
            from ragmeter.integrations.otel import load_traces

            return load_traces(path)
        if suffix in (".csv", ".tsv"):
            return _load_csv(path, sep="\t" if suffix == ".tsv" else ",")
        if suffix in (".parquet", ".pq"):  # as a streamed run reads it: see _parquet
            return validate_records(read_parquet(path), src, check_text=False)
    except UnicodeDecodeError as exc:
        located = _first_bad_utf8(path)
        problem = located or Problem(None, None, f"not UTF-8 text: {exc.reason}")
        raise DataError([problem], src) from None
    except OSError as exc:
        raise DataError(
            [Problem(None, None, f"cannot read file: {exc.strerror or exc}")], src
        ) from None
    raise DataError(
        [
            Problem(
                None,
                None,
                f"unsupported file type '{suffix or path.name}': use "
                ".jsonl, .json, .csv, .tsv or .parquet",
            )
        ],
        src,
    )


def _format(format: Any, source: str | None) -> str | None:
    """``format`` in lower case (as a suffix is read: "JSONL" is jsonl), or a DataError naming
    the formats, for data in memory too, where an unknown format was ignored in silence."""
    if format is None:
        return None
    if not isinstance(format, str) or format.lower() not in FORMATS:
        said = f"unknown format {format!r}: use {', '.join(FORMATS)}"
        raise DataError([Problem(None, "format", said)], source)
    return format.lower()


def stat_problem(path: Path) -> str | None:
    """Why ``path`` cannot even be looked up (a name longer than the file system allows, a
    directory on the way that may not be searched), or None: when it exists or is simply
    not there, which the caller says in its own words.

    Why: ``Path.exists`` raises on those errors instead of answering, so a mistyped
    255-byte name was "internal error: OSError: [Errno 36] File name too long" (exit 1)
    where every other unreadable input or run is a clear error naming it (exit 2)."""
    try:
        path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


# The first bytes of a compressed file, and the tool that decompresses it.
_COMPRESSED = (
    (b"\x1f\x8b", "gzip", "gunzip -k"),
    (b"BZh", "bzip2", "bunzip2 -k"),
    (b"\xfd7zXZ\x00", "xz", "unxz -k"),
    (b"\x28\xb5\x2f\xfd", "zstd", "unzstd"),
    (b"PK\x03\x04", "zip", "unzip"),
)


def sniff_problem(path: Path) -> str | None:
    """What is wrong with a text input's first bytes, or None: UTF-16/32 text (``wide_text``)
    or a compressed file. Public: a streamed run's reader (``executors.source``) can ask it.

    Why compressed files: ragmeter reads them as they are, so ``data.jsonl.gz`` with
    ``--format jsonl`` (or a compressed file without a ``.gz`` suffix) was refused with one
    "not UTF-8 text" problem per row of gzip bytes, never saying the file was compressed;
    without ``--format`` its suffix was "unsupported file type '.gz'", no hint either."""
    try:
        with path.open("rb") as fh:
            head = fh.read(6)
    except OSError:
        return None  # said by the reader, as for any file it cannot read
    for magic, kind, tool in _COMPRESSED:
        if head.startswith(magic):
            return (
                f"{path.name} is a {kind}-compressed file: ragmeter reads uncompressed "
                f".jsonl, .json, .csv, .tsv or .parquet; decompress it first ({tool})"
            )
    if head.startswith(b"PAR1"):  # one "invalid JSON" per row of a Parquet file's bytes
        return (
            f"{path.name} is a Parquet file, not text: rename it .parquet or give --format parquet"
        )
    return wide_text(head[:4])


def _json_lines(path: Path) -> bool:
    """True when a .json file that could not be read as one document is JSON Lines: its first
    line holds a whole object and another line follows, which no single JSON document does.

    Why: Hugging Face ``Dataset.to_json("data.json")`` writes JSON Lines (its default), as
    does pandas' ``to_json(orient="records", lines=True)``; such a file was refused as
    "invalid JSON: Extra data (line 2, column 1)". Asked only once reading has failed, so a
    valid document never pays for it."""
    with path.open("rb") as fh:
        first = b""
        for raw in fh:
            if not raw.strip():
                continue
            if first:
                return True
            record, fault = parse_line(raw, 1)
            if fault is not None or not isinstance(record, dict):
                return False
            first = raw
    return False


def _first_bad_utf8(path: Path) -> Problem | None:
    """Where a file stops being UTF-8: its line, and the byte in the line and in the file.

    Why a second pass: pandas (CSV) and ``read_text`` (JSON) report a byte offset within
    whatever buffer they were decoding, no line, and for CSV often the wrong byte. Run only
    once decoding has failed, so valid files never pay for it.
    """
    offset = 0
    try:
        with path.open("rb") as fh:
            for lineno, raw in enumerate(fh, start=1):
                try:
                    raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
                except UnicodeDecodeError as exc:
                    return Problem(
                        None,
                        None,
                        f"not UTF-8 text: {exc.reason} at byte {exc.start} of the line "
                        f"(byte {offset + exc.start} of the file)",
                        lineno,
                    )
                offset += len(raw)
    except OSError:
        return None
    return None


def _load_jsonl(path: Path) -> list[Sample]:
    """Parse every line, validate every parsed row, and report both kinds of problem at once."""
    records, lines, rows, problems = _read_jsonl(path)
    if records or not problems:
        try:
            samples = validate_records(records, str(path), lines, rows=rows, check_text=False)
        except DataError as exc:
            problems = problems + exc.problems
        else:
            if not problems:
                return samples
    problems.sort(key=lambda p: (p.line or 0, p.row or 0))
    raise DataError(problems, str(path))


def _read_jsonl(path: Path) -> tuple[list[Any], list[int], list[int], list[Problem]]:
    """Records with their line and row numbers, and what is wrong with the lines that could
    not be read (see ``_json_rows.parse_line``, which the stream and Ray readers share)."""
    records: list[Any] = []
    lines: list[int] = []
    rows: list[int] = []
    problems: list[Problem] = []
    with gc_paused(), path.open("rb") as fh:  # many acyclic objects: see _perf.gc_paused
        for lineno, raw in enumerate(fh, start=1):
            record, fault = parse_line(raw, lineno)
            if record is BLANK:
                continue
            if fault is not None:
                problems.append(Problem(len(records) + len(problems) + 1, *fault, lineno))
                continue
            records.append(record)
            lines.append(lineno)
            rows.append(len(records) + len(problems))
    return records, lines, rows, problems


def _load_csv(path: Path, sep: str) -> list[Sample]:
    records, lines = read_csv_records(path, sep)
    problems: list[Problem] = []
    for i, record in enumerate(records):
        for key, value in list(record.items()):
            if not isinstance(value, str):
                continue
            if key in _CSV_LIST_COLUMNS or key in _CSV_JSON_COLUMNS:
                try:
                    record[key] = parse_json(value)
                except DuplicateKey as exc:
                    field = dotted([key, *exc.path, exc.key])
                    problems.append(Problem(i + 1, field, exc.reason("the cell"), lines[i]))
                except json.JSONDecodeError as exc:
                    try:  # a list as pandas' to_csv writes it: ['a', 'b']
                        record[key] = python_literal(value)
                        continue
                    except NotLiteral as not_literal:
                        said = not_literal.said
                    kind = "a JSON array" if key in _CSV_LIST_COLUMNS else "a JSON object"
                    said = said or f"must be {kind} in CSV: {exc.msg} (got {value[:40]!r})"
                    problems.append(Problem(i + 1, key, said, lines[i]))
    if problems:
        raise DataError(problems, str(path))
    return validate_records(records, str(path), lines, check_text=False)


def _create_beside(path: Path) -> tuple[int, Path]:
    """A new, empty temporary file in ``path``'s directory, created with mode 0o666 less
    the umask, as ``open()`` creates files.

    Why not ``tempfile.mkstemp``: it creates 0600 files, so every atomically written
    output (run.json, summary.json, scores.jsonl) ended up private while the other outputs
    followed the umask, and runs could not be shared. Nothing written through here is
    secret: outputs hold no key (see ``redact``).
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    # A name of up to 255 bytes is valid, but with the 19 bytes added here it was not: a
    # long file name was "File name too long", where writing it directly would have worked.
    stem = os.fsdecode(os.fsencode(path.name)[:200])  # any bytes but "/" make a name
    for _ in range(100):
        tmp = path.with_name(f".{stem}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")


@contextlib.contextmanager
def atomic_open(path: str | Path) -> Iterator[Any]:
    """A text file written beside ``path`` and renamed over it on success (os.replace), so a
    crash or a full disk never leaves half a file under the final name. Its permissions
    follow the umask (0644 under umask 022), as any other file the process writes."""
    path = Path(path)
    fd, tmp = _create_beside(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_json(data: Any, path: str | Path) -> None:
    """Pretty JSON, written atomically; a NaN or infinity becomes null (see ``json_safe``);
    C1 and bidi controls from data as ``\\uXXXX`` escapes (``json_visible``): run.json holds
    the input's file name, and a name with U+202E reversed what ``cat run.json`` showed."""
    try:
        text = json.dumps(data, indent=2, ensure_ascii=False, default=str, allow_nan=False)
    except ValueError:  # a non-finite float somewhere: the slow path, rare
        text = json.dumps(json_safe(data), indent=2, ensure_ascii=False, default=str)
    with atomic_open(path) as fh:
        fh.write(json_visible(text) + "\n")


def json_safe(obj: Any) -> Any:
    """``obj`` with every NaN and infinity as None, through dicts, lists and tuples. Why: JSON
    has no NaN; the bare ``NaN`` of ``json.dumps`` is rejected by strict readers (jq, JS).
    Scores never carry one (``Score.ok``, ``checked``: a failed score with its reason); this
    keeps any other float (a detail, a degenerate CI) from breaking the file."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, Mapping):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    return obj


def json_line(row: Any) -> str:
    """``row`` as one compact line of JSON (no newline), what scores.jsonl holds.

    Why not ``json.dumps``: pydantic-core's serializer (Rust) writes a scored row of the
    14 non-LLM metrics in 10 us against 33 us, a tenth of a streamed run's time per row.
    The values read back the same; what it cannot serialize becomes ``str(value)`` as with
    ``json.dumps(default=str)``, NaN and infinities as null (``json_safe``), non-ASCII text as
    UTF-8 but C1 and bidi controls (``json_visible``: free for ASCII rows, 0.14 s/100k others).
    Sets become lists, and floats may be spelled otherwise (``0.00001`` for ``1e-05``).
    """
    if not _NAN_KW:  # pragma: no cover
        return json_visible(json.dumps(json_safe(row), ensure_ascii=False, default=_fallback))
    return json_visible(pydantic_core.to_json(row, fallback=_fallback, **_NAN_KW).decode())


def _fallback(value: Any) -> Any:
    """A numpy array or scalar (a metric's ``details``) as its values, anything else as its
    ``str``. Why: as ``str``, an array of 2,000 was written as "[0 1 2 ... 1999]", six of its
    values, and ``np.int64(3)`` as the string "3"."""
    if type(value).__module__ == "numpy" and callable(getattr(value, "tolist", None)):
        return value.tolist()
    return str(value)


_NAN_KW: dict[str, str] = {"inf_nan_mode": "null"}
try:  # an older pydantic-core's to_json has no inf_nan_mode: json.dumps then, slower
    pydantic_core.to_json(math.nan, **_NAN_KW)  # type: ignore[arg-type]
except TypeError:  # pragma: no cover
    _NAN_KW = {}


def write_jsonl(rows: Sequence[Mapping[str, Any]], path: str | Path) -> None:
    """One JSON object a line, written atomically."""
    with gc_paused(), atomic_open(path) as fh:
        for row in rows:
            fh.write(json_line(row) + "\n")
