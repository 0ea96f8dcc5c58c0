"""A Ray run's judge usage and facts: what each actor's sessions counted, added up on the
driver into what a local run reports.

Why: the actors' accountants live in their own processes. The driver used to add up the
``judge_usage`` each score carries, which has calls, cache hits and tokens only: a Ray run's
summary.json had no ``failures``, ``retries``, ``per_metric``, ``per_backend``, ``cost_usd``,
``judge``, ``embedder`` or ``unavailable``, and its run.json no ``judge`` facts,
``structured_output`` or ``judge_tokens``, where a local or stream run of the same input
has them all. Now each judged batch carries its actor's cumulative ``session.usage()`` and
facts (on the batch's first row); the driver keeps each actor's latest report (its
sequence number: an actor scores two batches at once, and the one finishing last counted
both) and adds the actors up.
"""

from __future__ import annotations

import json
from typing import Any

from ragmeter.config import Settings
from ragmeter.engine.accounting import Accountant, PriceTable, Tally

TALLY = tuple(Tally().as_dict())  # calls, cache_hits, failures, retries, ... tokens


def report(actor: str, seq: int, sessions: dict[str | None, Any]) -> str:
    """An actor's cumulative usage and facts, per judge endpoint, as one JSON string."""
    return json.dumps(
        {
            "actor": actor,
            "seq": seq,
            "sessions": [
                {"url": url, "usage": s.usage(), "facts": s.facts} for url, s in sessions.items()
            ],
        },
        default=str,
    )


class UsageLedger:
    """The latest report of every actor (restarted actors report as new ones)."""

    def __init__(self) -> None:
        self.latest: dict[str, dict[str, Any]] = {}

    def add(self, texts: list[str]) -> None:
        for text in texts:
            if text:
                doc = json.loads(text)
                seen = self.latest.get(doc["actor"])
                if seen is None or doc["seq"] > seen["seq"]:
                    self.latest[doc["actor"]] = doc

    def _sessions(self) -> list[dict[str, Any]]:
        return [s for doc in self.latest.values() for s in doc["sessions"]]

    def usage(self, s: Settings) -> dict[str, Any]:
        """As ``ModelSession.usage`` (a local run's usage) for all actors together; {} when
        no judged batch ran (a run of arithmetic metrics only, as a local one)."""
        sessions = self._sessions()
        if not sessions:
            return {}
        acc = Accountant(PriceTable({k: (v.input, v.output) for k, v in s.prices.items()}))
        per_metric: dict[str, Tally] = {}
        for sess in sessions:
            used = sess["usage"]
            _add(acc.total, used)
            for group, into in (("per_metric", per_metric), ("per_backend", acc.per_backend)):
                for name, tally in used.get(group, {}).items():
                    _add(into.setdefault(name, Tally()), tally)
        out: dict[str, Any] = acc.total.as_dict()
        out["per_metric"] = {name: t.as_dict() for name, t in per_metric.items()}
        out["per_backend"] = {name: t.as_dict() for name, t in acc.per_backend.items()}
        out["cost_usd"] = acc.cost_usd()
        first = sessions[0]["usage"]
        for key in ("judge", "embedder", "unavailable"):
            out[key] = first.get(key)
        out["model_wall_s"] = max(float(x["usage"].get("model_wall_s") or 0) for x in sessions)
        return out

    def facts(self, urls: list[str], public: str | None) -> dict[str, Any]:
        """The judge and embedder facts (run.json) of the first endpoint's sessions; with
        several endpoints, ``base_url`` names them all (``public``: their public list)."""
        sessions = self._sessions()
        first = urls[0] if urls else None
        chosen = next((x for x in sessions if x["url"] in (first, None)), None)
        if chosen is None:
            chosen = sessions[0] if sessions else {"facts": {}}
        facts = dict(chosen["facts"])
        if len(urls) > 1 and isinstance(facts.get("judge"), dict):
            facts["judge"] = {**facts["judge"], "base_url": public}
        return facts


def _add(tally: Tally, used: dict[str, Any]) -> None:
    for key in TALLY:
        if hasattr(tally, key):
            setattr(tally, key, getattr(tally, key) + int(used.get(key) or 0))
