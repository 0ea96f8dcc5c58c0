"""Unitxt answer reward: a reward model scores (question, answer); score = sigmoid(logit).

No reward weights ship offline. Point the option ``reward_model=PATH`` at a local copy of a
Hugging Face sequence-classification reward model (Unitxt uses
OpenAssistant/reward-model-deberta-v3-large-v2); the run's resources load it
(``ragmeter.backends.hf``). Without one (or with a path or packages missing) a run naming
the metric is refused before any work (``availability``); called directly, it fails with
that advice.
"""

from __future__ import annotations

from ragmeter.errors import ResourceUnavailable
from ragmeter.metrics.base import Metric, Score
from ragmeter.metrics.judging import guarded
from ragmeter.protocols import Resources
from ragmeter.sample import Sample

HOW_TO = (
    "answer_reward needs a reward model: download a Hugging Face sequence-classification "
    "reward model (e.g. OpenAssistant/reward-model-deberta-v3-large-v2) and set "
    "the option reward_model=PATH (Settings(options={'reward_model': PATH}))"
)


@guarded
async def answer_reward(sample: Sample, resources: Resources) -> Score:
    model = getattr(resources, "reward_model", None)
    if model is None:
        raise ResourceUnavailable(HOW_TO)
    if not callable(getattr(model, "score", None)):
        raise ResourceUnavailable(
            f"answer_reward: the reward model must be loaded by ragmeter's resources (got "
            f"{type(model).__name__}); give its path as the option reward_model"
        )
    reply = await model.score(sample.question, sample.answer or "")
    if not reply.ok or reply.value is None:
        return Score.failed(f"reward model error: {reply.error}")
    logit = float(reply.raw) if reply.raw else None
    return Score.ok(reply.value, logit=logit, model=getattr(model, "name", None))


METRIC = Metric(
    name="answer_reward",
    description="Unitxt answer reward: sigmoid of a reward model's logit for (question, answer) "
    "(needs a local reward model path).",
    requires=(("question", "answer"),),
    acompute=answer_reward,
    needs=frozenset({"reward_model"}),
    default=False,
    formula="sigmoid(RM(question, answer))",
)
