"""A local model's cache identity names its files, not only its folder: two models saved in
folders of one name (``runs/a/final``, ``runs/b/final``), or one retrained in place, never
share cached embeddings or log-probabilities; the same files keep one identity (a resume)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ragmeter.backends.embedders import SentenceTransformerEmbedder
from ragmeter.backends.hf import HFScorer


def _model(folder: Path, weights: bytes) -> Path:
    folder.mkdir(parents=True)
    (folder / "config.json").write_text("{}")
    (folder / "model.safetensors").write_bytes(weights)
    return folder


@pytest.mark.parametrize("make", [SentenceTransformerEmbedder, HFScorer])
def test_models_in_folders_of_one_name_have_their_own_identity(tmp_path: Path, make) -> None:
    a = _model(tmp_path / "a" / "final", b"weights of a")
    b = _model(tmp_path / "b" / "final", b"weights of model b")
    assert make(a).name != make(b).name
    assert make(a).name == make(a).name  # the same files: one identity, a resume hits


@pytest.mark.parametrize("make", [SentenceTransformerEmbedder, HFScorer])
def test_a_model_retrained_in_place_is_another_identity(tmp_path: Path, make) -> None:
    folder = _model(tmp_path / "final", b"epoch 1")
    before = make(folder).name
    (folder / "model.safetensors").write_bytes(b"epoch 2")
    os.utime(folder / "model.safetensors", ns=(1, 1))  # whatever its time, it changed
    assert make(folder).name != before
