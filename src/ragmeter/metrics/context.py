"""The contexts as the judged metrics see them: numbered sentences, chunks that fit the
judge's window, and the evidence sentences chosen for each statement.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ragmeter.metrics.claims import neutralise, split_instruction, strip_hidden
from ragmeter.metrics.judging import inner_model, options_of
from ragmeter.metrics.layout import is_list_number, plain_text
from ragmeter.protocols import Resources
from ragmeter.text import detokenize, split_sentences, tokens
from ragmeter.vectors import unit_rows

DEFAULT_EVIDENCE_K = 3  # context sentences kept per statement (option ``evidence_k``)
CHARS_PER_TOKEN = 3.2  # conservative for English prose: chunks overestimate their tokens
DEFAULT_CONTEXT_TOKENS = 6000  # judges that do not say their window
RESERVED_TOKENS = 1600  # system prompt + question + statement + reply


@dataclass
class ContextSentences:
    """Every sentence of the contexts, numbered from 1 across contexts in rank order.

    Hidden text (HTML / markdown comments, chat role tags) is removed first: a reader never
    sees it. Layout goes next (``layout.plain_text``: headings, labels, list markers, emphasis,
    lone list numbers), so a markdown document has the sentences its prose has and context
    relevance's denominator counts sentences, not "1." and "## History". Tokenized text ("it 's
    in paris .") is rejoined as prose is written (``text.detokenize``). Sentences addressed
    to the evaluator ("Note to the evaluator ... Answer yes.") are kept and flagged in
    ``instruction``: they are never evidence and never needed.
    """

    sentences: list[str] = field(default_factory=list)
    context_of: list[int] = field(default_factory=list)  # index of the context of each sentence
    instruction: list[bool] = field(default_factory=list)

    @classmethod
    def of(cls, contexts: Sequence[str]) -> ContextSentences:
        out = cls()
        for i, ctx in enumerate(contexts):
            text = plain_text(strip_hidden(ctx or "")).text
            pieces = [detokenize(p) for p in split_sentences(text)]  # "it 's" -> "it's"
            for sentence in pieces:
                if len(pieces) > 1 and is_list_number(sentence):
                    continue
                text, instruction = split_instruction(sentence)
                for piece, flag in ((text, False), (instruction, True)):
                    if piece and any(ch.isalnum() for ch in piece):
                        out.sentences.append(piece)
                        out.context_of.append(i)
                        out.instruction.append(flag)
        return out

    def without_instructions(self) -> ContextSentences:
        """The same contexts less the evaluator-directed sentences (the evidence to judge on)."""
        keep = [i for i, flag in enumerate(self.instruction) if not flag]
        return ContextSentences(
            [self.sentences[i] for i in keep],
            [self.context_of[i] for i in keep],
            [False] * len(keep),
        )

    def instructions(self) -> list[str]:
        return [s for s, flag in zip(self.sentences, self.instruction, strict=True) if flag]

    def render(self, indices: Sequence[int]) -> str:
        """``[n] sentence`` lines (1-based global numbers); a blank line between contexts."""
        lines: list[str] = []
        prev = None
        for i in indices:
            if prev is not None and self.context_of[i] != self.context_of[prev]:
                lines.append("")
            lines.append(f"[{i + 1}] {neutralise(self.sentences[i])}")
            prev = i
        return "\n".join(lines)


def context_budget_tokens(judge: Any, resources: Resources | None) -> int:
    """Tokens of context one prompt may hold: the option, else the judge's window less room."""
    opts = options_of(resources)
    if opts.get("max_context_tokens"):
        return int(opts["max_context_tokens"])
    n_ctx = getattr(inner_model(judge), "n_ctx", None)
    if isinstance(n_ctx, int) and n_ctx > RESERVED_TOKENS + 256:
        return n_ctx - RESERVED_TOKENS
    return DEFAULT_CONTEXT_TOKENS


def estimate_tokens(text: str) -> int:
    return int(len(text) / CHARS_PER_TOKEN) + 1


def chunk_indices(items: Sequence[str], budget_tokens: int) -> list[list[int]]:
    """Greedy packing of consecutive items into chunks of at most ``budget_tokens``.

    Deterministic and prefix-stable: two contexts that start alike get identical first chunks,
    so the judge's KV cache of one serves the other. An item longer than the budget is cut
    into its own chunk (the judge truncation check still guards the window).
    """
    chunks: list[list[int]] = []
    cur: list[int] = []
    used = 0
    for i, text in enumerate(items):
        n = estimate_tokens(text) + 4
        if cur and used + n > budget_tokens:
            chunks.append(cur)
            cur, used = [], 0
        cur.append(i)
        used += n
    if cur:
        chunks.append(cur)
    return chunks


def context_chunks(
    ctx: ContextSentences,
    judge: Any,
    resources: Resources | None,
    indices: Sequence[int] | None = None,
) -> list[list[int]]:
    """Chunks of global sentence indices (all sentences, or ``indices``) that fit the judge."""
    idx = list(range(len(ctx.sentences))) if indices is None else list(indices)
    local = chunk_indices([ctx.sentences[i] for i in idx], context_budget_tokens(judge, resources))
    return [[idx[j] for j in chunk] for chunk in local]


# ---- evidence selection ---------------------------------------------------------------------

_STOP_WORDS = (
    "what when where which who whom whose why how is are was were be been do does did of in "
    "on at to for from by with and or as it its this that these those there their they he "
    "she his her has have had will would can could should about into than then so such not"
)
_STOP = frozenset(_STOP_WORDS.split(" "))


def overlap_scores(queries: Sequence[str], sentences: Sequence[str]) -> list[list[float]]:
    """Per query, idf-weighted overlap of each sentence with its content words (no model).

    The sentences are tokenised and counted once for all queries. Each score is an exact
    sum (``math.fsum``): a plain sum over a set of words follows the set's order, which
    changes with the process's hash seed, so two sentences holding the same words scored a
    last-bit apart and which of them was evidence changed from run to run.
    """
    toks = [set(tokens(s)) for s in sentences]
    n = len(sentences)
    df: dict[str, int] = {}
    for t in toks:
        for w in t:
            df[w] = df.get(w, 0) + 1
    out = []
    for query in queries:
        q = {w for w in tokens(query) if w not in _STOP}
        out.append([math.fsum(math.log(1 + n / df[w]) for w in q & t) for t in toks])
    return out


# Cosines are ranked at 9 decimals: a matrix product's last bits depend on the CPU's BLAS
# kernel (AVX2 or AVX-512), and equal sentences came out in another order on another machine.
SIM_DIGITS = 9


def top_k(scores: Sequence[float], k: int) -> list[int]:
    """Indices of the k best scores (ties to the earlier index), in text order."""
    return sorted(sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:k])


@dataclass
class Evidence:
    """The context sentences a metric shows the judge, and how they were chosen."""

    indices: list[int]
    method: str  # "all", "embedding" or "lexical"
    note: str | None = None

    def details(self, ctx: ContextSentences) -> dict[str, Any]:
        out: dict[str, Any] = {
            "method": self.method,
            "sentences": [i + 1 for i in self.indices],
            "of": len(ctx.sentences),
        }
        if self.note:
            out["note"] = self.note
        return out


async def select_evidence(
    ctx: ContextSentences, queries: Sequence[str], resources: Resources | None, k: int
) -> Evidence:
    """The union over queries of each query's k most similar context sentences, in text order.

    A small judge checks a statement against 10 focused sentences better than against 50 (on
    WikiEval with the 1.5B judge: 49/50 pairs against 47/50), and reads far fewer tokens.
    Similarity is the embedder's cosine when one is configured, else lexical overlap.
    ``k <= 0`` keeps every sentence.
    """
    n = len(ctx.sentences)
    if k <= 0 or n <= k:
        return Evidence(list(range(n)), "all")
    embedder = getattr(resources, "embedder", None)
    note = None
    if options_of(resources).get("evidence_by") == "lexical":
        # the run chose word overlap (the default with a remote judge: see resources.py)
        embedder, note = None, "chosen by word overlap (evidence_by=lexical)"
    if embedder is not None:
        reply = await embedder.embed([*queries, *ctx.sentences])
        v = np.asarray(reply.value if reply.ok else [], dtype=np.float64)
        if v.ndim == 2 and v.shape[0] == len(queries) + n:
            v = unit_rows(v)
            sims = v[: len(queries)] @ v[len(queries) :].T
            keep: set[int] = set()
            for row in sims:  # rounded: ties stay ties whatever BLAS kernel the CPU takes
                keep.update(top_k([round(x, SIM_DIGITS) for x in row.tolist()], k))
            return Evidence(sorted(keep), "embedding")
        why = reply.error if not reply.ok else f"{v.shape[0] if v.ndim else 0} vectors back"
        note = f"embedder error ({why}); chose by word overlap instead"
    keep = set()
    for scores in overlap_scores(queries, ctx.sentences):
        keep.update(top_k(scores, k))
    return Evidence(sorted(keep), "lexical", note)
