"""The text passes of the judged metrics stay linear on adversarial answers, contexts and judge
replies: runs of spaces, blank lines, backticks, list numbers, unclosed comments and tags.

Each case took from several seconds to minutes before (quadratic or cubic regex backtracking,
or a loop that rescanned the text per line); each now takes milliseconds. The bound (2 s) is
generous for slow CI machines and far below the time before."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from ragmeter.engine.parsing import parse_structured
from ragmeter.metrics.citations import is_pointer, strip_citations
from ragmeter.metrics.claims import claims_of
from ragmeter.metrics.context import ContextSentences
from ragmeter.metrics.frames import unwrap_answer, unwrap_attribution
from ragmeter.metrics.inline_list import inline_items
from ragmeter.metrics.layout import plain_text
from ragmeter.metrics.reasoning import final_answer
from ragmeter.metrics.relevance import SentenceNumbers
from ragmeter.metrics.untrusted import strip_hidden
from ragmeter.text import split_sentences

Q = "What is the capital of Italy?"
BOUND = 2.0  # seconds

CASES: dict[str, tuple[Callable[[str], object], str]] = {
    # frames._TRAILING: cubic, 2,000 spaces took 47 s
    "attribution after spaces": (unwrap_attribution, "Rome is the capital. " + " " * 20_000 + "x"),
    # untrusted._ROLE_LINE: "^\s*" over every blank line, 4,000 took 0.4 s, 50,000 about a minute
    "blank lines": (strip_hidden, "\n" * 50_000 + "Rome."),
    # untrusted._HIDDEN: each open markdown comment scanned to the end for ")"
    "open markdown comments": (strip_hidden, "[//]: # (" * 10_000),
    # inline_list._chain: every "1)" scanned the rest of the line for its "2)"
    "inline list of ones": (inline_items, "1) " * 10_000),
    # claims._stray_list_number: the lone numbers counted again for every piece
    "lone list numbers": (lambda s: claims_of(Q, s), "1. 2. 3. " * 2_500),
    # citations._MARKER: "\s*\[" tried from every space
    "spaces before no citation": (strip_citations, "Rome" + " " * 50_000 + "x"),
    # citations.strip_citations: every line checked all lines kept before it
    "blank lines before sources": (strip_citations, "\n" * 20_000 + "Rome."),
    # citations._URL: the punctuation after a URL scanned again per character
    "URL of dots": (is_pointer, "See http://" + "." * 30_000 + "x"),
    # layout._CONFIDENCE: "\s*\(" tried from every space
    "spaces in a line": (lambda s: plain_text(s, answer=True), "Rome" + " " * 100_000 + "x"),
    # claims._PAREN_SENTENCE: the same in a sentence
    "spaces in a sentence": (lambda s: claims_of(Q, s), "Rome is big." + " " * 100_000 + "x"),
    # claims' fenced-code pattern: every shorter fence of a run of backticks tried
    "run of backticks": (lambda s: claims_of(Q, s), "`" * 100_000),
    # frames._ANSWER_AFTER: 80 starts, each over the same run of blank lines
    "answer after blank lines": (unwrap_answer, "Rome" + "\n" * 1_000_000 + "x"),
    # reasoning._without_trace: the search for an opening tag redone per closing tag
    "closing think tags": (lambda s: final_answer(s), "</think>" * 12_500),
    # a context: the same passes
    "context of blank lines": (lambda s: ContextSentences.of([s]), "\n" * 50_000 + "Rome."),
    # text.split_sentences: each rejected split point re-read the text since the last split,
    # 100 kB of "e.g. " took 26 s and of lower-case sentences after a capital 63 s
    "abbreviations": (split_sentences, "Rome is big. " + "e.g. " * 20_000),
    "lower-case sentences": (split_sentences, "Start. " + "lower case. " * 20_000),
    # engine.parsing._FENCE: "\s*```$" tried from every space of a runaway reply
    "judge reply of spaces": (
        lambda s: parse_structured(s, SentenceNumbers),
        "{" + " " * 50_000 + "x",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_pass_is_fast_on_adversarial_text(name: str) -> None:
    fn, text = CASES[name]
    start = time.perf_counter()
    fn(text)
    assert time.perf_counter() - start < BOUND, name
