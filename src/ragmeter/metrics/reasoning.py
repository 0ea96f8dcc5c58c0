"""A reasoning model's working is not its answer: the trace before the answer, and talk about
answering.

Why: reasoning models (DeepSeek-R1 and its distillations, Qwen3, QwQ, Magistral, Kimi) write
their working before the answer, between tags the serving stack often leaves in the text:
``<think>Okay, the user asks ... the context does not mention Milan ...</think>Rome is the
capital.``. Read as the answer, that working was split into claims and judged: its sentences
copied from the context raised the faithfulness of a wrong final answer, its guesses and
"the context does not mention" lowered a right one, and refusal detection read "does not
mention" in the working as the answer declining. Models that reason without tags talk about
answering in the open ("Let me check the context.", "Okay, so the user is asking about X.",
then "Final answer: Rome"); judged as claims, "Let me check the context." became 'The answer
to "Q" is Let me check the context.'. What the pipeline's user is told is the final answer,
so that is what faithfulness, answer relevance, answer correctness and the refusal metrics
read. The lexical metrics named after Unitxt and SQuAD keep the answer as written, as their
definitions do.

What is taken out (each piece listed in the score's details with why):
- a reasoning block: ``<think>...</think>``, ``<thinking>``, ``<reasoning>``, ``<reflection>``,
  ``<|begin_of_thought|>...<|end_of_thought|>``, ``[THINK]...[/THINK]``, ``◁think▷...◁/think▷``,
  and in OpenAI's harmony format (gpt-oss) everything before the ``final`` channel;
- a closing tag with no opening one: everything before it (chat templates that open the block
  in the prompt, as DeepSeek-R1's does, leave only the closing tag in the reply);
- an opening tag never closed: everything after it (the working was cut off by the token
  limit; with nothing before it there is no final answer, which the metrics say);
- ``is_process_talk``: a sentence about answering rather than about the world ("Let me check
  the context.", "Let's think step by step.", "I need to find the date in the passage.", "Okay,
  so the user is asking about Rome."); narrow: "Let me tell you that Rome is the capital" and
  "The user manual says ..." are kept.
"""

from __future__ import annotations

import re

from ragmeter.metrics.layout import Plain
from ragmeter.metrics.structured import json_answer

_SHOWN = 200  # characters of a dropped trace kept in the details

_TAGS = (
    (
        r"<\s*(?:think|thinking|reasoning|reflection)\s*>",
        r"<\s*/\s*(?:think|thinking|reasoning|reflection)\s*>",
    ),
    (r"<\|begin_of_thought\|>", r"<\|end_of_thought\|>"),
    (r"\[THINK\]", r"\[/THINK\]"),
    (r"\u25c1think\u25b7", r"\u25c1/think\u25b7"),
)
_OPEN = re.compile("|".join(f"(?:{o})" for o, _ in _TAGS), re.IGNORECASE)
_CLOSE = re.compile("|".join(f"(?:{c})" for _, c in _TAGS), re.IGNORECASE)
# The wrapper of a final answer some reasoning models add after the trace.
_SOLUTION = re.compile(r"<\|(?:begin|end)_of_solution\|>", re.IGNORECASE)
# OpenAI's harmony format (gpt-oss): the analysis channel, then the final one.
_HARMONY_FINAL = re.compile(
    r"<\|channel\|>\s*final\s*(?:<\|constrain\|>\S*?)?\s*<\|message\|>", re.IGNORECASE
)
_HARMONY_END = re.compile(r"<\|(?:end|return|call)\|>\s*$", re.IGNORECASE)

_FILLER = (
    r"(?:(?:ok(?:ay)?|alright|all\s+right|so|well|hmm+|wait|now|first(?:ly)?|next|then|right)"
    r"[,.!]?\s+)*"
)
_PROCESS_VERB = (
    r"(?:check|look|think|see|find|read|re-?read|review|consider|verify|recall|figure|examine|go|"
    r"break|start|begin|analy[sz]e|search|scan|double-check|confirm|identify|determine|work|"
    r"parse|understand|focus|make\s+sure|answer|tackle|approach|process)"
)
_PROCESS = re.compile(
    rf"^{_FILLER}(?:"
    rf"(?:let\s+me|let's|let\s+us|i\s+(?:need|have|want|ought)\s+to|i\s+(?:will|shall|should|must)"
    rf"|i'll|i'm\s+going\s+to|i\s+am\s+going\s+to)\s+{_PROCESS_VERB}\b"
    r"|(?:so\s+)?the\s+(?:user|question)\s+(?:is\s+asking|asks|asked|wants|is\s+looking\s+for"
    r"|is\s+about)\b"
    r")[^:]*$",
    re.IGNORECASE,
)


def _shown(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= _SHOWN:
        return text
    return f"{text[:_SHOWN]}... ({len(text.split())} words)"


def final_answer(answer: str) -> Plain:
    """The answer as its reader gets it: without the reasoning trace (module docstring) and, for
    an answer given as JSON, its answer field's text (``structured.json_answer``); ``dropped``
    says what went.

    "<think>The context names Rome.</think>\\n\\nRome is the capital." -> "Rome is the capital.";
    "Okay, the user asks ...</think> Rome." -> "Rome."; "<think>Let me see, the" -> "";
    '{"answer": "Rome", "sources": [1]}' -> "Rome".
    """
    traced = _without_trace(answer or "")
    unwrapped = json_answer(traced.text)
    return Plain(unwrapped.text, traced.dropped + unwrapped.dropped)


class _Next:
    """``rx.search(text, pos)`` for positions that never go back, each search done once: asked
    again for every closing tag, a search that found no opening tag scanned the rest of the
    text again, so 12,500 "</think>" (100 kB) took minutes."""

    def __init__(self, rx: re.Pattern[str], text: str) -> None:
        self.rx, self.text = rx, text
        self.match: re.Match[str] | None = None
        self.searched = False

    def search(self, pos: int) -> re.Match[str] | None:
        if not self.searched or (self.match is not None and self.match.start() < pos):
            self.match, self.searched = self.rx.search(self.text, pos), True
        return self.match


def _without_trace(text: str) -> Plain:
    if "<" not in text and "[" not in text and "\u25c1" not in text:
        return Plain(text)
    out = Plain("")
    finals = list(_HARMONY_FINAL.finditer(text))
    if finals:  # the last final channel
        harmony = finals[-1]
        before = re.sub(r"<\|[^|>]{1,40}\|>", " ", text[: harmony.start()])
        before = re.sub(r"\b(?:assistant|analysis|commentary)\b", " ", before).strip()
        if before:
            out.dropped.append({"text": _shown(before), "why": _TRACE})
        text = _HARMONY_END.sub("", text[harmony.end() :])
    kept: list[str] = []
    pos = 0
    next_open, next_close = _Next(_OPEN, text), _Next(_CLOSE, text)
    while True:
        o = next_open.search(pos)
        c = next_close.search(pos)
        if c is not None and (o is None or c.start() < o.start()):
            # a closing tag first: the reply began inside the block
            out.dropped.append({"text": _shown(text[pos : c.start()]), "why": _TRACE})
            pos = c.end()
            continue
        if o is None:
            kept.append(text[pos:])
            break
        kept.append(text[pos : o.start()])
        c = next_close.search(o.end())
        if c is None:
            out.dropped.append({"text": _shown(text[o.end() :]), "why": _UNCLOSED})
            break
        out.dropped.append({"text": _shown(text[o.end() : c.start()]), "why": _TRACE})
        pos = c.end()
    out.text = _SOLUTION.sub("", "".join(kept)).strip()
    out.dropped = [d for d in out.dropped if d["text"]]
    return out


_TRACE = "the model's reasoning before its answer, not the answer"
_UNCLOSED = "the model's reasoning, cut off before any answer (its block never closes)"


def has_unclosed_trace(dropped: list[dict[str, str]]) -> bool:
    """Whether the answer ended inside a reasoning block."""
    return any(d["why"] == _UNCLOSED for d in dropped)


def is_process_talk(sentence: str) -> bool:
    """A sentence about answering, not about the world: "Let me check the context.", "Okay, so
    the user is asking about Rome." (none has a colon with content after it: "Let me check:
    Rome is the capital." is kept)."""
    return bool(_PROCESS.match(sentence.strip()))


def no_final_answer(answer: str | None) -> str | None:
    """Why an answer that is only reasoning has nothing to score, or None when it has a final
    answer (or no trace at all)."""
    final = final_answer(answer or "")
    if final.text.strip() or not final.dropped:
        return None
    if has_unclosed_trace(final.dropped):
        return "no final answer: the answer is the model's reasoning, cut off before it answered"
    return "no final answer: the answer is only the model's reasoning"
