"""Local GGUF judge on llama.cpp (llama-cpp-python): structured output, verdict probabilities and
teacher-forced log-probabilities from one in-process model.

Why it looks like this:

* ONE ``Llama`` instance and ONE worker thread. The object is not thread-safe, and keeping it
  single lets llama.cpp reuse the KV cache of the longest common token prefix with the previous
  call: metrics that send many prompts sharing an instruction block / context pay for the
  shared part once. Calls run in submission order; the event loop never blocks. Batches are
  aligned to absolute positions (``llama_kv.py``), so a reused prefix gives the same logits
  as a fresh one: scores do not depend on earlier calls.
* Verdicts and teacher forcing decode through our own batch (logits only for the positions we
  need), so ``logits_all`` stays off: no (n_ctx x 152k vocab) float array in memory.
* Model faults come back as ``JudgeReply.error``, never as exceptions.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel, ValidationError

from ragmeter.backends import model_store
from ragmeter.backends.gguf_header import gguf_problem
from ragmeter.backends.llama_grouped import LocalTokenTops
from ragmeter.backends.llama_kv import MIN_ROWS, AlignedDecoder
from ragmeter.backends.llama_tokens import LocalStats, option_token_ids
from ragmeter.errors import LlamaCppMissing, ModelNotAvailable
from ragmeter.protocols import JudgeReply, Message, TokenLogprobs, Usage
from ragmeter.vectors import log_softmax

M = TypeVar("M", bound=BaseModel)
R = TypeVar("R")

DEFAULT_N_CTX = 8192
_CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


class LocalJudge(AlignedDecoder, LocalTokenTops):
    """llama.cpp judge implementing ``Judge`` and ``Scorer`` (see judges/base.py).

    ``model_path=None`` uses the embedded Qwen2.5-Coder-1.5B-Instruct (assembled on first use);
    ``embedded_key="0.5b"`` the small one; any other path is a user GGUF. The model loads lazily
    on the first call (or ``load()``), so constructing a judge for a dry run costs nothing.

    Window: ``n_ctx`` tokens (prompt + generated). Metrics should ``count_tokens`` their prompts
    and chunk long contexts to stay below ``n_ctx`` minus the reply budget.
    """

    max_concurrency = 1  # one model, one worker: more in flight only queues

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        embedded_key: str | None = None,
        n_ctx: int = DEFAULT_N_CTX,
        n_threads: int | None = None,
        n_batch: int = 512,
        seed: int = 0,
        verbose: bool = False,
    ) -> None:
        self.n_ctx = n_ctx
        self.n_threads = n_threads or os.cpu_count() or 1
        self.n_batch = n_batch
        self.seed = seed
        self.verbose = verbose
        self.stats = LocalStats()
        self._llm: Any = None
        self._batch: Any = None
        self._format: Callable[[Sequence[Message]], str] | None = None
        self._grammars: dict[str, Any] = {}
        self._load_lock = threading.Lock()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragmeter-llama")
        if model_path is None:
            self._embedded: model_store.EmbeddedModel | None = model_store.get_model(embedded_key)
            self.model_path: Path | None = None
            self.name = self._embedded.name
        else:
            path = Path(model_path).expanduser()
            if not path.is_file():
                raise ModelNotAvailable(f"GGUF file not found: {path}")
            if (wrong := gguf_problem(path)) is not None:  # before hashing gigabytes of it
                raise ModelNotAvailable(f"{path} is no GGUF model llama.cpp can load: it {wrong}")
            self._embedded, self.model_path = None, path
            digest = model_store.gguf_sha256(path)
            known = [m for m in model_store.MODELS.values() if m.sha256 == digest]
            self.name = known[0].name if known else f"gguf:{path.name}+{digest[:12]}"

    # ---- loading -------------------------------------------------------------------------

    def load(self) -> None:
        """Load the model now (raises ModelNotAvailable with install instructions)."""
        with self._load_lock:
            if self._llm is not None:
                return
            try:
                import llama_cpp
                from llama_cpp import llama_chat_format
                from llama_cpp._internals import LlamaBatch
            except ImportError as exc:
                raise LlamaCppMissing(
                    f"llama-cpp-python is not installed ({exc}); {model_store.INSTALL_HINT}"
                ) from None
            t0 = time.perf_counter()
            if self.model_path is None:
                assert self._embedded is not None
                self.model_path = model_store.ensure_model(self._embedded.key)
            llm = llama_cpp.Llama(
                model_path=str(self.model_path),
                n_ctx=self.n_ctx,
                n_batch=self.n_batch,
                n_threads=self.n_threads,
                n_threads_batch=self.n_threads,
                seed=self.seed,
                logits_all=False,
                verbose=self.verbose,
            )
            template = llm.metadata.get("tokenizer.chat_template") or _CHATML
            eos = llm.detokenize([llm.token_eos()], special=True).decode("utf-8", "replace")
            bos_id = llm.token_bos()
            bos = llm.detokenize([bos_id], special=True) if bos_id >= 0 else b""
            bos = bos.decode("utf-8", "replace")
            formatter = llama_chat_format.Jinja2ChatFormatter(
                template, eos, bos, add_generation_prompt=True
            )
            self._format = lambda messages: formatter(messages=list(messages)).prompt
            self._batch = LlamaBatch(n_tokens=self.n_batch, embd=0, n_seq_max=1)
            self._llm = llm
            self.stats.load_s += time.perf_counter() - t0

    def cache_params(self) -> dict[str, Any]:
        """Everything besides the request that decides the answer (for cache keys)."""
        # min_rows: verdicts cached before prompts kept MIN_ROWS to decode may differ
        return {
            "temperature": 0.0,
            "seed": self.seed,
            "kv_align": self.kv_align,
            "min_rows": MIN_ROWS,
        }

    def close(self) -> None:
        self._executor.shutdown(wait=True)
        if self._llm is not None:
            self._llm.close()
            self._llm = None

    def _model(self) -> Any:
        if self._llm is None:
            self.load()
        return self._llm

    # ---- tokens ------------------------------------------------------------------------

    def tokenize(self, text: str, *, special: bool = False, add_bos: bool = False) -> list[int]:
        return list(self._model().tokenize(text.encode("utf-8"), add_bos=add_bos, special=special))

    def count_tokens(self, text: str) -> int:
        """Tokens of plain ``text`` (no chat template) in this model's vocabulary."""
        return len(self.tokenize(text))

    def format_chat(self, messages: Sequence[Message]) -> str:
        """The chat prompt with the assistant turn opened (``<|im_start|>assistant\\n``)."""
        self._model()
        assert self._format is not None
        return self._format(messages)

    def count_chat_tokens(self, messages: Sequence[Message]) -> int:
        return len(self._chat_tokens(messages))

    def _chat_tokens(self, messages: Sequence[Message]) -> list[int]:
        return self.tokenize(self.format_chat(messages), special=True, add_bos=True)

    # ---- the worker --------------------------------------------------------------------

    async def _run(self, fn: Callable[[], JudgeReply[R]]) -> JudgeReply[R]:
        """Run ``fn`` on the single llama worker; turn any exception into an error reply."""

        def guarded() -> JudgeReply[R]:
            t0 = time.perf_counter()
            try:
                self._model()
                return fn()
            except Exception as exc:  # model faults are replies, not exceptions
                return JudgeReply(value=None, error=f"{type(exc).__name__}: {exc}")
            finally:
                self.stats.calls += 1
                self.stats.busy_s += time.perf_counter() - t0

        return await asyncio.get_running_loop().run_in_executor(self._executor, guarded)

    def _check_window(self, n_prompt: int, n_reply: int = 0) -> str | None:
        if n_prompt + n_reply > self.n_ctx:
            return (
                f"prompt of {n_prompt} tokens (+{n_reply} for the reply) exceeds the local "
                f"judge's window of n_ctx={self.n_ctx} tokens; shorten or chunk the context"
            )
        return None

    def _account(self, n_prompt: int, n_evaluated: int, n_completion: int = 0) -> Usage:
        self.stats.prompt_tokens += n_prompt
        self.stats.prompt_tokens_evaluated += n_evaluated
        self.stats.completion_tokens += n_completion
        return Usage(
            prompt_tokens=n_prompt,
            completion_tokens=n_completion,
            computed_tokens=n_evaluated + n_completion,
        )

    # ---- Judge ---------------------------------------------------------------------------

    def _grammar(self, schema: type[BaseModel]) -> Any:
        from llama_cpp import LlamaGrammar

        text = json.dumps(schema.model_json_schema())  # property order = generation order
        if text not in self._grammars:
            self._grammars[text] = LlamaGrammar.from_json_schema(text, verbose=False)
        return self._grammars[text]

    async def structured(
        self,
        messages: Sequence[Message],
        schema: type[M],
        *,
        prompt_version: str,
        max_tokens: int = 512,
    ) -> JudgeReply[M]:
        """Grammar-constrained JSON for ``schema`` at temperature 0, validated by pydantic."""

        def work() -> JudgeReply[M]:
            llm = self._llm
            tokens = self._chat_tokens(messages)
            if err := self._check_window(len(tokens), max_tokens):
                return JudgeReply(value=None, error=err)
            # the prompt but its last token in aligned batches (llama_kv.py); generate() then
            # decodes the last one alone, so the reply does not depend on earlier calls
            n_eval = self._evaluate(tokens[:-1], len(tokens), lambda _pos, _rows: None) + 1
            self._forget_after(len(tokens) - 1)
            t0 = time.perf_counter()
            out = llm.create_completion(
                prompt=tokens,
                max_tokens=max_tokens,
                temperature=0.0,
                seed=self.seed,
                grammar=self._grammar(schema),
            )
            self.stats.generate_s += time.perf_counter() - t0
            choice = out["choices"][0]
            text = choice["text"]
            usage = self._account(len(tokens), n_eval, out["usage"]["completion_tokens"])
            try:
                value = schema.model_validate_json(text)
            except ValidationError as exc:
                cut = " (reply cut at max_tokens)" if choice["finish_reason"] == "length" else ""
                return JudgeReply(
                    value=None,
                    raw=text,
                    usage=usage,
                    error=f"schema violation{cut}: {exc.errors()[:3]}",
                )
            return JudgeReply(value=value, raw=text, usage=usage)

        return await self._run(work)

    def option_token_ids(self, options: Sequence[str]) -> dict[str, list[int]]:
        """First-token ids spelling each option (see ``llama_tokens.option_token_ids``)."""
        return option_token_ids(self.tokenize, options)

    async def option_probs(
        self, messages: Sequence[Message], options: Sequence[str], *, prompt_version: str
    ) -> JudgeReply[dict[str, float]]:
        """One forward pass over the chat prompt, P(option) from the next-token distribution.

        ``raw`` holds the options' total probability mass before renormalising and the top
        tokens, which tells when the model wanted to say something else.
        """

        def work() -> JudgeReply[dict[str, float]]:
            if len(set(options)) < 2:
                return JudgeReply(value=None, error="option_probs needs at least two options")
            ids = self.option_token_ids(options)
            empty = [o for o, v in ids.items() if not v]
            if empty:
                return JudgeReply(
                    value=None,
                    error=f"options {empty} have no distinct first token in this vocabulary",
                )
            tokens = self._chat_tokens(messages)
            if err := self._check_window(len(tokens)):
                return JudgeReply(value=None, error=err)
            got: list[np.ndarray] = []
            n_eval = self._evaluate(
                tokens, len(tokens) - 1, lambda _pos, rows: got.append(log_softmax(rows[-1]))
            )
            logp = got[-1]
            mass = {o: float(np.exp(logp[v]).sum()) for o, v in ids.items()}
            total = sum(mass.values())
            usage = self._account(len(tokens), n_eval)
            t0, part = time.perf_counter(), np.argpartition(logp, -5)[-5:]  # no 152k sort
            top = part[np.argsort(logp[part])[::-1]]
            raw = json.dumps(
                {
                    "option_mass": round(total, 6),
                    "top": [
                        [
                            self._llm.detokenize([int(t)]).decode("utf-8", "replace"),
                            round(float(np.exp(logp[t])), 6),
                        ]
                        for t in top
                    ],
                },
                ensure_ascii=False,
            )
            self.stats.logits_s += time.perf_counter() - t0
            if total <= 0.0:
                return JudgeReply(
                    value=None, raw=raw, usage=usage, error="the options have zero probability"
                )
            return JudgeReply(value={o: m / total for o, m in mass.items()}, raw=raw, usage=usage)

        return await self._run(work)

    # ---- Scorer --------------------------------------------------------------------------

    async def target_logprobs(
        self, prompt: str, target: str, *, prompt_version: str
    ) -> JudgeReply[TokenLogprobs]:
        """log p(target_i | prompt, target_<i) for each target token (teacher forcing).

        ``prompt`` is raw text (special tokens such as ``<|im_start|>`` are honoured) and is
        tokenised apart from ``target``, so the target's tokens are exactly its own.
        """

        def work() -> JudgeReply[TokenLogprobs]:
            p_toks = self.tokenize(prompt, special=True, add_bos=True)
            t_toks = self.tokenize(target)
            if not p_toks or not t_toks:
                return JudgeReply(value=None, error="empty prompt or target")
            tokens = p_toks + t_toks
            if err := self._check_window(len(tokens)):
                return JudgeReply(value=None, error=err)
            n_p = len(p_toks)
            lps: list[float] = [0.0] * len(t_toks)

            def take(pos: int, rows: np.ndarray) -> None:
                # row r is at position pos+r and predicts token pos+r+1; one row at a time
                # (a 512-row float64 log-softmax would be 600 MB)
                for r in range(rows.shape[0]):
                    i = pos + r + 1 - n_p
                    if 0 <= i < len(t_toks):
                        lps[i] = float(log_softmax(rows[r])[t_toks[i]])

            n_eval = self._evaluate(tokens, n_p - 1, take)
            pieces = [self._llm.detokenize([t]).decode("utf-8", "replace") for t in t_toks]
            usage = self._account(len(tokens), n_eval)
            return JudgeReply(value=TokenLogprobs(tokens=pieces, logprobs=lps), usage=usage)

        return await self._run(work)
