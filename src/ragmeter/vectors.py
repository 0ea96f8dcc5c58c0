"""Vector arithmetic shared by embedders, metrics and the engine, written once.

Embedding similarity is cosine, which is a dot product once rows have unit length; every
caller normalises through ``unit_rows`` so a zero vector (an empty text) stays zero
instead of becoming NaN.
"""

from __future__ import annotations

import numpy as np


def unit_rows(matrix: np.ndarray, dtype: type = np.float64) -> np.ndarray:
    """Each row scaled to unit L2 norm; all-zero rows stay zero. A 1-D input becomes 1 row.

    >>> unit_rows(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
    [[0.6, 0.8], [0.0, 0.0]]
    """
    m = np.asarray(matrix, dtype=dtype)
    if m.ndim == 1:
        m = m[None, :]
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return m / np.where(norms == 0, 1.0, norms)


def cosine_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarity of every row of ``a`` with every row of ``b``: shape (len a, len b).

    >>> cosine_matrix(np.array([[1.0, 0.0]]), np.array([[1.0, 1.0], [0.0, 2.0]])).round(3).tolist()
    [[0.707, 0.0]]
    """
    return unit_rows(a) @ unit_rows(b).T


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """log(softmax(x)) along the last axis, computed stably (float64).

    >>> log_softmax(np.array([0.0, 0.0])).round(4).tolist()
    [-0.6931, -0.6931]
    """
    x = np.asarray(logits).astype(np.float64)
    m = x.max(axis=-1, keepdims=True)
    return x - (m + np.log(np.exp(x - m).sum(axis=-1, keepdims=True)))
