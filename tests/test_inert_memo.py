"""The shortcuts in front of ``neutralise`` (metrics/untrusted.py) change no output.

Two of them, both for the CPU a judge call costs the client: a text without any character
that a chat token or a data-mark look-alike starts with is returned as it is (proved here from
the patterns' parse trees, and checked on hostile texts), and texts up to ``MEMO_CHARS`` are
memoised in a cache of at most ``MEMO_SIZE`` entries (the same system message and few-shot
examples were neutralised again on every call)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

import ragmeter
from ragmeter.metrics import untrusted as U

try:  # Python >= 3.11
    from re import _constants as sc
    from re import _parser as sp
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as sc  # type: ignore[no-redef]
    import sre_parse as sp  # type: ignore[no-redef]


def _first_chars(seq: list) -> set[str]:
    """The characters a match of ``seq`` can start with (the patterns use only these forms:
    a literal, a class of literals and ranges, a group, an alternation, a repeat of one+)."""
    op, av = seq[0]
    if op is sc.LITERAL:
        return {chr(av)}
    if op is sc.IN:
        out: set[str] = set()
        for kind, value in av:
            if kind is sc.LITERAL:
                out.add(chr(value))
            elif kind is sc.RANGE:
                out |= {chr(c) for c in range(value[0], value[1] + 1)}
            else:  # pragma: no cover - a class the proof cannot read: make it fail
                raise AssertionError(f"unreadable class item {kind}")
        return out
    if op is sc.SUBPATTERN:
        return _first_chars(list(av[-1]))
    if op is sc.BRANCH:
        return set().union(*(_first_chars(list(alt)) for alt in av[1]))
    if op in (sc.MAX_REPEAT, sc.MIN_REPEAT) and av[0] >= 1:
        return _first_chars(list(av[2]))
    raise AssertionError(f"a match may start with anything: {op}")  # pragma: no cover


@pytest.mark.parametrize(
    "pattern", [U._OPENS, U._HALF, U._CHAT_TOKEN], ids=["opens", "half", "chat_token"]
)
def test_every_match_starts_with_a_trigger_character(pattern: re.Pattern[str]) -> None:
    first = _first_chars(list(sp.parse(pattern.pattern, pattern.flags)))
    missed = {c for c in first if U._TRIGGER.fullmatch(c) is None}
    assert not missed, f"add these to _TRIGGER: {sorted(missed)}"


def test_no_other_character_matches_a_trigger_case_aside() -> None:
    # the patterns run with IGNORECASE: a character it equates with a trigger would start a
    # match too. None does (brackets, "&", slashes, "[" have no case).
    folded = re.compile(U._TRIGGER.pattern, re.IGNORECASE)
    extra = [
        hex(c)
        for c in range(0x110000)
        if folded.fullmatch(chr(c)) and not U._TRIGGER.fullmatch(chr(c))
    ]
    assert extra == []


# pieces of hostile texts: chat tokens, data marks and their look-alikes, and plain words
_PIECES = [
    "<data>", "</data>", "</data >", "</da\u200bta>", "< /data", "\uff1c/data\uff1e",
    "&lt;/data&gt", "&lt;/data&gt;", "&#60;/data&#62;", "&#x3c;/DATA&#x3e;", "/data>",
    "\uff0fdata>", "\\data>", "<<</data>", "\ufe64data\ufe65", "\u2329/data\u232a",
    "\u3008data\u3009", "<|im_start|>", "<|im_end|>", "<\uff5cUser\uff5c>", "[INST]",
    "[/INST]", "<<SYS>>", "<</SYS>>", "<s>", "</s>", "<start_of_turn>", "<end_of_turn>",
    "<|i</data>m_end|>", "<|[INST]x|>", "<|data|>", "system", "assistant", "\n", " ",
    "Rome", "data", "DATA", "ｄａｔａ", "yes/no", "a & b", "|", "\uff5c", ">", "<", "&",
    "[", "]", "\u200b", "Paris is the capital.",
]  # fmt: skip


def _hostile(rng: random.Random, n: int) -> list[str]:
    return ["".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 12))) for _ in range(n)]


def test_neutralise_equals_the_uncached_pass_on_hostile_texts() -> None:
    texts = _hostile(random.Random(7), 3000)
    changed = 0
    for text in texts:
        want = U._neutralise(text)
        assert U.neutralise(text) == want, repr(text)
        assert U.neutralise(text) == want, repr(text)  # again: from the cache
        changed += want != text
    assert changed > 1000  # the corpus does exercise the patterns


def test_a_text_without_triggers_is_unchanged_by_the_full_pass() -> None:
    rng = random.Random(3)
    quiet = [p for p in _PIECES if U._TRIGGER.search(p) is None]
    for _ in range(2000):
        text = "".join(rng.choice(quiet) for _ in range(rng.randint(1, 10)))
        assert U._neutralise(text) == text


def test_inert_message_equals_the_uncached_pass() -> None:
    for text in _hostile(random.Random(11), 1000):
        parts = U._EXACT.split(text)
        want = "".join(p if i % 2 else U._neutralise(p) for i, p in enumerate(parts))
        assert U.inert_message(text) == want, repr(text)


def test_the_memo_is_bounded_and_skips_long_texts() -> None:
    U._neutralise_memo.cache_clear()
    for i in range(U.MEMO_SIZE + 200):
        U.neutralise(f"<|im_end|> {i}")
    assert U._neutralise_memo.cache_info().currsize == U.MEMO_SIZE
    U._neutralise_memo.cache_clear()
    long = "</data> " + "x" * U.MEMO_CHARS
    assert U.neutralise(long) == U._neutralise(long) == "(/data) " + "x" * U.MEMO_CHARS
    assert U._neutralise_memo.cache_info().currsize == 0  # too long to keep


def test_none_and_empty_stay_empty() -> None:
    assert U.neutralise(None) == "" == U.neutralise("")  # type: ignore[arg-type]


def test_the_prompts_constant_pieces_fit_the_memo() -> None:
    # the pieces between data marks that every call repeats (system messages, examples):
    # longer than MEMO_CHARS they would be neutralised again on every call
    pieces: list[str] = []

    def walk(x: object) -> None:
        if isinstance(x, str):
            pieces.extend(U._EXACT.split(x)[::2])
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    files = sorted((Path(ragmeter.__file__).parent / "prompts").glob("*.json"))
    assert files
    for f in files:
        walk(json.loads(f.read_text()))
    assert max(len(p) for p in pieces) <= U.MEMO_CHARS
