"""--ray-address misuse is a usage error naming the address, before any work (no Ray
cluster is started: a running one is used as it is, and no address is checked)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ragmeter
from test_streaming import rows


@pytest.mark.parametrize(
    ("address", "said"),
    [
        ("bogus", "is not a Ray address"),
        ("head-node:port", "is not a Ray address"),
        ("127.0.0.1:1", "nothing answers at 127.0.0.1:1"),
        ("ray://127.0.0.1:1", "nothing answers at 127.0.0.1:1"),
    ],
)
def test_a_bad_ray_address_is_refused_before_any_work(
    tmp_path: Path, address: str, said: str
) -> None:
    """Before: 'bogus' ended as "internal error: ValueError" (exit 1) after the file was
    validated and --out claimed; a port where nothing listens waited minutes on Ray."""
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows(2)))
    pytest.importorskip("ray")
    import ray

    if ray.is_initialized():
        pytest.skip("a running Ray is used as it is: no address is checked")
    with pytest.raises(ragmeter.errors.ConfigError, match=said):
        ragmeter.evaluate(
            str(path), ["mrr"], executor="ray", ray_address=address, out=tmp_path / "o"
        )
    assert not (tmp_path / "o").exists()  # refused before --out was claimed
