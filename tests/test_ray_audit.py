"""Found by an audit of the Ray executor, as a user meets it: a cluster that refuses the
client says why, ... (see each test)."""

from __future__ import annotations

from typing import Any

import pytest

from ragmeter.errors import ConfigError
from ragmeter.executors._ray_cluster import connect

AUTH = (
    "ray.exceptions.AuthenticationError: RPC error: InvalidAuthToken: Authentication token "
    "is missing or incorrect."
)


class _RefusingRay:
    """``ray.init`` as Ray 2.60 fails on a cluster started with token authentication: a
    ConnectionError naming only the address, raised from a RuntimeError whose text is the
    traceback that ends in the reason."""

    def init(self, **kw: Any) -> None:
        try:
            raise RuntimeError(
                "Failed to connect to GCS. Last connection error: Traceback (most recent call "
                'last):\n  File "python/ray/includes/common.pxi", line 119, in '
                f"ray._raylet.check_status\n{AUTH}\n"
            )
        except RuntimeError as exc:
            raise ConnectionError("Failed to connect to Ray cluster at 10.0.0.5:6379") from exc


def test_a_refused_connection_says_why() -> None:
    """Before: after Ray's 20 s of retries, "cannot start the Ray run on --ray-address
    10.0.0.5:6379: Failed to connect to Ray cluster at 10.0.0.5:6379", and not a word of the
    missing token."""
    with pytest.raises(ConfigError) as got:
        connect(_RefusingRay(), "10.0.0.5:6379")
    said = str(got.value)
    assert said.startswith("cannot start the Ray run on --ray-address 10.0.0.5:6379: ")
    assert said.endswith(AUTH), said
    assert "Traceback" not in said
