"""Versioned prompt files, one per metric family (JSON, shipped as package data).

Every prompt file has a ``version``; it is part of every judge call (and so of every cache
key), so editing a prompt without bumping its version is a bug. A section may carry a
version of its own (``generate.version`` in faithfulness.json, ``answer_generate.version`` in
relevance.json): its calls use that one, so editing the section leaves the others' cache keys.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from importlib import resources
from typing import Any


@cache
def load_prompts(family: str) -> dict[str, Any]:
    """The prompt file ``<family>.json`` of this package, parsed."""
    text = resources.files(__package__).joinpath(f"{family}.json").read_text(encoding="utf-8")
    data = json.loads(text)
    if "version" not in data:
        raise ValueError(f"prompt file {family}.json has no version")
    return data


@cache
def prompt_file_sha256(family: str) -> str:
    """sha256 of the prompt file's bytes, as a run's manifest records it: a prompt edited
    without a version bump still shows as a different hash."""
    data = resources.files(__package__).joinpath(f"{family}.json").read_bytes()
    return hashlib.sha256(data).hexdigest()
