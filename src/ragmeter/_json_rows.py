"""JSON of input data parsed as ``json.loads`` parses it, except that a key given twice in
one object is refused.

Why: a JSON reader keeps one value of a repeated key (Python's the last) and drops the
other without a word, so a row ``{"answer": "x", "answer": "y"}`` was scored on "y". Which
copy a producer meant is unknowable, so the row is refused (``DuplicateKey``, at any depth:
in metadata, in a list of objects), and its reader turns that into a DataError naming the
file, the row and line, and the key.

Why jiter: it is the parser inside pydantic-core (the one ``io`` used, already twice as fast
as ``json.loads``), installed with openai, and its ``catch_duplicate_keys`` checks each key as
it is read, in Rust. On rows of 3.5 kB the check costs about 1 us a row on top of a 3-4 us
parse (caching only keys wins it back, see ``_fast``), where ``json.loads`` with an
``object_pairs_hook`` takes 10 us. Anything jiter refuses (invalid JSON, a repeated key, but
also a lone surrogate escape, which ``json.loads`` accepts) is parsed again by ``json.loads``
with a hook that checks keys, so the values, and the error and message for a bad line, stay
``json.loads``'s. Only once a key is known to be repeated does a slow pure-Python pass find
where (``_first_repeat``).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from json.decoder import scanstring
from typing import Any

import jiter

from ragmeter._sample_checks import line_surrogate

__all__ = ["BLANK", "DuplicateKey", "dotted", "loads", "parse_json", "parse_line"]

_BOM = b"\xef\xbb\xbf"
_WS = re.compile(r"[ \t\n\r]*")
_SCALARS = json.JSONDecoder()  # its C scanner reads one string, number or literal


class DuplicateKey(ValueError):
    """A key given twice in one JSON object: which, in which object, and where.

    ``path``: the keys and list indices leading to the object holding it (empty: the top
    object); ``line`` and ``column`` (1-based, in the parsed text) of its second occurrence,
    None when it could not be located."""

    def __init__(
        self, key: str, path: Sequence[str | int], line: int | None, column: int | None
    ) -> None:
        self.key = key
        self.path = list(path)
        self.line = line
        self.column = column
        super().__init__(self.reason())

    def reason(self, within: str = "") -> str:
        """What a Problem says of it (the Problem names the row, line and field); ``within``
        names what the line and column count in (``the line``, ``the cell``)."""
        where = ""
        if self.column is not None:
            where = f"column {self.column}"
            if self.line != 1:
                where = f"line {self.line}, {where}"
            where = f" (the second at {where}{f' of {within}' if within else ''})"
        return (
            f"the key '{self.key}' is given twice in one object{where}: JSON readers keep "
            "only one of the two values and lose the other without a word; remove or rename one"
        )


def dotted(path: Sequence[str | int]) -> str:
    """``["metadata", "docs", 2, "id"]`` as ``metadata.docs[2].id``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def parse_json(text: str, raw: bytes | None = None) -> Any:
    """``text`` parsed as ``json.loads`` does; DuplicateKey for a key repeated in an object,
    JSONDecodeError (``json.loads``'s) for invalid JSON. ``raw``: the same text as UTF-8 bytes
    when the caller has them (a file's line, a UTF-8 BOM allowed), which saves encoding it."""
    value = _fast(text.encode() if raw is None else raw)
    return _slow(text) if value is _MISSED else value


_MISSED = object()


def _fast(data: bytes) -> Any:
    """jiter's reading of ``data``, or _MISSED for anything it refuses. Object keys only are
    cached (jiter's default caches every short string): measured on 100k rows, caching values
    too cost more than the check for repeated keys, and rows rarely repeat a value."""
    if data[:3] == _BOM:
        data = data[3:]
    try:
        return jiter.from_json(data, catch_duplicate_keys=True, cache_mode="keys")
    except ValueError:
        return _MISSED


def _slow(text: str) -> Any:
    """``json.loads(text)``, refusing a repeated key: for what jiter refused."""
    try:
        return loads(text, object_pairs_hook=_unique)
    except _Repeated as repeated:
        raise _located(text, repeated.key) from None


_LONG_INT = re.compile(r"-?\d{" + str(sys.get_int_max_str_digits() + 1) + ",}")


def loads(text: str, **kwargs: Any) -> Any:
    """``json.loads``, except that valid JSON Python cannot hold raises JSONDecodeError too.

    Why: ``json.loads`` raises RecursionError for arrays or objects nested past the
    interpreter's stack, and a plain ValueError for an integer of more digits than
    ``sys.get_int_max_str_digits()`` (4300). Every reader catches JSONDecodeError, so these
    two ended ``ragmeter evaluate``, ``compare`` and ``meta-eval`` as an internal error
    (exit 1) instead of a problem naming the file and row (exit 2)."""
    try:
        return json.loads(text, **kwargs)
    except RecursionError:
        limit = sys.getrecursionlimit()
        msg = f"arrays or objects nested deeper than Python reads (about {limit} levels)"
        raise json.JSONDecodeError(msg, text, 0) from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        found = _LONG_INT.search(text)
        if found is None:  # not the digit limit: json.loads's own error, unchanged
            raise
        msg = f"a number of {len(found.group().lstrip('-'))} digits, more than Python reads"
        raise json.JSONDecodeError(msg, text, found.start()) from exc


BLANK = object()  # what parse_line gives for a line holding only whitespace: no row

# Byte-order marks of encodings wider than UTF-8, the longer first (UTF-32 LE starts as UTF-16 LE).
_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32", "little-endian"),
    (b"\x00\x00\xfe\xff", "UTF-32", "big-endian"),
    (b"\xff\xfe", "UTF-16", "little-endian"),
    (b"\xfe\xff", "UTF-16", "big-endian"),
)


def wide_text(head: bytes) -> str | None:
    """What is wrong with text whose first bytes are the byte-order mark of UTF-16 or UTF-32,
    or None. Why: Windows tools save text so (PowerShell 5's ``>``, Notepad's "Unicode"), and
    such a file was refused line by line as "not UTF-8 text" and "invalid JSON", with no
    word of what it is or what to do."""
    for bom, name, order in _WIDE_BOMS:
        if head.startswith(bom):
            return (
                f"the file is {name} text ({order}: it starts with that byte-order mark), and "
                f"ragmeter reads UTF-8: save it as UTF-8 (iconv -f {name} -t UTF-8 IN > OUT)"
            )
    return None


def parse_line(raw: bytes, lineno: int) -> tuple[Any, tuple[str | None, str] | None]:
    """One line of a JSONL file as ``(record, None)``, ``(None, (field, what is wrong))``
    or ``(BLANK, None)``. Shared by every reader of JSONL (local, stream, Ray) so that all
    say the same of the same line: not UTF-8 (where in the line), invalid JSON (the line
    parsed without its line ending, which put a cut line's error at "column 1" of the
    next), a repeated key (the key, at any depth), a lone surrogate escape. jiter refuses
    every lone surrogate, so only a line it refused is searched for one."""
    try:
        text = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")  # a BOM allowed
    except UnicodeDecodeError as exc:
        if lineno == 1 and (wide := wide_text(raw)) is not None:
            return None, (None, wide)
        return None, (None, f"not UTF-8 text: {exc.reason} at byte {exc.start} of the line")
    if not text.strip():
        return BLANK, None
    record = _fast(raw)
    if record is not _MISSED:
        return record, None
    try:
        record = _slow(text.rstrip("\r\n"))
    except DuplicateKey as exc:
        return None, (dotted([*exc.path, exc.key]), exc.reason("the line"))
    except json.JSONDecodeError as exc:
        said = f"invalid JSON: {exc.msg} (column {exc.colno}){_hint(text, exc, lineno)}"
        return None, (None, said)
    if found := line_surrogate(text, record):
        return None, found
    return record, None


def _hint(text: str, exc: json.JSONDecodeError, lineno: int) -> str:
    """What the two commonest misreadings of JSON Lines mean, said with their error. Why: a
    comma after each object (rows cut out of a JSON array) and a JSON array or object
    written over several lines (a .json file named .jsonl) were refused as "Extra data" and
    "Expecting value" at some column of every line, with no word of what was wrong."""
    if exc.msg == "Extra data" and text[exc.pos :].strip() == ",":
        return ": a comma after the object; JSON Lines holds one object a line, with no comma"
    if lineno == 1 and text.strip() in ("[", "{"):
        return (
            f": the line holds only '{text.strip()}', as a JSON document written over several "
            "lines starts; JSON Lines holds one whole object a line (a .json file reads such "
            "a document)"
        )
    return ""


class _Repeated(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``'s object_pairs_hook: the object, or _Repeated naming a repeated key."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Repeated(key)
            seen.add(key)
    return out


def _located(text: str, key: str) -> DuplicateKey:
    """The DuplicateKey of the first repeated key in ``text``, valid JSON known to hold one
    (``key``, named as such when it cannot be located)."""
    try:
        found = _first_repeat(text)
    except (RecursionError, ValueError, IndexError):  # nested past the stack: not located
        found = None
    if found is None:
        return DuplicateKey(key, [], None, None)
    path, key, offset = found
    line = text.count("\n", 0, offset) + 1
    column = offset - text.rfind("\n", 0, offset)
    return DuplicateKey(key, path, line, column)


class _Found(Exception):
    def __init__(self, path: list[str | int], key: str, offset: int) -> None:
        self.found = (path, key, offset)


def _first_repeat(s: str) -> tuple[list[str | int], str, int] | None:
    """(path to the object, key, offset of the key's second occurrence) of the first key
    repeated in document order, for valid JSON; None when there is none. Pure Python, so
    run only once a repeat is known."""
    try:
        _value(s, 0, [])
    except _Found as found:
        return found.found
    return None


def _skip(s: str, i: int) -> int:
    """The offset of the first non-whitespace character from ``i``."""
    match = _WS.match(s, i)
    return match.end() if match else i


def _value(s: str, i: int, path: list[str | int]) -> int:
    """Read the value at ``s[i:]`` (whitespace first); the offset after it."""
    i = _skip(s, i)
    if s[i] == "{":
        seen: set[str] = set()
        i = _skip(s, i + 1)
        if s[i] == "}":
            return i + 1
        while True:
            start = i
            key, i = scanstring(s, i + 1)
            if key in seen:
                raise _Found(path, key, start)
            seen.add(key)
            i = _skip(s, _value(s, _skip(s, i) + 1, [*path, key]))  # past the colon
            if s[i] == "}":
                return i + 1
            i = _skip(s, i + 1)  # past the comma
    if s[i] == "[":
        i = _skip(s, i + 1)
        if s[i] == "]":
            return i + 1
        n = 0
        while True:
            i = _skip(s, _value(s, i, [*path, n]))
            if s[i] == "]":
                return i + 1
            i, n = i + 1, n + 1
    _, end = _SCALARS.scan_once(s, i)
    return int(end)
