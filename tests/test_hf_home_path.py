"""A Hugging Face model's path with ``~`` (``scorer_model=~/m`` in a config file, where no
shell expands it) is loaded from the home directory: it was looked up as a directory named
"~" and every score failed with "path not found"."""

from __future__ import annotations

from pathlib import Path

import pytest

from needs import require_module
from ragmeter.backends import hf
from ragmeter.metrics.perplexity import context_relevance_perplexity
from ragmeter.metrics.reward import answer_reward
from ragmeter.protocols import Resources
from ragmeter.sample import Sample
from tiny_hf import build_gpt2, build_reward

S = Sample(
    question="what is the capital of france ?",
    question_id="q",
    answer="paris is the capital .",
    contexts=["paris is the capital of france ."],
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    require_module("transformers")
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


async def test_a_reward_model_under_home_is_loaded_from_a_tilde_path(home: Path):
    build_reward(home / "rm")
    model = hf.HFRewardModel("~/rm")
    assert model.path == str(home / "rm")
    s = await answer_reward(S, Resources(reward_model=model))
    assert s.status == "ok", s.reason
    # one model per place: "~/rm" and its expansion share the process-wide instance
    assert hf.hf_reward_model("~/rm") is hf.hf_reward_model(str(home / "rm"))


async def test_a_scorer_model_under_home_is_loaded_from_a_tilde_path(home: Path):
    build_gpt2(home / "lm")
    scorer = hf.HFScorer("~/lm")
    s = await context_relevance_perplexity(S, Resources(scorer=scorer))
    assert s.status == "ok", s.reason
    assert hf.hf_scorer("~/lm") is hf.hf_scorer(str(home / "lm"))


def test_the_up_front_check_finds_a_tilde_path_as_the_loader_does(home: Path):
    """The plan's check looked for a directory named "~" and refused a path the loader
    (above) reads."""
    from ragmeter.availability import _hf_problem

    (home / "rm").mkdir()
    (home / "rm" / "config.json").write_text("{}")  # a saved model's files, by name
    (home / "rm" / "model.safetensors").write_bytes(b"")
    assert _hf_problem("reward_model", "~/rm") is None
    assert "names no file" in (_hf_problem("reward_model", "~/absent") or "")
