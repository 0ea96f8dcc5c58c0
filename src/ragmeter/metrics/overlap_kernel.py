"""Token overlap counts for a whole batch in one compiled pass (numba, the ``fast`` extra).

Why: K-Precision, token recall/precision/F1 and exact match all reduce to counting, for each
sample, how many of the answer's SQuAD tokens each other text (a context, a reference answer)
holds, as multisets. In Python that is a few dozen interpreted steps per sample (about 50 us
on a 2-core AMD EPYC for five 100-word contexts); compiled, one pass over the bytes.

``overlap_counts(answers, segments)`` gives, per sample, the answer's token count and the
union count, and per segment (the sample's contexts, or its references) the shared count,
the segment's token count and whether its token sequence equals the answer's.

The counts are exactly ``text.tokens``'s. The texts are lower-cased by Python (``str.lower``,
as ``tokens`` does), encoded as UTF-8, and stripped of ASCII punctuation; the kernel splits
them on every character ``str.split`` splits on, and drops the tokens "a", "an", "the". A
token holding a character that is not alphanumeric (``str.isalnum``: "don’t") is one token
unless one of its word runs is an article ("the’s"), which ``tokens`` cuts out with a regex:
such a sample, one with a character outside the Basic Multilingual Plane (whose classes the
kernel does not tabulate) or with a NUL in a text, is flagged (``exact[s] = False``) for the
Python path. Token equality is decided on the bytes; a hash only picks the slot.

numba is imported and the kernel compiled on first use (5-7 s once after install, then loaded
from numba's cache in 0.5-0.9 s once per process): the metrics use it only for batches of at
least ``MIN_SAMPLES``.
Without numba, ``available()`` is False and the metrics use the Python path.
"""

from __future__ import annotations

import importlib.util
import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

MIN_SAMPLES = 10_000  # below this the start-up (0.5-0.9 s a process) costs more than it saves
CHUNK = 2048  # samples per kernel call: a few MB of text, so buffers reuse warm memory

_TABLE = bytearray(range(256))
for _c in "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f":
    _TABLE[ord(_c)] = ord(" ")
for _c in range(ord("A"), ord("Z") + 1):
    _TABLE[_c] = _c + 32
TABLE = bytes(_TABLE)
DELETE = string.punctuation.encode("ascii")
_MIX = np.uint64(0x9E3779B97F4A7C15)
_compiled: dict[str, Any] = {}


def available() -> bool:
    """Whether numba is installed (it is not imported here)."""
    return importlib.util.find_spec("numba") is not None


@dataclass
class Counts:
    """Per sample: ``n_answer``, ``union``, ``exact``; per segment: ``common``, ``n_segment``,
    ``equal``; sample ``s``'s segments are ``seg_start[s]:seg_start[s + 1]``."""

    n_answer: np.ndarray
    union: np.ndarray
    exact: np.ndarray
    common: np.ndarray
    n_segment: np.ndarray
    equal: np.ndarray
    seg_start: np.ndarray


def _kinds() -> np.ndarray:
    """The class of every BMP code point: 0 splits tokens, 1 alphanumeric, 2 anything else."""
    chars = [chr(c) for c in range(0x10000)]
    kinds = np.fromiter((1 if c.isalnum() else 2 for c in chars), dtype=np.uint8, count=0x10000)
    kinds[[i for i, c in enumerate(chars) if c.isspace()]] = 0
    return kinds


def _kernel() -> tuple[Any, np.ndarray]:
    """The compiled counter and the class table, built on first use."""
    if not _compiled:
        import numba

        # The helpers are inlined into their callers (in numba's IR): as calls, they cost
        # more than the work of a token. Callees first, so each caller sees them compiled.
        inline = numba.njit(cache=True, nogil=True, inline="always")
        for name in ("_char", "_is_article", "_same", "_find", "_token"):
            globals()[name] = inline(globals()[name])
        jit = numba.njit(cache=True, nogil=True)
        for name in ("_answer", "_segment", "_count"):
            globals()[name] = jit(globals()[name])
        _compiled["count"] = globals()["_count"]
        _compiled["kinds"] = _kinds()
    return _compiled["count"], _compiled["kinds"]


def overlap_counts(answers: Sequence[str], segments: Sequence[Sequence[str]]) -> Counts:
    """The counts of every sample (``answers[s]`` against each text of ``segments[s]``)."""
    count, kinds = _kernel()
    parts = [
        _chunk(answers[lo : lo + CHUNK], segments[lo : lo + CHUNK], count, kinds)
        for lo in range(0, len(answers), CHUNK)
    ] or [_chunk([], [], count, kinds)]
    seg_start = np.zeros(len(answers) + 1, dtype=np.int64)
    np.cumsum([len(segs) for segs in segments], out=seg_start[1:])
    arrays = (np.concatenate([p[k] for p in parts]) for k in range(6))
    return Counts(*arrays, seg_start)  # type: ignore[call-arg]


def _chunk(
    answers: Sequence[str], segments: Sequence[Sequence[str]], count: Any, kinds: np.ndarray
) -> tuple[np.ndarray, ...]:
    # Every text joined by NUL (each sample's answer, then its segments): one lower, encode and
    # translate for the chunk. When a text holds a NUL itself (more NULs than texts), each
    # sample is checked: one that does is left out (an empty answer and as many empty
    # segments) and flagged.
    n_segs = [len(segs) for segs in segments]
    texts: list[str] = []
    for answer, segs in zip(answers, segments, strict=True):
        texts.append(answer)
        texts.extend(segs)
    ok = np.ones(len(answers), dtype=np.bool_)
    buf, ends = _encoded("\x00".join(texts))
    if len(ends) != len(texts):  # a text holds a NUL: find which, leave those samples out
        joined = []
        for s, (answer, segs) in enumerate(zip(answers, segments, strict=True)):
            one = "\x00".join([answer, *segs])
            if one.count("\x00") != n_segs[s]:
                ok[s] = False
                one = "\x00" * n_segs[s]
            joined.append(one)
        buf, ends = _encoded("\x00".join(joined))
    seg_start = np.zeros(len(answers) + 1, dtype=np.int64)
    np.cumsum(n_segs, out=seg_start[1:])
    return count(buf, ends, seg_start, ok, kinds)


def _char(buf, j, kinds):
    """The class of the UTF-8 character at byte ``j`` (3: outside the BMP) and its length."""
    c = buf[j]
    if c < 0x80:
        return kinds[c], 1
    if c < 0xE0:
        return kinds[(np.int64(c & 0x1F) << 6) | np.int64(buf[j + 1] & 0x3F)], 2
    if c < 0xF0:
        cp = (
            (np.int64(c & 0x0F) << 12)
            | (np.int64(buf[j + 1] & 0x3F) << 6)
            | np.int64(buf[j + 2] & 0x3F)
        )
        return kinds[cp], 3
    return np.uint8(3), 4


def _encoded(text: str) -> tuple[np.ndarray, np.ndarray]:
    """The text lower-cased (ASCII by the byte table, which is the same), as UTF-8 without
    ASCII punctuation, a NUL appended; and where its NULs are."""
    raw = text.encode("ascii") if text.isascii() else text.lower().encode("utf-8", "surrogatepass")
    buf = np.frombuffer(raw.translate(TABLE, DELETE) + b"\x00", dtype=np.uint8)
    return buf, np.flatnonzero(buf == 0)


def _token(buf, i, hi, kinds):
    """The token starting at byte ``i`` (a non-space): its end, a hash of its length and
    first and last two bytes (it only picks a slot), and whether ``text.tokens`` takes it
    whole (or drops it whole, as an article): no word run inside a token with other
    characters is an article, and no character lies outside the BMP."""
    j = i
    exact = True
    mixed = False
    article = False
    in_word = False
    run = i
    while j < hi:
        c = buf[j]
        if (97 <= c <= 122) or (48 <= c <= 57):  # the common case: a-z, 0-9
            if not in_word:
                run = j
                in_word = True
            j += 1
            continue
        if c == 32:
            break
        kind, n = _char(buf, j, kinds)
        if kind == 0:
            break
        if kind == 1:
            if not in_word:
                run = j
                in_word = True
        else:
            if in_word and _is_article(buf, run, j - run):
                article = True
            in_word = False
            mixed = True
            if kind == 3:
                exact = False
        j += n
    if in_word and mixed and _is_article(buf, run, j - run):
        article = True
    k = j - i
    two = 1 if k > 1 else 0
    h = np.uint64(k) << np.uint64(32)
    h |= np.uint64(buf[i]) << np.uint64(24)
    h |= np.uint64(buf[i + two]) << np.uint64(16)
    h |= np.uint64(buf[j - 1 - two]) << np.uint64(8)
    h |= np.uint64(buf[j - 1])
    return j, h * _MIX, exact and not (mixed and article)


def _is_article(buf, i, k):
    return (
        (k == 1 and buf[i] == 97)
        or (k == 2 and buf[i] == 97 and buf[i + 1] == 110)
        or (k == 3 and buf[i] == 116 and buf[i + 1] == 104 and buf[i + 2] == 101)
    )


def _same(buf, a, b, k):
    # a loop numba compiles (not a generator)
    q = 0
    while q < k and buf[a + q] == buf[b + q]:
        q += 1
    return q == k


def _find(slots, first, starts, lens, hashes, buf, h, i, k):
    """The distinct answer token equal to ``buf[i:i+k]`` (hash ``h``): its slot and id
    (-1 when absent; the slot is then the free one where it would go)."""
    mask = np.uint64(len(slots) - 1)
    slot = np.int64((h >> np.uint64(40)) & mask)
    while slots[slot] >= 0:
        u = slots[slot]
        f = first[u]
        if hashes[f] == h and lens[f] == k and _same(buf, starts[f], i, k):
            return slot, u
        slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
    return slot, -1


def _answer(buf, lo, hi, kinds):
    """The answer's tokens (articles dropped) and their distinct values in a hash table."""
    starts = np.empty(hi - lo + 1, np.int64)
    lens = np.empty(hi - lo + 1, np.int64)
    hashes = np.empty(hi - lo + 1, np.uint64)
    n_tok = 0
    plain_all = True
    i = lo
    while i < hi:
        if buf[i] == 32:
            i += 1
            continue
        if buf[i] >= 0x80:
            kind, n = _char(buf, i, kinds)
            if kind == 0:
                i += n
                continue
        j, h, plain = _token(buf, i, hi, kinds)
        plain_all = plain_all and plain
        if not _is_article(buf, i, j - i):
            starts[n_tok], lens[n_tok], hashes[n_tok] = i, j - i, h
            n_tok += 1
        i = j
    size = 8
    while size < 4 * n_tok:
        size *= 2
    slots = np.full(size, -1, np.int64)
    uid = np.empty(n_tok, np.int64)  # the distinct-token id of each answer token
    first = np.empty(n_tok, np.int64)  # a token of each distinct id
    want = np.zeros(max(n_tok, 1), np.int64)  # the answer's count of each distinct id
    n_u = 0
    for t in range(n_tok):
        slot, u = _find(slots, first, starts, lens, hashes, buf, hashes[t], starts[t], lens[t])
        if u < 0:
            u = n_u
            slots[slot] = u
            first[u] = t
            n_u += 1
        uid[t] = u
        want[u] += 1
    return starts, lens, hashes, slots, uid, first, want, n_tok, n_u, plain_all


def _segment(buf, lo, hi, table, seen, kinds):
    """Count the answer's tokens in ``buf[lo:hi]`` into ``seen``: (tokens, sequence equals
    the answer's, only [a-z0-9])."""
    starts, lens, hashes, slots, uid, first, _want, n_tok, _n_u, _p = table
    n_g = 0
    same_seq = True
    plain_all = True
    i = lo
    while i < hi:
        if buf[i] == 32:
            i += 1
            continue
        if buf[i] >= 0x80:
            kind, n = _char(buf, i, kinds)
            if kind == 0:
                i += n
                continue
        j, h, plain = _token(buf, i, hi, kinds)
        plain_all = plain_all and plain
        k = j - i
        if not _is_article(buf, i, k):
            found = -1
            if n_tok > 0:
                found = _find(slots, first, starts, lens, hashes, buf, h, i, k)[1]
            if found >= 0:
                seen[found] += 1
            if n_g >= n_tok or found != uid[n_g]:
                same_seq = False
            n_g += 1
        i = j
    return n_g, same_seq and n_g == n_tok, plain_all


def _count(buf, ends, seg_start, ascii_ok, kinds):
    n_samples = len(seg_start) - 1
    n_answer = np.zeros(n_samples, np.int64)
    union = np.zeros(n_samples, np.int64)
    exact = ascii_ok.copy()
    common = np.zeros(seg_start[-1], np.int64)
    n_segment = np.zeros(seg_start[-1], np.int64)
    equal = np.zeros(seg_start[-1], np.bool_)
    piece = 0  # pieces: per sample its answer, then its segments; each ends at a NUL
    for s in range(n_samples):
        lo = ends[piece - 1] + 1 if piece > 0 else 0
        table = _answer(buf, lo, ends[piece], kinds)
        piece += 1
        n_u, want = table[8], table[6]
        exact[s] = exact[s] and table[9]
        n_answer[s] = table[7]
        total = np.zeros(max(n_u, 1), np.int64)
        seen = np.zeros(max(n_u, 1), np.int64)
        for g in range(seg_start[s], seg_start[s + 1]):
            seen[:] = 0
            n_g, same, plain = _segment(buf, ends[piece - 1] + 1, ends[piece], table, seen, kinds)
            piece += 1
            exact[s] = exact[s] and plain
            shared = 0
            for u in range(n_u):
                shared += min(want[u], seen[u])
                total[u] += seen[u]
            common[g], n_segment[g], equal[g] = shared, n_g, same
        got = 0
        for u in range(n_u):
            got += min(want[u], total[u])
        union[s] = got
    return n_answer, union, exact, common, n_segment, equal
