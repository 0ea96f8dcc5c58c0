import asyncio

import numpy as np

from ragmeter.engine.embedder import CachedEmbedder
from ragmeter.protocols import JudgeReply


class _NaN:
    name = "fake:nan"

    async def embed(self, texts):
        m = np.ones((len(texts), 4), np.float32)
        m[0] = np.nan
        return JudgeReply(m)


def test_a_nan_vector_fails_the_batch_naming_why() -> None:
    got = asyncio.run(CachedEmbedder(_NaN()).embed(["a", "b"]))
    assert not got.ok and "NaN" in (got.error or "")
